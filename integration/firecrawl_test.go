package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/jpeg"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/internal/fakesearx"
	"github.com/durablecrawl/crawler/internal/testsite"
	"github.com/durablecrawl/crawler/usage"
)

// firecrawlSite is a generated site whose robots.txt disallows one
// section, with a slow endless chain of pages under /slow/ for a crawl to
// be cancelled in.
// blogPosts are a small blog's pages: posts of two years, and tag pages
// that list them.
var blogPosts = map[string]string{
	"/blog/2024/spring":     "Spring crawls of 2024",
	"/blog/2024/autumn":     "Autumn crawls of 2024",
	"/blog/2023/winter":     "Winter crawls of 2023",
	"/blog/tag/news":        "Posts tagged news",
	"/blog/2024/tag/travel": "Posts of 2024 tagged travel",
}

// blogPage serves the blog: its index links every page, and each page
// links the others.
func blogPage(w http.ResponseWriter, r *http.Request) {
	title, ok := blogPosts[r.URL.Path]
	if r.URL.Path == "/blog/" {
		title, ok = "The blog", true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>%s</h1><p>A page of the blog, about %s.</p><ul>", title, title, strings.ToLower(title))
	for _, p := range slices.Sorted(maps.Keys(blogPosts)) {
		fmt.Fprintf(w, `<li><a href="%s">%s</a></li>`, p, blogPosts[p])
	}
	fmt.Fprint(w, "</ul></main></body></html>")
}

// actionsApp is a page that shows its content only to a reader who acts:
// a login form (typed, then Enter), a button that loads an item, and a
// list that loads one more when scrolled to its end (the page is under
// two screens tall, so that one scroll down reaches its end).
func actionsApp(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/app/session":
		if r.URL.Query().Get("user") != "ada" || r.URL.Query().Get("password") != "opensesame" {
			http.Error(w, "wrong password", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, "Welcome back, ada. Your three invoices are paid.")
		return
	case "/app/more":
		fmt.Fprintf(w, "%s item, loaded by the %s.", r.URL.Query().Get("n"), r.URL.Query().Get("by"))
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, `<!doctype html><html><head><title>Account</title></head><body><main><h1>Your account</h1>
<form id="login"><input id="user" name="user"><input id="password" name="password" type="password"><button>Sign in</button></form>
<p id="welcome" hidden></p>
<ul id="items"><li>First item, in the page.</li><li>Second item, in the page.</li></ul>
<button id="more" type="button">Load more</button>
<div style="height:800px"></div>
</main><script>
document.getElementById('login').addEventListener('submit', async e => {
  e.preventDefault();
  const q = new URLSearchParams({user: user.value, password: password.value});
  const r = await fetch('/app/session?' + q);
  const p = document.getElementById('welcome');
  p.textContent = await r.text();
  if (r.ok) p.hidden = false;
});
const add = async (n, by) => {
  const li = document.createElement('li');
  li.textContent = await (await fetch('/app/more?n=' + n + '&by=' + by)).text();
  document.getElementById('items').appendChild(li);
};
document.getElementById('more').onclick = () => add('Third', 'button');
let scrolled = false;
window.addEventListener('scroll', () => {
  if (scrolled || window.innerHeight + window.scrollY < document.body.scrollHeight - 50) return;
  scrolled = true;
  add('Fourth', 'scroll');
});
</script></body></html>`)
}

func firecrawlSite() http.Handler {
	site := testsite.New(testsite.Options{Pages: 300})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /s3/\nDisallow: /private/\n")
		case r.URL.Path == "/withprivate":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Notes</title></head><body><main><h1>Notes</h1><p>Public notes, with a link to <a href="/s1/p1">a page</a> and to <a href="/private/x">private ones</a>.</p></main></body></html>`)
		case r.URL.Path == "/sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
				`<url><loc>http://%[1]s/s1/p7</loc></url><url><loc>http://%[1]s/s2/p10</loc></url><url><loc>http://%[1]s/s4/p16</loc></url></urlset>`, r.Host)
		case strings.HasPrefix(r.URL.Path, "/schema-"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Kettle</title></head><body><main><h1>Kettle</h1><p>A steel kettle for the stove, 1.5 litres.</p><p>Price: 12.50</p></main></body></html>`)
		case strings.HasPrefix(r.URL.Path, "/paced/"):
			paced.mu.Lock()
			paced.times = append(paced.times, time.Now())
			paced.mu.Unlock()
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/paced/"))
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>Paced %d</title></head><body><main><h1>Paced page %d</h1><p>A page of a crawl that asked for a delay between its requests.</p>", n, n)
			for k := 1; k <= 3; k++ {
				fmt.Fprintf(w, `<a href="/paced/%d">next %d</a> `, n*3+k, k)
			}
			fmt.Fprint(w, "</main></body></html>")
		case r.URL.Path == "/app", strings.HasPrefix(r.URL.Path, "/app/"):
			actionsApp(w, r)
		case strings.HasPrefix(r.URL.Path, "/blog/"):
			blogPage(w, r)
		case r.URL.Path == "/late":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Late</title></head><body><main><h1>Late content</h1><p>The page's words come late.</p><div id="late"></div></main>
<script>setTimeout(function () { document.getElementById('late').innerHTML = '<p>The price of the kettle arrived from a script after a long while.</p>'; }, 1500);</script></body></html>`)
		case r.URL.Path == "/qstart" || r.URL.Path == "/qpage":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>Query %s</title></head><body><main><h1>Query pages</h1><p>One page under several queries: %s, asked with %q.</p>
<a href="/qpage?a=1">one</a> <a href="/qpage?a=2">two</a> <a href="/qpage">none</a></main></body></html>`, r.URL.RawQuery, r.URL.Path, r.URL.RawQuery)
		case r.URL.Path == "/echo":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>Echo</title><meta name="viewport" content="width=device-width"></head><body><main><h1>What the request said</h1><p>The team header read %q and the agent was %q.</p><p id="w"></p></main>
<script>document.getElementById('w').textContent = 'The window was ' + window.innerWidth + ' pixels wide.';</script></body></html>`,
				r.Header.Get("X-Team"), r.Header.Get("User-Agent"))
		case r.URL.Path == "/long":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><head><title>A long page</title></head><body><main><h1>A long page</h1>")
			for i := 1; i <= 120; i++ {
				fmt.Fprintf(w, "<p>Paragraph %d of a page much taller than a window, for a screenshot of all of it.</p>", i)
			}
			fmt.Fprint(w, "</main></body></html>")
		case r.URL.Path == "/broken":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "<html><head><title>Trouble</title></head><body><main><h1>Server trouble</h1><p>The shop is down for repairs until noon.</p></main></body></html>")
		case r.URL.Path == "/forbidden":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, "<html><head><title>Members only</title></head><body><main><h1>Members only</h1><p>Sign in to read the harbour's winter notes.</p></main></body></html>")
		case r.URL.Path == "/cached":
			cachedHits.Add(1)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Tide table</title></head><body><main><h1>Tide table</h1><p>High water at the north basin comes at six.</p></main></body></html>`)
		case r.URL.Path == "/meta":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, metaPage)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/slow/"))
			time.Sleep(300 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>Slow %d</title></head><body><main><h1>Slow page %d</h1><p>A page that takes its time, so that the crawl of it is still running when it is cancelled.</p>", n, n)
			for k := 1; k <= 5; k++ {
				fmt.Fprintf(w, `<a href="/slow/%d">next %d</a> `, n*5+k, k)
			}
			fmt.Fprint(w, "</main></body></html>")
		default:
			site.ServeHTTP(w, r)
		}
	})
}

// cachedHits counts the requests for /cached, which only
// TestFirecrawlPythonSDK scrapes.
var cachedHits atomic.Int32

// paced records when the site served each page under /paced/ (one crawl
// of them runs at a time: TestFirecrawlSDK's, with a delay).
var paced struct {
	mu    sync.Mutex
	times []time.Time
}

// metaPage is a page with a full head, links and pictures, for the
// formats besides markdown.
const metaPage = `<!doctype html><html lang="en-GB"><head><title>Harbour guide</title>
<meta name="description" content="A guide to the harbour in winter."><meta property="og:title" content="Harbour guide (OG)">
<meta name="twitter:card" content="summary"><link rel="canonical" href="/meta"><link rel="icon" href="/favicon.png">
<script>window.tracking = true;</script><style>body { margin: 0 }</style></head>
<body><nav><a href="/s2/p2">Other section</a></nav><main><h1>Harbour guide</h1><p>Boats winter in the <a href="/s1/p1">north basin</a> and the <a href="https://example.org/south">south basin</a>.</p>
<img src="/pics/basin.jpg" alt="The north basin"></main></body></html>`

// TestFirecrawlSDK runs Firecrawl's own JS SDK, as installed from the npm
// registry (tools/firecrawl), against the service: scrape, crawls read
// past 100 documents through next, depth and path rules, errors and
// robots.txt blocks, the active list and cancel, refusals in Firecrawl's
// error shape, and the v1 client. The crawls it starts are the service's
// own: readable through GET /crawls/{id}.
func TestFirecrawlSDK(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("CRAWLER_FIRECRAWL_CLIENTS")
	if clients == "" {
		t.Fatal("CRAWLER_FIRECRAWL_CLIENTS is not set: make test installs Firecrawl's SDK (ensure_firecrawl_clients in scripts/lib.sh)")
	}
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	addSearchResults("durable crawl service js", site.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// Node 20 has a WebSocket client only behind a flag; the SDK's watcher
	// uses it where there is one.
	args := []string{filepath.Join(clients, "check.mjs"), env.api, env.keyA, site.URL, env.llmAPI}
	if exec.Command("node", "--experimental-websocket", "-e", "0").Run() == nil {
		args = append([]string{"--experimental-websocket", "--no-warnings"}, args...)
	}
	report := nodeReport(ctx, t, "the SDK", []string{"WEBHOOK_SECRET=" + webhookSecret}, args...)
	type crawlSummary struct {
		ID            string   `json:"id"`
		Status        string   `json:"status"`
		Total         int      `json:"total"`
		Completed     int      `json:"completed"`
		Next          *string  `json:"next"`
		URLs          []string `json:"urls"`
		MarkdownChars []int    `json:"markdownChars"`
	}
	read := func(name string, v any) {
		t.Helper()
		if err := json.Unmarshal(report[name], v); err != nil {
			t.Fatalf("%s: %s: %v", name, report[name], err)
		}
	}
	notThrown := func(name string) {
		t.Helper()
		var th struct {
			Thrown  bool   `json:"thrown"`
			Message string `json:"message"`
		}
		read(name, &th)
		if th.Thrown {
			t.Fatalf("%s threw: %s", name, report[name])
		}
	}

	// A scrape answers the page's document.
	notThrown("scrape")
	var doc struct {
		Markdown string `json:"markdown"`
		Metadata struct {
			SourceURL  string `json:"sourceURL"`
			StatusCode int    `json:"statusCode"`
			Title      string `json:"title"`
		} `json:"metadata"`
	}
	read("scrape", &doc)
	if !strings.Contains(doc.Markdown, "Page 1 of section 1") || doc.Metadata.SourceURL != site.URL+"/s1/p1" || doc.Metadata.StatusCode != 200 {
		t.Errorf("scrape: %.500s", report["scrape"])
	}

	// A page answered with an error status and a body is scraped: its
	// document, with the status in metadata.statusCode and the error in
	// metadata.error (the SDK, LangChain's loader and agents read them).
	notThrown("scrapeErrorPages")
	var errorPages map[string]struct {
		Markdown   string `json:"markdown"`
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	}
	read("scrapeErrorPages", &errorPages)
	for path, want := range map[string]struct {
		status int
		words  string
	}{"/missing": {404, "404 page not found"}, "/broken": {500, "down for repairs"}, "/forbidden": {403, "Sign in to read"}} {
		got := errorPages[path]
		if got.StatusCode != want.status || !strings.Contains(got.Markdown, want.words) || !strings.Contains(got.Error, strconv.Itoa(want.status)) {
			t.Errorf("scrape of %s (%d): %+v", path, want.status, got)
		}
	}

	// The other formats: the cleaned HTML, the HTML as served, links and
	// images absolute, and the head's metadata under Firecrawl's names.
	notThrown("scrapeFormats")
	var formats struct {
		Markdown *string  `json:"markdown"`
		HTML     string   `json:"html"`
		RawHTML  string   `json:"rawHtml"`
		Links    []string `json:"links"`
		Images   []string `json:"images"`
		Metadata struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Language    string `json:"language"`
			OgTitle     string `json:"ogTitle"`
			TwitterCard string `json:"twitter:card"`
			Favicon     string `json:"favicon"`
			SourceURL   string `json:"sourceURL"`
		} `json:"metadata"`
	}
	read("scrapeFormats", &formats)
	// The html format is the main content, as the markdown is; links are
	// all the page's.
	if formats.Markdown != nil || formats.RawHTML != metaPage || strings.Contains(formats.HTML, "tracking") || !strings.Contains(formats.HTML, "<h1>Harbour guide</h1>") ||
		strings.Contains(formats.HTML, "Other section") ||
		strings.Join(formats.Links, " ") != site.URL+"/s2/p2 "+site.URL+"/s1/p1 https://example.org/south" || strings.Join(formats.Images, " ") != site.URL+"/pics/basin.jpg" {
		t.Errorf("formats: %.2000s", report["scrapeFormats"])
	}
	if m := formats.Metadata; m.Title != "Harbour guide" || m.Description != "A guide to the harbour in winter." || m.Language != "en-GB" ||
		m.OgTitle != "Harbour guide (OG)" || m.TwitterCard != "summary" || m.Favicon != site.URL+"/favicon.png" || m.SourceURL != site.URL+"/meta" {
		t.Errorf("metadata: %+v", m)
	}
	var crawlFormats struct {
		Status string `json:"status"`
		Docs   []struct {
			Markdown int  `json:"markdown"`
			Links    int  `json:"links"`
			NoHTML   bool `json:"html"`
		} `json:"docs"`
	}
	read("crawlFormats", &crawlFormats)
	if crawlFormats.Status != "completed" || len(crawlFormats.Docs) != 3 {
		t.Errorf("a crawl with formats: %s", report["crawlFormats"])
	}
	for _, d := range crawlFormats.Docs {
		if d.Markdown == 0 || d.Links < 1 || !d.NoHTML {
			t.Errorf("a crawl with markdown and links: %s", report["crawlFormats"])
			break
		}
	}

	// A crawl past 100 documents is read whole through next.
	notThrown("crawlPastOnePage")
	var big crawlSummary
	read("crawlPastOnePage", &big)
	distinct := map[string]bool{}
	for _, u := range big.URLs {
		distinct[u] = true
	}
	if big.Status != "completed" || len(big.URLs) != 150 || len(distinct) != 150 || big.Completed != 150 {
		t.Errorf("a 150-page crawl: status %s, %d documents (%d distinct), completed %d", big.Status, len(big.URLs), len(distinct), big.Completed)
	}
	for i, n := range big.MarkdownChars {
		if n == 0 {
			t.Errorf("document %d (%s) has no markdown", i, big.URLs[i])
		}
	}
	// The same crawl, through the service's own API and its OpenAPI shape.
	var native crawlObj
	if status, body := call(t, "GET", env.api+"/crawls/"+big.ID, env.keyA, nil, &native); status != 200 || native.Status != "succeeded" || native.TotalPages != 150 {
		t.Errorf("GET /crawls/%s: %d %s", big.ID, status, body)
	}
	var first struct {
		Data []json.RawMessage `json:"data"`
		Next string            `json:"next"`
	}
	if status, body := call(t, "GET", env.api+"/v2/crawl/"+big.ID, env.keyA, nil, &first); status != 200 || len(first.Data) != 100 ||
		first.Next != env.api+"/v2/crawl/"+big.ID+"?skip=100" {
		t.Errorf("GET /v2/crawl/%s: %d, %d documents, next %q: %.300s", big.ID, status, len(first.Data), first.Next, body)
	}

	// Depth: 0 is the start page alone; 1 adds the pages it links to.
	var d0, d1 crawlSummary
	read("crawlDepth0", &d0)
	read("crawlDepth1", &d1)
	if d0.Status != "completed" || len(d0.URLs) != 1 || d0.URLs[0] != site.URL+"/" {
		t.Errorf("maxDiscoveryDepth 0: %+v", d0)
	}
	if d1.Status != "completed" || len(d1.URLs) < 7 || len(d1.URLs) >= 200 {
		t.Errorf("maxDiscoveryDepth 1: %s, %d documents", d1.Status, len(d1.URLs))
	}

	// sitemap "only": the start page and the sitemap's pages, no links;
	// "include" (the default) at depth 0: the same, as Firecrawl counts
	// the sitemaps' pages as start pages.
	for _, name := range []string{"crawlSitemapOnly", "crawlSitemapInclude"} {
		var c crawlSummary
		read(name, &c)
		sort.Strings(c.URLs)
		if want := []string{site.URL + "/", site.URL + "/s1/p7", site.URL + "/s2/p10", site.URL + "/s4/p16"}; c.Status != "completed" ||
			strings.Join(c.URLs, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %s", name, report[name])
		}
	}

	// excludePaths are regular expressions searched in the path.
	var ex crawlSummary
	read("crawlExclude", &ex)
	excluded := regexp.MustCompile(`^/s2/|p1[0-9]$`)
	if ex.Status != "completed" || len(ex.URLs) == 0 {
		t.Errorf("excludePaths: %+v", ex)
	}
	for _, u := range ex.URLs {
		if excluded.MatchString(strings.TrimPrefix(u, site.URL)) {
			t.Errorf("excludePaths: %s was crawled", u)
		}
	}

	// A start page that is missing is an error of the crawl.
	var missing struct {
		Status string `json:"status"`
		Errors struct {
			Errors []struct {
				URL   string `json:"url"`
				Error string `json:"error"`
			} `json:"errors"`
		} `json:"errors"`
	}
	read("crawlMissing", &missing)
	if len(missing.Errors.Errors) != 1 || missing.Errors.Errors[0].URL != site.URL+"/missing" || missing.Errors.Errors[0].Error == "" {
		t.Errorf("a missing start page: %s", report["crawlMissing"])
	}
	var linked struct {
		URLs   []string `json:"urls"`
		Errors struct {
			RobotsBlocked []string `json:"robotsBlocked"`
		} `json:"errors"`
	}
	read("robotsLinked", &linked)
	if !slices.Contains(linked.Errors.RobotsBlocked, site.URL+"/private/x") || slices.Contains(linked.URLs, site.URL+"/private/x") {
		t.Errorf("a linked page robots.txt disallows: %s", report["robotsLinked"])
	}
	var robots struct {
		Status        string `json:"status"`
		RobotsBlocked int    `json:"robotsBlocked"`
	}
	read("robots", &robots)
	if robots.Status != "completed" || robots.RobotsBlocked == 0 {
		t.Errorf("robots.txt: %s", report["robots"])
	}

	// The active list holds a running crawl; cancel ends it cancelled.
	var cancelled struct {
		ID        string   `json:"id"`
		URL       string   `json:"url"`
		ActiveIDs []string `json:"activeIds"`
		Cancelled bool     `json:"cancelled"`
		Status    string   `json:"status"`
	}
	read("cancel", &cancelled)
	active := false
	for _, id := range cancelled.ActiveIDs {
		active = active || id == cancelled.ID
	}
	if !active || !cancelled.Cancelled || cancelled.URL != env.api+"/v2/crawl/"+cancelled.ID {
		t.Errorf("cancel: %s", report["cancel"])
	}
	waitStatus(t, env.api, env.keyA, cancelled.ID, time.Minute, "aborted")

	// A batch scrape stores its URLs alone; one that is missing is in its
	// errors, one that is not a URL is left out as the request asked.
	var batch struct {
		Status string   `json:"status"`
		URLs   []string `json:"urls"`
		Errors struct {
			Errors []struct {
				URL string `json:"url"`
			} `json:"errors"`
		} `json:"errors"`
	}
	read("batch", &batch)
	if batch.Status != "completed" || len(batch.URLs) != 2 || len(batch.Errors.Errors) != 1 || batch.Errors.Errors[0].URL != site.URL+"/missing" {
		t.Errorf("batch scrape: %.1000s", report["batch"])
	}
	var batchCancel struct {
		ID        string `json:"id"`
		URL       string `json:"url"`
		Cancelled bool   `json:"cancelled"`
	}
	read("batchStartCancel", &batchCancel)
	if !batchCancel.Cancelled || batchCancel.URL != env.api+"/v2/batch/scrape/"+batchCancel.ID {
		t.Errorf("batch cancel: %s", report["batchStartCancel"])
	}

	// The watcher gets every document over its WebSocket and ends with
	// the crawl.
	var watch struct {
		WebSocket bool   `json:"webSocket"`
		Documents int    `json:"documents"`
		Done      string `json:"done"`
		Error     string `json:"error"`
	}
	read("watch", &watch)
	if !watch.WebSocket || watch.Documents != 30 || watch.Done != "completed" || watch.Error != "" {
		t.Errorf("watch: %s", report["watch"])
	}

	// Refusals come in Firecrawl's shape, naming the field, and the SDK
	// raises them with their status.
	checkRefusals(t, report, "thrown", map[string]refusal{
		"unsupportedFormat":   {400, "scrapeOptions.formats[0]"},
		"notHttp":             {400, "url"},
		"badRegex":            {400, "includePaths[0]"},
		"unknownCrawl":        {404, "not found"},
		"mapLocation":         {400, "location"},
		"scrapeJsonBadSchema": {400, "formats[0].schema"},
		"batchInvalid":        {400, "urls[1]"},
		"scrapeActionFails":   {500, `action 0 (click "#no-such-button") failed`},
	})

	checkActions(t, report["scrapeActions"])
	checkSearch(t, report["search"], report["searchScrape"], site.URL)
	var u struct {
		Credits struct {
			RemainingCredits int64  `json:"remainingCredits"`
			BillingPeriodEnd string `json:"billingPeriodEnd"`
		} `json:"credits"`
		Tokens struct {
			RemainingTokens int64 `json:"remainingTokens"`
		} `json:"tokens"`
		CreditsByKey struct {
			Periods []struct {
				APIKey      string `json:"apiKey"`
				CreditsUsed int64  `json:"creditsUsed"`
			} `json:"periods"`
		} `json:"creditsByKey"`
		Concurrency struct {
			MaxConcurrency int `json:"maxConcurrency"`
		} `json:"concurrency"`
		Queue struct {
			WaitingJobsInQueue *int `json:"waitingJobsInQueue"`
		} `json:"queue"`
	}
	var parsed struct {
		Markdown, Title, FileName string
	}
	read("parse", &parsed)
	if parsed.Title != "Kettles" || parsed.FileName != "kettles.html" || !strings.Contains(parsed.Markdown, "A steel kettle for the stove.") {
		t.Errorf("parse through the JS SDK: %s", report["parse"])
	}
	var preview struct {
		IncludePaths []string `json:"includePaths"`
		ExcludePaths []string `json:"excludePaths"`
	}
	read("paramsPreview", &preview)
	if !slices.Equal(preview.IncludePaths, []string{"^/blog/2024/"}) || !slices.Equal(preview.ExcludePaths, []string{"/tag/"}) {
		t.Errorf("crawlParamsPreview through the JS SDK: %s", report["paramsPreview"])
	}
	var wild struct {
		Status  string              `json:"status"`
		Sources map[string][]string `json:"sources"`
	}
	read("extractWildcard", &wild)
	if wild.Status != "completed" || len(wild.Sources["path"]) != 6 {
		t.Errorf("an extraction of a wildcard through the JS SDK: %s", report["extractWildcard"])
	}
	var startedExtract struct {
		ID, Status string
		Data       map[string]any
	}
	read("extractStarted", &startedExtract)
	if startedExtract.ID == "" || startedExtract.Status != "completed" || fmt.Sprint(startedExtract.Data["items"]) != "[item-1 item-2]" {
		t.Errorf("startExtract and getExtractStatus through the JS SDK: %s", report["extractStarted"])
	}
	read("usage", &u)
	if u.Credits.RemainingCredits != usage.Unlimited || u.Credits.BillingPeriodEnd == "" || u.Tokens.RemainingTokens != usage.Unlimited ||
		len(u.CreditsByKey.Periods) == 0 || u.CreditsByKey.Periods[0].CreditsUsed <= 0 || u.Concurrency.MaxConcurrency != usage.Unlimited ||
		u.Queue.WaitingJobsInQueue == nil {
		t.Errorf("usage through the JS SDK: %s", report["usage"])
	}
	var batchActions struct {
		Status string `json:"status"`
		Docs   []struct {
			Markdown string `json:"markdown"`
			Returns  []struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"returns"`
		} `json:"docs"`
	}
	read("batchActions", &batchActions)
	if batchActions.Status != "completed" || len(batchActions.Docs) != 2 {
		t.Errorf("a batch with actions: %s", report["batchActions"])
	}
	for _, d := range batchActions.Docs {
		if !strings.Contains(d.Markdown, "Third item, loaded by the button.") || len(d.Returns) != 1 || string(d.Returns[0].Value) != `"Account"` {
			t.Errorf("a batch's page after its actions: %.600s %+v", d.Markdown, d.Returns)
		}
	}

	checkWebhooks(t, report, site.URL)
	checkMap(t, report, site.URL)
	checkScreenshots(t, report)

	// delay: the site saw the requests one at a time, each at least the
	// delay after the one before; waitFor: the browser waited for what a
	// script wrote late.
	var delayed crawlSummary
	read("crawlDelay", &delayed)
	paced.mu.Lock()
	times := slices.Clone(paced.times)
	paced.mu.Unlock()
	if delayed.Status != "completed" || len(delayed.URLs) != 4 || len(times) != 4 {
		t.Errorf("a crawl with a delay: %s; the site served %d pages", report["crawlDelay"], len(times))
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 550*time.Millisecond {
			t.Errorf("a crawl with a delay of 0.6 s: requests %d and %d came %v apart", i, i+1, gap)
		}
	}
	var withQuery, withoutQuery crawlSummary
	read("crawlQueries", &withQuery)
	read("crawlIgnoreQueries", &withoutQuery)
	if len(withQuery.URLs) != 4 || len(withoutQuery.URLs) != 2 {
		t.Errorf("ignoreQueryParameters: %v without, %v with", withQuery.URLs, withoutQuery.URLs)
	}
	// headers go with the request; mobile renders as a phone would.
	var echo map[string]struct {
		Markdown string `json:"markdown"`
	}
	read("scrapeRequestShape", &echo)
	if md := echo["headers"].Markdown; !strings.Contains(md, `read "docs"`) || strings.Contains(md, "Mobile") {
		t.Errorf("headers: %s", report["scrapeRequestShape"])
	}
	if md := echo["mobile"].Markdown; !strings.Contains(md, "Mobile") || !strings.Contains(md, "The window was 390 pixels wide.") {
		t.Errorf("mobile: %s", report["scrapeRequestShape"])
	}
	var late, early struct {
		Markdown string `json:"markdown"`
	}
	read("scrapeWaitFor", &late)
	read("scrapeNoWait", &early)
	const lateText = "The price of the kettle arrived from a script after a long while."
	if !strings.Contains(late.Markdown, lateText) || strings.Contains(early.Markdown, lateText) || !strings.Contains(early.Markdown, "Late content") {
		t.Errorf("waitFor: %s; rendered without it: %s", report["scrapeWaitFor"], report["scrapeNoWait"])
	}

	// The json format: valid answers are the document's json; one that
	// does not validate is asked for again; one that never does is a
	// warning, with no json.
	var js map[string]struct {
		JSON     map[string]any `json:"json"`
		Warning  *string        `json:"warning"`
		Markdown int            `json:"markdown"`
	}
	read("scrapeJson", &js)
	for _, page := range []string{"schema-ok", "schema-repair"} {
		if d := js[page]; d.JSON["title"] != "Kettle" || d.JSON["price"] != 12.5 || d.Warning != nil || d.Markdown == 0 {
			t.Errorf("json of %s: %s", page, report["scrapeJson"])
		}
	}
	if d := js["schema-never"]; d.JSON != nil || d.Warning == nil || !strings.Contains(*d.Warning, "does not validate") {
		t.Errorf("json that never validates: %s", report["scrapeJson"])
	}

	// The v1 client scrapes and crawls too.
	var v1 struct {
		Success  bool `json:"success"`
		Markdown string
	}
	read("v1Scrape", &v1)
	if !v1.Success || !strings.Contains(string(report["v1Scrape"]), "Page 1 of section 1") {
		t.Errorf("v1 scrape: %s", report["v1Scrape"])
	}
	var v1c struct {
		Success bool     `json:"success"`
		Status  string   `json:"status"`
		URLs    []string `json:"urls"`
	}
	read("v1Crawl", &v1c)
	if v1c.Status != "completed" || len(v1c.URLs) != 5 {
		t.Errorf("v1 crawl: %s", report["v1Crawl"])
	}
}

// checkMap: a map finds the site's URLs from its sitemap and its links,
// each once, none that robots.txt disallows; search narrows them; sitemap
// "only" is the start page and the sitemap's; v1 answers strings. The map
// is a crawl of the service, without markdown.
func checkMap(t *testing.T, report map[string]json.RawMessage, siteURL string) {
	t.Helper()
	var m struct {
		Thrown bool     `json:"thrown"`
		ID     string   `json:"id"`
		All    []string `json:"all"`
		Search []string `json:"search"`
		Only   []string `json:"only"`
		Skip   []string `json:"skip"`
		V1     []string `json:"v1"`
	}
	if err := json.Unmarshal(report["map"], &m); err != nil || m.Thrown {
		t.Fatalf("map: %.1000s (%v)", report["map"], err)
	}
	seen := map[string]bool{}
	for _, u := range m.All {
		if seen[u] || !strings.HasPrefix(u, siteURL+"/") || strings.HasPrefix(u, siteURL+"/s3/") {
			t.Errorf("map: %s twice, off the site or disallowed", u)
		}
		seen[u] = true
	}
	for _, u := range []string{"/", "/s1/p7", "/s2/p10", "/s4/p16", "/s1/p1", "/s2/p2"} {
		if !seen[siteURL+u] {
			t.Errorf("map: %s missing from %d URLs", u, len(m.All))
		}
	}
	// 100 pages fetched find far more than 100 URLs.
	if len(m.All) <= 150 {
		t.Errorf("map found %d URLs, want more than the 100 pages it fetched", len(m.All))
	}
	if len(m.Search) == 0 || len(m.Search) > 20 {
		t.Errorf("map with search: %v", m.Search)
	}
	for _, u := range m.Search {
		if !strings.Contains(strings.ToLower(u), "p1") {
			t.Errorf("map with search p1: %s", u)
		}
	}
	sort.Strings(m.Only)
	if want := []string{siteURL + "/", siteURL + "/s1/p7", siteURL + "/s2/p10", siteURL + "/s4/p16"}; strings.Join(m.Only, " ") != strings.Join(want, " ") {
		t.Errorf("map with sitemap only: %v", m.Only)
	}
	if len(m.Skip) != 10 || len(m.V1) != 5 {
		t.Errorf("map limits: %d URLs (want 10), v1 %v (want 5)", len(m.Skip), m.V1)
	}
	var native crawlObj
	if status, body := call(t, "GET", env.api+"/crawls/"+m.ID, env.keyA, nil, &native); status != 200 || native.Status != "succeeded" || native.TotalPages != 100 {
		t.Errorf("the map's crawl: %d %.300s", status, body)
	}
	for _, p := range allPages(t, env.api, env.keyA, m.ID) {
		if p.Markdown != "" {
			t.Errorf("the map's crawl converted %s", p.URL)
			break
		}
	}
}

// checkScreenshots: a scrape's screenshot is a URL of the API serving a
// JPEG without a key: the window's height, or, with fullPage, the whole
// (much taller) page.
func checkScreenshots(t *testing.T, report map[string]json.RawMessage) {
	t.Helper()
	var shots struct {
		Thrown   bool    `json:"thrown"`
		Viewport *string `json:"viewport"`
		Full     *string `json:"full"`
		Markdown int     `json:"markdown"`
	}
	if err := json.Unmarshal(report["screenshots"], &shots); err != nil || shots.Thrown || shots.Viewport == nil || shots.Full == nil || shots.Markdown == 0 {
		t.Fatalf("screenshots: %s", report["screenshots"])
	}
	size := func(u string) (int, int) {
		t.Helper()
		if !strings.HasPrefix(u, env.api+"/screenshots/") {
			t.Fatalf("screenshot URL %s is not the API's", u)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		img, err := jpeg.Decode(resp.Body)
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("GET %s: %d %s, %v", u, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	vw, vh := size(*shots.Viewport)
	fw, fh := size(*shots.Full)
	if vw < 300 || vh < 200 || fw != vw || fh < 2*vh {
		t.Errorf("screenshots: viewport %dx%d, full page %dx%d; want the full page at least twice as tall", vw, vh, fw, fh)
	}
	if resp, err := http.Get(env.api + "/screenshots/0123456789abcdef0123456789abcdef"); err != nil || resp.StatusCode != 404 {
		t.Errorf("an unknown screenshot: %v %v", resp, err)
	}
}

// webhookEvent is an event the SDK run's receiver accepted.
type webhookEvent struct {
	Type     string         `json:"type"`
	ID       string         `json:"id"`
	EventID  string         `json:"eventId"`
	Attempt  int            `json:"attempt"`
	Signed   bool           `json:"signed"`
	Success  bool           `json:"success"`
	Header   *string        `json:"header"`
	Metadata map[string]any `json:"metadata"`
	URL      *string        `json:"url"`
	Markdown int            `json:"markdown"`
}

// refusal is a call a client's run should report refused: its HTTP
// status and words its message holds (the field at fault).
type refusal struct {
	status int
	text   string
}

// checkRefusals checks that a client's report says each call of want was
// refused as it says: the client raised (its report's flag) an error with
// the status and the words.
// addSearchResults has the test's search backend answer query with
// pages of the site at siteURL: three web results (a fourth off the site's
// paths that does not exist), a dated news item and an old one, and an
// image.
func addSearchResults(query, siteURL string) {
	recent := time.Now().UTC().AddDate(0, 0, -3).Format(time.RFC3339)
	env.searx.Add(query, "general",
		fakesearx.Hit{URL: siteURL + "/s1/p1", Title: "The first result", Content: "A page about crawling.", PublishedDate: recent},
		fakesearx.Hit{URL: siteURL + "/s2/p2", Title: "The second result", Content: "Another page.", PublishedDate: recent},
		fakesearx.Hit{URL: siteURL + "/s1/p3", Title: "The third result", Content: "A third page."},
		fakesearx.Hit{URL: siteURL + "/missing", Title: "A missing page", Content: "Gone."})
	env.searx.Add(query, "news",
		fakesearx.Hit{URL: siteURL + "/s1/p4", Title: "Crawls made durable", Content: "News of the day.", PublishedDate: recent},
		fakesearx.Hit{URL: siteURL + "/s1/p5", Title: "Old news", Content: "Long ago.", PublishedDate: "2019-05-01T08:00:00Z"})
	env.searx.Add(query, "images",
		fakesearx.Hit{URL: siteURL + "/s1/p1", Title: "A diagram", ImgSrc: siteURL + "/diagram.png", Resolution: "640x480"})
}

// checkSearch checks a client's searches of addSearchResults' query:
// plain is the web, news and images results alone, scraped the web
// results of the past year scraped, each as {url, title, markdown}.
func checkSearch(t *testing.T, plain, scraped json.RawMessage, siteURL string) {
	t.Helper()
	type item struct {
		URL, Title, Markdown string
	}
	var a, b map[string][]item
	if err := json.Unmarshal(plain, &a); err != nil {
		t.Fatalf("search: %s: %v", plain, err)
	}
	if err := json.Unmarshal(scraped, &b); err != nil {
		t.Fatalf("search with scrapes: %s: %v", scraped, err)
	}
	if w := a["web"]; len(w) != 3 || w[0].URL != siteURL+"/s1/p1" || w[0].Title != "The first result" || w[2].URL != siteURL+"/s1/p3" || w[0].Markdown != "" {
		t.Errorf("search's web results: %s", plain)
	}
	if n := a["news"]; len(n) != 2 || n[0].Title != "Crawls made durable" {
		t.Errorf("search's news: %s", plain)
	}
	if im := a["images"]; len(im) != 1 || im[0].Title != "A diagram" {
		t.Errorf("search's images: %s", plain)
	}
	// The past year: the two dated web results, each with its page.
	if w := b["web"]; len(w) != 2 || w[0].URL != siteURL+"/s1/p1" || w[1].URL != siteURL+"/s2/p2" ||
		!strings.Contains(w[0].Markdown, "Page 1 of section 1") || !strings.Contains(w[1].Markdown, "Page 2 of section 2") || len(b["news"]) != 0 {
		t.Errorf("search with scrapes: %s", scraped)
	}
}

// checkActions checks a client's scrape of actionsApp after its
// actions (signing in, a button, a scroll, a screenshot, a scrape, a
// script, a PDF): raw is the client's {markdown, actions}. The files are
// read back from the API.
func checkActions(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var got struct {
		Markdown string `json:"markdown"`
		Actions  struct {
			Screenshots []string `json:"screenshots"`
			Scrapes     []struct {
				URL  string `json:"url"`
				HTML string `json:"html"`
			} `json:"scrapes"`
			JavascriptReturns []struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"javascriptReturns"`
			PDFs []string `json:"pdfs"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("scrape with actions: %s: %v", raw, err)
	}
	for _, want := range []string{"Welcome back, ada. Your three invoices are paid.", "Third item, loaded by the button.", "Fourth item, loaded by the scroll."} {
		if !strings.Contains(got.Markdown, want) {
			t.Errorf("the page read after its actions lacks %q: %.800s", want, got.Markdown)
		}
	}
	a := got.Actions
	if len(a.Screenshots) != 1 || len(a.Scrapes) != 1 || len(a.JavascriptReturns) != 1 || len(a.PDFs) != 1 {
		t.Fatalf("the document's actions: %.1000s", raw)
	}
	if !strings.Contains(a.Scrapes[0].HTML, "Welcome back, ada") || !strings.HasSuffix(a.Scrapes[0].URL, "/app") {
		t.Errorf("the scrape action holds %s, %.300s", a.Scrapes[0].URL, a.Scrapes[0].HTML)
	}
	if r := a.JavascriptReturns[0]; r.Type != "number" || string(r.Value) != "4" {
		t.Errorf("the script returned %s %s, want the number 4", r.Type, r.Value)
	}
	for u, want := range map[string]string{a.Screenshots[0]: "image/jpeg", a.PDFs[0]: "application/pdf"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want || len(body) < 100 {
			t.Errorf("GET %s: %s %s, %d bytes; want %s", u, resp.Status, resp.Header.Get("Content-Type"), len(body), want)
		}
	}
}

func checkRefusals(t *testing.T, report map[string]json.RawMessage, flag string, want map[string]refusal) {
	t.Helper()
	for name, w := range want {
		var r map[string]any
		_ = json.Unmarshal(report[name], &r)
		raised, _ := r[flag].(bool)
		status, _ := r["status"].(float64)
		message, _ := r["message"].(string)
		if !raised || int(status) != w.status || !strings.Contains(strings.ToLower(message), strings.ToLower(w.text)) {
			t.Errorf("%s: %s, want a %d naming %q", name, report[name], w.status, w.text)
		}
	}
}

// checkWebhooks: a crawl's webhook receives started, one page event per
// document and completed last, each signed, with the caller's header and
// metadata, each delivered on its second attempt after a 503; a batch's
// events are named batch_scrape and only those asked for come. Every
// attempt is in the crawl's log.
func checkWebhooks(t *testing.T, report map[string]json.RawMessage, siteURL string) {
	t.Helper()
	var hook struct {
		ID        string         `json:"id"`
		Documents int            `json:"documents"`
		Events    []webhookEvent `json:"events"`
		Thrown    bool           `json:"thrown"`
	}
	if err := json.Unmarshal(report["webhookCrawl"], &hook); err != nil || hook.Thrown {
		t.Fatalf("webhookCrawl: %s (%v)", report["webhookCrawl"], err)
	}
	ids, pages := map[string]bool{}, map[string]bool{}
	for i, e := range hook.Events {
		if e.ID != hook.ID || e.Attempt != 2 || !e.Signed || e.Header == nil || *e.Header != "yes" || e.Metadata["run"] != "check" || ids[e.EventID] {
			t.Errorf("event %d: %+v", i, e)
		}
		ids[e.EventID] = true
		if e.Type == "crawl.page" {
			if e.URL == nil || !strings.HasPrefix(*e.URL, siteURL) || e.Markdown == 0 {
				t.Errorf("page event %d: %+v", i, e)
			} else {
				pages[*e.URL] = true
			}
		}
	}
	n := len(hook.Events)
	if n != hook.Documents+2 || hook.Documents != 12 || len(pages) != 12 || hook.Events[0].Type != "crawl.started" ||
		hook.Events[n-1].Type != "crawl.completed" || !hook.Events[n-1].Success {
		t.Errorf("webhook events of a 12-page crawl: %s", report["webhookCrawl"])
	}
	var batch struct {
		Events []webhookEvent `json:"events"`
	}
	if err := json.Unmarshal(report["webhookBatch"], &batch); err != nil {
		t.Fatalf("webhookBatch: %s", report["webhookBatch"])
	}
	var types []string
	for _, e := range batch.Events {
		types = append(types, e.Type)
	}
	if strings.Join(types, " ") != "batch_scrape.page batch_scrape.page batch_scrape.completed" {
		t.Errorf("batch webhook events %v, want two pages and completed", types)
	}
	// The crawl's log has each attempt: a failure, then the delivery.
	logs := allLogs(t, env.api, env.keyA, hook.ID, 100)
	failed, delivered := 0, 0
	for _, l := range logs {
		switch l.Message {
		case "Webhook attempt failed":
			failed++
		case "Webhook delivered":
			delivered++
		}
	}
	if failed != n || delivered != n {
		t.Errorf("log: %d failed attempts and %d deliveries, want %d of each", failed, delivered, n)
	}
	// A server that does not reach private networks calls no webhook
	// there either.
	for _, hookURL := range []string{"http://169.254.169.254/latest", "http://localhost:9/in"} {
		status, body := call(t, "POST", env.guardedAPI+"/v2/crawl", env.keyA, map[string]any{"url": "https://example.com/", "webhook": hookURL}, nil)
		if status != 400 || !strings.Contains(string(body), "webhook.url") || !strings.Contains(string(body), `"success":false`) {
			t.Errorf("a webhook on %s: %d %s", hookURL, status, body)
		}
	}
	status, body := call(t, "POST", env.guardedAPI+"/crawls", env.keyA, map[string]any{"startUrl": "https://example.com/", "webhook": map[string]any{"url": "http://10.0.0.1/in"}}, nil)
	if status != 400 || !strings.Contains(string(body), "webhook.url") {
		t.Errorf("a native webhook on a private address: %d %s", status, body)
	}
}

// TestNativeFormats: the service's own API keeps the formats a crawl asks
// for besides markdown, and GET /crawls/{id}/pages gives them.
func TestNativeFormats(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": site.URL + "/meta", "maxResults": 1, "formats": []string{"links", "metadata", "rawHtml"}})
	waitStatus(t, env.api, env.keyA, c.ID, 2*time.Minute, "succeeded")
	pages := allPages(t, env.api, env.keyA, c.ID)
	if len(pages) != 1 {
		t.Fatalf("%d pages", len(pages))
	}
	p := pages[0]
	var meta struct {
		Description string            `json:"description"`
		Language    string            `json:"language"`
		Canonical   string            `json:"canonical"`
		Meta        map[string]string `json:"meta"`
	}
	if err := json.Unmarshal(p.Metadata, &meta); err != nil {
		t.Fatalf("metadata %s: %v", p.Metadata, err)
	}
	if strings.Join(p.Links, " ") != site.URL+"/s2/p2 "+site.URL+"/s1/p1 https://example.org/south" || p.RawHTML == nil || *p.RawHTML != metaPage ||
		p.HTML != nil || p.Images != nil || p.Markdown == "" {
		t.Errorf("page %+v", p)
	}
	if meta.Description != "A guide to the harbour in winter." || meta.Language != "en-GB" || meta.Canonical != site.URL+"/meta" || meta.Meta["og:title"] != "Harbour guide (OG)" {
		t.Errorf("metadata %s", p.Metadata)
	}
	if status, body := call(t, "POST", env.api+"/crawls", env.keyA, map[string]any{"startUrl": site.URL + "/", "formats": []string{"pdf"}}, nil); status != 400 ||
		!strings.Contains(string(body), "formats[0]") {
		t.Errorf("an unknown format: %d %s", status, body)
	}
	// An extraction schema: what is not one is a 400 naming it; a page's
	// extraction validates against it.
	if status, body := call(t, "POST", env.llmAPI+"/crawls", env.keyA, map[string]any{"startUrl": site.URL + "/", "extractionSchema": map[string]any{"type": 3}}, nil); status != 400 ||
		!strings.Contains(string(body), "extractionSchema") {
		t.Errorf("a schema that is not one: %d %s", status, body)
	}
	c = create(t, env.llmAPI, env.keyA, map[string]any{"startUrl": site.URL + "/schema-repair", "maxResults": 1,
		"extractionSchema": map[string]any{"type": "object", "required": []string{"price"}, "properties": map[string]any{"price": map[string]any{"type": "number"}}}})
	waitStatus(t, env.llmAPI, env.keyA, c.ID, 2*time.Minute, "succeeded")
	if pages := allPages(t, env.llmAPI, env.keyA, c.ID); len(pages) != 1 || !strings.Contains(string(pages[0].Extraction), `"price":12.5`) {
		t.Errorf("a native crawl with a schema: %+v", pages)
	}
}

// TestFirecrawlWatchEndsWithTheCrawl: a watch of a running crawl sends a
// catchup first and, when the crawl is cancelled, closes with Firecrawl's
// close frame (1000, {"type":"done"}); a watch without a key, or of
// another team's crawl, is refused.
func TestFirecrawlWatchEndsWithTheCrawl(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	var started struct {
		ID string `json:"id"`
	}
	if status, body := call(t, "POST", env.api+"/v2/crawl", env.keyA, map[string]any{"url": site.URL + "/slow/1", "limit": 500}, &started); status != 200 {
		t.Fatalf("start: %d %s", status, body)
	}
	wsURL := "ws" + strings.TrimPrefix(env.api, "http") + "/v2/crawl/" + started.ID
	if _, resp, err := websocket.DefaultDialer.Dial(wsURL, nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Errorf("a watch without a key: %v, %v", err, resp)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Sec-WebSocket-Protocol": {env.keyB}}); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Errorf("another team's watch: %v, %v", err, resp)
	}
	conn, resp, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Sec-WebSocket-Protocol": {env.keyA}})
	if err != nil {
		t.Fatalf("watch: %v (%v)", err, resp)
	}
	defer conn.Close()
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != env.keyA {
		t.Errorf("the subprotocol answered is %q", got)
	}
	var msg struct {
		Type string `json:"type"`
		Data struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := conn.ReadJSON(&msg); err != nil || msg.Type != "catchup" || msg.Data.Status != "scraping" {
		t.Fatalf("first message: %+v, %v", msg, err)
	}
	if status, body := call(t, "DELETE", env.api+"/v2/crawl/"+started.ID, env.keyA, nil, nil); status != 200 {
		t.Fatalf("cancel: %d %s", status, body)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		err := conn.ReadJSON(&msg)
		if err == nil {
			if msg.Type != "document" && msg.Type != "heartbeat" {
				t.Errorf("a message of type %q after the catchup", msg.Type)
			}
			continue
		}
		var closed *websocket.CloseError
		if !errors.As(err, &closed) || closed.Code != websocket.CloseNormalClosure || closed.Text != `{"type":"done"}` {
			t.Fatalf("the watch ended with %v, want a close frame 1000 {\"type\":\"done\"}", err)
		}
		break
	}
	var st struct {
		Status string `json:"status"`
	}
	if status, body := call(t, "GET", env.api+"/v2/crawl/"+started.ID, env.keyA, nil, &st); status != 200 || st.Status != "cancelled" {
		t.Errorf("after the watch: %d %s", status, body)
	}
}

// TestFirecrawlWatchOfAnEndedCrawl: the catchup of a crawl that has ended
// holds every document it stored (more than one status answer's 100),
// with its final status, and the watch then closes with 1000.
func TestFirecrawlWatchOfAnEndedCrawl(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	var started struct {
		ID string `json:"id"`
	}
	if status, body := call(t, "POST", env.api+"/v2/crawl", env.keyA, map[string]any{"url": site.URL + "/", "limit": 105, "sitemap": "skip"}, &started); status != 200 {
		t.Fatalf("start: %d %s", status, body)
	}
	waitStatus(t, env.api, env.keyA, started.ID, 3*time.Minute, "succeeded")
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(env.api, "http")+"/v2/crawl/"+started.ID,
		http.Header{"Authorization": {"Bearer " + env.keyA}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	var msg struct {
		Type string `json:"type"`
		Data struct {
			Status    string `json:"status"`
			Completed int    `json:"completed"`
			Data      []struct {
				Metadata struct {
					SourceURL string `json:"sourceURL"`
				} `json:"metadata"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := conn.ReadJSON(&msg); err != nil || msg.Type != "catchup" || msg.Data.Status != "completed" || msg.Data.Completed != 105 || len(msg.Data.Data) != 105 {
		t.Fatalf("catchup: %s %s, completed %d, %d documents, %v", msg.Type, msg.Data.Status, msg.Data.Completed, len(msg.Data.Data), err)
	}
	distinct := map[string]bool{}
	for _, d := range msg.Data.Data {
		distinct[d.Metadata.SourceURL] = true
	}
	if len(distinct) != 105 {
		t.Errorf("%d distinct documents in the catchup", len(distinct))
	}
	var closed *websocket.CloseError
	if err := conn.ReadJSON(&msg); !errors.As(err, &closed) || closed.Code != websocket.CloseNormalClosure {
		t.Errorf("after the catchup: %+v, %v; want a close frame 1000", msg, err)
	}
}

// TestFirecrawlLargeBatch: a batch scrape of 150 URLs (more than a crawl
// may start from) stores each once, read back through next.
func TestFirecrawlLargeBatch(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	var urls []string
	for i := 1; i <= 150; i++ {
		urls = append(urls, fmt.Sprintf("%s/schema-batch-%d", site.URL, i))
	}
	var started struct {
		ID string `json:"id"`
	}
	if status, body := call(t, "POST", env.api+"/v2/batch/scrape", env.keyA, map[string]any{"urls": urls}, &started); status != 200 {
		t.Fatalf("start: %d %s", status, body)
	}
	waitStatus(t, env.api, env.keyA, started.ID, 2*time.Minute, "succeeded")
	seen := map[string]bool{}
	for next := env.api + "/v2/batch/scrape/" + started.ID; next != ""; {
		var page struct {
			Status string `json:"status"`
			Data   []struct {
				Metadata struct {
					SourceURL string `json:"sourceURL"`
				} `json:"metadata"`
			} `json:"data"`
			Next string `json:"next"`
		}
		if status, body := call(t, "GET", next, env.keyA, nil, &page); status != 200 || page.Status != "completed" {
			t.Fatalf("GET %s: %d %.300s", next, status, body)
		}
		for _, d := range page.Data {
			if seen[d.Metadata.SourceURL] {
				t.Errorf("%s twice", d.Metadata.SourceURL)
			}
			seen[d.Metadata.SourceURL] = true
		}
		next = page.Next
	}
	if len(seen) != 150 {
		t.Errorf("%d documents, want 150", len(seen))
	}
	var many []string
	for i := 0; i <= firecrawl.MaxBatchURLs; i++ {
		many = append(many, fmt.Sprintf("%s/schema-%d", site.URL, i))
	}
	if status, body := call(t, "POST", env.api+"/v2/batch/scrape", env.keyA, map[string]any{"urls": many}, nil); status != 400 ||
		!strings.Contains(string(body), `"urls"`) {
		t.Errorf("a batch of %d URLs: %d %.300s", len(many), status, body)
	}
}

// TestFirecrawlExternalLinks: allowExternalLinks follows a link to
// another site (another port is another site), which a crawl without it
// leaves alone.
func TestFirecrawlExternalLinks(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Elsewhere</title></head><body><main><h1>Another site</h1><p>A page on another site, reached by an external link.</p></main></body></html>`)
	}))
	defer other.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Home</title></head><body><main><h1>Home</h1><p>A page linking to <a href="%s/page">another site</a> and <a href="/local">one of its own</a>.</p></main></body></html>`, other.URL)
	}))
	defer site.Close()
	crawlURLs := func(external bool) []string {
		var started struct {
			ID string `json:"id"`
		}
		if status, body := call(t, "POST", env.api+"/v2/crawl", env.keyA, map[string]any{"url": site.URL + "/", "limit": 10, "sitemap": "skip",
			"allowExternalLinks": external}, &started); status != 200 {
			t.Fatalf("start: %d %s", status, body)
		}
		waitStatus(t, env.api, env.keyA, started.ID, time.Minute, "succeeded")
		var job struct {
			Data []struct {
				Metadata struct {
					SourceURL string `json:"sourceURL"`
				} `json:"metadata"`
			} `json:"data"`
		}
		call(t, "GET", env.api+"/v2/crawl/"+started.ID, env.keyA, nil, &job)
		var out []string
		for _, d := range job.Data {
			out = append(out, d.Metadata.SourceURL)
		}
		sort.Strings(out)
		return out
	}
	if got := crawlURLs(true); !slices.Contains(got, other.URL+"/page") || !slices.Contains(got, site.URL+"/local") {
		t.Errorf("with allowExternalLinks: %v", got)
	}
	if got := crawlURLs(false); slices.Contains(got, other.URL+"/page") || !slices.Contains(got, site.URL+"/local") {
		t.Errorf("without allowExternalLinks: %v", got)
	}
}
