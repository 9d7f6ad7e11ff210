package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/jpeg"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/pageaction"
)

// actionsSite serves a page that needs a click to show its text, a
// search box that answers what is typed when Enter is pressed, a list
// that loads more items when scrolled to its end, and a login form.
func actionsSite(t testing.TB, host string) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/more":
			time.Sleep(50 * time.Millisecond)
			fmt.Fprintf(w, "Item number %s arrived.", r.URL.Query().Get("n"))
			return
		case "/search":
			fmt.Fprintf(w, "Results for %s.", r.URL.Query().Get("q"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><title>Actions</title>
<style>#list{height:200px;overflow:auto} .item{height:150px}</style></head><body>
<h1>A page that needs its reader</h1>
<button id="reveal">Show the answer</button><p id="answer" hidden>The hidden answer is forty-two.</p>
<input id="q" placeholder="Search"><div id="results"></div>
<div id="list"><div class="item">Item one</div><div class="item">Item two</div></div>
<script>
document.getElementById('reveal').onclick = () => { document.getElementById('answer').hidden = false; };
document.getElementById('q').addEventListener('keydown', async e => {
  if (e.key !== 'Enter') return;
  const r = await fetch('/search?q=' + encodeURIComponent(e.target.value));
  document.getElementById('results').textContent = await r.text();
});
let n = 2;
window.addEventListener('scroll', async () => {
  if (window.innerHeight + window.scrollY < document.body.scrollHeight - 10) return;
  n++;
  const r = await fetch('/more?n=' + n);
  const d = document.createElement('p'); d.textContent = await r.text(); document.body.appendChild(d);
});
</script>
<div style="height:1000px"></div>
</body></html>`)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func mustActions(t testing.TB, raw string) []pageaction.Action {
	t.Helper()
	list, bad := pageaction.Parse(json.RawMessage(raw), 0)
	if len(bad) > 0 {
		t.Fatalf("actions %s: %v", raw, bad)
	}
	return list
}

// TestActions runs every kind of action on a page in Chromium: a click
// that shows text, typing and Enter that fetch results, a scroll that
// loads more, a wait, a screenshot at its own quality and viewport, a
// scrape, a script's return, and a PDF; the page is read after them.
func TestActions(t *testing.T) {
	b := launch(t, true)
	site := actionsSite(t, "127.0.0.1")
	s := newSession(t, b)
	acts := mustActions(t, `[
		{"type": "click", "selector": "#reveal"},
		{"type": "click", "selector": "#q"},
		{"type": "write", "text": "durable crawls"},
		{"type": "press", "key": "Enter"},
		{"type": "wait", "selector": "#results:not(:empty)"},
		{"type": "scroll", "direction": "down"},
		{"type": "wait", "milliseconds": 400},
		{"type": "screenshot", "quality": 30, "viewport": {"width": 400, "height": 300}},
		{"type": "scrape"},
		{"type": "executeJavascript", "script": "document.querySelectorAll('p').length"},
		{"type": "executeJavascript", "script": "return {title: document.title, ok: true}"},
		{"type": "scroll", "direction": "down", "selector": "#list"},
		{"type": "pdf", "format": "A4"}
	]`)
	p, err := s.RenderWith(context.Background(), site.URL+"/", RenderOptions{Actions: acts})
	if err != nil {
		t.Fatalf("render with actions: %v", err)
	}
	for _, want := range []string{"The hidden answer is forty-two.", "Results for durable crawls.", "Item number 3 arrived."} {
		if !strings.Contains(p.HTML, want) {
			t.Errorf("the page read after the actions lacks %q", want)
		}
	}
	if strings.Contains(p.HTML, `id="answer" hidden`) {
		t.Error("the click did not show the answer")
	}
	r := p.Actions
	if r == nil || len(r.Screenshots) != 1 || len(r.Scrapes) != 1 || len(r.JavascriptReturns) != 2 || len(r.PDFs) != 1 {
		t.Fatalf("action results: %+v", r)
	}
	img, err := jpeg.DecodeConfig(bytes.NewReader(r.Screenshots[0]))
	if err != nil || img.Width != 400 || img.Height != 300 {
		t.Errorf("the screenshot is %dx%d (%v), want the 400x300 viewport asked for", img.Width, img.Height, err)
	}
	if !strings.Contains(r.Scrapes[0].HTML, "Results for durable crawls.") || r.Scrapes[0].URL != site.URL+"/" {
		t.Errorf("the scrape holds %s, %d bytes", r.Scrapes[0].URL, len(r.Scrapes[0].HTML))
	}
	if ret := r.JavascriptReturns[0]; ret.Type != "number" || string(ret.Value) == "0" {
		t.Errorf("first return: %+v", ret)
	}
	if ret := r.JavascriptReturns[1]; ret.Type != "object" || string(ret.Value) != `{"ok":true,"title":"Actions"}` {
		t.Errorf("second return: %s %s", ret.Type, ret.Value)
	}
	if !bytes.HasPrefix(r.PDFs[0], []byte("%PDF-")) {
		t.Errorf("the pdf action gave %q…", r.PDFs[0][:min(8, len(r.PDFs[0]))])
	}
}

// TestActionFails: an action that cannot be done fails the render,
// naming its place, its type and why.
func TestActionFails(t *testing.T) {
	b := launch(t, true)
	site := actionsSite(t, "127.0.0.1")
	s := newSession(t, b)
	for _, c := range []struct{ actions, want string }{
		{`[{"type": "click", "selector": "#reveal"}, {"type": "click", "selector": "#no-such-button"}]`,
			`action 1 (click "#no-such-button") failed: no element matches the selector "#no-such-button"`},
		{`[{"type": "executeJavascript", "script": "throw new Error('broken on purpose')"}]`,
			`action 0 (executeJavascript) failed: the script threw`},
		{`[{"type": "press", "key": "NoSuchKeyName"}]`, `action 0 (press "NoSuchKeyName") failed:`},
	} {
		began := time.Now()
		_, err := s.RenderWith(context.Background(), site.URL+"/", RenderOptions{Actions: mustActions(t, c.actions)})
		var failed *pageaction.Failed
		if !errors.As(err, &failed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a failed action saying %q", c.actions, err, c.want)
		}
		if c.want[7] == '1' && time.Since(began) > findTimeout+10*time.Second {
			t.Errorf("a missing element took %s to be told", time.Since(began))
		}
	}
}

// TestBrowserGuard: with private networks refused, a page at an allowed
// address renders, but nothing its scripts, its redirects, its
// WebSocket, its styles or an executeJavascript action ask of a loopback
// service reaches it.
func TestBrowserGuard(t *testing.T) {
	var hits atomic.Int32
	var seen = make(chan string, 64)
	privLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	private := &httptest.Server{Listener: privLn, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case seen <- r.URL.Path:
		default:
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "secret")
	})}}
	private.Start()
	defer private.Close()
	secret := private.URL
	pubLn, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	public := &httptest.Server{Listener: pubLn, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, secret+"/redirected", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Guarded</title>
<link rel="stylesheet" href="%[1]s/style.css"><script src="%[1]s/script.js"></script></head><body>
<h1>A public page</h1><p id="status">waiting</p><iframe src="%[1]s/frame"></iframe>
<script>
const out = [];
const tryFetch = async (u) => { try { await fetch(u); out.push('reached ' + u); } catch (e) { out.push('refused'); } };
Promise.all([tryFetch('%[1]s/fetch'), tryFetch('/hop'), tryFetch('http://169.254.169.254/latest/meta-data/')]).then(() => {
  const st = document.getElementById('status'); st.textContent = out.join(', '); st.dataset.done = 'yes';
});
try { const ws = new WebSocket('%[2]s/ws'); ws.onerror = () => {}; } catch (e) {}
navigator.sendBeacon && navigator.sendBeacon('%[1]s/beacon', 'x');
</script></body></html>`, secret, strings.Replace(secret, "http://", "ws://", 1))
	})}}
	public.Start()
	defer public.Close()

	o := benchOptions(2)
	o.AllowPrivateNetworks = false
	o.AllowNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
	b, err := Launch(o)
	if err != nil {
		t.Fatalf("launch the browser: %v", err)
	}
	defer b.Close()
	s := newSession(t, b)
	acts := mustActions(t, `[{"type": "wait", "selector": "#status[data-done]"},
		{"type": "executeJavascript", "script": "return fetch('`+secret+`/from-action').then(() => 'reached', () => 'refused')"}]`)
	p, err := s.RenderWith(context.Background(), public.URL+"/", RenderOptions{Actions: acts})
	if err != nil {
		t.Fatalf("render the public page: %v", err)
	}
	if !strings.Contains(p.HTML, "A public page") {
		t.Errorf("the public page did not render: %s", p.HTML)
	}
	if ret := p.Actions.JavascriptReturns; len(ret) != 1 || string(ret[0].Value) != `"refused"` {
		t.Errorf("executeJavascript's fetch of a loopback address: %+v", ret)
	}
	if strings.Contains(p.HTML, "reached http") || !strings.Contains(p.HTML, "refused, refused") {
		t.Errorf("the page's script reached a private address, or was not refused: %s", p.HTML)
	}
	// A page that redirects to a loopback address is refused, not read.
	if _, err := s.Render(context.Background(), public.URL+"/hop"); !errors.Is(err, ErrRefused) {
		t.Errorf("a page redirecting to a loopback address: %v, want ErrRefused", err)
	}
	// Whatever was still in flight has had its time.
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		close(seen)
		var paths []string
		for path := range seen {
			paths = append(paths, path)
		}
		t.Errorf("the loopback service saw %d requests through the browser: %v", n, paths)
	}
	if s.Refused() < 4 {
		t.Errorf("the guard refused %d requests, want the script's, the redirect's, the style's and the action's at least", s.Refused())
	}
}
