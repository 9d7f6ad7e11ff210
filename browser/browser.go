// Package browser renders pages in a real Chromium through playwright-go,
// for sites whose content only exists after their JavaScript ran.
//
// One Browser (one Chromium) serves a worker process. Each crawl batch
// opens a Session: a fresh browser context, so that cookies and storage do
// not pass between crawls or teams, with a bounded pool of pages reused
// across URLs. Images, media and fonts are not loaded, and every request
// the page makes passes the same private-network guard as static fetching.
//
// Crawls use it through Fetcher, in the RenderPages activity on the
// browser task queue.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/egress"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/netguard"
	"github.com/durablecrawl/crawler/pageaction"
)

// Options configure a Browser.
type Options struct {
	// ChromiumPath is the Chromium executable (Debian's is
	// /usr/lib/chromium/chromium; /usr/bin/chromium is a wrapper script).
	ChromiumPath string
	// DriverDir holds the Playwright driver: DriverDir/node and
	// DriverDir/package/cli.js (see scripts/lib.sh).
	DriverDir string
	// Pages is the size of a session's page pool.
	Pages int
	// NavTimeout bounds one navigation, up to the page's document;
	// LoadTimeout bounds the wait for its load event after that (a page
	// still loading then is taken as it stands, with a note), and
	// SettleTimeout the wait for its network to go quiet after it.
	NavTimeout    time.Duration
	LoadTimeout   time.Duration
	SettleTimeout time.Duration
	// AllowPrivateNetworks lets pages reach private addresses;
	// AllowNetworks lets them reach those of these networks only.
	AllowPrivateNetworks bool
	AllowNetworks        []netip.Prefix
	UserAgent            string
}

// Browser is one Chromium shared by the sessions of a worker. When
// Chromium dies, the next session starts a new one.
type Browser struct {
	opts   Options
	pw     *playwright.Playwright
	mu     sync.Mutex
	b      playwright.Browser
	assets *assetCache
}

// Launch starts the Playwright driver and Chromium. Nothing is downloaded:
// the driver and the browser must be installed (make run and make test do
// it).
func Launch(o Options) (*Browser, error) {
	if o.Pages < 1 {
		o.Pages = 4
	}
	if o.NavTimeout == 0 {
		o.NavTimeout = 30 * time.Second
	}
	if o.SettleTimeout == 0 {
		o.SettleTimeout = 2 * time.Second
	}
	if o.LoadTimeout == 0 {
		o.LoadTimeout = 10 * time.Second
	}
	pw, err := playwright.Run(&playwright.RunOptions{
		DriverDirectory:     o.DriverDir,
		SkipInstallBrowsers: true,
		Verbose:             false,
		Stdout:              io.Discard,
		Stderr:              io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start the playwright driver in %s: %w", o.DriverDir, err)
	}
	br := &Browser{opts: o, pw: pw, assets: newAssetCache(maxCacheBytes)}
	if br.b, err = br.launch(); err != nil {
		_ = pw.Stop()
		return nil, err
	}
	return br, nil
}

func (b *Browser) launch() (playwright.Browser, error) {
	c, err := b.pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(b.opts.ChromiumPath),
		Headless:       playwright.Bool(true),
		Args: []string{
			"--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			// Every request goes through the session's egress proxy
			// (package egress): no UDP of WebRTC's goes around it.
			"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("launch chromium %s: %w", b.opts.ChromiumPath, err)
	}
	return c, nil
}

// chromium returns the running Chromium, starting a new one when the last
// one died (crashed, or was killed).
func (b *Browser) chromium() (playwright.Browser, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b != nil && b.b.IsConnected() {
		return b.b, nil
	}
	c, err := b.launch()
	if err != nil {
		return nil, err
	}
	b.b = c
	return c, nil
}

// Connected reports whether Chromium runs.
func (b *Browser) Connected() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b != nil && b.b.IsConnected()
}

// gone reports whether a call on c failed with err because that Chromium
// died. It asks c, not the worker's current Chromium: another batch may
// have started a new one already. A page whose target closed, crashed or
// whose navigation was aborted under it may be told so before the driver
// has seen Chromium go; such an error waits up to diedGrace for it.
func gone(c playwright.Browser, err error) bool {
	if !c.IsConnected() {
		return true
	}
	msg := strings.ToLower(err.Error())
	if !errors.Is(err, playwright.ErrTargetClosed) && !strings.Contains(msg, "closed") && !strings.Contains(msg, "crash") && !strings.Contains(msg, "err_aborted") {
		return false
	}
	for deadline := time.Now().Add(diedGrace); time.Now().Before(deadline); time.Sleep(diedGrace / 20) {
		if !c.IsConnected() {
			return true
		}
	}
	return false
}

// diedGrace is how long a render that failed on a closed target waits
// for the driver to see whether Chromium died.
const diedGrace = 2 * time.Second

// Close stops Chromium and the driver: no Chromium process is left.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	if b.b != nil && b.b.IsConnected() {
		err = b.b.Close()
	}
	if serr := b.pw.Stop(); err == nil {
		err = serr
	}
	return err
}

// Page is a rendered page.
type Page struct {
	URL        string
	FinalURL   string
	StatusCode int
	// HTML is the DOM after rendering, serialized.
	HTML string
	// Links are the absolute targets of the rendered page's links;
	// Canonical is its rel=canonical URL, if any.
	Links     []string
	Canonical string
	Duration  time.Duration
	// Note says how the page was taken when that was not as asked: a
	// render that did not finish loading, a screenshot it could not keep.
	Note crawl.EngineNote
	// Screenshot is the rendered page as a JPEG, when asked for.
	Screenshot []byte
	// Document is set when the response is a document (a PDF, typed so
	// by its ContentType), not a page: HTML is then empty.
	Document    bool
	ContentType string
	// NotFound is what the page's script asked for and got "not found",
	// when the rendered page says it is not found (see notFound).
	NotFound string
	// Actions is what the page's actions gave back (nil: it had none).
	Actions *pageaction.Results
}

// The screenshots a render may take: none, the viewport, or the whole
// page.
const (
	ShotNone     = ""
	ShotViewport = "viewport"
	ShotFullPage = "fullPage"
)

// MaxScreenshotBytes bounds a screenshot kept (a very long page's full
// screenshot can be larger).
const MaxScreenshotBytes = 8 << 20

// screenshotQuality is the JPEG quality of screenshots.
const screenshotQuality = 80

// Session is a browser context with a pool of pages. It is safe for
// concurrent use; Close it when done.
type Session struct {
	b *Browser
	// chromium is the Chromium the session's context lives in.
	chromium playwright.Browser
	// scope names the crawl whose cached scripts and styles it uses.
	scope string
	ctx   playwright.BrowserContext
	pages chan *tab
	mu    sync.Mutex
	open  []*tab
	// headers go with the requests to headerHosts (see SessionOptions).
	headers     map[string]string
	headerHosts map[string]bool
	// egress carries every request of the session's pages, through the
	// network guard.
	egress *egress.Proxy
}

// tab is a pooled page and what it has in flight on the network.
type tab struct {
	page     playwright.Page
	inFlight atomic.Int64
	lastNet  atomic.Int64 // unix nanoseconds of the last request start or end
	// missing are the addresses the page's scripts fetched and got "not
	// found" for since the render began, the first maxMissing (see
	// notFound).
	mu      sync.Mutex
	missing []string
}

// maxMissing bounds the "not found" answers a render remembers.
const maxMissing = 8

func newTab(p playwright.Page) *tab {
	t := &tab{page: p}
	touch := func() { t.lastNet.Store(time.Now().UnixNano()) }
	p.OnRequest(func(playwright.Request) { t.inFlight.Add(1); touch() })
	p.OnRequestFinished(func(playwright.Request) { t.inFlight.Add(-1); touch() })
	p.OnRequestFailed(func(playwright.Request) { t.inFlight.Add(-1); touch() })
	p.OnResponse(func(r playwright.Response) {
		if status := r.Status(); status != 404 && status != 410 {
			return
		}
		if kind := r.Request().ResourceType(); kind != "fetch" && kind != "xhr" {
			return
		}
		t.mu.Lock()
		if len(t.missing) < maxMissing {
			t.missing = append(t.missing, r.URL())
		}
		t.mu.Unlock()
	})
	return t
}

// began forgets what the page's last render fetched.
func (t *tab) began() {
	t.mu.Lock()
	t.missing = nil
	t.mu.Unlock()
}

// missed returns the addresses the page's scripts got "not found" for
// since the render began.
func (t *tab) missed() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.missing
}

// quiet waits, after a turn of the page's timers, while a request is in
// flight or one ended less than quietFor ago, at most limit: what an
// action set off arrives, while a page whose network was already quiet
// is read at once.
func (t *tab) quiet(limit time.Duration) {
	deadline := time.Now().Add(limit)
	_, _ = t.page.Evaluate(pageTurn)
	for time.Now().Before(deadline) {
		if t.inFlight.Load() <= 0 && time.Since(time.Unix(0, t.lastNet.Load())) >= quietFor {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// idle waits, after the page's tasks already due have run, while a
// request is in flight, at most limit.
func (t *tab) idle(limit time.Duration) {
	deadline := time.Now().Add(limit)
	_, _ = t.page.Evaluate(`() => new Promise(resolve => setTimeout(resolve, 0))`)
	for t.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// quietFor is how long a page's network must stay idle for its content to
// count as settled.
const quietFor = 300 * time.Millisecond

// pageTurn is a script that resolves after a timer of the page's own, of
// 100 ms.
const pageTurn = `() => new Promise(resolve => setTimeout(resolve, 100))`

// settle waits until the page has had nothing in flight for quiet, or
// until limit passes: content fetched after the load event arrives. The
// quiet time counts from the call at the earliest: the driver reports
// requests late on a busy machine, and a request a script starts just
// after the load event must have the time to show up. Before it looks at
// the network, it waits for a timer of the page's own (pageTurn): the
// page's timers due before it (a fetch set off 50 ms after the load
// event) have run by then, however long the page kept itself busy, so
// their requests are in flight.
func (t *tab) settle(limit time.Duration) {
	began := time.Now()
	deadline := began.Add(limit)
	// An error (the page navigated away or closed) leaves the network
	// wait alone to decide.
	_, _ = t.page.Evaluate(pageTurn)
	for time.Now().Before(deadline) {
		last := time.Unix(0, t.lastNet.Load())
		if last.Before(began) {
			last = began
		}
		if t.inFlight.Load() <= 0 && time.Since(last) >= quietFor {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// NewSession opens a fresh context: nothing of another session (cookies,
// storage) is visible in it, but the scripts and stylesheets that earlier
// sessions of the same scope (a crawl) loaded are served from memory.
// With a proxy (http://host:port) every request of the session goes
// through it.
func (b *Browser) NewSession(scope string, proxy ...string) (*Session, error) {
	return b.NewSessionWith(scope, SessionOptions{Proxy: strings.Join(proxy, "")})
}

// SessionOptions are how a session's pages are fetched.
type SessionOptions struct {
	// Proxy (http://host:port) carries every request of the session.
	Proxy string
	// Headers are added to the requests of the session to HeaderHosts
	// (host[:port], the pages' own): the page's other requests (scripts,
	// analytics, other sites) never carry them.
	Headers     map[string]string
	HeaderHosts map[string]bool
	// Mobile renders pages as a phone: a small touch screen, and
	// "Mobile" added to the user agent.
	Mobile bool
}

// guard is the network guard the browser's requests pass.
func (b *Browser) guard() netguard.Policy {
	return netguard.Policy{AllowPrivate: b.opts.AllowPrivateNetworks, Allow: b.opts.AllowNetworks}
}

// NewSessionWith is NewSession with opts. Every request of the session's
// pages (their own, their scripts', their actions') goes through an
// egress proxy of its own, which passes the network guard and, with
// so.Proxy, hands it on to that proxy.
func (b *Browser) NewSessionWith(scope string, so SessionOptions) (*Session, error) {
	eo := egress.Options{Guard: b.guard()}
	if so.Proxy != "" {
		up, err := url.Parse(so.Proxy)
		if err != nil || up.Host == "" {
			return nil, fmt.Errorf("the session's proxy %q is not a proxy URL", so.Proxy)
		}
		eo.Upstream = up
	}
	out, err := egress.Start(eo)
	if err != nil {
		return nil, err
	}
	// "<-loopback>" sends loopback addresses through the proxy too.
	opts := playwright.BrowserNewContextOptions{Proxy: &playwright.Proxy{Server: out.URL(), Bypass: playwright.String("<-loopback>")}}
	if b.opts.UserAgent != "" {
		opts.UserAgent = playwright.String(b.opts.UserAgent)
	}
	// A Chromium that dies as the context opens (killed, crashed) is
	// replaced once.
	for tries := 1; ; tries++ {
		c, err := b.chromium()
		if err != nil {
			_ = out.Close()
			return nil, err
		}
		s, err := b.newSession(c, scope, so, opts)
		if err == nil {
			s.egress = out
			return s, nil
		}
		if tries == 2 || !gone(c, err) {
			_ = out.Close()
			return nil, err
		}
	}
}

// newSession opens a browser context in Chromium c.
func (b *Browser) newSession(c playwright.Browser, scope string, so SessionOptions, opts playwright.BrowserNewContextOptions) (*Session, error) {
	if so.Mobile {
		opts.Viewport = &playwright.Size{Width: 390, Height: 844}
		opts.DeviceScaleFactor = playwright.Float(3)
		opts.IsMobile = playwright.Bool(true)
		opts.HasTouch = playwright.Bool(true)
		ua := b.opts.UserAgent + " Mobile"
		if b.opts.UserAgent == "" {
			// A phone's Chromium, of this browser's version.
			ua = fmt.Sprintf("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s Mobile Safari/537.36", c.Version())
		}
		opts.UserAgent = playwright.String(ua)
	}
	bctx, err := c.NewContext(opts)
	if err != nil {
		return nil, fmt.Errorf("new browser context: %w", err)
	}
	if so.Proxy != "" {
		scope += "\x00" + so.Proxy // what came through a proxy stays with it
	}
	s := &Session{b: b, chromium: c, scope: scope, ctx: bctx, pages: make(chan *tab, b.opts.Pages), headers: so.Headers, headerHosts: so.HeaderHosts}
	if err := bctx.Route("**/*", s.route); err != nil {
		_ = bctx.Close()
		return nil, fmt.Errorf("route requests: %w", err)
	}
	return s, nil
}

// route blocks what does not change a page's text; scripts and
// stylesheets come from the crawl's cache when an earlier page loaded
// them. Forbidden addresses are refused by the session's egress proxy,
// which every request passes, redirects and WebSockets included.
func (s *Session) route(r playwright.Route) {
	req := r.Request()
	kind := req.ResourceType()
	switch kind {
	case "image", "media", "font":
		_ = r.Abort("blockedbyclient")
		return
	}
	if (kind == "script" || kind == "stylesheet") && req.Method() == "GET" && s.b.assets != nil {
		s.cached(r)
		return
	}
	if len(s.headers) > 0 {
		if u, err := url.Parse(req.URL()); err == nil && s.headerHosts[u.Host] {
			h := req.Headers()
			for k, v := range s.headers {
				h[strings.ToLower(k)] = v
			}
			_ = r.Continue(playwright.RouteContinueOptions{Headers: h})
			return
		}
	}
	_ = r.Continue()
}

// cached answers a request for a script or stylesheet from the crawl's
// cache, or fetches it and keeps a successful answer.
func (s *Session) cached(r playwright.Route) {
	u := r.Request().URL()
	if a, ok := s.b.assets.get(s.scope, u); ok {
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(a.status), Headers: a.headers, Body: a.body})
		return
	}
	resp, err := r.Fetch()
	if err != nil {
		_ = r.Continue()
		return
	}
	if body, err := resp.Body(); err == nil && resp.Status() == 200 {
		s.b.assets.put(s.scope, u, &asset{status: 200, headers: resp.Headers(), body: body})
	}
	_ = r.Fulfill(playwright.RouteFulfillOptions{Response: resp})
}

// forbidden resolves host and reports whether any of its addresses is one
// the guard refuses: a page at such an address is refused before the
// browser is asked for it (the egress proxy would refuse it too, less
// clearly).
func (b *Browser) forbidden(host string) bool {
	if b.opts.AllowPrivateNetworks {
		return false
	}
	addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", host)
	if err != nil {
		return false // the browser's own lookup fails the same way
	}
	g := b.guard()
	for _, a := range addrs {
		if g.Check(a) != nil {
			return true
		}
	}
	return false
}

// page takes a page from the pool, opening one while the pool has room.
func (s *Session) page() (*tab, error) {
	select {
	case t := <-s.pages:
		return t, nil
	default:
	}
	s.mu.Lock()
	if len(s.open) < s.b.opts.Pages {
		p, err := s.ctx.NewPage()
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		t := newTab(p)
		s.open = append(s.open, t)
		s.mu.Unlock()
		return t, nil
	}
	s.mu.Unlock()
	return <-s.pages, nil
}

// ErrRefused is returned for a URL whose address the guard refuses.
var ErrRefused = errors.New("refused: the address is private, loopback, link-local or reserved")

// Render opens rawURL, waits for the load event and then, for at most
// SettleTimeout, for the page's network to stay idle for a moment (content
// fetched after the load event), and returns the rendered DOM and its
// links.
func (s *Session) Render(ctx context.Context, rawURL string) (Page, error) {
	return s.RenderWith(ctx, rawURL, RenderOptions{})
}

// RenderOptions are what a render does besides reading the page.
type RenderOptions struct {
	// Shot asks for a screenshot of the rendered page, taken after it is
	// read: ShotViewport or ShotFullPage. A screenshot that fails leaves
	// the page without one, and says so in its note. ShotQuality is its
	// JPEG quality (0: the default), ShotViewport the screen it is taken
	// at (nil: the session's).
	Shot         string
	ShotQuality  int
	ShotViewport *pageaction.Viewport
	// WaitFor is a wait after the page has settled, before it is read.
	WaitFor time.Duration
	// Actions run in order once the page has settled and waited, before
	// it is read (see runActions).
	Actions []pageaction.Action
}

// RenderWith is Render with opts.
func (s *Session) RenderWith(ctx context.Context, rawURL string, opts RenderOptions) (Page, error) {
	shot := opts.Shot
	start := time.Now()
	out := Page{URL: rawURL, FinalURL: rawURL}
	if u, err := url.Parse(rawURL); err == nil && s.b.forbidden(u.Hostname()) {
		return out, ErrRefused
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	t, err := s.page()
	if err != nil {
		return out, fmt.Errorf("open a page: %w", err)
	}
	defer func() { s.pages <- t }()
	p := t.page
	t.began()
	if sameDocument(p.URL(), rawURL) {
		// Only the fragment differs (a site routing by it): the browser
		// would move within the page it shows, not load this one.
		_, _ = p.Goto("about:blank")
	}

	resp, err := p.Goto(rawURL, playwright.PageGotoOptions{
		WaitUntil: playwright.WaitUntilStateDomcontentloaded,
		Timeout:   playwright.Float(float64(s.b.opts.NavTimeout / time.Millisecond)),
	})
	if err != nil {
		return out, fmt.Errorf("navigate to %s: %w", rawURL, err)
	}
	var original []string // the links of the document as served
	if resp != nil {
		if refused, _ := resp.HeaderValue(egress.RefusedHeader); refused != "" {
			// Redirected to an address the guard refuses.
			return out, ErrRefused
		}
		out.StatusCode = resp.Status()
		// A document (PDF) is shown in Chromium's viewer, whose page is
		// not the document: the caller fetches it as served. Its type is
		// read first: the viewer may keep its body from us.
		if ct, _ := resp.HeaderValue("content-type"); (fetch.Result{ContentType: ct}).IsPDF() {
			out.FinalURL, out.ContentType, out.Document = p.URL(), ct, true
			out.Duration = time.Since(start)
			return out, nil
		}
		if body, err := resp.Body(); err == nil {
			original = servedLinks(body, rawURL)
		}
	}
	// A page whose load event does not come (a request that hangs) is
	// taken as it stands after the bound.
	if err := p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad,
		Timeout: playwright.Float(float64(s.b.opts.LoadTimeout / time.Millisecond))}); err != nil {
		out.Note.LoadTimeout = s.b.opts.LoadTimeout
	}
	// Quiet network is a bound, not a condition: a page that polls forever
	// is taken as it is when the bound runs out. A page with actions waits
	// only for what is in flight: each action that aims at an element
	// waits for it, and the page is read after its network settles again.
	if len(opts.Actions) > 0 {
		t.idle(s.b.opts.SettleTimeout)
	} else {
		t.settle(s.b.opts.SettleTimeout)
	}
	if opts.WaitFor > 0 {
		select {
		case <-time.After(opts.WaitFor):
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	if len(opts.Actions) > 0 {
		res, err := s.runActions(ctx, t, opts.Actions)
		out.Actions = res
		if err != nil {
			out.FinalURL = p.URL()
			return out, err
		}
	}
	out.FinalURL = p.URL()
	_, _ = p.Evaluate(writeStyles) // a page that refuses keeps its markup as it is
	if out.HTML, err = p.Content(); err != nil {
		return out, fmt.Errorf("read the rendered page: %w", err)
	}
	readRendered(t, original, &out)
	if shot != ShotNone {
		s.screenshot(p, shot, opts, &out)
	}
	out.Duration = time.Since(start)
	return out, nil
}

// writeStyles writes into the rendered page's elements, as style
// attributes, the computed styles its structure is read from
// (markdown.Options.Stylesheet reads the same from a static page's
// sheets): where white-space keeps lines or the font turns monospace
// (set on that element, not inherited), and where an element that is no
// table's lays out as one. The values are those computed: what the page
// shows does not change. Large pages are read up to a bound.
const writeStyles = `() => {
	const keeps = new Set(['pre', 'pre-wrap', 'pre-line', 'break-spaces']);
	const mono = f => /mono|courier|consolas|menlo|monaco|lucida console/i.test((f || '').split(',')[0]);
	const skip = new Set(['PRE', 'CODE', 'TEXTAREA', 'SCRIPT', 'STYLE', 'TABLE', 'TR', 'TD', 'TH', 'TBODY', 'THEAD', 'TFOOT', 'SVG']);
	const all = document.body ? document.body.getElementsByTagName('*') : [];
	const n = Math.min(all.length, 20000);
	const writes = [];
	for (let i = 0; i < n; i++) {
		const e = all[i];
		if (skip.has(e.tagName.toUpperCase())) continue;
		const cs = getComputedStyle(e);
		const ps = e.parentElement ? getComputedStyle(e.parentElement) : null;
		let add = '';
		if (keeps.has(cs.whiteSpace) && (!ps || ps.whiteSpace !== cs.whiteSpace)) add += 'white-space: ' + cs.whiteSpace + ';';
		if (mono(cs.fontFamily) && (!ps || !mono(ps.fontFamily))) add += 'font-family: ' + cs.fontFamily + ';';
		if (cs.display.startsWith('table')) add += 'display: ' + cs.display + ';';
		if (add) writes.push([e, add]);
	}
	for (const [e, add] of writes) {
		const old = e.getAttribute('style');
		e.setAttribute('style', old ? old.replace(/;?\s*$/, ';') + add : add);
	}
}`

// readRendered reads from t's rendered page into out its links (the
// document's own put back where a script rewrote them: original), its
// canonical address, and whether it is a "not found" page drawn by its
// script (notFound). A page that cannot be read keeps none of them.
func readRendered(t *tab, original []string, out *Page) {
	found, err := t.page.Evaluate(`() => ({
		links: Array.from(document.querySelectorAll('a[href], iframe[src], frame[src]'), a => a.href || a.src),
		canonical: (document.querySelector('link[rel="canonical"][href]') || {}).href || '',
		heading: (() => {
			for (const scope of ['article', '[role=main]', 'main', 'body']) {
				const h = document.querySelector(scope + ' h1') || document.querySelector(scope + ' h2');
				if (h) return h.textContent.slice(0, 200);
			}
			return '';
		})(),
		title: document.title.slice(0, 200)
	})`)
	if m, ok := found.(map[string]any); err == nil && ok {
		if list, ok := m["links"].([]any); ok {
			for _, l := range list {
				if s, ok := l.(string); ok && s != "" {
					out.Links = append(out.Links, s)
				}
			}
		}
		out.Links = unrewritten(out.Links, original)
		out.Canonical, _ = m["canonical"].(string)
		heading, _ := m["heading"].(string)
		title, _ := m["title"].(string)
		out.NotFound = notFound(out.FinalURL, t.missed(), heading, title)
	}
}

// screenshot takes page p's screenshot (shot: ShotViewport or
// ShotFullPage, at opts' quality and viewport) into out, or says in its
// note why it has none.
func (s *Session) screenshot(p playwright.Page, shot string, opts RenderOptions, out *Page) {
	quality := opts.ShotQuality
	if quality <= 0 {
		quality = screenshotQuality
	}
	if vp := opts.ShotViewport; vp != nil {
		old := p.ViewportSize()
		if err := p.SetViewportSize(vp.Width, vp.Height); err != nil {
			out.Note.ScreenshotError = err.Error()
			return
		}
		if old != nil {
			defer func() { _ = p.SetViewportSize(old.Width, old.Height) }()
		}
	}
	img, err := p.Screenshot(playwright.PageScreenshotOptions{FullPage: playwright.Bool(shot == ShotFullPage),
		Type: playwright.ScreenshotTypeJpeg, Quality: playwright.Int(quality),
		Timeout: playwright.Float(float64(s.b.opts.NavTimeout / time.Millisecond))})
	switch {
	case err != nil:
		out.Note.ScreenshotError = err.Error()
	case len(img) > MaxScreenshotBytes:
		out.Note.ScreenshotBytes, out.Note.ScreenshotMax = len(img), MaxScreenshotBytes
	default:
		out.Screenshot = img
	}
}

// Close closes the session's pages and context, and its egress proxy.
func (s *Session) Close() error {
	err := s.ctx.Close()
	if s.egress != nil {
		_ = s.egress.Close()
	}
	return err
}

// Refused counts the requests of the session's pages that the network
// guard refused.
func (s *Session) Refused() int64 {
	if s.egress == nil {
		return 0
	}
	return s.egress.Refused()
}
