package frontier

import (
	"errors"
	"mime"
	"net/url"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/robots"
	"github.com/durablecrawl/crawler/urlnorm"
)

// Page is a claimed page as the rules see it.
type Page struct {
	URL   string
	Key   string
	Depth int
	Rank  string
	// Attempts counts the page's earlier fetches that failed and were
	// retried.
	Attempts int
}

// Outcome is what a fetch makes of a page. An outcome may wait on two
// questions only the crawl's stored state answers, asked in this order:
// who owns the address a redirect led to (RedirectTarget, answered with
// Redirected), and where the page's canonical address stands
// (CanonicalTarget, answered with Canonicalized).
type Outcome struct {
	State crawl.PageState
	// Cause says why the page failed, was skipped or goes back to the
	// frontier; on a kept page it holds its note (a cut-off body), if any.
	// Package crawllog words it.
	Cause crawl.PageCause
	// Body is the body of a page kept for conversion (State
	// PageFetched): the fetch's own bytes, not a copy.
	Body []byte
	// Links are the pages it links to that the crawl follows.
	Links []Link
	// Retry is set when the page goes back to the frontier (State
	// PageQueued) for another attempt.
	Retry *crawl.Retry

	page      Page
	redirect  *Link
	canonical *Link
}

// Retries of a page whose fetch failed for a passing reason (see
// fetch.Transient): at most fetchAttempts fetches in all (timeoutAttempts
// when it timed out, which costs a whole page timeout each time), the n-th
// retry after 2^(n-1) seconds, or after the wait the server asked for (up
// to maxFetchRetryAfter).
const (
	fetchAttempts      = 6
	timeoutAttempts    = 2
	maxFetchRetryAfter = time.Minute
)

// Judge decides what the fetch result r makes of the claimed page p.
// followLinks is false for a sitemap crawl, whose pages come from its
// sitemaps. refusal says why a redirect the fetch declined was not
// followed (see RedirectRefusal).
func Judge(p Page, r fetch.Result, rules Rules, followLinks bool, refusal Refusal) Outcome {
	switch {
	case r.Err != nil && r.StatusCode == 0:
		return failed(p, r, fetchError(r.Err))
	case r.Location != "":
		return Outcome{page: p, State: crawl.PageSkipped, Cause: declinedRedirect(r, refusal)}
	case r.StatusCode >= 400 && rules.keepErrorPages && len(r.Body) > 0 && (r.IsHTML() || isText(r.ContentType)):
		// Kept as it stands (below), the error noted: a plain-text body
		// (a server's default "404 page not found") reads as one
		// paragraph.
	case r.StatusCode < 200 || r.StatusCode > 299:
		return failed(p, r, crawl.PageCause{Kind: crawl.PageStatus, Status: r.StatusCode})
	case r.NotFound != "":
		return failed(p, r, crawl.PageCause{Kind: crawl.PageScriptNotFound, URL: r.NotFound})
	case !r.IsHTML() && !r.IsPDF():
		return Outcome{page: p, State: crawl.PageSkipped, Cause: crawl.PageCause{Kind: crawl.PageNotDocument, ContentType: r.ContentType}}
	}
	out := Outcome{page: p}
	clean := urlnorm.Clean
	if r.Rendered {
		clean = urlnorm.CleanRoute
	}
	final, err := clean(nil, r.FinalURL)
	if err != nil {
		return out.fail(crawl.PageCause{Kind: crawl.PageRedirectedUnusable, Detail: err.Error()})
	}
	if key := rules.Key(final); key != p.Key {
		if !rules.Reaches(final) {
			return Outcome{page: p, State: crawl.PageSkipped, Cause: crawl.PageCause{Kind: crawl.PageRedirectedOffSite, URL: final.String()}}
		}
		out.redirect = &Link{URL: final.String(), Key: key, Depth: p.Depth}
	}
	if followLinks && rules.FollowsLinksOf(p.Depth) {
		out.Links = rules.links(final, r.Links, p.Depth+1, p.Rank, clean)
	}
	if !rules.Keeps(final) {
		// Only start pages get here: links to such pages are not followed.
		out.State, out.Cause = crawl.PageSkipped, crawl.Because(crawl.PageDiscoverOnly)
		return out
	}
	if canon, ok := rules.Canonical(final, r.Canonical); ok {
		out.canonical = &Link{URL: canon.String(), Key: rules.Key(canon), Depth: p.Depth, Rank: p.Rank}
	}
	out.State, out.Body = crawl.PageFetched, r.Body
	if r.StatusCode >= 400 {
		out.Cause.Kind, out.Cause.Status = crawl.PageStatus, r.StatusCode
	}
	out.Cause.Engine = r.Note
	if r.Truncated {
		out.Cause.Truncated, out.Cause.Bytes = true, len(r.Body)
	}
	return out
}

// RedirectTarget returns the page of the site the fetch was redirected
// to, when it is not the page asked for: the page keeps its outcome only
// if it can claim that address. Answer with Redirected.
func (o Outcome) RedirectTarget() (Link, bool) {
	if o.redirect == nil {
		return Link{}, false
	}
	return *o.redirect, true
}

// Redirected settles the redirect target's question: owned says that the
// page claimed the address (no other page of the crawl has it); err that
// the claim could not be made.
func (o Outcome) Redirected(owned bool, err error) Outcome {
	target := o.redirect
	o.redirect = nil
	switch {
	case target == nil:
		return o
	case err != nil:
		return o.fail(crawl.PageCause{Kind: crawl.PageLookupFailed, Detail: err.Error()})
	case !owned:
		return Outcome{page: o.page, State: crawl.PageSkipped, Cause: crawl.PageCause{Kind: crawl.PageRedirectedKnown, URL: target.URL}}
	}
	return o
}

// CanonicalTarget returns the page's rel=canonical address when it names
// another page the crawl follows: the page is crawled under that address
// unless the crawl did not keep it. Ask after RedirectTarget; answer with
// Canonicalized.
func (o Outcome) CanonicalTarget() (Link, bool) {
	if o.canonical == nil || o.redirect != nil {
		return Link{}, false
	}
	return *o.canonical, true
}

// Canonicalized settles the canonical address's question with the state
// of that page in the crawl (known false: the crawl has no such page).
// The page is skipped for its canonical page, which is queued when the
// crawl does not have it yet; it is kept when the canonical page itself
// was not kept (it failed, or two pages name each other).
func (o Outcome) Canonicalized(state crawl.PageState, known bool, err error) Outcome {
	canon := o.canonical
	o.canonical = nil
	switch {
	case canon == nil:
		return o
	case err != nil:
		return o.fail(crawl.PageCause{Kind: crawl.PageLookupFailed, Detail: err.Error()})
	case !known || state == crawl.PageQueued:
		o.State, o.Body = crawl.PageSkipped, nil
		o.Cause = crawl.PageCause{Kind: crawl.PageCanonicalElsewhere, URL: canon.URL}
		o.Links = append([]Link{*canon}, o.Links...)
	case state != crawl.PageSkipped && state != crawl.PageFailed:
		o.State, o.Body = crawl.PageSkipped, nil
		o.Cause = crawl.PageCause{Kind: crawl.PageCanonicalKnown, URL: canon.URL}
	}
	return o
}

// ToBrowser sends a kept page back to the frontier for the browser engine:
// the static fetch found that the page needs JavaScript (why). The links
// the static page had are queued as usual; the rendered page may add more.
func (o Outcome) ToBrowser(why crawl.JavaScriptSign) Outcome {
	o.State, o.Body = crawl.PageQueued, nil
	o.Cause = crawl.PageCause{Kind: crawl.PageNeedsJavaScript, JavaScript: why}
	return o
}

// fail makes the outcome a failure for a cause the fetch result does not
// give (a lookup that failed): it is not retried.
func (o Outcome) fail(cause crawl.PageCause) Outcome {
	if o.page.Attempts > 0 {
		cause.Attempts = o.page.Attempts + 1
	}
	return Outcome{page: o.page, State: crawl.PageFailed, Cause: cause}
}

// failed is the outcome of a failed fetch: back to the frontier for a
// retry when the failure may pass and the page has attempts left, failed
// otherwise.
func failed(p Page, r fetch.Result, cause crawl.PageCause) Outcome {
	attempts := fetchAttempts
	if r.StatusCode == 0 && fetch.Timeout(r.Err) {
		attempts = timeoutAttempts
	}
	attempt := p.Attempts + 1 // the one that just failed
	if !fetch.Transient(r) || attempt >= attempts {
		return Outcome{page: p}.fail(cause)
	}
	delay := time.Duration(1<<p.Attempts) * time.Second
	if r.RetryAfter > 0 {
		delay = min(r.RetryAfter, maxFetchRetryAfter)
	}
	return Outcome{page: p, State: crawl.PageQueued, Cause: cause,
		Retry: &crawl.Retry{Attempt: attempt, Attempts: attempts, In: delay}}
}

// declinedRedirect says why the fetch did not follow the redirect in r.
func declinedRedirect(r fetch.Result, refusal Refusal) crawl.PageCause {
	if from, err := url.Parse(r.FinalURL); err == nil && refusal != nil {
		if to, err := from.Parse(r.Location); err == nil {
			if why, refused := refusal(from, to); refused {
				return why
			}
		}
	}
	return crawl.PageCause{Kind: crawl.PageRedirectDeclined, URL: r.Location}
}

// Refusal says why a redirect from from to to is not followed (refused),
// or that it is.
type Refusal func(from, to *url.URL) (why crawl.PageCause, refused bool)

// RedirectRefusal is the crawl's Refusal: a redirect is followed only
// where a link would be, on the site, in scope and path rules, allowed by
// robots.txt (policies by origin; a site without one allows it), and not
// to a page the crawl already has (known answers that, asked last), which
// would be fetched twice.
func (r Rules) RedirectRefusal(from, to *url.URL, policies map[string]robots.Policy, known func(key string) bool) (crawl.PageCause, bool) {
	target, err := urlnorm.Clean(nil, to.String())
	switch {
	case err != nil:
		return crawl.PageCause{Kind: crawl.PageRedirectUnusable, Detail: err.Error()}, true
	case !r.Reaches(target):
		return crawl.PageCause{Kind: crawl.PageRedirectOffSite, URL: target.String()}, true
	}
	if source, err := urlnorm.Clean(nil, from.String()); err == nil && r.Key(source) == r.Key(target) {
		return crawl.PageCause{}, false // /docs -> /docs/, http -> https and the like
	}
	refused := func(k crawl.PageCauseKind) (crawl.PageCause, bool) {
		return crawl.PageCause{Kind: k, URL: target.String()}, true
	}
	if !r.Follows(target) {
		return refused(crawl.PageRedirectOutOfScope)
	}
	if policy, ok := policies[Origin(target)]; ok && !policy.Allows(target.RequestURI()) {
		return refused(crawl.PageRedirectRobots)
	}
	if known != nil && known(r.Key(target)) {
		return refused(crawl.PageRedirectKnown)
	}
	return crawl.PageCause{}, false
}

// fetchError is the cause of a fetch that got no response.
func fetchError(err error) crawl.PageCause {
	var action *pageaction.Failed
	if errors.As(err, &action) {
		return crawl.PageCause{Kind: crawl.PageActionFailed, Detail: action.Error()}
	}
	if fetch.Forbidden(err) {
		return crawl.Because(crawl.PageRefusedAddress)
	}
	if fetch.Timeout(err) {
		return crawl.Because(crawl.PageTimedOut)
	}
	msg := err.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	return crawl.PageCause{Kind: crawl.PageFetchError, Detail: msg}
}

// isText reports whether a response's type is plain text.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/plain"
}
