package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}

// homeScope is what a default crawl of the options site stores: the pages
// linked from home within three hops, minus robots.txt's private page, the
// redirect, the canonical copy, the PDF and the slow page.
var homeScope = []string{"/", "/about", "/big", "/blog/", "/blog/draft-x", "/blog/first", "/blog/second",
	"/deep/a/b/c/d", "/deep/a/b/c/d/e", "/docs/guide/advanced", "/docs/guide/setup", "/docs/intro"}

// TestDefaultsAndHygiene: a crawl with default options stores main
// content only, with links absolute and external links reduced to text,
// and deals with robots.txt, redirects, canonical pairs, non-HTML, oversized
// and slow pages as the README says.
func TestDefaultsAndHygiene(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	c := crawlSite(t, env.api, s.Server, map[string]any{}, "succeeded")
	if got := c.paths(); !reflect.DeepEqual(got, homeScope) {
		t.Errorf("stored %v\nwant   %v", got, homeScope)
	}
	home := c.pages["/"]
	for _, unwanted := range []string{navText, footerNote, "Sidebar links"} {
		if strings.Contains(home.Markdown, unwanted) {
			t.Errorf("main-content markdown holds %q:\n%s", unwanted, home.Markdown)
		}
	}
	if !strings.Contains(home.Markdown, "[Docs]("+s.URL+"/docs/intro)") {
		t.Errorf("internal link not absolute:\n%s", home.Markdown)
	}
	if strings.Contains(home.Markdown, "external.example") || !strings.Contains(home.Markdown, "An external page") {
		t.Errorf("external link not reduced to its text:\n%s", home.Markdown)
	}

	checks := []struct {
		path, message, says string
	}{
		{"/private/secret", "Page skipped", "robots.txt"},
		{"/to-private", "Page skipped", "robots.txt"},
		{"/redirect-me", "Page skipped", "/docs/intro"},
		{"/canonical-copy", "Page skipped", "canonical"},
		{"/report.pdf", "Page failed", "could not read the PDF"},
		{"/too-slow", "Page failed", "Timeout"},
		{"/too-slow", "Page failed", "after 2 attempts"},
	}
	for _, ck := range checks {
		e, ok := c.entry(ck.path)
		if !ok || e.Message != ck.message || !strings.Contains(strings.ToLower(e.Description), strings.ToLower(ck.says)) {
			t.Errorf("%s: entry %+v, want %q saying %q", ck.path, e, ck.message, ck.says)
		}
	}
	if n := s.hitsOf("/private/secret"); n != 0 {
		t.Errorf("a page robots.txt disallows was fetched %d times", n)
	}
	if n := s.hitsOf("/docs/intro"); n != 1 {
		t.Errorf("/docs/intro fetched %d times (also through /redirect-me), want 1", n)
	}
	big, ok := c.entry("/big")
	if !ok || big.Level != "warn" || !strings.Contains(big.Description, "cut off") {
		t.Errorf("oversized page: %+v", big)
	}
	if !strings.Contains(c.pages["/big"].Markdown, "The start of a very big page.") {
		t.Error("the kept part of the oversized page is missing")
	}
	if e, ok := c.message("Engine chosen"); !ok || e.Data["engine"] != "cheerio" {
		t.Errorf("engine entry: %+v", e)
	}
}

// TestExcludeNonMainTagsFalse keeps the whole body.
func TestExcludeNonMainTagsFalse(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	c := crawlSite(t, env.api, s.Server, map[string]any{"excludeNonMainTags": false, "maxDepth": 1,
		"deduplicateContent": false}, "succeeded")
	md := c.pages["/about"].Markdown
	for _, want := range []string{navText, footerNote, "Sidebar links", "About the options site."} {
		if !strings.Contains(md, want) {
			t.Errorf("whole-body markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestIncludeLinksAndExternalLinks: includeLinks false keeps link text
// only; includeExternalLinks keeps links to other hosts (never crawled).
func TestIncludeLinksAndExternalLinks(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	noLinks := crawlSite(t, env.api, s.Server, map[string]any{"includeLinks": false, "maxDepth": 1}, "succeeded")
	home := noLinks.pages["/"].Markdown
	if strings.Contains(home, "](") || !strings.Contains(home, "Docs") {
		t.Errorf("includeLinks false:\n%s", home)
	}
	external := crawlSite(t, env.api, s.Server, map[string]any{"includeExternalLinks": true, "maxDepth": 1}, "succeeded")
	if home := external.pages["/"].Markdown; !strings.Contains(home, "[An external page](https://external.example/page)") {
		t.Errorf("includeExternalLinks true:\n%s", home)
	}
	for _, l := range external.logs {
		if u, _ := l.Data["url"].(string); strings.Contains(u, "external.example") {
			t.Errorf("an external page was crawled: %+v", l)
		}
	}
	if !reflect.DeepEqual(noLinks.paths(), external.paths()) {
		t.Errorf("link rendering changed what was crawled: %v vs %v", noLinks.paths(), external.paths())
	}
}

// TestPathFilters: includeOnlyPaths and excludePaths decide what is
// crawled and stored; exclusion wins; the start page is fetched anyway.
func TestPathFilters(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	c := crawlSite(t, env.api, s.Server, map[string]any{
		"includeOnlyPaths": []string{"/docs/**", "/blog/*"}, "excludePaths": []string{"/docs/guide/advanced", "/blog/draft-*"},
	}, "succeeded")
	want := []string{"/blog/", "/blog/first", "/blog/second", "/docs/guide/setup", "/docs/intro"}
	if got := c.paths(); !reflect.DeepEqual(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	if e, ok := c.entry("/"); !ok || e.Message != "Page skipped" || !strings.Contains(e.Description, "discover links") {
		t.Errorf("start page entry: %+v", e)
	}
	for _, p := range []string{"/docs/guide/advanced", "/about", "/blog/draft-x", "/deep/a/b/c/d"} {
		if n := s.hitsOf(p); n != 0 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
}

// TestTagFilters: includeOnlyTags and excludeTags pick the markdown's
// elements.
func TestTagFilters(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	only := crawlSite(t, env.api, s.Server, map[string]any{"includeOnlyTags": []string{"h1", "footer"}, "maxDepth": 1,
		"deduplicateContent": false}, "succeeded")
	if md := only.pages["/about"].Markdown; md != "# about\n\n"+footerNote+" Partner" {
		t.Errorf("includeOnlyTags h1, footer: %q", md)
	}
	without := crawlSite(t, env.api, s.Server, map[string]any{"excludeTags": []string{".promo", "h1"}, "maxDepth": 1}, "succeeded")
	md := without.pages["/about"].Markdown
	if strings.Contains(md, promoText) || strings.Contains(md, "# about") || !strings.Contains(md, "About the options site.") {
		t.Errorf("excludeTags .promo, h1: %q", md)
	}
}

// TestEntireWebsite: the whole host, whatever the start directory and
// maxDepth; without it, only the start directory.
func TestEntireWebsite(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	dir := crawlSite(t, env.api, s.Server, map[string]any{"startUrl": s.URL + "/docs/intro"}, "succeeded")
	if got, want := dir.paths(), []string{"/docs/guide/advanced", "/docs/guide/setup", "/docs/intro"}; !reflect.DeepEqual(got, want) {
		t.Errorf("without entireWebsite: %v, want %v", got, want)
	}
	whole := crawlSite(t, env.api, s.Server, map[string]any{"startUrl": s.URL + "/docs/intro", "entireWebsite": true, "maxDepth": 1, "maxResults": 2}, "succeeded")
	if got := whole.paths(); !reflect.DeepEqual(got, homeScope) {
		t.Errorf("with entireWebsite (maxDepth and maxResults ignored): %v\nwant %v", got, homeScope)
	}
}

// TestUseSitemap: the frontier is the start page and the sitemaps' pages
// in scope (index, gzip, robots.txt Sitemap line), links are not followed,
// maxResults and maxDepth are ignored.
func TestUseSitemap(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	c := crawlSite(t, env.api, s.Server, map[string]any{"useSitemap": true, "maxResults": 2, "maxDepth": 1}, "succeeded")
	want := []string{"/", "/blog/first", "/blog/second", "/docs/guide/setup", "/docs/intro", "/orphan"}
	if got := c.paths(); !reflect.DeepEqual(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	e, ok := c.message("Sitemap read")
	if !ok || e.Data["pages"] != float64(6) || !strings.Contains(e.Description, "b.xml.gz") {
		t.Errorf("sitemap entry: %+v", e)
	}
	if e, ok := c.entry("/private/secret"); !ok || !strings.Contains(e.Description, "robots.txt") {
		t.Errorf("the sitemap's disallowed page: %+v", e)
	}
	if s.hitsOf("/about") != 0 {
		t.Error("a link was followed in a sitemap crawl")
	}
}

// TestUseSitemapWithoutSitemap: no sitemap, a warning, and link following.
func TestUseSitemapWithoutSitemap(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, true)
	c := crawlSite(t, env.api, s.Server, map[string]any{"useSitemap": true}, "succeeded")
	if e, ok := c.message("No sitemap found"); !ok || e.Level != "warn" {
		t.Errorf("no warning about the missing sitemap: %+v", c.logs)
	}
	if got := c.paths(); !reflect.DeepEqual(got, homeScope) {
		t.Errorf("fallback crawl stored %v, want %v", got, homeScope)
	}
}

// TestMaxConcurrentPages bounds the requests in flight.
func TestMaxConcurrentPages(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		s := newOptionsSite(t, false)
		crawlSite(t, env.api, s.Server, map[string]any{"maxConcurrentPages": n, "entireWebsite": true}, "succeeded")
		if p, paths := s.peakConcurrency(); p > n || (n > 1 && p < 2) {
			t.Errorf("maxConcurrentPages %d: peak %d requests in flight (%v)", n, p, paths)
		}
	}
}

// TestCrawlDelay: robots.txt's Crawl-delay spaces the requests.
func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 1\n")
			return
		}
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><main><p>Page.</p><a href="/a">a</a><a href="/b">b</a><a href="/c">c</a></main></body></html>`)
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{"maxConcurrentPages": 4}, "succeeded")
	if c.crawl.TotalPages != 4 {
		t.Fatalf("%d pages, want 4", c.crawl.TotalPages)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 900*time.Millisecond {
			t.Errorf("requests %d and %d only %v apart, want the 1 s Crawl-delay", i-1, i, gap)
		}
	}
}

// TestUseStaticIps: every request of the crawl goes through the egress
// proxy, and the crawl says which address it used; a server without a
// proxy refuses the option (TestInvalidBodies).
func TestUseStaticIps(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	before := env.proxyHits.Load()
	c := crawlSite(t, env.proxyAPI, s.Server, map[string]any{"useStaticIps": true, "maxDepth": 1}, "succeeded")
	var requests int
	s.mu.Lock()
	for _, n := range s.hits {
		requests += n
	}
	s.mu.Unlock()
	if carried := int(env.proxyHits.Load() - before); carried != requests || requests == 0 {
		t.Errorf("the proxy carried %d requests, the site got %d", carried, requests)
	}
	var rec struct {
		StaticIP *string `json:"staticIp"`
	}
	call(t, "GET", env.proxyAPI+"/crawls/"+c.crawl.ID, env.keyA, nil, &rec)
	if rec.StaticIP == nil || *rec.StaticIP != staticIP {
		t.Errorf("staticIp = %v, want %s", rec.StaticIP, staticIP)
	}
	// Without the option the same deployment does not use the proxy.
	before = env.proxyHits.Load()
	crawlSite(t, env.proxyAPI, s.Server, map[string]any{"maxDepth": 1}, "succeeded")
	if env.proxyHits.Load() != before {
		t.Error("a crawl without useStaticIps went through the proxy")
	}
}

// TestStackOriginTimeout: stack, origin and timeout read back as given;
// stack picks the engine and the crawl says so.
func TestStackOriginTimeout(t *testing.T) {
	t.Parallel()
	s := newOptionsSite(t, false)
	c := crawlSite(t, env.api, s.Server, map[string]any{"stack": "react", "origin": "web", "timeout": 120, "maxDepth": 1}, "succeeded")
	var rec map[string]any
	call(t, "GET", env.api+"/crawls/"+c.crawl.ID, env.keyA, nil, &rec)
	if rec["stack"] != "react" || rec["origin"] != "web" || rec["timeout"] != float64(120) {
		t.Errorf("read back: stack %v origin %v timeout %v", rec["stack"], rec["origin"], rec["timeout"])
	}
	if e, ok := c.message("Engine chosen"); !ok || e.Data["engine"] != "playwright" || !strings.Contains(e.Description, "react") {
		t.Errorf("engine entry for stack react on a deployment with browsers: %+v", e)
	}
	for _, p := range c.pages {
		if p.Engine != "playwright" {
			t.Errorf("%s fetched by %q, want playwright", p.URL, p.Engine)
		}
	}
	wp := crawlSite(t, env.api, s.Server, map[string]any{"startUrls": []string{s.URL + "/"}, "maxDepth": 1, "maxResults": 5, "stack": "wordpress"}, "succeeded")
	if e, ok := wp.message("Engine chosen"); !ok || e.Level != "info" || !strings.Contains(e.Description, "wordpress") {
		t.Errorf("engine entry for stack wordpress: %+v", e)
	}
	var e errorObj
	if status, raw := call(t, "POST", env.guardedWorkerAPI+"/crawls", env.keyA, map[string]any{"startUrl": s.URL, "engineType": "playwright"}, &e); status != 400 || e.Error.Details[0].Field != "engineType" {
		t.Errorf("engineType playwright on a deployment without browsers = %d %s, want 400", status, raw)
	}
}
