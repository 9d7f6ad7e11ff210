package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdkpb "go.temporal.io/api/sdk/v1"
)

// trackedSite is a small shop whose pages change between two versions in
// every way change tracking must tell apart: with an ETag or a
// Last-Modified, or neither; unchanged, changed in a script only, or
// edited; gone (404), no longer linked, or new. It counts, per path, the
// requests, those that were conditional, and the 304s it answered.
type trackedSite struct {
	*httptest.Server
	mu          sync.Mutex
	version     int
	requests    map[string]int
	conditional map[string]int
	notModified map[string]int
	bytes       int
}

func newTrackedSite(t *testing.T) *trackedSite {
	s := &trackedSite{version: 1, requests: map[string]int{}, conditional: map[string]int{}, notModified: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// next moves the site to its second version and forgets its counts.
func (s *trackedSite) next() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = 2
	s.requests, s.conditional, s.notModified, s.bytes = map[string]int{}, map[string]int{}, map[string]int{}, 0
}

func (s *trackedSite) count(m map[string]int, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m[path]
}

func (s *trackedSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.version
	s.requests[r.URL.Path]++
	if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
		s.conditional[r.URL.Path]++
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	product := func(name string, price int, extra string) string {
		return fmt.Sprintf("<html><head><title>%s</title>%s</head><body><main><h1>%s</h1><p>The %s costs %d euros.</p>"+
			"<p>It ships within two days to every country of the union.</p></main></body></html>", name, extra, name, name, price)
	}
	var body string
	switch r.URL.Path {
	case "/__next":
		s.next()
		return
	case "/":
		links := []string{"etag-same", "etag-edit", "lm-same", "plain-same", "plain-script", "plain-edit", "gone", "orphan"}
		if v == 2 {
			links = append(links[:len(links)-1], "new")
		}
		var b strings.Builder
		latest := map[int]string{1: "Sieve", 2: "Whisk"}[v]
		fmt.Fprintf(&b, "<html><head><title>Shop</title></head><body><main><h1>Shop</h1><p>Our latest arrival is the %s.</p><ul>", latest)
		for _, l := range links {
			fmt.Fprintf(&b, `<li><a href="/tracked/%s">%s</a></li>`, l, l)
		}
		b.WriteString("</ul></main></body></html>")
		body = b.String()
	case "/tracked/etag-same":
		if s.validated(w, r, `"same-1"`, "") {
			return
		}
		body = product("Kettle", 10, "")
	case "/tracked/etag-edit":
		price, etag := 10, `"edit-1"`
		if v == 2 {
			price, etag = 12, `"edit-2"`
		}
		if s.validated(w, r, etag, "") {
			return
		}
		body = product("Teapot", price, "")
	case "/tracked/lm-same":
		if s.validated(w, r, "", "Wed, 01 Jul 2026 10:00:00 GMT") {
			return
		}
		body = product("Mug", 4, "")
	case "/tracked/plain-same":
		body = product("Spoon", 2, "")
	case "/tracked/plain-script":
		body = product("Saucer", 3, fmt.Sprintf("<script>var served = %d;</script>", v))
	case "/tracked/plain-edit":
		price := 20
		if v == 2 {
			price = 25
		}
		body = product("Tray", price, "")
	case "/tracked/gone":
		if v == 2 {
			http.NotFound(w, r)
			return
		}
		body = product("Jug", 7, "")
	case "/tracked/orphan":
		body = product("Sieve", 5, "")
	case "/tracked/new":
		if v == 1 {
			http.NotFound(w, r)
			return
		}
		body = product("Whisk", 6, "")
	default:
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.bytes += len(body)
	s.mu.Unlock()
	fmt.Fprint(w, body)
}

// validated sets a page's validators and answers 304 when the request
// names them.
func (s *trackedSite) validated(w http.ResponseWriter, r *http.Request, etag, modified string) bool {
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if modified != "" {
		w.Header().Set("Last-Modified", modified)
	}
	if (etag != "" && r.Header.Get("If-None-Match") == etag) || (modified != "" && r.Header.Get("If-Modified-Since") == modified) {
		s.mu.Lock()
		s.notModified[r.URL.Path]++
		s.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

// trackedPage is a page as the change-tracking answers show it.
type trackedPage struct {
	resultPage
	ChangeStatus      string     `json:"changeStatus"`
	PreviousFetchedAt *time.Time `json:"previousFetchedAt"`
	Diff              string     `json:"diff"`
	ChangedFields     map[string]struct {
		Previous any `json:"previous"`
		Current  any `json:"current"`
	} `json:"changedFields"`
	Reason string `json:"reason"`
}

// trackedCrawl is a crawl's change-tracking fields.
type trackedCrawl struct {
	ID              string  `json:"id"`
	ChangeTracking  bool    `json:"changeTracking"`
	PreviousCrawlID *string `json:"previousCrawlId"`
	ScheduleID      *string `json:"scheduleId"`
	Changes         *struct {
		New, Changed, Same, Removed int
	} `json:"changes"`
}

// readTracked reads a crawl's change fields, its result pages and its
// changes, by path.
func readTracked(t *testing.T, api, key, id, base string) (trackedCrawl, map[string]trackedPage, map[string]trackedPage) {
	t.Helper()
	var c trackedCrawl
	if status, raw := call(t, "GET", api+"/crawls/"+id, key, nil, &c); status != http.StatusOK {
		t.Fatalf("GET crawl = %d %s", status, raw)
	}
	read := func(path string) map[string]trackedPage {
		out := map[string]trackedPage{}
		var p pageOf[trackedPage]
		if status, raw := call(t, "GET", api+"/crawls/"+id+path+"?limit=100", key, nil, &p); status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, status, raw)
		}
		for _, r := range p.Results {
			out[strings.TrimPrefix(r.URL, base)] = r
		}
		return out
	}
	return c, read("/pages"), read("/changes")
}

func statusesOf(pages map[string]trackedPage) map[string]string {
	out := map[string]string{}
	for path, p := range pages {
		out[path] = p.ChangeStatus
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestChangeTracking crawls a site twice with changeTracking and an
// extraction, the site changing in between: the second crawl asks for the
// pages with their validators, keeps the unchanged ones' markdown and
// extraction without calling the LLM, and reports every change exactly,
// with diffs and changed fields; another team's crawl of the same site
// compares with nothing.
func TestChangeTracking(t *testing.T) {
	t.Parallel()
	site := newTrackedSite(t)
	body := map[string]any{"startUrl": site.URL + "/", "changeTracking": true, "maxDepth": 2,
		"extraction": "Return the product's price as JSON.", "maxConcurrentPages": 4}

	first := create(t, env.llmAPI, env.keyA, body)
	waitStatus(t, env.llmAPI, env.keyA, first.ID, 2*time.Minute, "succeeded")
	c1, pages1, changes1 := readTracked(t, env.llmAPI, env.keyA, first.ID, site.URL)
	if !c1.ChangeTracking || c1.PreviousCrawlID != nil || c1.Changes == nil || c1.Changes.New != 9 || c1.Changes.Changed+c1.Changes.Same+c1.Changes.Removed != 0 {
		t.Fatalf("first crawl: %+v (changes %+v), want 9 new pages and no baseline", c1, c1.Changes)
	}
	for path, p := range pages1 {
		if p.ChangeStatus != "new" || p.PreviousFetchedAt != nil {
			t.Errorf("first crawl: %s is %q", path, p.ChangeStatus)
		}
	}
	if len(changes1) != 9 {
		t.Errorf("first crawl's changes: %v, want its 9 pages, all new", sortedKeys(changes1))
	}
	callsBefore := map[string]int{}
	for path := range pages1 {
		callsBefore[path] = len(callsFor(site.URL + path))
	}

	site.next()
	second := create(t, env.llmAPI, env.keyA, body)
	waitStatus(t, env.llmAPI, env.keyA, second.ID, 2*time.Minute, "succeeded")
	c2, pages2, changes2 := readTracked(t, env.llmAPI, env.keyA, second.ID, site.URL)
	if c2.PreviousCrawlID == nil || *c2.PreviousCrawlID != first.ID {
		t.Fatalf("second crawl compares with %v, want %s", c2.PreviousCrawlID, first.ID)
	}
	want := map[string]string{"/": "changed", "/tracked/etag-same": "same", "/tracked/etag-edit": "changed",
		"/tracked/lm-same": "same", "/tracked/plain-same": "same", "/tracked/plain-script": "same",
		"/tracked/plain-edit": "changed", "/tracked/new": "new"}
	if got := statusesOf(pages2); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("second crawl's pages:\n got %v\nwant %v", got, want)
	}
	wantChanges := map[string]string{"/": "changed", "/tracked/etag-edit": "changed", "/tracked/plain-edit": "changed",
		"/tracked/new": "new", "/tracked/gone": "removed", "/tracked/orphan": "removed"}
	if got := statusesOf(changes2); fmt.Sprint(got) != fmt.Sprint(wantChanges) {
		t.Errorf("second crawl's changes:\n got %v\nwant %v", got, wantChanges)
	}
	if n := c2.Changes; n == nil || *n != (struct{ New, Changed, Same, Removed int }{1, 3, 4, 2}) {
		t.Errorf("second crawl's counts = %+v, want 1 new, 3 changed, 4 same, 2 removed", n)
	}
	if r := changes2["/tracked/gone"].Reason; !strings.Contains(r, "404") {
		t.Errorf("/tracked/gone removed because %q, want its 404", r)
	}
	if r := changes2["/tracked/orphan"].Reason; !strings.Contains(r, "no longer linked") {
		t.Errorf("/tracked/orphan removed because %q, want no longer linked", r)
	}

	// The validated pages were asked for conditionally and not sent again.
	for _, path := range []string{"/tracked/etag-same", "/tracked/lm-same"} {
		if site.count(site.conditional, path) != 1 || site.count(site.notModified, path) != 1 {
			t.Errorf("%s: %d conditional requests, %d answered 304; want one of each", path,
				site.count(site.conditional, path), site.count(site.notModified, path))
		}
	}
	if n := site.count(site.conditional, "/tracked/etag-edit"); n != 1 || site.count(site.notModified, "/tracked/etag-edit") != 0 {
		t.Errorf("/tracked/etag-edit: %d conditional requests, %d 304s; want a conditional request answered in full", n,
			site.count(site.notModified, "/tracked/etag-edit"))
	}
	for _, path := range []string{"/tracked/plain-same", "/tracked/new"} {
		if n := site.count(site.conditional, path); n != 0 {
			t.Errorf("%s had %d conditional requests without validators to send", path, n)
		}
	}

	// Same pages keep their markdown and extraction; only new and changed
	// pages went to the LLM.
	for path, p := range pages2 {
		calls := len(callsFor(site.URL+path)) - callsBefore[path]
		switch p.ChangeStatus {
		case "same":
			if calls != 0 {
				t.Errorf("%s is the same but was sent to the LLM %d times", path, calls)
			}
			if p.Markdown != pages1[path].Markdown || string(p.Extraction) != string(pages1[path].Extraction) {
				t.Errorf("%s is the same but its markdown or extraction differs:\n%s %s\n%s %s", path,
					pages1[path].Markdown, pages1[path].Extraction, p.Markdown, p.Extraction)
			}
			if p.PreviousFetchedAt == nil || p.Diff != "" {
				t.Errorf("%s: previousFetchedAt %v, diff %q", path, p.PreviousFetchedAt, p.Diff)
			}
		default:
			if calls != 1 {
				t.Errorf("%s is %s and was sent to the LLM %d times, want once", path, p.ChangeStatus, calls)
			}
		}
	}
	edit := changes2["/tracked/etag-edit"]
	for _, line := range []string{"--- a/page.md", "+++ b/page.md", "-The Teapot costs 10 euros.", "+The Teapot costs 12 euros."} {
		if !strings.Contains(edit.Diff, "\n"+line+"\n") {
			t.Errorf("/tracked/etag-edit's diff lacks %q:\n%s", line, edit.Diff)
		}
	}
	if f, ok := edit.ChangedFields["price"]; !ok || f.Previous != float64(10) || f.Current != float64(12) || len(edit.ChangedFields) != 1 {
		t.Errorf("/tracked/etag-edit's changed fields = %+v, want price 10 → 12", edit.ChangedFields)
	}
	if d := changes2["/"].Diff; !strings.Contains(d, "\n-Our latest arrival is the Sieve.\n") || !strings.Contains(d, "\n+Our latest arrival is the Whisk.\n") {
		t.Errorf("the start page's diff does not show its text changing:\n%s", d)
	}

	logs := allLogs(t, env.llmAPI, env.keyA, second.ID, 100)
	var summary, removed int
	for _, l := range logs {
		switch l.Message {
		case "Changes found":
			summary++
			if !strings.Contains(l.Description, "1 new pages, 3 changed, 4 the same, 2 removed") {
				t.Errorf("changes entry: %s", l.Description)
			}
		case "Page removed":
			removed++
		case "Change tracking":
			if l.Data["previousCrawlId"] != first.ID {
				t.Errorf("baseline entry: %v", l.Data)
			}
		}
	}
	if summary != 1 || removed != 2 {
		t.Errorf("%d changes entries and %d removed-page entries, want 1 and 2", summary, removed)
	}
	for _, h := range crawlHistories(t, "crawl-"+second.ID) {
		replayHistory(t, "crawl-"+second.ID, h)
	}
	// The Temporal UI's current details of the ended crawl say it too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := env.temporal.QueryWorkflow(ctx, "crawl-"+second.ID, "", "__temporal_workflow_metadata")
	if err != nil {
		t.Fatal(err)
	}
	var meta sdkpb.WorkflowMetadata
	if err := v.Get(&meta); err != nil || !strings.Contains(meta.GetCurrentDetails(), "1 new, 3 changed, 4 same, 2 removed") {
		t.Errorf("current details %q (%v)", meta.GetCurrentDetails(), err)
	}

	// Another team's crawl of the same site shares nothing with these.
	other := create(t, env.llmAPI, env.keyB, body)
	waitStatus(t, env.llmAPI, env.keyB, other.ID, 2*time.Minute, "succeeded")
	c3, pages3, _ := readTracked(t, env.llmAPI, env.keyB, other.ID, site.URL)
	if c3.PreviousCrawlID != nil || c3.Changes == nil || c3.Changes.New != len(pages3) {
		t.Errorf("another team's crawl compares with %v (changes %+v), want nothing", c3.PreviousCrawlID, c3.Changes)
	}
}

// TestScrapeChangeTracking scrapes one page twice through Firecrawl's API
// with the changeTracking format: new the first time, then the same with
// when it was scraped before, then changed with its diff.
func TestScrapeChangeTracking(t *testing.T) {
	t.Parallel()
	site := newTrackedSite(t)
	scrape := func() map[string]any {
		var out struct {
			Data struct {
				ChangeTracking map[string]any `json:"changeTracking"`
			} `json:"data"`
		}
		body := map[string]any{"url": site.URL + "/tracked/plain-edit",
			"formats": []any{"markdown", map[string]any{"type": "changeTracking", "modes": []string{"git-diff"}}}}
		if status, raw := call(t, "POST", env.api+"/v2/scrape", env.keyA, body, &out); status != http.StatusOK {
			t.Fatalf("scrape = %d %s", status, raw)
		}
		return out.Data.ChangeTracking
	}
	if ct := scrape(); ct["changeStatus"] != "new" || ct["previousScrapeAt"] != nil || ct["visibility"] != "visible" {
		t.Errorf("first scrape: %v", ct)
	}
	if ct := scrape(); ct["changeStatus"] != "same" || ct["previousScrapeAt"] == nil || ct["diff"] != nil {
		t.Errorf("second scrape: %v", ct)
	}
	site.next()
	ct := scrape()
	if diff, _ := ct["diff"].(string); ct["changeStatus"] != "changed" || !strings.Contains(diff, "+The Tray costs 25 euros.") {
		t.Errorf("scrape after the edit: %v", ct)
	}
	raw, _ := json.Marshal(ct)
	t.Logf("changeTracking after the edit: %s", raw)
}

// TestChangedOnlyWebhook: a change-tracking crawl whose webhook asks for
// changed pages only sends page events for the pages new and changed since
// the previous crawl, and for those it removed, then completed.
func TestChangedOnlyWebhook(t *testing.T) {
	t.Parallel()
	site := newTrackedSite(t)
	recv := &hookReceiver{open: true}
	hook := httptest.NewServer(recv)
	t.Cleanup(hook.Close)
	body := map[string]any{"startUrl": site.URL + "/", "changeTracking": true, "maxDepth": 2,
		"webhook": map[string]any{"url": hook.URL, "changedOnly": true}}
	first := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, first.ID, time.Minute, "succeeded")
	site.next()
	second := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, second.ID, time.Minute, "succeeded")
	deadline := time.Now().Add(30 * time.Second)
	var pages map[string]string
	for {
		recv.mu.Lock()
		pages = map[string]string{}
		ended := false
		for _, b := range recv.accepted {
			if b.ID != second.ID {
				continue
			}
			ended = ended || b.Type == "crawl.completed"
			for _, raw := range b.Data {
				var doc struct {
					Metadata       map[string]any `json:"metadata"`
					ChangeTracking struct {
						ChangeStatus string `json:"changeStatus"`
					} `json:"changeTracking"`
				}
				_ = json.Unmarshal(raw, &doc)
				url, _ := doc.Metadata["sourceURL"].(string)
				pages[strings.TrimPrefix(url, site.URL)] = doc.ChangeTracking.ChangeStatus
			}
		}
		recv.mu.Unlock()
		if ended || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	want := map[string]string{"/": "changed", "/tracked/etag-edit": "changed", "/tracked/plain-edit": "changed",
		"/tracked/new": "new", "/tracked/gone": "removed", "/tracked/orphan": "removed"}
	if fmt.Sprint(pages) != fmt.Sprint(want) {
		t.Errorf("page events of the second crawl:\n got %v\nwant %v", pages, want)
	}
}

// TestSitemapLastMod: a change-tracking crawl from a sitemap does not ask
// again for a page whose lastmod is not newer than the previous crawl's
// fetch of it; a page the sitemap says changed since, or gives no date
// for, is asked for.
func TestSitemapLastMod(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	requests := map[string]int{}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://%[1]s/old</loc><lastmod>2026-01-01</lastmod></url>
<url><loc>http://%[1]s/fresh</loc><lastmod>%[2]s</lastmod></url>
<url><loc>http://%[1]s/undated</loc></url></urlset>`, r.Host, future)
		case "/", "/old", "/fresh", "/undated":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>Page %s</h1><p>The text of %s, long enough to be read as the page's own.</p></main></body></html>",
				r.URL.Path, r.URL.Path, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	body := map[string]any{"startUrl": site.URL + "/", "useSitemap": true, "changeTracking": true}
	first := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, first.ID, time.Minute, "succeeded")
	mu.Lock()
	requests = map[string]int{}
	mu.Unlock()
	second := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, second.ID, time.Minute, "succeeded")
	_, pages, _ := readTracked(t, env.api, env.keyA, second.ID, site.URL)
	mu.Lock()
	defer mu.Unlock()
	if requests["/old"] != 0 || requests["/fresh"] != 1 || requests["/undated"] != 1 {
		t.Errorf("second crawl's requests: %v; want /old not asked for, /fresh and /undated once", requests)
	}
	for _, path := range []string{"/old", "/fresh", "/undated"} {
		if pages[path].ChangeStatus != "same" {
			t.Errorf("%s is %q, want same", path, pages[path].ChangeStatus)
		}
	}
	if pages["/old"].Markdown == "" || !strings.Contains(pages["/old"].Markdown, "The text of /old") {
		t.Errorf("/old kept no markdown: %q", pages["/old"].Markdown)
	}
}
