package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/fetch/static"
)

func TestAssetCacheEvictsAndKeepsScopesApart(t *testing.T) {
	c := newAssetCache(10)
	c.put("crawl-1", "/a.js", &asset{status: 200, body: []byte("aaaa")})
	c.put("crawl-1", "/b.js", &asset{status: 200, body: []byte("bbbb")})
	if _, ok := c.get("crawl-2", "/a.js"); ok {
		t.Error("another crawl is served crawl-1's script")
	}
	if _, ok := c.get("crawl-1", "/a.js"); !ok { // /a.js is now the most recent
		t.Fatal("/a.js is not cached")
	}
	c.put("crawl-1", "/c.js", &asset{status: 200, body: []byte("cccc")})
	if _, ok := c.get("crawl-1", "/b.js"); ok {
		t.Error("/b.js, the least recently used, was kept past the budget")
	}
	if _, ok := c.get("crawl-1", "/a.js"); !ok {
		t.Error("/a.js was evicted before /b.js")
	}
	c.put("crawl-1", "/huge.js", &asset{status: 200, body: make([]byte, 11)})
	if _, ok := c.get("crawl-1", "/huge.js"); ok || c.bytes > 10 {
		t.Errorf("a response larger than the cache was kept (%d bytes held)", c.bytes)
	}
}

func TestUnrewritten(t *testing.T) {
	served := []string{"https://d.test/std/a.html", "https://d.test/std/b.html?x=1", "https://d.test/std/c.html"}
	rendered := []string{"https://d.test/std/a.html?search=", "https://d.test/std/b.html?x=1&search=",
		"https://d.test/std/c.html", "https://d.test/std/made.html?page=2", "https://d.test/std/a.html#top"}
	want := []string{"https://d.test/std/a.html", "https://d.test/std/b.html?x=1",
		"https://d.test/std/c.html", "https://d.test/std/made.html?page=2", "https://d.test/std/a.html#top"}
	if got := unrewritten(rendered, served); !reflect.DeepEqual(got, want) {
		t.Errorf("unrewritten:\n got %q\nwant %q", got, want)
	}
}

// TestRenderReusesScriptsAndServedLinks: a crawl's pages load the site's
// script once, whatever the session; another crawl loads it itself. The
// script adds "?search=" to the page's links and a link of its own: the
// links come back as served, and the script's own link stays.
func TestRenderReusesScriptsAndServedLinks(t *testing.T) {
	var loads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/app.js":
			loads.Add(1)
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `for (const a of document.querySelectorAll('a')) a.href = a.href + '?search=';
const made = document.createElement('a'); made.href = '/made-by-script'; made.textContent = 'made';
document.body.appendChild(made);`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><body><p>Served text.</p><a href="/a.html">A</a> <a href="b.html">B</a>
<script src="/app.js"></script></body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	b := launch(t, true)
	render := func(scope string) Page {
		s, err := b.NewSession(scope)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p, err := s.Render(context.Background(), srv.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := render("crawl-1")
	want := []string{srv.URL + "/a.html", srv.URL + "/b.html", srv.URL + "/made-by-script"}
	if !reflect.DeepEqual(p.Links, want) {
		t.Errorf("links %q, want %q", p.Links, want)
	}
	render("crawl-1")
	if n := loads.Load(); n != 1 {
		t.Errorf("the script was loaded %d times by two sessions of one crawl, want once", n)
	}
	render("crawl-2")
	if n := loads.Load(); n != 2 {
		t.Errorf("the script was loaded %d times in all, want twice (once a crawl)", n)
	}
}

// TestRenderTakesAPageThatDoesNotLoad: a page whose load event never
// comes (a script request that hangs) is taken as it stands after the
// bound, with a note, not failed.
func TestRenderTakesAPageThatDoesNotLoad(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang.js" {
			<-release
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><body><p>The text is here already.</p><script async src="/hang.js"></script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: the handler returns before Close waits for it
	o := benchOptions(1)
	o.LoadTimeout = time.Second
	b, err := Launch(o)
	if err != nil {
		t.Fatalf("launch the browser (make test installs Chromium and the driver): %v", err)
	}
	t.Cleanup(func() { b.Close() })
	s := newSession(t, b)
	began := time.Now()
	p, err := s.Render(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatalf("render failed: %v", err)
	}
	if !strings.Contains(p.HTML, "The text is here already.") || p.Note.LoadTimeout == 0 {
		t.Errorf("page taken without its text or a note: note %+v", p.Note)
	}
	if d := time.Since(began); d > 8*time.Second {
		t.Errorf("the render took %v, want about the 1 s bound and the settle time", d)
	}
}

// TestRenderFailureFetchedStatically: a page the browser cannot render in
// time (the server stalls for Chromium only) is fetched statically, with a
// note, rather than failed.
func TestRenderFailureFetchedStatically(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.UserAgent(), "HeadlessChrome") {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><body><p>Served to plain HTTP.</p></body></html>`)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	o := benchOptions(1)
	o.NavTimeout = time.Second
	b, err := Launch(o)
	if err != nil {
		t.Fatalf("launch the browser (make test installs Chromium and the driver): %v", err)
	}
	t.Cleanup(func() { b.Close() })
	f := Fetcher{Browser: b, Static: static.New(static.Options{AllowPrivateNetworks: true, Timeout: 5 * time.Second, MaxBytes: 1 << 20})}
	var got fetch.Result
	if err := f.FetchAll(context.Background(), []string{srv.URL + "/"}, fetch.Batch{Parallelism: 1}, func(r fetch.Result) { got = r }); err != nil {
		t.Fatal(err)
	}
	if got.Err != nil || got.StatusCode != 200 || !strings.Contains(string(got.Body), "Served to plain HTTP.") ||
		got.Note.RenderError == "" {
		t.Errorf("result: err %v, status %d, note %+v, body %q", got.Err, got.StatusCode, got.Note, got.Body)
	}
}
