package batch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/fakefetch"
	"github.com/durablecrawl/crawler/linkmemo"
	"github.com/durablecrawl/crawler/urlnorm"
	"github.com/durablecrawl/crawler/urlpattern"
)

// newBatch is batch 3 of f's crawl over store f, fetching with engine two
// pages at a time and reading robots.txt files with static (obeying them
// with obeyRobots).
func newBatch(f *fakeStore, engine, static Fetcher, obeyRobots bool, in Input) *Batch {
	in.CrawlID, in.Batch, in.Limit = f.crawl.ID.String(), 3, 100
	e := &Engine{Store: f, Static: static, ObeyRobots: obeyRobots, UserAgent: "durablecrawl/test"}
	return e.New(f.crawl, in, engine, crawl.EngineCheerio, fetch.Batch{Parallelism: 2})
}

// fetchCounts is a FetchObserver that counts fetches by engine and
// status, and their bytes.
type fetchCounts struct {
	mu       sync.Mutex
	byStatus map[string]int
	bytes    int
}

func (f *fetchCounts) PageFetched(engine string, status, bytes int, _ time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byStatus == nil {
		f.byStatus = map[string]int{}
	}
	f.byStatus[fmt.Sprintf("%s %d", engine, status)]++
	f.bytes += bytes
}

// claimed is a page claimed by the batch.
func claimed(id int64, rawURL string, depth int, rank string) crawl.Page {
	return crawl.Page{ID: id, URL: rawURL, NormalizedURL: strings.TrimPrefix(strings.TrimPrefix(rawURL, "https:"), "http:"),
		Depth: depth, Rank: rank, State: crawl.PageClaimed}
}

// outcomesByID returns the saved outcomes by page, failing the test on a
// page saved twice.
func outcomesByID(t *testing.T, outs []db.FetchOutcome) map[int64]db.FetchOutcome {
	t.Helper()
	m := map[int64]db.FetchOutcome{}
	for _, o := range outs {
		if _, dup := m[o.PageID]; dup {
			t.Errorf("page %d saved twice", o.PageID)
		}
		m[o.PageID] = o
	}
	return m
}

// TestFetchBatch fetches a batch whose pages meet every fate, and checks
// what is saved for each, what is fetched and what is counted.
func TestFetchBatch(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 2})
	f := &fakeStore{crawl: c, claim: []crawl.Page{
		claimed(1, "https://example.com/", 0, "000"),
		claimed(2, "https://example.com/busy", 1, "000000"),
		claimed(3, "https://example.com/gone", 1, "000001"),
		claimed(4, "https://example.com/moved", 1, "000002"),
		claimed(5, "https://example.com/copy", 1, "000003"),
		{ID: 6, URL: "https://example.com/saved", State: crawl.PageFetched}, // saved by an earlier attempt
		{ID: 7, URL: "https://example.com/failed", State: crawl.PageFailed}, // likewise
	}}
	home := fakefetch.HTML("<html><body><h1>Home</h1></body></html>")
	home.Links = []string{"https://example.com/a", "https://other.org/x", "https://example.com/b#part", "https://example.com/a"}
	moved := fakefetch.HTML("<p>moved</p>")
	moved.FinalURL = "https://example.com/elsewhere"
	cp := fakefetch.HTML("<p>a copy</p>")
	cp.Canonical, cp.Links = "https://example.com/original", []string{"https://example.com/c"}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/":      home,
		"https://example.com/busy":  {StatusCode: 503, ContentType: "text/html"},
		"https://example.com/gone":  {StatusCode: 404, ContentType: "text/html"},
		"https://example.com/moved": moved,
		"https://example.com/copy":  cp,
	}}

	b := newBatch(f, engine, nil, false, Input{})
	observed := &fetchCounts{}
	b.observer = observed
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Claimed: 7, Fetched: 2, Failed: 2, Skipped: 2, Retried: 1}
	if res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	wantObserved := map[string]int{"static 200": 3, "static 503": 1, "static 404": 1}
	if !maps.Equal(observed.byStatus, wantObserved) || observed.bytes != len(home.Body)+len(moved.Body)+len(cp.Body) {
		t.Errorf("fetches observed %v, %d bytes; want %v", observed.byStatus, observed.bytes, wantObserved)
	}
	asked := slices.Sorted(slices.Values(engine.Asked()))
	wantAsked := []string{"https://example.com/", "https://example.com/busy", "https://example.com/copy",
		"https://example.com/gone", "https://example.com/moved"}
	if !reflect.DeepEqual(asked, wantAsked) {
		t.Errorf("fetched %q, want %q", asked, wantAsked)
	}

	outs := outcomesByID(t, f.outcomes)
	if len(outs) != 5 {
		t.Errorf("%d outcomes saved, want 5 (pages 1 to 5)", len(outs))
	}
	t.Run("kept with links", func(t *testing.T) {
		o := outs[1]
		if o.State != crawl.PageFetched || o.HTML != string(home.Body) || o.StatusCode != 200 ||
			o.Engine != crawl.EngineCheerio || o.FinalURL != "https://example.com/" || o.Bytes != len(home.Body) {
			t.Errorf("outcome %+v", o)
		}
		wantLinks := []db.NewPage{
			{URL: "https://example.com/a", NormalizedURL: "//example.com/a", Depth: 1, Rank: "000000"},
			{URL: "https://example.com/b", NormalizedURL: "//example.com/b", Depth: 1, Rank: "000001"},
		}
		if !reflect.DeepEqual(o.Links, wantLinks) {
			t.Errorf("links %+v, want %+v", o.Links, wantLinks)
		}
	})
	t.Run("503 retried", func(t *testing.T) {
		o := outs[2]
		if o.State != crawl.PageQueued || o.RetryIn != time.Second || o.StatusCode != 503 {
			t.Errorf("outcome %+v, want queued again in 1s", o)
		}
		if len(o.Logs) != 1 || o.Logs[0].Message != "Page retried" || o.Logs[0].CrawlID != c.ID {
			t.Errorf("retry entries %+v", o.Logs)
		}
	})
	t.Run("404 failed", func(t *testing.T) {
		o := outs[3]
		if o.State != crawl.PageFailed || o.RetryIn != 0 || len(o.Logs) != 0 || !strings.Contains(o.Error, "404") {
			t.Errorf("outcome %+v, want failed for its 404", o)
		}
	})
	t.Run("redirect to another page's address", func(t *testing.T) {
		o := outs[4]
		if o.State != crawl.PageSkipped || o.HTML != "" || !strings.Contains(o.Error, "already has") {
			t.Errorf("outcome %+v, want skipped", o)
		}
		want := []db.NewPage{{URL: "https://example.com/elsewhere", NormalizedURL: "//example.com/elsewhere", Depth: 1}}
		if !reflect.DeepEqual(f.redirects, want) {
			t.Errorf("redirect targets claimed %+v, want %+v", f.redirects, want)
		}
		// The target's reason names the page that followed the redirect,
		// which marks the claim as its own.
		if note := fmt.Sprintf("reached through a redirect; kept as page %d", o.PageID); !reflect.DeepEqual(f.notes, []string{note}) {
			t.Errorf("redirect target claimed with %q, want %q", f.notes, note)
		}
		if f.notRecorded != "the page could not be recorded: refused" {
			t.Errorf("a page the database refuses would read %q", f.notRecorded)
		}
	})
	t.Run("canonical page unknown", func(t *testing.T) {
		o := outs[5]
		if o.State != crawl.PageSkipped || o.HTML != "" || !strings.Contains(o.Error, "canonical") {
			t.Errorf("outcome %+v, want skipped for its canonical page", o)
		}
		wantLinks := []db.NewPage{
			{URL: "https://example.com/original", NormalizedURL: "//example.com/original", Depth: 1, Rank: "000003"},
			{URL: "https://example.com/c", NormalizedURL: "//example.com/c", Depth: 2, Rank: "000003000"},
		}
		if !reflect.DeepEqual(o.Links, wantLinks) {
			t.Errorf("links %+v, want %+v", o.Links, wantLinks)
		}
	})
}

// TestFetchBatchCanonicalKept: a page whose canonical page the crawl
// already keeps is skipped, and the canonical page is not queued again.
func TestFetchBatchCanonicalKept(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 2})
	f := &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/copy", 1, "000")},
		states: map[string]crawl.PageState{"//example.com/original": crawl.PageStored}}
	cp := fakefetch.HTML("<p>a copy</p>")
	cp.Canonical = "https://example.com/original"
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/copy": cp}}
	res, err := newBatch(f, engine, nil, false, Input{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Claimed: 1, Skipped: 1}) {
		t.Errorf("result %+v", res)
	}
	if o := f.outcomes[0]; o.State != crawl.PageSkipped || len(o.Links) != 0 {
		t.Errorf("outcome %+v, want skipped without links", o)
	}
}

// TestFetchBatchNoLinks: a sitemap crawl's batch keeps its pages and
// follows none of their links.
func TestFetchBatchNoLinks(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, UseSitemap: true})
	f := &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/a", 1, "000000")}}
	page := fakefetch.HTML("<p>a</p>")
	page.Links = []string{"https://example.com/b"}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/a": page}}
	if _, err := newBatch(f, engine, nil, false, Input{NoLinks: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := f.outcomes[0]; o.State != crawl.PageFetched || len(o.Links) != 0 {
		t.Errorf("outcome %+v, want fetched without links", o)
	}
}

// TestFetchBatchEmpty: with nothing to claim, the batch says how many
// pages wait for a retry, and fetches nothing.
func TestFetchBatchEmpty(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	f := &fakeStore{crawl: c, waiting: 3, retryIn: 4 * time.Second}
	engine := &fakefetch.Fetcher{}
	res, err := newBatch(f, engine, nil, false, Input{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Waiting: 3, RetryIn: 4 * time.Second}) {
		t.Errorf("result %+v, want 3 waiting, the first in 4s", res)
	}
	if len(engine.Asked()) != 0 {
		t.Errorf("fetched %q", engine.Asked())
	}
}

// TestFetchBatchErrors: failed claims, saves and fetches fail the batch
// with their error; a missing egress proxy fails it for good.
func TestFetchBatchErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	pages := []crawl.Page{claimed(1, "https://example.com/", 0, "000")}
	ok := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/": fakefetch.HTML("<p>hi</p>")}}

	down := errors.New("database down")
	for _, method := range []string{"ClaimBatch", "SaveFetches"} {
		f := &fakeStore{crawl: c, claim: pages, fail: map[string]error{method: down}}
		if _, err := newBatch(f, ok, nil, false, Input{}).Run(context.Background()); !errors.Is(err, down) {
			t.Errorf("%s failed: error %v, want %v", method, err, down)
		}
	}

	broken := errors.New("fetcher broke")
	f := &fakeStore{crawl: c, claim: pages}
	_, err := newBatch(f, &fakefetch.Fetcher{Err: broken}, nil, false, Input{}).Run(context.Background())
	if !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
	if Permanent(err) {
		t.Errorf("a broken fetcher fails the batch for good: %v", err)
	}
	f = &fakeStore{crawl: c, claim: pages}
	_, err = newBatch(f, &fakefetch.Fetcher{Err: fetch.ErrNoEgressProxy}, nil, false, Input{}).Run(context.Background())
	if !Permanent(err) {
		t.Errorf("no egress proxy: %v, want a permanent error", err)
	}
}

// TestFetchBatchDetect: a start page that only JavaScript fills goes back
// to the frontier, and the crawl switches to the browser engine.
func TestFetchBatchDetect(t *testing.T) {
	app := `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`
	tests := []struct {
		name     string
		detect   bool
		depth    int
		body     string
		switches bool
	}{
		{name: "app start page", detect: true, body: app, switches: true},
		{name: "without Detect", body: app},
		{name: "app deeper page", detect: true, depth: 1, body: app},
		{name: "static start page", detect: true, body: "<html><body><h1>Home</h1><p>" + strings.Repeat("Plain text. ", 30) + "</p></body></html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, EngineType: crawl.EngineAuto})
			f := &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/", tt.depth, "000")}}
			engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/": fakefetch.HTML(tt.body)}}
			res, err := newBatch(f, engine, nil, false, Input{Detect: tt.detect}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			o := f.outcomes[0]
			if !tt.switches {
				if res.SwitchTo != "" || o.State != crawl.PageFetched || len(f.logs) != 0 {
					t.Errorf("switched: result %+v, page %s, entries %q", res, o.State, messages(f.logs))
				}
				return
			}
			// The page is not counted fetched: the batch has nothing to convert.
			if res.SwitchTo != crawl.EnginePlaywright || res.Fetched != 0 {
				t.Errorf("result %+v, want a switch to playwright and no page fetched", res)
			}
			if o.State != crawl.PageQueued || o.HTML != "" || o.RetryIn != 0 || !strings.Contains(o.Error, "JavaScript") {
				t.Errorf("outcome %+v, want queued again for the browser", o)
			}
			if got := messages(f.logs); !reflect.DeepEqual(got, []string{"Engine switched"}) {
				t.Errorf("log entries %q, want the switch", got)
			} else if !strings.Contains(f.logs[0].Description, "https://example.com/") {
				t.Errorf("switch entry %q does not name the page", f.logs[0].Description)
			}
		})
	}
}

// TestFetchBatchSendsDeepPagesToTheBrowser: with RenderDeep, a deeper page
// that needs JavaScript goes back to the frontier marked for the browser,
// with a log entry saying why; the crawl stays static, and the result
// says how many pages wait for the browser. A browser batch of such pages
// claims only them.
func TestFetchBatchSendsDeepPagesToTheBrowser(t *testing.T) {
	app := `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, EngineType: crawl.EngineAuto})
	f := &fakeStore{crawl: c, renderQ: 4, claim: []crawl.Page{
		claimed(1, "https://example.com/app", 2, "000000000"),
		claimed(2, "https://example.com/doc", 2, "000000001"),
	}}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/app": fakefetch.HTML(app),
		"https://example.com/doc": fakefetch.HTML("<html><body><h1>Doc</h1><p>" + strings.Repeat("Plain text. ", 30) + "</p></body></html>"),
	}}
	res, err := newBatch(f, engine, nil, false, Input{Detect: true, RenderDeep: true}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.SwitchTo != "" || res.ToBrowser != 1 || res.RenderQueued != 4 || res.Fetched != 1 {
		t.Errorf("result %+v, want one page to the browser, 4 waiting, no switch", res)
	}
	outs := outcomesByID(t, f.outcomes)
	if o := outs[1]; o.State != crawl.PageQueued || !o.Render || len(o.Logs) != 1 || o.Logs[0].Message != "Page sent to the browser" ||
		!strings.Contains(o.Logs[0].Description, "https://example.com/app") || !strings.Contains(o.Logs[0].Description, "mount point") {
		t.Errorf("the app page: %+v (logs %+v)", o, o.Logs)
	}
	if o := outs[2]; o.State != crawl.PageFetched || o.Render {
		t.Errorf("the static page: %+v", o)
	}
	if !reflect.DeepEqual(f.claimModes, []db.ClaimMode{db.ClaimStatic}) {
		t.Errorf("claim modes %v, want static", f.claimModes)
	}

	// Without RenderDeep (a run begun before the change) deeper pages
	// stay static.
	f = &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/app", 2, "000000000")}}
	if res, _ := newBatch(f, engine, nil, false, Input{Detect: true}).Run(context.Background()); res.ToBrowser != 0 || f.outcomes[0].Render {
		t.Errorf("without RenderDeep: %+v, %+v", res, f.outcomes[0])
	}

	// The browser batch of those pages claims only them, and keeps what
	// it rendered even if it still looks like an app.
	f = &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/app", 2, "000000000")}}
	b := newBatch(f, engine, nil, false, Input{Detect: true, RenderOnly: true, RenderDeep: true})
	b.engineName = crawl.EnginePlaywright
	if _, err := b.Run(context.Background()); err != nil || !reflect.DeepEqual(f.claimModes, []db.ClaimMode{db.ClaimRender}) {
		t.Errorf("browser batch: claim modes %v (%v), want render only", f.claimModes, err)
	}
	if o := f.outcomes[0]; o.State != crawl.PageFetched || o.Render {
		t.Errorf("the rendered page was sent to the browser again: %+v", o)
	}
}

// TestFetchBatchRendersForScriptedLinks: with RenderDeep, a page whose
// text is in its HTML but whose HTML offers no more than one link to
// follow while its scripts run (a manual's menu drawn from a script's
// data) is sent alone to the browser to find its links, the start page
// too, without switching the crawl, unless a page running the same
// scripts was; a page with links, one without scripts, and one whose
// links the crawl does not follow stay static.
func TestFetchBatchRendersForScriptedLinks(t *testing.T) {
	text := "<h1>Reference</h1><p>" + strings.Repeat("What the library does. ", 20) + "</p>"
	menu := `<html><head><script src="menudata.js"></script><script>initMenu()</script>
<script type="application/ld+json">{"@type":"WebSite"}</script></head><body><div id="main-nav"></div>` + text +
		`<a href="#top">Top</a> <a href="/">Home</a> <a href="/about">About</a> <a href="https://generator.example.org/">made by</a></body></html>`
	linked := `<html><head><script src="menudata.js"></script></head><body>` + text + `<a href="/a">A</a> <a href="/b">B</a></body></html>`
	plain := `<html><body>` + text + `</body></html>`
	data := `<html><head><script type="application/json">{"menu":[]}</script></head><body>` + text + `</body></html>`
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, EngineType: crawl.EngineAuto, MaxDepth: 2})
	f := &fakeStore{crawl: c, claim: []crawl.Page{
		claimed(1, "https://example.com/", 0, "000"),
		claimed(2, "https://example.com/linked", 1, "000000"),
		claimed(3, "https://example.com/plain", 1, "000001"),
		claimed(4, "https://example.com/data", 1, "000002"),
		claimed(5, "https://example.com/deepest", 2, "000000000"),
		claimed(6, "https://example.com/same-menu", 1, "000003"),
		claimed(7, "https://example.com/tree", 1, "000004"),
	}}
	withLinks := func(body string, links ...string) fetch.Result {
		r := fakefetch.HTML(body)
		r.Links = links
		return r
	}
	menuLinks := []string{"https://example.com/#top", "https://example.com/", "https://example.com/about", "https://generator.example.org/"}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/":        withLinks(menu, menuLinks...),
		"https://example.com/linked":  withLinks(linked, "https://example.com/a", "https://example.com/b"),
		"https://example.com/plain":   fakefetch.HTML(plain),
		"https://example.com/data":    fakefetch.HTML(data),
		"https://example.com/deepest": withLinks(menu, menuLinks...),
		// The same scripts draw the same menu: the start page's render
		// finds it. Other scripts (a section's tree) may draw others.
		"https://example.com/same-menu": withLinks(menu, menuLinks...),
		"https://example.com/tree":      withLinks(strings.Replace(menu, "menudata.js", "navtree.js", 1), "https://example.com/tree#top", "https://example.com/"),
	}}
	res, err := newBatch(f, engine, nil, false, Input{Detect: true, RenderDeep: true}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.SwitchTo != "" || res.ToBrowser != 2 || res.Fetched != 5 {
		t.Errorf("result %+v, want the start page and the tree to the browser, no switch", res)
	}
	outs := outcomesByID(t, f.outcomes)
	if o := outs[1]; o.State != crawl.PageQueued || !o.Render || len(o.Logs) != 1 || o.Logs[0].Message != "Page sent to the browser" ||
		!strings.Contains(o.Logs[0].Description, "rendered to find its links: its static HTML has 1 link in scope while 2 scripts run") {
		t.Errorf("the start page: %s, render %v, logs %+v", o.State, o.Render, o.Logs)
	}
	for id := int64(2); id <= 6; id++ {
		if o := outs[id]; o.State != crawl.PageFetched || o.Render {
			t.Errorf("page %d: %s, render %v; want it static", id, o.State, o.Render)
		}
	}
	if o := outs[7]; o.State != crawl.PageQueued || !o.Render {
		t.Errorf("the page of other scripts: %s (%s), render %v; want it to the browser", o.State, o.Error, o.Render)
	}
	// Without RenderDeep (a run begun before the change) it stays static.
	f = &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/", 0, "000")}}
	if res, _ := newBatch(f, engine, nil, false, Input{Detect: true}).Run(context.Background()); res.ToBrowser != 0 || f.outcomes[0].Render {
		t.Errorf("without RenderDeep: %+v, %+v", res, f.outcomes[0])
	}
}

// TestFetchBatchLeavesStoppedPatterns: links to addresses of a pattern the
// crawl stopped (it led to duplicates) are not enqueued, the others are;
// a page of the pattern the batch claimed is skipped without a fetch.
func TestFetchBatchLeavesStoppedPatterns(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 3})
	f := &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/guide", 1, "000000")},
		stoppedPatterns: []urlpattern.Pattern{"query:id"}}
	r := fakefetch.HTML("<html><body><h1>Guide</h1></body></html>")
	r.Links = []string{"https://example.com/guide?id=install", "https://example.com/api", "https://example.com/api?id=x"}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/guide": r}}
	if _, err := newBatch(f, engine, nil, false, Input{}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, l := range f.outcomes[0].Links {
		links = append(links, l.URL)
	}
	if !reflect.DeepEqual(links, []string{"https://example.com/api"}) {
		t.Errorf("links enqueued %v, want /api alone", links)
	}

	// A page of the pattern claimed before it stopped is not fetched.
	f = &fakeStore{crawl: c, claim: []crawl.Page{claimed(1, "https://example.com/guide?id=usage", 2, "000000000")},
		stoppedPatterns: []urlpattern.Pattern{"query:id"}}
	engine = &fakefetch.Fetcher{Results: map[string]fetch.Result{}}
	res, err := newBatch(f, engine, nil, false, Input{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o := f.outcomes[0]; len(engine.Asked()) != 0 || o.State != crawl.PageSkipped || !strings.Contains(o.Error, `the query parameter "id"`) || res.Skipped != 1 {
		t.Errorf("a claimed page of a stopped pattern: asked %v, saved %s (%s), result %+v", engine.Asked(), o.State, o.Error, res)
	}
}

// TestFetchBatchRobots: with ObeyRobots, the site's robots.txt is read
// once with the static fetcher and saved; a page it disallows is skipped
// without being fetched.
func TestFetchBatchRobots(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 1})
	f := &fakeStore{crawl: c, claim: []crawl.Page{
		claimed(1, "https://example.com/", 0, "000"),
		claimed(2, "https://example.com/private/x", 1, "000000"),
	}}
	robotsTxt := "User-agent: *\nDisallow: /private\n"
	static := &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/robots.txt": fakefetch.Text(robotsTxt)}}
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/":          fakefetch.HTML("<p>home</p>"),
		"https://example.com/private/x": fakefetch.HTML("<p>secret</p>"),
	}}
	res, err := newBatch(f, engine, static, true, Input{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Claimed: 2, Fetched: 1, Skipped: 1}) {
		t.Errorf("result %+v", res)
	}
	if !reflect.DeepEqual(engine.Asked(), []string{"https://example.com/"}) {
		t.Errorf("fetched %q, want the home page only", engine.Asked())
	}
	if !reflect.DeepEqual(static.Asked(), []string{"https://example.com/robots.txt"}) {
		t.Errorf("static fetcher asked for %q, want robots.txt", static.Asked())
	}
	want := []db.Robots{{CrawlID: c.ID, Origin: "https://example.com", StatusCode: 200, Body: robotsTxt}}
	if !reflect.DeepEqual(f.savedRobots, want) {
		t.Errorf("saved robots.txt %+v, want %+v", f.savedRobots, want)
	}
	o := outcomesByID(t, f.outcomes)[2]
	if o.State != crawl.PageSkipped || o.Error != crawllog.Reason(crawl.Because(crawl.PageRobotsDisallowed)) {
		t.Errorf("disallowed page saved %+v", o)
	}

	// A second batch applies the recorded file without reading it again.
	f.claim, f.outcomes = []crawl.Page{claimed(3, "https://example.com/private/y", 1, "000001")}, nil
	if _, err := newBatch(f, engine, static, true, Input{}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(static.Asked()) != 1 || len(f.savedRobots) != 1 {
		t.Errorf("robots.txt read again: asked %q", static.Asked())
	}
	if len(engine.Asked()) != 1 {
		t.Errorf("fetched %q, want nothing more", engine.Asked())
	}
	if o := f.outcomes[0]; o.State != crawl.PageSkipped || o.Error != crawllog.Reason(crawl.Because(crawl.PageRobotsDisallowed)) {
		t.Errorf("disallowed page of the second batch saved %+v", o)
	}
}

// TestFetchBatchConverts: with Convert, a fetched page is saved converted
// (its markdown made with its own URL as the base, no HTML kept) and counted as
// fetched; pages that were not fetched are saved as without it.
func TestFetchBatchConverts(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 2, ExcludeNonMainTags: true})
	f := &fakeStore{crawl: c, claim: []crawl.Page{
		{ID: 1, URL: "https://example.com/docs/", NormalizedURL: key("https://example.com/docs/"), Rank: "000", State: crawl.PageClaimed},
		claimed(2, "https://example.com/gone", 1, "000000"),
		{ID: 3, URL: "https://example.com/saved", State: crawl.PageConverted}, // saved by an earlier attempt
	}}
	home := fakefetch.HTML(`<html><head><title>Home</title></head><body><nav><a href="/a">A</a></nav>
<main><h1>Welcome</h1><p>The first paragraph of the page, long enough to be its content.</p><img src="logo.png" alt="Logo"></main></body></html>`)
	engine := &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/docs/": home,
		"https://example.com/gone":  {StatusCode: 404, ContentType: "text/html"},
	}}
	b := newBatch(f, engine, nil, false, Input{Convert: true})
	res, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Claimed: 3, Fetched: 2, Converted: 2, Failed: 1}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	outs := outcomesByID(t, f.outcomes)
	got := outs[1]
	if got.State != crawl.PageConverted || got.HTML != "" || got.Converted == nil {
		t.Fatalf("home page saved %s (%s), HTML %q, converted %v; want converted without HTML", got.State, got.Error, got.HTML, got.Converted)
	}
	md := got.Converted.Markdown
	if got.Converted.Title != "Home" || !strings.Contains(md, "# Welcome") || !strings.Contains(md, "The first paragraph") ||
		!strings.Contains(md, "![Logo](https://example.com/docs/logo.png)") || strings.Contains(md, "[A]") {
		t.Errorf("home page: title %q, markdown:\n%s", got.Converted.Title, md)
	}
	if got.Converted.PageID != 1 {
		t.Errorf("converted page id %d, want 1", got.Converted.PageID)
	}
	// Its content is named by its markdown's hash, which finds the pages
	// of the crawl with the same content (db.SaveFetches).
	if got.ContentKey != changes.Hash([]byte(md)) {
		t.Errorf("content key %q, want the markdown's hash", got.ContentKey)
	}
	if gone := outs[2]; gone.State != crawl.PageFailed || gone.Converted != nil || gone.ContentKey != "" {
		t.Errorf("missing page saved %s with %v (key %q), want failed", gone.State, gone.Converted, gone.ContentKey)
	}
}

// TestContentKey: a converted page's content is named by its markdown (or
// the previous crawl's, reused), and a page without text has no name: two
// pages that came out empty are not the same page.
func TestContentKey(t *testing.T) {
	conv := func(md string) db.FetchOutcome {
		return db.FetchOutcome{State: crawl.PageConverted, Converted: &db.Converted{Markdown: md}}
	}
	reused := db.FetchOutcome{State: crawl.PageConverted, Change: &db.PageChange{Reuse: true, MarkdownHash: changes.Hash([]byte("# A"))}}
	reusedEmpty := db.FetchOutcome{State: crawl.PageConverted, Change: &db.PageChange{Reuse: true, MarkdownHash: changes.Hash(nil)}}
	for _, tc := range []struct {
		name string
		rec  db.FetchOutcome
		want string
	}{
		{"converted", conv("# A"), changes.Hash([]byte("# A"))},
		{"reused", reused, changes.Hash([]byte("# A"))},
		{"empty", conv(" \n"), ""},
		{"reused empty", reusedEmpty, ""},
		{"skipped", db.FetchOutcome{State: crawl.PageSkipped}, ""},
	} {
		if got := contentKey(tc.rec); got != tc.want {
			t.Errorf("%s: key %q, want %q", tc.name, got, tc.want)
		}
	}
}

// key is the frontier's key of a URL.
func key(raw string) string {
	_, k, err := urlnorm.Normalize(raw)
	if err != nil {
		panic(err)
	}
	return k
}

// TestFetchBatchRemembersLinks: with a link memo, a batch sends the links
// an earlier batch of the crawl enqueued only when they come closer to the
// start; a link is remembered only once the database has it.
func TestFetchBatchRemembersLinks(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 5})
	memo := linkmemo.New(1000)
	run := func(f *fakeStore, depth int, links ...string) []db.NewPage {
		t.Helper()
		f.claim = []crawl.Page{claimed(1, "https://example.com/", depth, "000")}
		page := fakefetch.HTML("<p>page</p>")
		page.Links = links
		b := newBatch(f, &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/": page}}, nil, false, Input{})
		b.links = memo
		if _, err := b.Run(context.Background()); err != nil && f.fail["SaveFetches"] == nil {
			t.Fatal(err)
		}
		if len(f.outcomes) == 0 {
			return nil
		}
		return f.outcomes[len(f.outcomes)-1].Links
	}
	urls := func(links []db.NewPage) []string {
		var out []string
		for _, l := range links {
			out = append(out, l.URL)
		}
		return out
	}
	// The database refuses the first save: nothing is remembered.
	run(&fakeStore{crawl: c, fail: map[string]error{"SaveFetches": errors.New("database down")}}, 1, "https://example.com/nav")
	if got := urls(run(&fakeStore{crawl: c}, 1, "https://example.com/nav", "https://example.com/a")); !reflect.DeepEqual(got,
		[]string{"https://example.com/nav", "https://example.com/a"}) {
		t.Errorf("first saved batch sends %v", got)
	}
	if got := urls(run(&fakeStore{crawl: c}, 1, "https://example.com/nav", "https://example.com/b")); !reflect.DeepEqual(got,
		[]string{"https://example.com/b"}) {
		t.Errorf("second batch sends %v, want only the new link", got)
	}
	if got := urls(run(&fakeStore{crawl: c}, 0, "https://example.com/nav")); !reflect.DeepEqual(got, []string{"https://example.com/nav"}) {
		t.Errorf("a link found closer to the start is sent %v", got)
	}
	// A page an earlier attempt already saved is not saved again: its
	// links are not remembered, and are sent again next time (from the
	// same place: the same page at the same rank).
	f := &fakeStore{crawl: c, unsaved: map[int64]bool{1: true}}
	f.claim = []crawl.Page{claimed(1, "https://example.com/", 1, "000"), claimed(2, "https://example.com/x", 1, "001")}
	unsaved, saved := fakefetch.HTML("<p>saved before</p>"), fakefetch.HTML("<p>saved</p>")
	unsaved.Links, saved.Links = []string{"https://example.com/c"}, []string{"https://example.com/d"}
	b := newBatch(f, &fakefetch.Fetcher{Results: map[string]fetch.Result{"https://example.com/": unsaved, "https://example.com/x": saved}}, nil, false, Input{})
	b.links = memo
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := urls(run(&fakeStore{crawl: c}, 1, "https://example.com/c")); !reflect.DeepEqual(got, []string{"https://example.com/c"}) {
		t.Errorf("after a batch with a page not saved, the next sends %v; want the unsaved page's link again", got)
	}
}
