package static

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/testproxy"
)

func newStatic(allowPrivate bool, maxBytes int) *Fetcher {
	return New(Options{AllowPrivateNetworks: allowPrivate, UserAgent: "test-agent", Timeout: 5 * time.Second, MaxBytes: maxBytes})
}

// fetchAll collects FetchAll's results by URL.
func fetchAll(t *testing.T, s *Fetcher, urls []string, b fetch.Batch) map[string]fetch.Result {
	t.Helper()
	var mu sync.Mutex
	out := map[string]fetch.Result{}
	if err := s.FetchAll(context.Background(), urls, b, func(r fetch.Result) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := out[r.URL]; dup {
			t.Errorf("%s emitted twice", r.URL)
		}
		out[r.URL] = r
	}); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(urls) {
		t.Fatalf("%d results for %d URLs", len(out), len(urls))
	}
	return out
}

func TestFetchAll(t *testing.T) {
	var inFlight, peak atomic.Int32
	// The /page requests wait until three are in flight at once (or, should
	// the fetcher never get there, a while), so that a fetcher of three
	// reaches three whatever the machine's load.
	three := make(chan struct{})
	var threeOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" { // the batch's bulk: their overlap is the parallelism
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if n >= 3 {
				threeOnce.Do(func() { close(three) })
			}
			select {
			case <-three:
			case <-time.After(2 * time.Second):
				threeOnce.Do(func() { close(three) })
			}
			time.Sleep(20 * time.Millisecond) // room for a fourth, were there one
		}
		if r.UserAgent() != "test-agent" {
			t.Errorf("user agent %q", r.UserAgent())
		}
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusFound)
		case "/new", "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><base href="/base/"><link rel="canonical" href="https://example.com/canon"></head>
				<body><a href="a">A</a> <a href="/b#x">B</a> <a href="https://other.example/c">C</a></body></html>`)
		case "/doc.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF")
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, strings.Repeat("x", 5000))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	urls := []string{srv.URL + "/page", srv.URL + "/old", srv.URL + "/doc.pdf", srv.URL + "/big", srv.URL + "/gone"}
	for i := 0; i < 10; i++ {
		urls = append(urls, fmt.Sprintf("%s/page?n=%d", srv.URL, i))
	}
	got := fetchAll(t, newStatic(true, 2000), urls, fetch.Batch{Parallelism: 3})

	page := got[srv.URL+"/page"]
	if page.Err != nil || page.StatusCode != 200 || !page.IsHTML() {
		t.Fatalf("/page: %+v", page)
	}
	wantLinks := []string{srv.URL + "/base/a", srv.URL + "/b#x", "https://other.example/c"}
	if strings.Join(page.Links, " ") != strings.Join(wantLinks, " ") {
		t.Errorf("links = %v, want %v", page.Links, wantLinks)
	}
	if page.Canonical != "https://example.com/canon" {
		t.Errorf("canonical = %q", page.Canonical)
	}
	if r := got[srv.URL+"/old"]; r.FinalURL != srv.URL+"/new" || r.StatusCode != 200 {
		t.Errorf("/old: final %q status %d, want the redirect followed to /new", r.FinalURL, r.StatusCode)
	}
	if r := got[srv.URL+"/doc.pdf"]; r.IsHTML() || r.StatusCode != 200 {
		t.Errorf("/doc.pdf: %+v", r)
	}
	if r := got[srv.URL+"/big"]; !r.Truncated || len(r.Body) != 2000 {
		t.Errorf("/big: truncated %v, %d bytes; want cut at 2000", r.Truncated, len(r.Body))
	}
	if r := got[srv.URL+"/gone"]; r.StatusCode != 404 {
		t.Errorf("/gone: status %d, want 404", r.StatusCode)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak parallelism %d, want 3", p)
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/known", http.StatusMovedPermanently)
			return
		}
		t.Errorf("%s requested; the redirect should not have been followed", r.URL.Path)
	}))
	defer srv.Close()
	got := fetchAll(t, newStatic(true, 1000), []string{srv.URL + "/old"}, fetch.Batch{
		Parallelism:    1,
		FollowRedirect: func(from, to *url.URL) bool { return to.Path != "/known" },
	})
	if r := got[srv.URL+"/old"]; r.StatusCode != 301 || r.Location != "/known" {
		t.Errorf("result %+v, want the 301 with its Location", r)
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the guarded fetcher reached a loopback server")
	}))
	defer srv.Close()
	got := fetchAll(t, newStatic(false, 1000), []string{srv.URL + "/"}, fetch.Batch{Parallelism: 1})
	if r := got[srv.URL+"/"]; !fetch.Forbidden(r.Err) || r.StatusCode != 0 {
		t.Errorf("result %+v, want a refusal", r)
	}
}

func TestCancelledFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var n atomic.Int32
	start := time.Now()
	err := newStatic(true, 1000).FetchAll(ctx, []string{srv.URL + "/a", srv.URL + "/b"}, fetch.Batch{Parallelism: 2}, func(r fetch.Result) {
		n.Add(1)
		if r.Err == nil {
			t.Errorf("%s succeeded after cancellation", r.URL)
		}
	})
	if err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("FetchAll returned %v after %v, want the context's error promptly", err, time.Since(start))
	}
	if n.Load() != 2 {
		t.Errorf("%d results emitted, want 2", n.Load())
	}
}

// BenchmarkFetchAll fetches batches of 64 small local pages, 8 at a time.
func BenchmarkFetchAll(b *testing.B) {
	body := `<html><body>` + strings.Repeat(`<p>text <a href="/x">link</a></p>`, 100) + `</body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	s := newStatic(true, 1<<20)
	urls := make([]string, 64)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/%d", srv.URL, i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.FetchAll(context.Background(), urls, fetch.Batch{Parallelism: 8}, func(fetch.Result) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(urls))/b.Elapsed().Seconds(), "pages/s")
}

func TestEgressProxy(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>hello</p>")
	}))
	defer target.Close()
	proxy, carried := testproxy.New()
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)

	open := New(Options{AllowPrivateNetworks: true, Timeout: 5 * time.Second, MaxBytes: 1000, EgressProxy: proxyURL})
	got := fetchAll(t, open, []string{target.URL + "/a", target.URL + "/b"}, fetch.Batch{Parallelism: 2, UseEgressProxy: true})
	if carried.Load() != 2 || got[target.URL+"/a"].StatusCode != 200 {
		t.Errorf("proxy carried %d requests, result %+v; want both through the proxy", carried.Load(), got[target.URL+"/a"])
	}
	fetchAll(t, open, []string{target.URL + "/c"}, fetch.Batch{Parallelism: 1})
	if carried.Load() != 2 {
		t.Error("a batch without UseEgressProxy went through the proxy")
	}

	// The proxy dials the target, so the guard checks the name first.
	guarded := New(Options{Timeout: 5 * time.Second, MaxBytes: 1000, EgressProxy: proxyURL})
	got = fetchAll(t, guarded, []string{target.URL + "/d"}, fetch.Batch{Parallelism: 1, UseEgressProxy: true})
	if r := got[target.URL+"/d"]; !fetch.Forbidden(r.Err) || carried.Load() != 2 {
		t.Errorf("private target through the proxy: %+v (proxy carried %d)", r, carried.Load())
	}

	none := newStatic(true, 1000)
	if err := none.FetchAll(context.Background(), []string{target.URL}, fetch.Batch{UseEgressProxy: true}, func(fetch.Result) {}); !errors.Is(err, fetch.ErrNoEgressProxy) {
		t.Errorf("no proxy configured: %v", err)
	}
}

func TestCompressedBodiesStayWithinTheCap(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte("a"), 50<<20)) // 50 MiB inflated, about 50 KiB on the wire
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/encoded":
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/html")
		case "/file.xml.gz":
			w.Header().Set("Content-Type", "application/x-gzip")
		}
		w.Write(bomb.Bytes())
	}))
	defer srv.Close()
	got := fetchAll(t, newStatic(true, 1<<20), []string{srv.URL + "/encoded", srv.URL + "/file.xml.gz"}, fetch.Batch{Parallelism: 2})
	if r := got[srv.URL+"/encoded"]; !r.Truncated || len(r.Body) != 1<<20 {
		t.Errorf("gzip-encoded page: %d bytes, truncated %v; want cut at 1 MiB", len(r.Body), r.Truncated)
	}
	if r := got[srv.URL+"/file.xml.gz"]; len(r.Body) != bomb.Len() {
		t.Errorf("gzip file: %d bytes, want the %d compressed bytes as sent", len(r.Body), bomb.Len())
	}
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	s := New(Options{AllowPrivateNetworks: true, Timeout: 200 * time.Millisecond, MaxBytes: 1000})
	got := fetchAll(t, s, []string{srv.URL + "/"}, fetch.Batch{Parallelism: 1})
	if r := got[srv.URL+"/"]; !fetch.Timeout(r.Err) {
		t.Errorf("slow page: err %v, want a timeout", r.Err)
	}
}

func TestBodiesBecomeStorableText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/latin1":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><head><meta charset=\"windows-1252\"></head><body>caf\xe9 \x93quoted\x94</body></html>"))
		case "/nul":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><body>a\x00b \xff</body></html>"))
		case "/binary":
			w.Header()["Content-Type"] = nil // no type at all
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		}
	}))
	defer srv.Close()
	got := fetchAll(t, newStatic(true, 1<<20), []string{srv.URL + "/latin1", srv.URL + "/nul", srv.URL + "/binary"}, fetch.Batch{Parallelism: 3})
	if b := string(got[srv.URL+"/latin1"].Body); !strings.Contains(b, "café “quoted”") {
		t.Errorf("windows-1252 page not transcoded: %q", b)
	}
	if b := string(got[srv.URL+"/nul"].Body); strings.ContainsRune(b, 0) || !strings.Contains(b, "ab \uFFFD") {
		t.Errorf("NUL or invalid UTF-8 kept: %q", b)
	}
	if r := got[srv.URL+"/binary"]; r.IsHTML() {
		t.Errorf("an untyped PNG was taken for HTML (type %q)", r.ContentType)
	}
}

// TestSkip: a request the batch's Skip gives a reason for is not sent, and
// its result says why; the others are fetched.
func TestSkip(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>page</p>")
	}))
	defer srv.Close()
	skip := func(u string) string {
		if strings.Contains(u, "?id=") {
			return "a heading's address"
		}
		return ""
	}
	got := fetchAll(t, newStatic(true, 1000), []string{srv.URL + "/a", srv.URL + "/a?id=x"}, fetch.Batch{Parallelism: 2, Skip: skip})
	if r := got[srv.URL+"/a?id=x"]; r.Skipped != "a heading's address" || r.StatusCode != 0 {
		t.Errorf("the skipped address: %+v", r)
	}
	if r := got[srv.URL+"/a"]; r.StatusCode != 200 || r.Skipped != "" || asked.Load() != 1 {
		t.Errorf("the fetched page: status %d, skipped %q; the server was asked %d times", r.StatusCode, r.Skipped, asked.Load())
	}
}
