package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/testproxy"
)

// benchOptions are the options of the real Chromium and driver that make
// test installs, with a pool of pages.
func benchOptions(pages int) Options {
	chromium := os.Getenv("CRAWLER_CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/lib/chromium/chromium"
	}
	driver := os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	if driver == "" {
		driver, _ = filepath.Abs("../bin/playwright-driver")
	}
	return Options{ChromiumPath: chromium, DriverDir: driver, Pages: pages, AllowPrivateNetworks: true,
		NavTimeout: 10 * time.Second, SettleTimeout: 2 * time.Second}
}

// launch starts the real Chromium that make test installs; without it the
// test fails rather than skips.
func launch(t *testing.T, allowPrivate bool) *Browser {
	t.Helper()
	o := benchOptions(2)
	o.AllowPrivateNetworks = allowPrivate
	b, err := Launch(o)
	if err != nil {
		t.Fatalf("launch the browser (make test installs Chromium and the driver): %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// newSession opens a session of b, closed when the test ends.
func newSession(t *testing.T, b *Browser) *Session {
	t.Helper()
	s, err := b.NewSession("test")
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// jsSite serves a page whose text and links exist only after its script
// ran: part at the load event, part fetched from an API after it.
func jsSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var images atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/text":
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(w, "Text fetched after the load event.")
		case "/pic.png":
			images.Add(1)
			w.Header().Set("Content-Type", "image/png")
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<img src="/pic.png">
<script>
window.addEventListener('load', () => {
  const root = document.getElementById('root');
  root.innerHTML = '<h1>Rendered by JavaScript</h1><a href="/about">About</a>';
  setTimeout(() => fetch('/api/text').then(r => r.text()).then(t => {
    const p = document.createElement('p'); p.textContent = t; root.appendChild(p);
  }), 100);
});
</script></body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &images
}

// TestRenderWaitsForABusyPage: a page whose script keeps the renderer
// busy for longer than the quiet window right after the load event, and
// only then gets to a timer that fetches more text (as on a loaded
// machine), is read after that text arrived.
func TestRenderWaitsForABusyPage(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/text" {
			fmt.Fprint(w, "Text fetched once the page was free.")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>Busy</title></head><body><div id="root"></div>
<script>
window.addEventListener('load', () => {
  setTimeout(() => { const t = Date.now(); while (Date.now() - t < 600) {} }, 0);
  setTimeout(() => fetch('/api/text').then(r => r.text()).then(t => {
    const p = document.createElement('p'); p.textContent = t; document.getElementById('root').appendChild(p);
  }), 50);
});
</script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	s := newSession(t, b)
	p, err := s.Render(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HTML, "Text fetched once the page was free.") {
		t.Errorf("the text fetched after the busy spell is missing:\n%s", p.HTML)
	}
}

func TestRenderRunsJavaScript(t *testing.T) {
	b := launch(t, true)
	srv, images := jsSite(t)
	s, err := b.NewSession("test")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Render(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if p.StatusCode != 200 || !strings.Contains(p.HTML, "Rendered by JavaScript") {
		t.Errorf("status %d; rendered HTML lacks the script's heading:\n%s", p.StatusCode, p.HTML)
	}
	if !strings.Contains(p.HTML, "Text fetched after the load event.") {
		t.Errorf("content fetched after the load event is missing:\n%s", p.HTML)
	}
	if len(p.Links) != 1 || p.Links[0] != srv.URL+"/about" {
		t.Errorf("links = %v, want the rendered link, absolute", p.Links)
	}
	if n := images.Load(); n != 0 {
		t.Errorf("the image was requested %d times; images are blocked", n)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if c, err := r.Cookie("seen"); err == nil {
			fmt.Fprintf(w, "<p>cookie %s</p>", c.Value)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "seen", Value: "yes"})
		fmt.Fprint(w, "<p>no cookie</p>")
	}))
	defer srv.Close()
	first := newSession(t, b)
	render := func(s *Session) string {
		p, err := s.Render(context.Background(), srv.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		return p.HTML
	}
	render(first)
	if h := render(first); !strings.Contains(h, "cookie yes") {
		t.Errorf("a session forgot its own cookie: %s", h)
	}
	second := newSession(t, b)
	if h := render(second); !strings.Contains(h, "no cookie") {
		t.Errorf("a cookie passed between sessions: %s", h)
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	b := launch(t, false)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	s := newSession(t, b)
	if _, err := s.Render(context.Background(), srv.URL+"/"); !errors.Is(err, ErrRefused) {
		t.Errorf("render of a loopback page: %v, want ErrRefused", err)
	}
	if hits.Load() != 0 {
		t.Error("the loopback server was reached")
	}
}

// TestEgressProxy: a session with a proxy sends its requests through it.
func TestEgressProxy(t *testing.T) {
	b := launch(t, true)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>through the proxy</p>")
	}))
	defer target.Close()
	proxy, carried := testproxy.New()
	defer proxy.Close()
	targetURL := target.URL // loopback too goes through the session's proxy
	f := Fetcher{Browser: b, EgressProxy: proxy.URL}
	var got fetch.Result
	err := f.FetchAll(context.Background(), []string{targetURL + "/"}, fetch.Batch{Parallelism: 1, UseEgressProxy: true},
		func(r fetch.Result) { got = r })
	if err != nil || carried.Load() == 0 || !strings.Contains(string(got.Body), "through the proxy") {
		t.Fatalf("render through the proxy: %v, proxy carried %d requests, page %q", err, carried.Load(), got.Body)
	}
}

// TestRenderWritesStyles: the rendered page's elements carry, as style
// attributes, the computed styles its structure is read from: lines kept
// by a linked stylesheet, a monospace font set on a block (not on its
// lines, which inherit it), a grid of divs laid out as a table.
func TestRenderWritesStyles(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/site.css" {
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, `.listing { font-family: "DejaVu Sans Mono", monospace } .line { white-space: pre-wrap } .grid { display: table } .row { display: table-row } .cell { display: table-cell }`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>Styled</title><link rel="stylesheet" href="/site.css"></head><body>
<div class="listing" id="l"><div class="line" id="l1">int a;</div><div class="line" id="l2">int b;</div></div>
<div class="grid" id="g"><div class="row"><div class="cell">a</div><div class="cell">b</div></div></div>
<p id="p">Text.</p></body></html>`)
	}))
	t.Cleanup(srv.Close)
	s := newSession(t, b)
	p, err := s.Render(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="l" style="font-family: &quot;DejaVu Sans Mono&quot;, monospace;"`, `id="l1" style="white-space: pre-wrap;"`,
		`id="g" style="display: table;"`, `class="cell" style="display: table-cell;"`} {
		if !strings.Contains(p.HTML, want) {
			t.Errorf("the rendered page lacks %s:\n%s", want, p.HTML)
		}
	}
	if strings.Contains(p.HTML, `id="p" style`) {
		t.Errorf("a paragraph got a style:\n%s", p.HTML)
	}
}
