package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/internal/proctest"
)

// jsOnlySite serves pages whose text and links exist only after their
// script runs, one of them fetched after the load event.
func jsOnlySite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/more":
			fmt.Fprint(w, "Loaded after the load event by the app.")
			return
		case "/", "/next":
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		title, link := "Home of the app", `<a href="/next">Next page</a>`
		if r.URL.Path == "/next" {
			title, link = "Second page of the app", ""
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
window.addEventListener('load', () => {
  document.getElementById('root').innerHTML = '<main><h1>%s</h1><p>This paragraph was written by JavaScript, with enough words in it to be the main content of the page.</p>%s</main>';
  setTimeout(() => fetch('/api/more').then(r => r.text()).then(t => {
    const p = document.createElement('p'); p.textContent = t; document.querySelector('main').appendChild(p);
  }), 50);
});
</script></body></html>`, title, link)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPlaywrightEngine: engineType playwright (and the older engine)
// renders pages in Chromium and follows links that only the rendered DOM
// has; the static engine sees an empty app.
func TestPlaywrightEngine(t *testing.T) {
	t.Parallel()
	s := jsOnlySite(t)
	for _, body := range []map[string]any{
		// Both pages hold the app's paragraphs: deduplication would take
		// them off the second.
		{"engineType": "playwright", "maxDepth": 1, "deduplicateContent": false},
		{"startUrls": []string{s.URL + "/"}, "engine": "playwright", "maxDepth": 1, "maxResults": 10, "deduplicateContent": false},
	} {
		c := crawlSite(t, env.api, s, body, "succeeded")
		if got := c.paths(); strings.Join(got, " ") != "/ /next" {
			t.Errorf("playwright crawl stored %v, want / and /next", got)
		}
		for path, p := range c.pages {
			if p.Engine != "playwright" || !strings.Contains(p.Markdown, "written by JavaScript") ||
				!strings.Contains(p.Markdown, "Loaded after the load event") {
				t.Errorf("%s (engine %q) lacks the rendered text:\n%s", path, p.Engine, p.Markdown)
			}
		}
		if e, ok := c.message("Engine chosen"); !ok || e.Data["engine"] != "playwright" {
			t.Errorf("engine entry: %+v", e)
		}
	}
	static := crawlSite(t, env.api, s, map[string]any{"engineType": "cheerio", "maxDepth": 1}, "succeeded")
	if len(static.pages) != 1 || strings.Contains(static.pages["/"].Markdown, "written by JavaScript") {
		t.Errorf("the static engine saw rendered content: %v", static.pages)
	}
}

// TestAutoSwitchesToTheBrowser: with engineType auto the start page is
// fetched statically, found to need JavaScript, and the crawl goes on in
// the browser, saying why; a static site stays static.
func TestAutoSwitchesToTheBrowser(t *testing.T) {
	t.Parallel()
	s := jsOnlySite(t)
	c := crawlSite(t, env.api, s, map[string]any{"maxDepth": 1, "deduplicateContent": false}, "succeeded")
	if got := c.paths(); strings.Join(got, " ") != "/ /next" {
		t.Errorf("auto crawl stored %v, want / and /next", got)
	}
	for path, p := range c.pages {
		if p.Engine != "playwright" || !strings.Contains(p.Markdown, "written by JavaScript") {
			t.Errorf("%s (engine %q) lacks the rendered text:\n%s", path, p.Engine, p.Markdown)
		}
	}
	e, ok := c.message("Engine switched")
	if !ok || e.Data["engine"] != "playwright" || !strings.Contains(e.Description, "JavaScript") {
		t.Errorf("no entry saying why the engine switched: %+v", c.logs)
	}

	static := newOptionsSite(t, false)
	sc := crawlSite(t, env.api, static.Server, map[string]any{"maxDepth": 1}, "succeeded")
	if _, switched := sc.message("Engine switched"); switched {
		t.Error("a static site was switched to the browser")
	}
	for path, p := range sc.pages {
		if p.Engine != "cheerio" {
			t.Errorf("%s fetched by %q on a static site", path, p.Engine)
		}
	}
}

// TestBrowserKilledMidCrawl: Chromium dies in the middle of a playwright
// crawl; the batch is retried in a new Chromium and the crawl completes
// with every page.
func TestBrowserKilledMidCrawl(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 300*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/", "engineType": "playwright",
		"maxResults": 12, "maxConcurrentPages": 2})
	waitFor(t, env.api, env.keyA, c.ID, time.Minute, "three pages", func(c crawlObj) bool { return c.TotalPages >= 3 })
	if n := proctest.KillDescendants("chromium"); n == 0 {
		t.Fatal("no Chromium process to kill")
	}
	done := waitStatus(t, env.api, env.keyA, c.ID, 2*time.Minute, "succeeded")
	if done.TotalPages != 12 {
		t.Errorf("totalPages = %d, want 12", done.TotalPages)
	}
	for _, p := range allPages(t, env.api, env.keyA, c.ID) {
		if p.Engine != "playwright" || !strings.Contains(p.Markdown, "# Slow page") {
			t.Errorf("%s: engine %q, markdown %q", p.URL, p.Engine, p.Markdown)
		}
	}
}

// TestMixedSite: a JavaScript app that links to plain HTML pages; the
// crawl switches to the browser at the start page and the browser stores
// both kinds with their text.
func TestMixedSite(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body><div id="app"></div><script>
document.getElementById('app').innerHTML = '<main><h1>The app</h1><p>The app renders this text and two links for the crawler to follow.</p><a href="/plain">Plain page</a> <a href="/other">Other</a></main>';
</script></body></html>`)
		case "/plain", "/other":
			fmt.Fprintf(w, `<html><body><main><h1>Plain HTML %s</h1><p>This page needs no JavaScript at all: its text is in the HTML the server sends.</p></main></body></html>`, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{"maxDepth": 1}, "succeeded")
	if got := strings.Join(c.paths(), " "); got != "/ /other /plain" {
		t.Fatalf("stored %s, want / /other /plain", got)
	}
	if !strings.Contains(c.pages["/"].Markdown, "The app renders this text") ||
		!strings.Contains(c.pages["/plain"].Markdown, "needs no JavaScript") {
		t.Errorf("markdown: %q / %q", c.pages["/"].Markdown, c.pages["/plain"].Markdown)
	}
	if _, ok := c.message("Engine switched"); !ok {
		t.Error("no engine switch logged")
	}
}

// mixedSite has static pages and JavaScript-only pages at several depths:
// / (static) links to /guide (static) and /app (JavaScript only); /guide
// links to /deep-app (JavaScript only); /app's rendered DOM alone links
// to /notes (static).
func mixedSite(t *testing.T) *httptest.Server {
	text := strings.Repeat("Plain words written on the server for every reader. ", 8)
	static := map[string]string{
		"/":      `<h1>Home</h1><p>` + text + `</p><a href="/guide">Guide</a> <a href="/app">App</a>`,
		"/guide": `<h1>Guide</h1><p>` + text + `</p><a href="/deep-app">Deep app</a>`,
		"/notes": `<h1>Notes</h1><p>` + text + `</p>`,
	}
	apps := map[string]string{
		"/app":      `<main><h1>The app</h1><p>Drawn by the app script, with words enough to be the content of this page.</p><a href="/notes">Notes</a></main>`,
		"/deep-app": `<main><h1>The deep app</h1><p>Drawn by the app script two links below the start, with words enough to count.</p></main>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if body, ok := static[r.URL.Path]; ok {
			fmt.Fprintf(w, `<!doctype html><html><head><title>Site</title></head><body>%s</body></html>`, body)
			return
		}
		if body, ok := apps[r.URL.Path]; ok {
			fmt.Fprintf(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>document.getElementById('root').innerHTML = %q;</script></body></html>`, body)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAutoRendersDeepPagesInTheBrowser: with engineType auto, a static
// start page keeps the crawl static, and the pages below it that need
// JavaScript, wherever they are, are rendered in the browser, each with a
// log entry saying why; links only their rendered DOM has are followed.
func TestAutoRendersDeepPagesInTheBrowser(t *testing.T) {
	t.Parallel()
	s := mixedSite(t)
	c := crawlSite(t, env.api, s, map[string]any{"maxDepth": 3, "deduplicateContent": false}, "succeeded")
	if got := strings.Join(c.paths(), " "); got != "/ /app /deep-app /guide /notes" {
		t.Fatalf("stored %s, want every page", got)
	}
	for path, engine := range map[string]string{"/": "cheerio", "/guide": "cheerio", "/notes": "cheerio", "/app": "playwright", "/deep-app": "playwright"} {
		p := c.pages[path]
		if p.Engine != engine {
			t.Errorf("%s fetched with %q, want %s", path, p.Engine, engine)
		}
		if engine == "playwright" && !strings.Contains(p.Markdown, "Drawn by the app script") {
			t.Errorf("%s lacks its rendered text:\n%s", path, p.Markdown)
		}
	}
	if _, switched := c.message("Engine switched"); switched {
		t.Error("the whole crawl switched to the browser")
	}
	sent := map[string]bool{}
	for _, l := range c.logs {
		if l.Message == "Page sent to the browser" {
			if !strings.Contains(l.Description, "JavaScript") || l.Data["reason"] == "" {
				t.Errorf("entry does not say why: %+v", l)
			}
			sent[strings.TrimPrefix(l.Data["url"].(string), s.URL)] = true
		}
	}
	if len(sent) != 2 || !sent["/app"] || !sent["/deep-app"] {
		t.Errorf("pages sent to the browser: %v, want /app and /deep-app", sent)
	}
	replay(t, crawlflow.WorkflowID(c.crawl.ID), "")
}
