package browser

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/pageaction"
)

// Fetcher renders batches of URLs the way static.Fetcher fetches them, so
// that a crawl's batch work is the same with either engine. Each batch
// gets a session of its own.
type Fetcher struct {
	Browser *Browser
	// MaxBytes cuts rendered pages larger than this.
	MaxBytes int
	// EgressProxy (http://host:port) carries batches with UseEgressProxy.
	EgressProxy string
	// Static, when set, fetches a page the browser could not render (its
	// navigation failed or timed out): a page the static fetch can serve
	// is not failed for the browser's sake.
	Static interface {
		FetchAll(ctx context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error
	}
	// Hosts, when set, is the politeness budget each page's navigation
	// draws on (its scripts, styles and images do not); the render's
	// timeout starts when the host's turn comes.
	Hosts *hostbudget.Budget
}

// render renders u in s once its host's budget lets it.
func (f Fetcher) render(ctx context.Context, s *Session, u string, o RenderOptions) (Page, error) {
	if f.Hosts == nil {
		return s.RenderWith(ctx, u, o)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return s.RenderWith(ctx, u, o)
	}
	slot, err := f.Hosts.Acquire(ctx, parsed.Host)
	if err != nil {
		return Page{}, err
	}
	defer slot.Release()
	p, err := s.RenderWith(ctx, u, o)
	slot.Report(p.StatusCode, 0)
	return p, err
}

// fetchStatically fetches u with the static engine after the browser
// failed to render it (renderErr); the result says so in its note. The
// batch's admission is the browser's, already given.
func (f Fetcher) fetchStatically(ctx context.Context, u string, b fetch.Batch, renderErr error) fetch.Result {
	b.Admit = nil
	out := fetch.Result{URL: u, Err: renderErr}
	_ = f.Static.FetchAll(ctx, []string{u}, b, func(r fetch.Result) {
		r.Note.RenderError = renderErr.Error()
		out = r
	})
	return out
}

// fetchDocument fetches u, which the browser found to be a document
// (PDF), with the static engine: Chromium hands a document to its viewer,
// whose page holds none of its text. The batch's admission is the
// browser's, already given.
func (f Fetcher) fetchDocument(ctx context.Context, u string, b fetch.Batch) fetch.Result {
	b.Admit = nil
	out := fetch.Result{URL: u, Err: errors.New("the document was not fetched")}
	_ = f.Static.FetchAll(ctx, []string{u}, b, func(r fetch.Result) { out = r })
	return out
}

// skipped reports whether the batch leaves u unfetched (fetch.Batch.Skip),
// and emits its result saying why.
func skipped(b fetch.Batch, u string, emit func(fetch.Result)) bool {
	if b.Skip == nil {
		return false
	}
	why := b.Skip(u)
	if why != "" {
		emit(fetch.Result{URL: u, Skipped: why})
	}
	return why != ""
}

// ErrBrowserDied is returned for a batch during which Chromium died; the
// pages it was rendering are not reported, so that a retry renders them
// with a new Chromium.
var ErrBrowserDied = errors.New("chromium died while rendering the batch")

// FetchAll renders urls, at most b.Parallelism (and the session's page
// pool) at a time, and calls emit once per URL from several goroutines.
func (f Fetcher) FetchAll(ctx context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error {
	if len(urls) == 0 {
		return nil
	}
	proxy := ""
	switch {
	case b.UseEgressProxy:
		if f.EgressProxy == "" {
			return fetch.ErrNoEgressProxy
		}
		proxy = f.EgressProxy
	case b.Proxy != nil:
		// A session keeps one proxy of the pool: the next batch takes
		// the next.
		proxy = b.Proxy.Next().String()
	}
	s, err := f.Browser.NewSessionWith(b.Scope, SessionOptions{Proxy: proxy, Headers: b.Headers, HeaderHosts: fetch.HostsOf(urls), Mobile: b.Mobile})
	if err != nil {
		return err
	}
	defer s.Close()
	stealth := &fallbackSession{f: f, b: b, hosts: fetch.HostsOf(urls)}
	defer stealth.close()
	workers := min(max(b.Parallelism, 1), f.Browser.opts.Pages, len(urls))
	if b.Delay > 0 {
		workers = 1
	}
	queue := make(chan string)
	var died atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range queue {
				if skipped(b, u, emit) {
					continue
				}
				r, ok := f.renderOne(ctx, s, u, b)
				if ok && r.Blocked() && b.Fallback != nil && ctx.Err() == nil {
					// Firecrawl's auto proxy: the page once more through
					// the fallback (stealth) pool.
					r, ok = stealth.render(ctx, u, r)
				}
				if !ok {
					died.Store(true) // not the page's fault
					continue
				}
				emit(r)
				if b.Delay > 0 {
					select {
					case <-time.After(b.Delay):
					case <-ctx.Done():
					}
				}
			}
		}()
	}
	for _, u := range urls {
		select {
		case queue <- u:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(queue)
	wg.Wait()
	if died.Load() {
		return ErrBrowserDied
	}
	return ctx.Err()
}

// fallbackSession is a batch's session through its fallback proxy pool,
// opened for the first page that answers as blocked.
type fallbackSession struct {
	f     Fetcher
	b     fetch.Batch
	hosts map[string]bool
	once  sync.Once
	s     *Session
	err   error
}

// render renders u again through the fallback pool; first is the
// blocked answer, kept when the session cannot be opened.
func (fs *fallbackSession) render(ctx context.Context, u string, first fetch.Result) (fetch.Result, bool) {
	fs.once.Do(func() {
		fs.s, fs.err = fs.f.Browser.NewSessionWith(fs.b.Scope, SessionOptions{Proxy: fs.b.Fallback.Next().String(),
			Headers: fs.b.Headers, HeaderHosts: fs.hosts, Mobile: fs.b.Mobile})
	})
	if fs.err != nil {
		return first, true
	}
	r, ok := fs.f.renderOne(ctx, fs.s, u, fs.b)
	r.Note.Blocked = true
	if !first.Challenge {
		r.Note.BlockedStatus = first.StatusCode
	}
	return r, ok
}

func (fs *fallbackSession) close() {
	if fs.s != nil {
		_ = fs.s.Close()
	}
}

// renderOne renders u in session s and returns its result: its HTML, or
// the static engine's fetch when rendering failed or the address is a
// PDF document. It returns false, and no result, when Chromium died
// under it: a retry renders the page again.
func (f Fetcher) renderOne(ctx context.Context, s *Session, u string, b fetch.Batch) (fetch.Result, bool) {
	p, err := f.render(ctx, s, u, RenderOptions{Shot: b.Screenshot, ShotQuality: b.ShotQuality, ShotViewport: b.ShotViewport,
		WaitFor: b.WaitFor, Actions: b.Actions})
	if err != nil && gone(s.chromium, err) {
		return fetch.Result{}, false
	}
	r := fetch.Result{URL: u, FinalURL: p.FinalURL, StatusCode: p.StatusCode, Links: p.Links,
		Canonical: p.Canonical, Duration: p.Duration, Err: err, ContentType: "text/html; charset=utf-8", Note: p.Note,
		NotFound: p.NotFound, Rendered: true, Actions: p.Actions}
	var failed *pageaction.Failed
	switch {
	case errors.As(err, &failed):
		// The page loaded, its actions could not be done: it fails
		// saying which and why, and is not fetched another way.
		r.StatusCode = 0
	case err != nil && f.Static != nil && ctx.Err() == nil:
		r = f.fetchStatically(ctx, u, b, err)
	case err != nil:
		r.StatusCode = 0
	case p.Document && f.Static != nil:
		r = f.fetchDocument(ctx, u, b)
	case p.Document:
		r.Err, r.StatusCode = errors.New("a PDF document, which this worker's browser cannot read"), 0
	default:
		body := []byte(p.HTML)
		if f.MaxBytes > 0 && len(body) > f.MaxBytes {
			body, r.Truncated = body[:f.MaxBytes], true
		}
		r.Body = fetch.TextUTF8(body, r.ContentType)
		r.Screenshot = p.Screenshot
	}
	return r, true
}
