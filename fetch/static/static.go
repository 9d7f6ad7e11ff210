// Package static fetches pages as served, without running their scripts:
// colly over a guarded transport, each request drawing on its host's
// politeness budget, bodies capped and made storable text, redirects
// judged by the caller, validators sent for conditional requests. It keeps
// no visited set of its own: the crawl's frontier in Postgres decides what
// is fetched (and colly's visited set is racy under parallelism).
package static

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/netguard"
	"github.com/durablecrawl/crawler/proxypool"
)

// Options configure a Fetcher.
type Options struct {
	AllowPrivateNetworks bool
	UserAgent            string
	Timeout              time.Duration // per page
	MaxBytes             int           // body size cap
	// EgressProxy is the proxy (http://host:port) through which batches
	// with fetch.Batch.UseEgressProxy go: the operator's static egress address.
	EgressProxy *url.URL
	// Hosts, when set, is the politeness budget every request draws on:
	// a request waits for its host's turn before its timeout starts.
	Hosts *hostbudget.Budget
}

// skipping is an OnRequest hook that leaves unfetched the requests skip
// gives a reason for: their results say why (fetch.Result.Skipped).
func skipping(skip func(string) string, pending *pendingResults) colly.RequestCallback {
	return func(req *colly.Request) {
		r := pending.get(req.Ctx)
		if r == nil {
			return
		}
		if r.Skipped = skip(r.URL); r.Skipped != "" {
			req.Abort()
			pending.finish(req.Ctx)
		}
	}
}

// Fetcher fetches pages over plain HTTP. One Fetcher serves every crawl of
// a worker; it is safe for concurrent use.
type Fetcher struct {
	opts      Options
	transport *http.Transport
	// proxied dials only the egress proxy; targets are checked by name
	// resolution before each request instead (see checkTarget).
	proxied *http.Transport
	// pooled are the transports of the operator's proxy pools, each
	// handing requests to its pool's proxies in turn.
	mu     sync.Mutex
	pooled map[*proxypool.Pool]*http.Transport
}

// poolTransport is the transport of pool p: like the egress proxy's, it
// dials only proxies, the targets checked before each request.
func (s *Fetcher) poolTransport(p *proxypool.Pool) *http.Transport {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.pooled[p]; ok {
		return t
	}
	t := s.transport.Clone()
	t.Proxy = func(*http.Request) (*url.URL, error) { return p.Next(), nil }
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if s.pooled == nil {
		s.pooled = map[*proxypool.Pool]*http.Transport{}
	}
	s.pooled[p] = t
	return t
}

// New returns a Fetcher whose connections pass the network
// guard unless AllowPrivateNetworks is set.
func New(opts Options) *Fetcher {
	dialer := netguard.Dialer(opts.AllowPrivateNetworks, 10*time.Second)
	t := &http.Transport{
		Proxy:                 nil, // the environment's proxy must not bypass the guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
	}
	st := &Fetcher{opts: opts, transport: t}
	if opts.EgressProxy != nil {
		p := t.Clone()
		p.Proxy = http.ProxyURL(opts.EgressProxy)
		p.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		st.proxied = p
	}
	return st
}

// boundedInflate keeps compressed responses within the body size cap.
// colly inflates a body whose type or name says gzip with no bound (a few
// hundred kilobytes can inflate to gigabytes); here the transport inflates
// a gzip Content-Encoding itself through a limit, and hands gzip files
// (sitemap.xml.gz) over as they are, marked uncompressed so colly leaves
// them alone: their readers inflate them with their own caps.
type boundedInflate struct {
	next http.RoundTripper
	max  int64
}

func (t boundedInflate) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Uncompressed {
		return resp, err
	}
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			resp.Body.Close()
			return nil, fmt.Errorf("gzip response: %w", err)
		}
		resp.Body = readCloser{Reader: io.LimitReader(zr, t.max), Closer: resp.Body}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	resp.Uncompressed = true
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// polite bounds each page's request, with the hops of its redirects, by
// the page timeout, counted from when the host's budget lets the first hop
// start: the wait for the host is not the page's. The host's slot is held until the body
// is closed, and the answer's status goes back to the budget (a 429 or
// 503 backs the host off for every crawl).
type polite struct {
	next    http.RoundTripper
	hosts   *hostbudget.Budget // nil: no budget
	timeout time.Duration
}

func (t polite) RoundTrip(req *http.Request) (*http.Response, error) {
	var slot *hostbudget.Slot
	if t.hosts != nil {
		var err error
		if slot, err = t.hosts.Acquire(req.Context(), req.URL.Host); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(t.timeout)
	if prev := req.Response; prev != nil && prev.Request != nil {
		// A redirect's hop: the deadline of the page's first hop (its
		// request is the one this transport sent, with that deadline).
		if d, ok := prev.Request.Context().Deadline(); ok {
			deadline = d
		}
	}
	ctx, cancel := context.WithDeadline(req.Context(), deadline)
	// Go's client sends a request again at once, on a new connection, when
	// the kept-alive one it reused broke before any answer: each
	// connection it takes is an attempt, which the page's log tells.
	var conns atomic.Int32
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { conns.Add(1) }})
	done := func() {
		cancel()
		if slot != nil {
			slot.Release()
		}
	}
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		if n := conns.Load(); n > 1 {
			return nil, replayedError{err: err, times: int(n - 1)}
		}
		return nil, err
	}
	if slot != nil {
		slot.Report(resp.StatusCode, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
	}
	if n := conns.Load(); n > 1 {
		resp.Header[replayedHeader] = []string{strconv.Itoa(int(n - 1))}
	}
	resp.Body = &closeOnce{ReadCloser: resp.Body, done: done}
	return resp, nil
}

// replayedError is a request's error after it was sent again at once (see
// replayedHeader) times times.
type replayedError struct {
	err   error
	times int
}

func (e replayedError) Error() string { return e.err.Error() }
func (e replayedError) Unwrap() error { return e.err }

// replayedHeader carries, from polite to read, how many times the request
// was sent again at once (fetch.Result.Replayed). No header that came over
// the wire has this name (it holds a space).
const replayedHeader = "Crawler replayed"

// closeOnce runs done when the body is first closed.
type closeOnce struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (c *closeOnce) Close() error {
	err := c.ReadCloser.Close()
	c.once.Do(c.done)
	return err
}

// Close releases idle connections.
func (s *Fetcher) Close() {
	s.transport.CloseIdleConnections()
	if s.proxied != nil {
		s.proxied.CloseIdleConnections()
	}
}

// checkTarget resolves the host of a request that goes through the proxy,
// which dials the target itself: a name that resolves to a forbidden
// address is refused here.
func (s *Fetcher) checkTarget(ctx context.Context, u *url.URL) error {
	if s.opts.AllowPrivateNetworks {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if err := netguard.Check(a.String()); err != nil {
			return err
		}
	}
	return nil
}

// maxRedirects bounds a redirect chain.
const maxRedirects = 10

// FetchAll fetches urls and calls emit once per URL, from several
// goroutines at once. It returns when every URL has been emitted or ctx is
// done.
func (s *Fetcher) FetchAll(ctx context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error {
	if len(urls) == 0 {
		return nil
	}
	if b.Fallback != nil {
		// A page that answered as blocked is fetched once more through
		// the fallback pool, and that answer is the page's.
		next, fallback := emit, b
		fallback.Proxy, fallback.Fallback, fallback.Admit = b.Fallback, nil, nil
		emit = func(r fetch.Result) {
			if r.Blocked() && ctx.Err() == nil && r.Skipped == "" {
				first := r
				_ = s.FetchAll(ctx, []string{r.URL}, fallback, func(again fetch.Result) { r = again })
				r.Note.Blocked = true
				if !first.Challenge {
					r.Note.BlockedStatus = first.StatusCode
				}
			}
			next(r)
		}
	}
	c, err := s.collector(ctx, b)
	if err != nil {
		return err
	}
	pending := &pendingResults{m: make(map[*colly.Context]*fetch.Result, len(urls)), started: make(map[*colly.Context]time.Time, len(urls)), emit: emit}
	s.onRequest(ctx, c, urls, b, pending)
	c.OnResponse(func(resp *colly.Response) {
		if r := pending.get(resp.Ctx); r != nil {
			s.read(r, resp)
		}
	})
	c.OnScraped(func(resp *colly.Response) { pending.finish(resp.Ctx) })
	c.OnError(func(resp *colly.Response, err error) {
		if r := pending.get(resp.Ctx); r != nil {
			readError(r, resp, err)
		}
		pending.finish(resp.Ctx)
	})
	for _, u := range urls {
		cc := colly.NewContext()
		r := pending.add(cc, u)
		if err := c.Request(http.MethodGet, u, nil, cc, nil); err != nil {
			pending.fail(cc, r, err)
		}
	}
	c.Wait()
	pending.finishAll(ctx)
	return ctx.Err()
}

// onRequest sets what c does before each request of a batch, as b says:
// the batch's headers (to the pages' own hosts), its pages' validators,
// its Skip and Admit hooks, and the egress proxy's target check.
func (s *Fetcher) onRequest(ctx context.Context, c *colly.Collector, urls []string, b fetch.Batch, pending *pendingResults) {
	if len(b.Headers) > 0 {
		// To the pages' own hosts only; a redirect elsewhere drops them
		// (see collector).
		hosts := fetch.HostsOf(urls)
		c.OnRequest(func(req *colly.Request) {
			if hosts[req.URL.Host] {
				for k, v := range b.Headers {
					req.Headers.Set(k, v)
				}
			}
		})
	}
	if len(b.Validators) > 0 {
		c.OnRequest(func(req *colly.Request) {
			r := pending.get(req.Ctx)
			if r == nil {
				return
			}
			if v, ok := b.Validators[r.URL]; ok {
				if v.ETag != "" {
					req.Headers.Set("If-None-Match", v.ETag)
				}
				if v.LastModified != "" {
					req.Headers.Set("If-Modified-Since", v.LastModified)
				}
			}
		})
	}
	if b.Skip != nil {
		c.OnRequest(skipping(b.Skip, pending))
	}
	if b.Admit != nil {
		c.OnRequest(func(req *colly.Request) {
			r := pending.get(req.Ctx)
			if r == nil || b.Admit(r.URL) {
				return
			}
			r.Err = ctx.Err()
			if r.Err == nil {
				r.Err = errors.New("the request was not admitted")
			}
			req.Abort()
			pending.finish(req.Ctx)
		})
	}
	if b.UseEgressProxy || b.Proxy != nil {
		c.OnRequest(func(req *colly.Request) {
			if err := s.checkTarget(ctx, req.URL); err != nil {
				if r := pending.get(req.Ctx); r != nil {
					r.Err = err
				}
				req.Abort()
				pending.finish(req.Ctx)
			}
		})
	}
}

// collector returns a colly collector that fetches a batch as b says.
func (s *Fetcher) collector(ctx context.Context, b fetch.Batch) (*colly.Collector, error) {
	c := colly.NewCollector(
		colly.Async(true),
		colly.AllowURLRevisit(),
		colly.IgnoreRobotsTxt(), // robots.txt is the crawl's decision, made before fetching
		colly.ParseHTTPErrorResponse(),
		colly.MaxBodySize(s.opts.MaxBytes+1),
		colly.UserAgent(s.opts.UserAgent),
		colly.StdlibContext(ctx),
	)
	var transport http.RoundTripper = s.transport
	switch {
	case b.UseEgressProxy:
		if s.proxied == nil {
			return nil, fetch.ErrNoEgressProxy
		}
		transport = s.proxied
	case b.Proxy != nil:
		transport = s.poolTransport(b.Proxy)
	}
	c.WithTransport(polite{next: boundedInflate{next: transport, max: int64(s.opts.MaxBytes) + 1},
		hosts: s.opts.Hosts, timeout: s.opts.Timeout})
	c.SetRequestTimeout(0) // polite's, from the request's turn on
	rule := &colly.LimitRule{DomainGlob: "*", Parallelism: max(b.Parallelism, 1)}
	if b.Delay > 0 {
		rule.Parallelism, rule.Delay = 1, b.Delay
	}
	if err := c.Limit(rule); err != nil {
		return nil, fmt.Errorf("colly limit: %w", err)
	}
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if b.FollowRedirect != nil && !b.FollowRedirect(via[0].URL, req.URL) {
			return http.ErrUseLastResponse
		}
		// The validators were the page's, not its redirect target's.
		req.Header.Del("If-None-Match")
		req.Header.Del("If-Modified-Since")
		if req.URL.Host != via[0].URL.Host {
			for k := range b.Headers {
				req.Header.Del(k) // the crawl's headers are for the page's own host
			}
		}
		if b.UseEgressProxy || b.Proxy != nil {
			return s.checkTarget(req.Context(), req.URL)
		}
		return nil
	})
	return c, nil
}

// readError fills r from a request that failed with err: the error, the
// times it was sent again at once (replayedError), and the status and
// address it got to, if any.
func readError(r *fetch.Result, resp *colly.Response, err error) {
	r.Err = err
	var replayed replayedError
	if errors.As(err, &replayed) {
		r.Replayed = replayed.times
	}
	if resp.StatusCode != 0 {
		r.StatusCode = resp.StatusCode
	}
	if resp.Request != nil && resp.Request.URL != nil {
		r.FinalURL = resp.Request.URL.String()
	}
}

// read fills r from a response: status, type, redirect target, wait asked
// for, and the body (cut at the size cap; as UTF-8 with its links when it
// is HTML).
func (s *Fetcher) read(r *fetch.Result, resp *colly.Response) {
	r.FinalURL = resp.Request.URL.String()
	r.StatusCode = resp.StatusCode
	if resp.Headers != nil {
		r.ContentType = resp.Headers.Get("Content-Type")
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			r.Location = resp.Headers.Get("Location")
		}
		r.RetryAfter = parseRetryAfter(resp.Headers.Get("Retry-After"), time.Now())
		r.ETag, r.LastModified = resp.Headers.Get("ETag"), resp.Headers.Get("Last-Modified")
		r.Challenge = strings.EqualFold(resp.Headers.Get("Cf-Mitigated"), "challenge")
		if v := (*resp.Headers)[replayedHeader]; len(v) == 1 {
			r.Replayed, _ = strconv.Atoi(v[0])
			delete(*resp.Headers, replayedHeader)
		}
	}
	body := resp.Body
	if len(body) > s.opts.MaxBytes {
		body, r.Truncated = body[:s.opts.MaxBytes], true
	}
	if r.ContentType == "" {
		// No declared type: sniff it, so that a binary file is not taken
		// for HTML.
		r.ContentType = http.DetectContentType(body)
	}
	if r.IsHTML() {
		r.Body = fetch.TextUTF8(body, r.ContentType)
		r.Links, r.Canonical = pageLinks(r.Body, resp.Request.URL)
	} else {
		r.Body = append([]byte(nil), body...)
	}
}

// pendingResults are the results of a batch not emitted yet. Each URL gets
// its own colly context, the key of its result; a result is touched only
// by the goroutine fetching it until it is finished.
type pendingResults struct {
	mu      sync.Mutex
	m       map[*colly.Context]*fetch.Result
	started map[*colly.Context]time.Time
	emit    func(fetch.Result)
}

func (p *pendingResults) add(cc *colly.Context, u string) *fetch.Result {
	r := &fetch.Result{URL: u, FinalURL: u}
	p.mu.Lock()
	p.m[cc] = r
	p.started[cc] = time.Now()
	p.mu.Unlock()
	return r
}

func (p *pendingResults) get(cc *colly.Context) *fetch.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[cc]
}

// finish emits the result of cc, once.
func (p *pendingResults) finish(cc *colly.Context) {
	p.mu.Lock()
	r, ok := p.m[cc]
	started := p.started[cc]
	delete(p.m, cc)
	delete(p.started, cc)
	p.mu.Unlock()
	if ok {
		r.Duration = time.Since(started)
		p.emit(*r)
	}
}

// fail finishes the result r of cc with err, unless it was finished.
func (p *pendingResults) fail(cc *colly.Context, r *fetch.Result, err error) {
	p.mu.Lock()
	if _, ok := p.m[cc]; ok {
		r.Err = err
	}
	p.mu.Unlock()
	p.finish(cc)
}

// finishAll emits what is still pending: fetches ctx stopped before colly
// reported them.
func (p *pendingResults) finishAll(ctx context.Context) {
	p.mu.Lock()
	left := make([]*colly.Context, 0, len(p.m))
	for cc := range p.m {
		left = append(left, cc)
	}
	p.mu.Unlock()
	for _, cc := range left {
		if r := p.get(cc); r != nil && r.Err == nil {
			r.Err = ctx.Err()
			if r.Err == nil {
				r.Err = errors.New("fetch ended without a response")
			}
		}
		p.finish(cc)
	}
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
