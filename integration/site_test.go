package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fixture site: a home page, 5 sections of 9 articles each (51 HTML
// pages within two hops of home), a chain of deep pages below the first
// article, a broken link, a PDF, a redirect to a page the site already
// links to, an external link and spellings of one URL that differ only by
// fragment, trailing slash or tracking parameters.
const (
	sections        = 5
	articlesPerSect = 9
	pagesToDepth2   = 1 + sections + sections*articlesPerSect
	footerText      = "Footer of the fixture site"
)

type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newSite(t *testing.T) *site {
	s := &site{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// hitsOf returns how often path was requested.
func (s *site) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// sharedNotice is a paragraph every article carries inside its own
// text: main content keeps it, and deduplication leaves it on one page.
const sharedNotice = "Every article of this fixture ends with this notice, which tells its readers that the site exists only for the crawl tests."

func page(title, body string) string {
	return `<!doctype html><html><head><title>` + title + `</title></head><body>
<header><nav><a href="/">Home</a> <a href="/section/0">Sections</a></nav></header>
<main>` + body + `</main>
<footer>` + footerText + `. <a href="/about">About</a></footer>
</body></html>`
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	html := func(body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	switch {
	case r.URL.Path == "/":
		var b strings.Builder
		b.WriteString("<h1>Fixture home</h1><p>Welcome to the fixture site, a small site for crawl tests.</p><ul>")
		for i := 0; i < sections; i++ {
			fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
		}
		b.WriteString(`</ul><p><a href="/missing">Broken link</a> <a href="/files/report.pdf">Report (PDF)</a>
			<a href="/old-section-1">Old address of section 1</a> <a href="https://external.example/page">Elsewhere</a>
			<a href="/section/2/#part">Section 2, part</a> <a href="/section/2/?utm_source=home">Section 2 again</a>
			<a href="mailto:team@example.com">Mail us</a></p>`)
		html(page("Fixture home", b.String()))
	case len(parts) == 2 && parts[0] == "section":
		i, _ := strconv.Atoi(parts[1])
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>Section %d</h1><p>Articles of section %d, listed in order.</p><ol>", i, i)
		for j := 0; j < articlesPerSect; j++ {
			fmt.Fprintf(&b, `<li><a href="/section/%d/article/%d">Article %d-%d</a></li>`, i, j, i, j)
		}
		b.WriteString("</ol>")
		html(page(fmt.Sprintf("Section %d", i), b.String()))
	case len(parts) == 4 && parts[0] == "section" && parts[2] == "article":
		i, _ := strconv.Atoi(parts[1])
		j, _ := strconv.Atoi(parts[3])
		body := fmt.Sprintf(`<article><h1>Article %d-%d</h1><p>Unique content of article %d-%d. It has a paragraph long
			enough to be read as the main content of the page, with a few more words to make sure of it, and a link
			to <a href="%d">the next article</a> inside its text.</p>
			<p>A second paragraph of its own follows, as articles have more than one: it says what the fixture is
			for, a site of sections and articles that the crawl tests walk from its home page, reading every
			page once, following the links between its articles and from its sections, and it makes the notice
			below the small part of the article that a notice is on a real site, a line among many paragraphs.</p>
			<p>`+sharedNotice+`</p>
			<p><a href="%d">Next article</a> <a href="../../..">Back home</a></p>`, i, j, i, j, (j+1)%articlesPerSect, (j+1)%articlesPerSect)
		if i == 0 && j == 0 {
			body += `<p><a href="/deep/1">Deeper</a></p>`
		}
		html(page(fmt.Sprintf("Article %d-%d", i, j), body+"</article>"))
	case len(parts) == 2 && parts[0] == "deep":
		n, _ := strconv.Atoi(parts[1])
		html(page(fmt.Sprintf("Deep %d", n), fmt.Sprintf(`<p>Deep page %d.</p><a href="/deep/%d">Deeper</a>`, n, n+1)))
	case r.URL.Path == "/old-section-1":
		http.Redirect(w, r, "/section/1", http.StatusMovedPermanently)
	case r.URL.Path == "/files/report.pdf":
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4 not really a pdf")
	default:
		http.NotFound(w, r)
	}
}

// slowSite never runs out of pages: every page takes delay to answer and
// links to three new ones.
func slowSite(t *testing.T, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		if strings.HasPrefix(r.URL.Path, "/p/") {
			n, _ = strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Slow %d</title></head><body><main><h1>Slow page %d</h1>
			<p>This page took its time.</p><a href="/p/%d">a</a> <a href="/p/%d">b</a> <a href="/p/%d">c</a></main></body></html>`,
			n, n, 3*n+1, 3*n+2, 3*n+3)
	}))
	t.Cleanup(srv.Close)
	return srv
}
