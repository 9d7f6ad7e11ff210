package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// headingLinkSite is a manual of twelve pages read one after the other
// (each links to the next), whose every heading links to itself as
// "/page?id=heading", and whose server, like a client-rendered manual's,
// answers the same page whatever the query; each page also has a print
// view, "/page/print", that is the page again. It counts the requests it
// answered.
func headingLinkSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	const pages, headings = 12, 8
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/print")
		var b strings.Builder
		b.WriteString(`<!doctype html><html><head><title>Manual</title></head><body><main>`)
		var n int
		switch _, err := fmt.Sscanf(name, "p%d", &n); {
		case name == "":
			b.WriteString(`<h1>The manual</h1><p>The manual is read one page after the other, from <a href="/p0">its first page</a>.</p>`)
		case err == nil && n >= 0 && n < pages && name == fmt.Sprintf("p%d", n):
			fmt.Fprintf(&b, `<h1>Page %d</h1><p><a href="/%s/print">Print this page</a></p>`, n, name)
			for h := range headings {
				fmt.Fprintf(&b, `<h2><a href="/%s?id=h%d">Section %d of page %d</a></h2><p>What section %d of page %d explains, in a sentence or two of its own.</p>`,
					name, h, h, n, h, n)
			}
			if n+1 < pages {
				fmt.Fprintf(&b, `<p>Read on: <a href="/p%d">page %d</a>.</p>`, n+1, n+1)
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
// results (maxResults counts the manual's pages only: the copies of each
// page are fetched beside the next page, and the crawl still reaches the
// last); once five copies came under ?id=, or as print views, the crawl
// stops fetching such addresses, and says so once for each.
func TestSamePageUnderOtherAddresses(t *testing.T) {
	t.Parallel()
	site, served := headingLinkSite(t)
	c := crawlSite(t, env.api, site, map[string]any{"maxConcurrentPages": 4, "maxResults": 13, "maxDepth": 20}, "succeeded")
	want := []string{"/"}
	for i := range 12 {
		want = append(want, fmt.Sprintf("/p%d", i))
	}
	if got := c.paths(); strings.Join(got, " ") != strings.Join(sortedStrings(want), " ") {
		t.Errorf("results %v, want the manual's 13 pages once each", got)
	}
	var repeats int
	var stopped []string
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
			stopped = append(stopped, l.Data["pattern"].(string))
		}
	}
	if p := c.crawl.Progress; p == nil || p.Duplicates != repeats || p.Duplicates < 5 || p.Stored != 13 {
		t.Errorf("progress %+v, want 13 stored and the %d duplicates the log names (at least 5)", p, repeats)
	}
	if slices.Sort(stopped); !slices.Equal(stopped, []string{`the path suffix "/print"`, `the query parameter "id"`}) {
		t.Errorf("'Address pattern skipped' entries for %q, want one for the headings' ?id= and one for the print views", stopped)
	}
	// 13 pages, 12 print views and 96 heading addresses: both kinds stop
	// after a few.
	if n := served.Load(); n > 13+30 {
		t.Errorf("the site answered %d requests, want the heading addresses stopped", n)
	}
}

// TestFirecrawlLeavesDuplicatesOut: through Firecrawl's API the same
// manual's crawl answers its 13 pages, none of the addresses that repeat
// them.
func TestFirecrawlLeavesDuplicatesOut(t *testing.T) {
	t.Parallel()
	site, _ := headingLinkSite(t)
	var started struct {
		ID string `json:"id"`
	}
	if status, body := call(t, "POST", env.api+"/v2/crawl", env.keyA, map[string]any{"url": site.URL + "/", "limit": 100,
		"sitemap": "skip", "maxDiscoveryDepth": 20}, &started); status != 200 {
		t.Fatalf("start: %d %s", status, body)
	}
	waitStatus(t, env.api, env.keyA, started.ID, 2*time.Minute, "succeeded")
	var job struct {
		Total int `json:"total"`
		Data  []struct {
			Metadata struct {
				SourceURL string `json:"sourceURL"`
			} `json:"metadata"`
		} `json:"data"`
	}
	if status, body := call(t, "GET", env.api+"/v2/crawl/"+started.ID, env.keyA, nil, &job); status != 200 {
		t.Fatalf("status: %d %s", status, body)
	}
	var urls []string
	for _, d := range job.Data {
		urls = append(urls, strings.TrimPrefix(d.Metadata.SourceURL, site.URL))
	}
	if len(urls) != 13 || job.Total != 13 || slices.ContainsFunc(urls, func(u string) bool { return strings.ContainsAny(u, "?") || strings.HasSuffix(u, "/print") }) {
		t.Errorf("total %d, documents %v; want the 13 pages of the manual", job.Total, urls)
	}
}
