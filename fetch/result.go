// Package fetch holds what every engine's fetch shares: a fetch's Result
// (what a page answered, and what kind of document it is), the Batch a
// crawl asks an engine for, and how a failure reads (transient, timed
// out, refused by the network guard). The engines are packages of their
// own: fetch/static (colly) and browser (Chromium).
package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/netguard"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/proxypool"
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
	Note crawl.EngineNote
	// Skipped, when set, says why the page was not fetched at all
	// (Batch.Skip): nothing else of the result is set.
	Skipped string
	// Replayed counts the times the request was sent again at once, on a
	// new connection, because the kept-alive connection it went out on
	// closed or reset before any answer (Go's HTTP client does so for a
	// GET): failed attempts the page's log tells, though the fetch
	// succeeded.
	Replayed int
	// Rendered is set by the browser engine on a page it rendered: the
	// page's address and its links keep a route fragment ("/#/guide"),
	// which its script routes by (urlnorm.CleanRoute).
	Rendered bool
	// NotFound, set by the browser engine, is the address a rendered
	// page's script asked for and got "not found" (404 or 410), when the
	// page then said it was not found: the server answers every address
	// with the same shell (a client-rendered site), and the page's own
	// script found that this one does not exist.
	NotFound string
	// Actions is what the page's actions gave back, set by the browser
	// engine on a page it ran them on.
	Actions *pageaction.Results
	// Challenge is set on an answer that says it is a challenge to the
	// client (cf-mitigated: challenge), whatever its status.
	Challenge bool
	// Proxy names the pool the page was fetched through ("" directly).
	Proxy string
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

// ErrNoEgressProxy is returned for a batch that asks for the egress proxy
// from a fetcher that has none.
var ErrNoEgressProxy = errors.New("no static egress proxy is configured on this worker")

// Batch says how to fetch a batch of URLs.
type Batch struct {
	// Parallelism is the most requests in flight.
	Parallelism int
	// Screenshot asks the browser for a screenshot of each page
	// (browser.ShotViewport or ShotFullPage); the static fetch takes none.
	Screenshot string
	// ShotQuality (JPEG, 1 to 100; 0 the default) and ShotViewport (nil:
	// the session's screen) are how the screenshot is taken.
	ShotQuality  int
	ShotViewport *pageaction.Viewport
	// WaitFor is how long the browser waits on each page after it has
	// settled, before reading it; the static fetch does not wait.
	WaitFor time.Duration
	// Actions are the steps the browser takes on each page, in order,
	// before reading it (package pageaction); the static fetch takes
	// none, and a crawl with actions is rendered.
	Actions []pageaction.Action
	// Headers are added to the requests for the batch's pages (not to
	// other hosts a redirect or the page's resources lead to); Mobile has
	// the browser render pages as a phone would.
	Headers map[string]string
	Mobile  bool
	// UseEgressProxy sends the batch through static.Options.EgressProxy (package fetch/static).
	UseEgressProxy bool
	// Proxy sends the batch's requests through the operator's pool, in
	// rotation (nil: directly); Fallback, when set, fetches a page that
	// answered as blocked (Blocked) once more through its pool.
	Proxy, Fallback *proxypool.Pool
	// Delay is a pause after each request (a site's Crawl-delay); with a
	// delay, requests go one at a time.
	Delay time.Duration
	// Admit, when set, is asked before each request and may wait: the
	// caller's bound on pages in flight. It returns false to drop the
	// request (the batch is being cancelled).
	Admit func(url string) bool
	// Skip, when set, is asked before each request: a reason it returns
	// ("" to fetch) leaves the page unfetched, its result saying why
	// (Result.Skipped). The batch learns, while it runs, addresses not to
	// fetch (a pattern that leads to duplicates).
	Skip func(url string) string
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

// Blocked reports whether a page answered as a site answers a client it
// blocks: 403 or 429, or a challenge page (a Cloudflare-style
// cf-mitigated header).
func (r Result) Blocked() bool {
	return r.StatusCode == http.StatusForbidden || r.StatusCode == http.StatusTooManyRequests || r.Challenge
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
