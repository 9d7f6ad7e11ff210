package static

import (
	"github.com/durablecrawl/crawler/fetch"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPageLinks(t *testing.T) {
	page, _ := url.Parse("https://example.com/docs/intro")
	for _, tc := range []struct {
		name, html string
		links      []string
		canonical  string
	}{
		{"relative and absolute", `<a href="a">a</a><a href="/b">b</a><a href="https://other.example/c?q=1">c</a>`,
			[]string{"https://example.com/docs/a", "https://example.com/b", "https://other.example/c?q=1"}, ""},
		{"the first base counts, wherever it is", `<a href="x">x</a><base href="/v2/"><base href="/v3/">`,
			[]string{"https://example.com/v2/x"}, ""},
		{"fragment-only and empty links are the page itself", `<a href="#top">t</a><a href="">e</a><a href=" next ">n</a>`,
			[]string{"https://example.com/docs/next"}, ""},
		{"no links in scripts, styles or comments", `<script>var s = '<a href="/js">';</script><style>a[href="/css"]{}</style><!-- <a href="/c"> --><a href="/real">r</a>`,
			[]string{"https://example.com/real"}, ""},
		{"canonical among other rels", `<link rel="stylesheet" href="/s.css"><link rel="Canonical" href="/docs/intro-2"><link rel="canonical" href="/third">`,
			nil, "https://example.com/docs/intro-2"},
		{"unparsable hrefs are left out", `<a href="http://[::1">bad</a><a href="ok">ok</a>`,
			[]string{"https://example.com/docs/ok"}, ""},
		{"anchors without href", `<a name="x">x</a><a id="y" href="/y">y</a>`, []string{"https://example.com/y"}, ""},
		// mdBook draws its sidebar with a script and offers the table of
		// contents to browsers without one as an iframe.
		{"pages offered without scripts", `<nav id="sidebar"><noscript><iframe class="sidebar-iframe-outer" src="toc.html"></iframe></noscript></nav>` +
			`<noscript><p>See <a href="/all">all pages</a>.</p></noscript><frameset><frame src="left.html"></frameset><iframe src="/embed"></iframe>`,
			[]string{"https://example.com/docs/toc.html", "https://example.com/all", "https://example.com/docs/left.html", "https://example.com/embed"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, canonical := pageLinks([]byte("<html><head></head><body>"+tc.html+"</body></html>"), page)
			if strings.Join(links, " ") != strings.Join(tc.links, " ") || canonical != tc.canonical {
				t.Errorf("got %q, canonical %q; want %q, %q", links, canonical, tc.links, tc.canonical)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, " 120 ": 2 * time.Minute, "-5": 0, "soon": 0,
		"Mon, 23 Nov 2026 12:00:30 GMT": 30 * time.Second, "Mon, 23 Nov 2026 11:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestTransient fetches from a server that answers each way once, and
// checks which failures are worth another attempt.
func TestTransient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/limited":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/gone":
			w.WriteHeader(http.StatusNotFound)
		case "/broken":
			w.WriteHeader(http.StatusInternalServerError)
		case "/reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	urls := []string{srv.URL + "/busy", srv.URL + "/limited", srv.URL + "/gone", srv.URL + "/broken", srv.URL + "/reset", closed.URL + "/refused"}
	got := fetchAll(t, newStatic(true, 2000), urls, fetch.Batch{Parallelism: 6})
	for u, want := range map[string]bool{
		srv.URL + "/busy": true, srv.URL + "/limited": true, srv.URL + "/gone": false,
		srv.URL + "/broken": true, srv.URL + "/reset": true, closed.URL + "/refused": false,
	} {
		if r := got[u]; fetch.Transient(r) != want {
			t.Errorf("%s: status %d, error %v: fetch.Transient = %v, want %v", u, r.StatusCode, r.Err, !want, want)
		}
	}
	if r := got[srv.URL+"/busy"]; r.RetryAfter != 7*time.Second {
		t.Errorf("/busy: RetryAfter = %v, want 7s", r.RetryAfter)
	}
}
