package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// headingLinkSite is a manual of twelve pages whose every heading links to
// itself as "/page?id=heading", and whose server, like a client-rendered
// manual's, answers the same page whatever the query; each page also has a
// print view, "/page/print", that is the page again. It counts the
// requests it answered.
func headingLinkSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	const pages, headings = 12, 8
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/print")
		var b strings.Builder
		b.WriteString(`<!doctype html><html><head><title>Manual</title></head><body><nav><ul>`)
		for i := range pages {
			fmt.Fprintf(&b, `<li><a href="/p%d">Page %d</a></li>`, i, i)
		}
		b.WriteString(`</ul></nav><main>`)
		switch {
		case name == "":
			b.WriteString(`<h1>The manual</h1><p>Every page of the manual is listed in the menu; this one says what the manual is for.</p>`)
		case strings.HasPrefix(name, "p"):
			fmt.Fprintf(&b, `<h1>Page %s</h1><p><a href="/%s/print">Print this page</a></p>`, name, name)
			for h := range headings {
				fmt.Fprintf(&b, `<h2><a href="/%s?id=h%d">Section %d of %s</a></h2><p>What section %d of page %s explains, in a sentence or two of its own.</p>`,
					name, h, h, name, h, name)
			}
		default:
			http.NotFound(w, r)
			return
		}
		b.WriteString(`</main></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// TestSamePageUnderOtherAddresses: a page reached under other addresses
// (a heading's ?id=, a print view) is stored once; the copies fetched are
// duplicates, each with its log entry naming the page it repeats, not
// results (maxResults counts the manual's pages only); once five copies
// came under ?id= the crawl stops fetching such addresses, and says so
// once.
func TestSamePageUnderOtherAddresses(t *testing.T) {
	t.Parallel()
	site, served := headingLinkSite(t)
	c := crawlSite(t, env.api, site, map[string]any{"maxConcurrentPages": 4, "maxResults": 13}, "succeeded")
	want := []string{"/"}
	for i := range 12 {
		want = append(want, fmt.Sprintf("/p%d", i))
	}
	if got := c.paths(); strings.Join(got, " ") != strings.Join(sortedStrings(want), " ") {
		t.Errorf("results %v, want the manual's 13 pages once each", got)
	}
	var repeats, stopped int
	for _, l := range c.logs {
		switch l.Message {
		case "Page repeats another":
			repeats++
			if u, _ := l.Data["url"].(string); !strings.Contains(u, "?id=") && !strings.HasSuffix(u, "/print") {
				t.Errorf("%s is a duplicate", u)
			}
			if !strings.Contains(l.Description, "the same content as "+site.URL+"/p") {
				t.Errorf("duplicate entry %q does not name the page", l.Description)
			}
		case "Address pattern skipped":
			stopped++
			if !strings.Contains(l.Description, `the query parameter "id"`) {
				t.Errorf("pattern entry %q", l.Description)
			}
		}
	}
	if p := c.crawl.Progress; p == nil || p.Duplicates != repeats || p.Duplicates < 5 || p.Stored != 13 {
		t.Errorf("progress %+v, want 13 stored and the %d duplicates the log names (at least 5)", p, repeats)
	}
	if stopped != 1 {
		t.Errorf("%d 'Address pattern skipped' entries, want 1", stopped)
	}
	// 13 pages, 12 print views and 96 heading addresses: the heading
	// addresses stop after a few.
	if n := served.Load(); n > 13+12+40 {
		t.Errorf("the site answered %d requests, want the heading addresses stopped", n)
	}
}
