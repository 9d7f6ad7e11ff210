package integration

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// optionsSite is the fixture for the crawl options: boilerplate around the
// content, sitemaps (an index, a gzipped one, a page found only there), a
// robots.txt, external links, deep paths, a redirect, a canonical pair, a
// PDF, an oversized page and one slower than the page timeout.
type optionsSite struct {
	*httptest.Server
	noSitemap bool
	mu        sync.Mutex
	hits      map[string]int
	inFlight  map[string]int
	peak      int
	// peakPaths are the paths in flight when the peak was reached.
	peakPaths []string
}

const (
	navText    = "Navigation menu text"
	footerNote = "Footer of the options site"
	promoText  = "Promotional box text"
)

func newOptionsSite(t *testing.T, noSitemap bool) *optionsSite {
	s := &optionsSite{hits: map[string]int{}, inFlight: map[string]int{}, noSitemap: noSitemap}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *optionsSite) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// peakConcurrency is the most requests the site had in flight at once,
// and their paths.
func (s *optionsSite) peakConcurrency() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.peakPaths
}

// optionsPage renders a page with boilerplate around its main content.
func optionsPage(title, main string) string {
	return `<!doctype html><html><head><title>` + title + `</title></head><body>
<header><nav>` + navText + ` <a href="/">Home</a> <a href="/about">About</a></nav></header>
<aside class="sidebar">Sidebar links</aside>
<main><h1>` + title + `</h1>` + main + `<div class="promo">` + promoText + `</div></main>
<footer>` + footerNote + ` <a href="https://external.example/footer">Partner</a></footer>
</body></html>`
}

var optionsPages = map[string]string{
	"/": `<p>The home page of the options site, with enough words to count as the main content of the page. Read the
		<a href="/docs/intro">Docs</a> first, then <a href="https://external.example/page">An external page</a> for more.</p>
		<p><a href="/blog/">Blog</a>
		<a href="/redirect-me">Old docs address</a> <a href="/canonical-copy">Setup (copy)</a> <a href="/report.pdf">Report</a>
		<a href="/big">Big page</a> <a href="/too-slow">Slow page</a> <a href="/private/secret">Private</a>
		<a href="/deep/a/b/c/d">Deep page</a> <a href="/to-private">Members</a></p>`,
	"/docs/intro":          `<p>Introduction to the docs. <a href="/docs/guide/setup">Setup</a> <a href="/docs/guide/advanced">Advanced</a></p>`,
	"/docs/guide/setup":    `<p>How to set things up, step by step, with every detail a reader needs.</p>`,
	"/docs/guide/advanced": `<p>Advanced topics for readers who finished the setup guide.</p>`,
	"/blog/":               `<p>The blog. <a href="/blog/first">First post</a> <a href="/blog/second">Second post</a> <a href="/blog/draft-x">Draft</a></p>`,
	"/blog/first":          `<p>The first post of the blog.</p>`,
	"/blog/second":         `<p>The second post of the blog.</p>`,
	"/blog/draft-x":        `<p>A draft post.</p>`,
	"/about":               `<p>About the options site.</p>`,
	"/orphan":              `<p>A page that only the sitemap knows.</p>`,
	"/private/secret":      `<p>What robots.txt keeps private.</p>`,
	"/deep/a/b/c/d":        `<p>Four directories down. <a href="/deep/a/b/c/d/e">Deeper</a></p>`,
	"/deep/a/b/c/d/e":      `<p>Five directories down.</p>`,
}

func (s *optionsSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	// The page slower than the timeout and the page over the size limit
	// are left out of the concurrency count: their handlers outlive the
	// request the crawler gave up on or cut short (the big page's handler
	// is still writing when the crawler has closed the connection and
	// moved on).
	if r.URL.Path != "/too-slow" && r.URL.Path != "/big" {
		s.mu.Lock()
		s.inFlight[r.URL.Path]++
		if n := total(s.inFlight); n > s.peak {
			s.peak, s.peakPaths = n, keys(s.inFlight)
		}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.inFlight[r.URL.Path]--; s.inFlight[r.URL.Path] == 0 {
				delete(s.inFlight, r.URL.Path)
			}
			s.mu.Unlock()
		}()
	}
	time.Sleep(20 * time.Millisecond) // lets concurrent requests overlap
	base := "http://" + r.Host
	switch p := r.URL.Path; p {
	case "/robots.txt":
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\n")
		if !s.noSitemap {
			fmt.Fprintf(w, "Sitemap: %s/sitemaps/index.xml\n", base)
		}
	case "/sitemaps/index.xml", "/sitemap.xml":
		if s.noSitemap {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<sitemap><loc>%s/sitemaps/a.xml</loc></sitemap><sitemap><loc>%s/sitemaps/b.xml.gz</loc></sitemap></sitemapindex>`, base, base)
	case "/sitemaps/a.xml":
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<url><loc>%[1]s/docs/intro</loc></url><url><loc>%[1]s/docs/guide/setup</loc></url>
			<url><loc>%[1]s/blog/first</loc></url><url><loc>https://other.example/elsewhere</loc></url>
			<url><loc>%[1]s/private/secret</loc></url></urlset>`, base)
	case "/sitemaps/b.xml.gz":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		fmt.Fprintf(zw, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<url><loc>%[1]s/blog/second</loc></url><url><loc>%[1]s/orphan</loc></url></urlset>`, base)
		zw.Close()
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(buf.Bytes())
	case "/to-private":
		http.Redirect(w, r, "/private/secret", http.StatusFound)
	case "/redirect-me":
		http.Redirect(w, r, "/docs/intro", http.StatusMovedPermanently)
	case "/canonical-copy":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Setup (copy)</title><link rel="canonical" href="%s/docs/guide/setup"></head>
			<body><main><p>How to set things up, step by step, with every detail a reader needs.</p></main></body></html>`, base)
	case "/report.pdf":
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4")
	case "/big":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, optionsPage("Big", "<p>The start of a very big page.</p>"+strings.Repeat("<p>filler text</p>", maxPageBytes/10)))
	case "/too-slow":
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, optionsPage("Slow", "<p>Too late.</p>"))
	default:
		body, ok := optionsPages[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		title := strings.Trim(p, "/")
		if title == "" {
			title = "Home"
		}
		fmt.Fprint(w, optionsPage(title, body))
	}
}

// crawled is a finished crawl as a client reads it.
type crawled struct {
	crawl crawlObj
	pages map[string]resultPage // by path
	logs  []logEntry
	base  string
}

// crawlSite creates a crawl of site with the options in body (startUrl is
// filled in when absent) and waits for its end.
func crawlSite(t *testing.T, api string, site *httptest.Server, body map[string]any, want string) crawled {
	t.Helper()
	if _, ok := body["startUrl"]; !ok {
		if _, legacy := body["startUrls"]; !legacy {
			body["startUrl"] = site.URL + "/"
		}
	}
	c := create(t, api, env.keyA, body)
	done := waitStatus(t, api, env.keyA, c.ID, 2*time.Minute, want)
	out := crawled{crawl: done, pages: map[string]resultPage{}, logs: allLogs(t, api, env.keyA, c.ID, 1200), base: site.URL}
	for _, p := range allPages(t, api, env.keyA, c.ID) {
		path := strings.TrimPrefix(p.URL, site.URL)
		if _, dup := out.pages[path]; dup {
			t.Errorf("%s stored twice", path)
		}
		out.pages[path] = p
	}
	if len(out.pages) != done.TotalPages {
		t.Errorf("%d pages stored, totalPages %d", len(out.pages), done.TotalPages)
	}
	return out
}

// paths returns the stored paths, sorted.
func (c crawled) paths() []string {
	var out []string
	for p := range c.pages {
		out = append(out, p)
	}
	return sortedStrings(out)
}

// entry returns the page log entry of path (its outcome, not a retry).
func (c crawled) entry(path string) (logEntry, bool) {
	for _, l := range c.logs {
		if l.Data["url"] == c.base+path && strings.HasPrefix(l.Message, "Page") && l.Message != "Page retried" {
			return l, true
		}
	}
	return logEntry{}, false
}

// message returns the first entry with this message.
func (c crawled) message(m string) (logEntry, bool) {
	for _, l := range c.logs {
		if l.Message == m {
			return l, true
		}
	}
	return logEntry{}, false
}

// total is the sum of counts.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// keys are the keys of counts, sorted.
func keys(counts map[string]int) []string {
	out := make([]string, 0, len(counts))
	for k := range counts {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
