package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// repetitiveSite is a shop whose pages share a navigation list, a footer
// and a promotion, and repeat paragraphs, headings and table rows across
// pages. /about holds nothing of its own but its heading.
func repetitiveSite(t *testing.T) *httptest.Server {
	t.Helper()
	shell := func(title, main string) string {
		return fmt.Sprintf(`<!doctype html><html><head><title>%s</title></head><body>
<ul><li>Home</li><li>Products</li><li>About us</li></ul>
%s
<p>Spring sale: every order ships free this week.</p>
<p>© 2026 Repeat Shop. All rights reserved.</p>
</body></html>`, title, main)
	}
	pages := map[string]string{
		"/": shell("Repeat Shop", `<h1>Welcome</h1><p>We sell red and blue things.</p>
<p><a href="/red">Red</a> <a href="/blue">Blue</a> <a href="/about">About</a></p>`),
		"/red": shell("Red", `<h1>Red thing</h1><p>The red thing is bright.</p>
<h2>Shipping</h2><p>Orders leave our store within two days.</p>
<table><tr><th>Size</th><th>Price</th></tr><tr><td>S</td><td>10</td></tr><tr><td>L</td><td>14</td></tr></table>`),
		"/blue": shell("Blue", `<h1>Blue thing</h1><p>The blue thing is calm.</p>
<h2>Shipping</h2><p>Orders leave our store within two days.</p>
<h2>Returns</h2><p>Send it back within a month.</p>
<table><tr><th>Size</th><th>Price</th></tr><tr><td>S</td><td>10</td></tr><tr><td>M</td><td>12</td></tr></table>`),
		"/about": shell("About", `<h1>About us</h1><h2>Shipping</h2><p>Orders leave our store within two days.</p>`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// dedupedMarkdown is what each page keeps with deduplicateContent. The
// crawl has four pages, so text on two of them is furniture (a third of
// the pages, and at least two: dedupe.Threshold). The navigation,
// promotion and footer are kept by the start page alone, the shipping
// section (on three pages) by /red, linked first. Tables are never taken:
// /red and /blue keep theirs whole. /about holds nothing of its own but
// its headings; taking the rest would empty it, so it keeps all its text.
var dedupedMarkdown = map[string]string{
	"/": "- Home\n- Products\n- About us\n\n# Welcome\n\nWe sell red and blue things.\n\nRed Blue About\n\n" +
		"Spring sale: every order ships free this week.\n\n© 2026 Repeat Shop. All rights reserved.",
	"/red": "# Red thing\n\nThe red thing is bright.\n\n## Shipping\n\nOrders leave our store within two days.\n\n" +
		"| Size | Price |\n|------|-------|\n| S    | 10    |\n| L    | 14    |",
	"/blue": "# Blue thing\n\nThe blue thing is calm.\n\n## Returns\n\nSend it back within a month.\n\n" +
		"| Size | Price |\n|------|-------|\n| S    | 10    |\n| M    | 12    |",
	"/about": "- Home\n- Products\n- About us\n\n# About us\n\n## Shipping\n\nOrders leave our store within two days.\n\n" +
		"Spring sale: every order ships free this week.\n\n© 2026 Repeat Shop. All rights reserved.",
}

// TestDeduplicateContent crawls the repetitive site with several pages
// fetched at once, with and without deduplicateContent, and checks each
// page's markdown exactly.
func TestDeduplicateContent(t *testing.T) {
	t.Parallel()
	site := repetitiveSite(t)
	base := map[string]any{"excludeNonMainTags": false, "includeLinks": false, "maxDepth": 1, "maxConcurrentPages": 4}
	with := map[string]any{"deduplicateContent": true}
	without := map[string]any{"deduplicateContent": false}
	for k, v := range base {
		with[k], without[k] = v, v
	}
	deduped := crawlSite(t, env.api, site, with, "succeeded")
	whole := crawlSite(t, env.api, site, without, "succeeded")

	if deduped.crawl.TotalPages != 4 || whole.crawl.TotalPages != 4 {
		t.Fatalf("stored %d and %d pages, want 4 each (an emptied page still counts)", deduped.crawl.TotalPages, whole.crawl.TotalPages)
	}
	for path, want := range dedupedMarkdown {
		if got := deduped.pages[path].Markdown; got != want {
			t.Errorf("%s deduplicated:\n got %q\nwant %q", path, got, want)
		}
	}
	// Without deduplication every page is whole: the shared parts are on
	// each, and the raw markdown of the deduplicated crawl is the same.
	raw := map[string]string{}
	var rawPages pageOf[resultPage]
	status, body := call(t, "GET", env.api+"/crawls/"+deduped.crawl.ID+"/pages?raw=true&limit=100", env.keyA, nil, &rawPages)
	if status != http.StatusOK {
		t.Fatalf("GET pages?raw=true = %d %s", status, body)
	}
	for _, p := range rawPages.Results {
		raw[strings.TrimPrefix(p.URL, site.URL)] = p.Markdown
	}
	for path, p := range whole.pages {
		for _, shared := range []string{"- Home\n- Products\n- About us", "Spring sale", "© 2026 Repeat Shop"} {
			if !strings.Contains(p.Markdown, shared) {
				t.Errorf("%s without deduplication lacks %q:\n%s", path, shared, p.Markdown)
			}
		}
		if raw[path] != p.Markdown {
			t.Errorf("%s: raw markdown of the deduplicated crawl differs from the crawl without:\n%q\n%q", path, raw[path], p.Markdown)
		}
		if p.FragmentsRemoved != 0 || p.Fragments != 0 {
			t.Errorf("%s without deduplication: %d of %d fragments removed, want no count", path, p.FragmentsRemoved, p.Fragments)
		}
	}
	if p := deduped.pages["/about"]; p.FragmentsRemoved != 0 || p.Fragments != 8 {
		t.Errorf("/about: %d of %d fragments removed, want 0 of 8", p.FragmentsRemoved, p.Fragments)
	}
	if p := deduped.pages["/blue"]; p.FragmentsRemoved != 7 || p.Fragments != 14 {
		t.Errorf("/blue: %d of %d fragments removed, want 7 of 14", p.FragmentsRemoved, p.Fragments)
	}
	// The log says what each page lost.
	var entry logEntry
	for _, l := range deduped.logs {
		if l.Message == "Page deduplicated" && l.Data["url"] == site.URL+"/blue" {
			entry = l
		}
	}
	if !strings.Contains(entry.Description, "7 of the 14 text fragments") || !strings.Contains(entry.Description, `"- Home"`) {
		t.Errorf("/blue's deduplication entry does not say what went: %+v", entry)
	}
	if _, ok := deduped.message("Deduplication settled"); !ok {
		t.Errorf("no entry closes deduplication")
	}
	status, body = call(t, "GET", env.api+"/crawls/"+deduped.crawl.ID+"/pages?raw=maybe", env.keyA, nil, nil)
	if status != http.StatusBadRequest || !strings.Contains(string(body), `"raw"`) {
		t.Errorf("raw=maybe: %d %s, want a 400 naming raw", status, body)
	}
}

// TestDeduplicateOrderDoesNotMatter crawls a site of 61 pages, one page
// at a time and 32 at a time: every page keeps the same markdown either
// way. The footer, on every page, is kept by the start page alone; each
// paragraph that five pages share, and a note twenty pages share (fewer
// than a third of them), stays on every page holding it; no page is
// emptied.
func TestDeduplicateOrderDoesNotMatter(t *testing.T) {
	t.Parallel()
	const n = 60
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><body><h1>Page %d</h1>", i)
		for j := 0; j < n; j++ {
			if r.URL.Path == "/" {
				fmt.Fprintf(w, `<a href="/p/%d">p%d</a> `, j+1, j+1)
			}
		}
		// Paragraph k appears on pages k..k+4: shared by five pages each.
		for k := max(0, i-4); k <= i; k++ {
			fmt.Fprintf(w, "<p>Shared paragraph number %d.</p>", k)
		}
		if i >= 1 && i <= 20 {
			fmt.Fprint(w, "<p>A note the first twenty pages repeat.</p>")
		}
		fmt.Fprint(w, "<p>Made with care by the order test site.</p></body></html>")
	}))
	t.Cleanup(srv.Close)
	var runs []crawled
	for _, concurrency := range []int{1, 32} {
		runs = append(runs, crawlSite(t, env.api, srv, map[string]any{"excludeNonMainTags": false, "includeLinks": false,
			"maxDepth": 1, "maxConcurrentPages": concurrency, "maxResults": 100}, "succeeded"))
	}
	for _, c := range runs {
		if len(c.pages) != n+1 {
			t.Fatalf("%d pages stored, want %d", len(c.pages), n+1)
		}
	}
	for path, p := range runs[1].pages {
		if other := runs[0].pages[path].Markdown; other != p.Markdown {
			t.Errorf("%s differs between one page at a time and 32:\n%q\n%q", path, other, p.Markdown)
		}
		i := 0
		fmt.Sscanf(path, "/p/%d", &i)
		if !strings.Contains(p.Markdown, fmt.Sprintf("# Page %d", i)) {
			t.Errorf("%s lost its own heading:\n%s", path, p.Markdown)
		}
		for k := max(0, i-4); k <= i; k++ {
			if !strings.Contains(p.Markdown, fmt.Sprintf("Shared paragraph number %d.", k)) {
				t.Errorf("%s lost paragraph %d, which five pages share:\n%s", path, k, p.Markdown)
			}
		}
		if note := strings.Contains(p.Markdown, "A note the first twenty pages repeat."); note != (i >= 1 && i <= 20) {
			t.Errorf("%s holds the note twenty pages share: %v", path, note)
		}
		if footer := strings.Contains(p.Markdown, "Made with care"); footer != (path == "/") {
			t.Errorf("%s holds the footer every page has: %v, want the start page alone", path, footer)
		}
	}
}

// TestDeduplicateNotices crawls, with the default options, six pages that
// each open with the same two notices under their own title, then a
// paragraph of their own: the start page keeps the notices, the five
// others lose them and keep their own paragraph.
func TestDeduplicateNotices(t *testing.T) {
	t.Parallel()
	notices := `<p>This manual describes version 2 of the service, which is no longer maintained.</p>
<p>Please read the migration guide before you upgrade an installation to version 3.</p>`
	own := func(i int) string {
		return fmt.Sprintf("Topic %d is explained here in a paragraph of its own, which no other page holds.", i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); r.URL.Path != "/" && (err != nil || i < 1 || i > 5) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Topic %d</title></head><body>
<nav><a href="/">Start</a> <a href="/p1">One</a> <a href="/p2">Two</a> <a href="/p3">Three</a> <a href="/p4">Four</a> <a href="/p5">Five</a></nav>
<h1>Topic %d</h1>
%s
<p>%s</p>
</body></html>`, i, i, notices, own(i))
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{}, "succeeded")
	if c.crawl.TotalPages != 6 {
		t.Fatalf("stored %d pages, want 6", c.crawl.TotalPages)
	}
	for path, p := range c.pages {
		i := 0
		fmt.Sscanf(path, "/p%d", &i)
		if !strings.Contains(p.Markdown, own(i)) {
			t.Errorf("%s lost its own paragraph:\n%s", path, p.Markdown)
		}
		kept := strings.Contains(p.Markdown, "no longer maintained") || strings.Contains(p.Markdown, "migration guide")
		if kept != (path == "/") {
			t.Errorf("%s keeps the notices: %v, want %v:\n%s", path, kept, path == "/", p.Markdown)
		}
	}
}

// TestArticleAfterAdvertisement crawls, with the default options, a site
// whose articles each hold an advertisement between their paragraphs and a
// last sentence of two links after it, beside the site's shared navigation,
// sidebar, promotion and footer: every article keeps its last sentence.
// Each article's text is its own (what every page repeats word for word
// is deduplicated: TestDeduplicateNotices).
func TestArticleAfterAdvertisement(t *testing.T) {
	t.Parallel()
	ads := []string{
		`<div class="ad">Advertisement</div>`,
		`<div class="ad"><p>Advertisement</p><a href="https://ads.example/click?id=1"><img src="https://ads.example/b.png" alt="Buy Widget Pro"></a></div>`,
		`<aside class="advertisement"><p>Advertisement</p><p>Widget Pro: the fastest widget on the market, now 20% off.</p></aside>`,
		`<div class="ad"><h4>Sponsored</h4><p><a href="https://ads.example/">Widget Pro</a></p></div>`,
		`<div class="ad-slot"><ins class="adsbygoogle" style="display:block"></ins><script>(window.ads = window.ads || []).push({});</script></div>`,
	}
	last := func(i int) string {
		if i == 0 {
			return `<p>See the <a href="/api">API reference</a> and <a href="https://example.org/">an outside page</a>.</p>`
		}
		return fmt.Sprintf(`<p>See the <a href="/api">API reference</a> and <a href="https://example.org/%d">outside page %d</a>.</p>`, i, i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/a%d", &i); r.URL.Path != "/" && (err != nil || i < 0 || i >= len(ads)) {
			http.NotFound(w, r)
			return
		}
		var links strings.Builder
		for j := range ads {
			fmt.Fprintf(&links, ` <a href="/a%d">Article %d</a>`, j, j)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Article %d</title></head><body>
<header><nav><a href="/">Home</a>%s</nav></header>
<aside class="sidebar">Sidebar links</aside>
<main><article><h1>Article %d</h1>
<p>Article %d explains how the service reads every page of a site and turns each into markdown, page by page.</p>
<p>Article %d keeps a log of what it did with each page, so that a reader can tell why a page is missing.</p>
%s
%s</article><div class="promo">Promotional box text</div></main>
<footer>Footer of the site <a href="https://external.example/footer">Partner</a></footer>
</body></html>`, i, links.String(), i, i, i, ads[i%len(ads)], last(i))
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{}, "succeeded")
	if c.crawl.TotalPages != len(ads)+1 {
		t.Fatalf("stored %d pages, want %d", c.crawl.TotalPages, len(ads)+1)
	}
	for path, p := range c.pages {
		i := 0
		fmt.Sscanf(path, "/a%d", &i)
		want := fmt.Sprintf("See the [API reference](%s/api) and outside page %d.", srv.URL, i)
		if i == 0 {
			want = "See the [API reference](" + srv.URL + "/api) and an outside page."
		}
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("%s lost the article's last sentence %q:\n%s", path, want, p.Markdown)
		}
	}
}
