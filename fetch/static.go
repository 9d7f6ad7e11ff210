// Package fetch downloads pages for the crawler.
//
// Static fetches plain HTTP responses with colly. It keeps no visited set of
// its own: the crawl's frontier in Postgres decides what is fetched, and
// colly's visited set is racy under parallelism.
package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gocolly/colly/v2"
	"golang.org/x/net/html/charset"

	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/netguard"
)

// Result is the outcome of fetching one URL.
type Result struct {
	// URL is the URL that was asked for; FinalURL is where redirects ended.
	URL      string
	FinalURL string
	// StatusCode is 0 when no response arrived (Err says why).
	StatusCode  int
	ContentType string
	Body        []byte
	// Truncated is set when the body was cut off at the size cap.
	Truncated bool
	// Note says how the page was taken when that was not as asked (a
	// render that had not finished loading), for its log.
	Note string
	// Location is the target of a redirect that was not followed.
	Location string
	// Links are the absolute targets of the page's <a href> elements, in
	// document order; Canonical is its rel=canonical URL, if any.
	Links     []string
	Canonical string
	// Screenshot is the rendered page as a JPEG, when the batch asked the
	// browser for one.
	Screenshot []byte
	// ETag and LastModified are the response's validators, which a later
	// crawl sends back to ask whether the page changed.
	ETag, LastModified string
	// RetryAfter is the wait a 429 or 503 response asked for (its
	// Retry-After header); 0 when it named none.
	RetryAfter time.Duration
	Duration   time.Duration
	Err        error
	// KnownPDF is set on a result that stands for an earlier fetch of a
	// PDF (a 304 has no body to tell it by).
	KnownPDF bool

	started time.Time
}

// IsHTML reports whether the response is an HTML document.
func (r Result) IsHTML() bool { return IsHTMLType(r.ContentType) }

// IsPDF reports whether the response is a PDF document: its type says
// so, or, untyped or typed as bytes, its body starts as a PDF does.
func (r Result) IsPDF() bool {
	if r.KnownPDF {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.ContentType)
	switch mt {
	case "application/pdf", "application/x-pdf":
		return true
	case "", "application/octet-stream", "binary/octet-stream":
		return bytes.HasPrefix(r.Body, []byte("%PDF-"))
	}
	return false
}

// IsHTMLType reports whether a Content-Type names an HTML document. A
// missing type is taken as HTML, as browsers sniff it.
func IsHTMLType(contentType string) bool {
	if strings.TrimSpace(contentType) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// TextUTF8 returns an HTML body as valid UTF-8 without NUL bytes, the
// only text Postgres stores: a body in another encoding (declared in the
// Content-Type or a meta tag, or guessed) is transcoded.
func TextUTF8(body []byte, contentType string) []byte {
	if !utf8.Valid(body) {
		if enc, _, _ := charset.DetermineEncoding(body, contentType); enc != nil {
			if decoded, err := enc.NewDecoder().Bytes(body); err == nil {
				body = decoded
			}
		}
	}
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	return bytes.ReplaceAll(body, []byte{0}, nil)
}

// Timeout reports whether err is a fetch that ran out of time.
func Timeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Forbidden reports whether err is a refusal by the network guard.
func Forbidden(err error) bool { return errors.Is(err, netguard.ErrForbiddenAddress) }

// StaticOptions configure a Static fetcher.
type StaticOptions struct {
	AllowPrivateNetworks bool
	UserAgent            string
	Timeout              time.Duration // per page
	MaxBytes             int           // body size cap
	// EgressProxy is the proxy (http://host:port) through which batches
	// with Batch.UseEgressProxy go: the operator's static egress address.
	EgressProxy *url.URL
	// Hosts, when set, is the politeness budget every request draws on:
	// a request waits for its host's turn before its timeout starts.
	Hosts *hostbudget.Budget
}

// Static fetches pages over plain HTTP. One Static serves every crawl of
// a worker; it is safe for concurrent use.
type Static struct {
	opts      StaticOptions
	transport *http.Transport
	// proxied dials only the egress proxy; targets are checked by name
	// resolution before each request instead (see checkTarget).
	proxied *http.Transport
}

// NewStatic returns a Static fetcher whose connections pass the network
// guard unless AllowPrivateNetworks is set.
func NewStatic(opts StaticOptions) *Static {
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
	st := &Static{opts: opts, transport: t}
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
	done := func() {
		cancel()
		if slot != nil {
			slot.Release()
		}
	}
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		return nil, err
	}
	if slot != nil {
		slot.Report(resp.StatusCode, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
	}
	resp.Body = &closeOnce{ReadCloser: resp.Body, done: done}
	return resp, nil
}

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

// ErrNoEgressProxy is returned for a batch that asks for the egress proxy
// from a fetcher that has none.
var ErrNoEgressProxy = errors.New("no static egress proxy is configured on this worker")

// Close releases idle connections.
func (s *Static) Close() {
	s.transport.CloseIdleConnections()
	if s.proxied != nil {
		s.proxied.CloseIdleConnections()
	}
}

// checkTarget resolves the host of a request that goes through the proxy,
// which dials the target itself: a name that resolves to a forbidden
// address is refused here.
func (s *Static) checkTarget(ctx context.Context, u *url.URL) error {
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

// Batch says how to fetch a batch of URLs.
type Batch struct {
	// Parallelism is the most requests in flight.
	Parallelism int
	// Screenshot asks the browser for a screenshot of each page
	// (browser.ShotViewport or ShotFullPage); the static fetch takes none.
	Screenshot string
	// WaitFor is how long the browser waits on each page after it has
	// settled, before reading it; the static fetch does not wait.
	WaitFor time.Duration
	// Headers are added to the requests for the batch's pages (not to
	// other hosts a redirect or the page's resources lead to); Mobile has
	// the browser render pages as a phone would.
	Headers map[string]string
	Mobile  bool
	// UseEgressProxy sends the batch through StaticOptions.EgressProxy.
	UseEgressProxy bool
	// Delay is a pause after each request (a site's Crawl-delay); with a
	// delay, requests go one at a time.
	Delay time.Duration
	// Admit, when set, is asked before each request and may wait: the
	// caller's bound on pages in flight. It returns false to drop the
	// request (the batch is being cancelled).
	Admit func(url string) bool
	// FollowRedirect decides whether a redirect from one URL to another is
	// followed; nil follows all. A redirect not followed ends with the
	// redirect response itself (Result.Location names its target).
	FollowRedirect func(from, to *url.URL) bool
	// Validators, by page URL, make the requests for those pages
	// conditional (If-None-Match, If-Modified-Since): a page unchanged
	// since answers 304 without a body. They are not sent on to where a
	// redirect leads.
	Validators map[string]Validators
	// Scope names the crawl the batch belongs to: what an engine keeps
	// between batches (the browser's scripts and styles) is shared only
	// within one scope.
	Scope string
}

// Validators are what a response said to identify its version: its ETag
// and Last-Modified headers.
type Validators struct {
	ETag, LastModified string
}

// HostsOf is the set of the hosts (host[:port]) of urls.
func HostsOf(urls []string) map[string]bool {
	hosts := make(map[string]bool)
	for _, s := range urls {
		if u, err := url.Parse(s); err == nil {
			hosts[u.Host] = true
		}
	}
	return hosts
}

// maxRedirects bounds a redirect chain.
const maxRedirects = 10

// FetchAll fetches urls and calls emit once per URL, from several
// goroutines at once. It returns when every URL has been emitted or ctx is
// done.
func (s *Static) FetchAll(ctx context.Context, urls []string, b Batch, emit func(Result)) error {
	if len(urls) == 0 {
		return nil
	}
	c, err := s.collector(ctx, b)
	if err != nil {
		return err
	}
	pending := &pendingResults{m: make(map[*colly.Context]*Result, len(urls)), emit: emit}
	if len(b.Headers) > 0 {
		// To the pages' own hosts only; a redirect elsewhere drops them
		// (see collector).
		hosts := HostsOf(urls)
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
	if b.UseEgressProxy {
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
	c.OnResponse(func(resp *colly.Response) {
		if r := pending.get(resp.Ctx); r != nil {
			s.read(r, resp)
		}
	})
	c.OnScraped(func(resp *colly.Response) { pending.finish(resp.Ctx) })
	c.OnError(func(resp *colly.Response, err error) {
		if r := pending.get(resp.Ctx); r != nil {
			r.Err = err
			if resp.StatusCode != 0 {
				r.StatusCode = resp.StatusCode
			}
			if resp.Request != nil && resp.Request.URL != nil {
				r.FinalURL = resp.Request.URL.String()
			}
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

// collector returns a colly collector that fetches a batch as b says.
func (s *Static) collector(ctx context.Context, b Batch) (*colly.Collector, error) {
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
	if b.UseEgressProxy {
		if s.proxied == nil {
			return nil, ErrNoEgressProxy
		}
		transport = s.proxied
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
		if b.UseEgressProxy {
			return s.checkTarget(req.Context(), req.URL)
		}
		return nil
	})
	return c, nil
}

// read fills r from a response: status, type, redirect target, wait asked
// for, and the body (cut at the size cap; as UTF-8 with its links when it
// is HTML).
func (s *Static) read(r *Result, resp *colly.Response) {
	r.FinalURL = resp.Request.URL.String()
	r.StatusCode = resp.StatusCode
	if resp.Headers != nil {
		r.ContentType = resp.Headers.Get("Content-Type")
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			r.Location = resp.Headers.Get("Location")
		}
		r.RetryAfter = parseRetryAfter(resp.Headers.Get("Retry-After"), time.Now())
		r.ETag, r.LastModified = resp.Headers.Get("ETag"), resp.Headers.Get("Last-Modified")
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
		r.Body = TextUTF8(body, r.ContentType)
		r.Links, r.Canonical = pageLinks(r.Body, resp.Request.URL)
	} else {
		r.Body = append([]byte(nil), body...)
	}
}

// pendingResults are the results of a batch not emitted yet. Each URL gets
// its own colly context, the key of its result; a result is touched only
// by the goroutine fetching it until it is finished.
type pendingResults struct {
	mu   sync.Mutex
	m    map[*colly.Context]*Result
	emit func(Result)
}

func (p *pendingResults) add(cc *colly.Context, u string) *Result {
	r := &Result{URL: u, FinalURL: u, started: time.Now()}
	p.mu.Lock()
	p.m[cc] = r
	p.mu.Unlock()
	return r
}

func (p *pendingResults) get(cc *colly.Context) *Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[cc]
}

// finish emits the result of cc, once.
func (p *pendingResults) finish(cc *colly.Context) {
	p.mu.Lock()
	r, ok := p.m[cc]
	delete(p.m, cc)
	p.mu.Unlock()
	if ok {
		r.Duration = time.Since(r.started)
		p.emit(*r)
	}
}

// fail finishes the result r of cc with err, unless it was finished.
func (p *pendingResults) fail(cc *colly.Context, r *Result, err error) {
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

// Transient reports whether a fetch that failed may succeed when tried
// again soon: the server was busy or failing for a moment (408, 425, 429,
// 500, 502, 503, 504), or the connection broke off or timed out. A
// refused connection, an unknown host or a forbidden address will not
// change.
func Transient(r Result) bool {
	switch r.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case 0:
	default:
		return false
	}
	err := r.Err
	if err == nil || Forbidden(err) || errors.Is(err, context.Canceled) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	return Timeout(err) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "EOF")
}
