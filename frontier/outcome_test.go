package frontier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/netguard"
	"github.com/durablecrawl/crawler/urlnorm"
)

func TestJudge(t *testing.T) {
	rules := rulesFor(t, "https://example.com/", func(o *crawl.Options) { o.ExcludePaths = []string{"/hidden/**"} })
	page := Page{URL: "https://example.com/a", Key: urlnorm.Key(mustURL(t, "https://example.com/a")), Depth: 1, Rank: "000"}
	again := page
	again.Attempts = 5
	html := func(final string) fetch.Result {
		return fetch.Result{URL: page.URL, FinalURL: final, StatusCode: 200, ContentType: "text/html",
			Body: []byte("<p>hi</p>"), Links: []string{"/b", "/hidden/c", "https://other.example/"}}
	}
	refuse := func(from, to *url.URL) (crawl.PageCause, bool) {
		return crawl.PageCause{Kind: crawl.PageRedirectKnown, URL: to.String()}, true
	}
	for _, tc := range []struct {
		name     string
		page     Page
		result   fetch.Result
		noLinks  bool
		state    crawl.PageState
		cause    crawl.PageCause
		links    int
		retryIn  time.Duration
		attempts int
	}{
		{name: "kept", page: page, result: html(page.URL), state: crawl.PageFetched, links: 1},
		{name: "kept, cut off", page: page, result: func() fetch.Result {
			r := html(page.URL)
			r.Truncated, r.Note = true, crawl.EngineNote{LoadTimeout: time.Second}
			return r
		}(),
			state: crawl.PageFetched, links: 1, cause: crawl.PageCause{Truncated: true, Bytes: 9, Engine: crawl.EngineNote{LoadTimeout: time.Second}}},
		{name: "sitemap crawl: links not followed", page: page, result: html(page.URL), noLinks: true, state: crawl.PageFetched},
		{name: "no response, passing", page: page, result: fetch.Result{Err: io.EOF}, state: crawl.PageQueued,
			cause: crawl.PageCause{Kind: crawl.PageFetchError, Detail: "EOF"}, retryIn: time.Second, attempts: fetchAttempts},
		{name: "no response, last attempt", page: again, result: fetch.Result{Err: io.EOF}, state: crawl.PageFailed,
			cause: crawl.PageCause{Kind: crawl.PageFetchError, Detail: "EOF", Attempts: 6}},
		{name: "timeout", page: page, result: fetch.Result{Err: context.DeadlineExceeded}, state: crawl.PageQueued,
			cause: crawl.Because(crawl.PageTimedOut), retryIn: time.Second, attempts: timeoutAttempts},
		{name: "forbidden address", page: page, result: fetch.Result{Err: fmt.Errorf("dial: %w", netguard.ErrForbiddenAddress)},
			state: crawl.PageFailed, cause: crawl.Because(crawl.PageRefusedAddress)},
		{name: "503 asks for 90 s", page: page, result: fetch.Result{StatusCode: 503, RetryAfter: 90 * time.Second},
			state: crawl.PageQueued, cause: crawl.PageCause{Kind: crawl.PageStatus, Status: 503}, retryIn: maxFetchRetryAfter, attempts: fetchAttempts},
		{name: "404", page: page, result: fetch.Result{StatusCode: 404}, state: crawl.PageFailed, cause: crawl.PageCause{Kind: crawl.PageStatus, Status: 404}},
		{name: "drawn not found", page: page, result: func() fetch.Result {
			r := html(page.URL)
			r.NotFound = "https://example.com/a.md"
			return r
		}(), state: crawl.PageFailed, cause: crawl.PageCause{Kind: crawl.PageScriptNotFound, URL: "https://example.com/a.md"}},
		{name: "declined redirect", page: page, result: fetch.Result{URL: page.URL, FinalURL: page.URL, StatusCode: 301, Location: "/b"},
			state: crawl.PageSkipped, cause: crawl.PageCause{Kind: crawl.PageRedirectKnown, URL: "https://example.com/b"}},
		{name: "not HTML", page: page, result: fetch.Result{StatusCode: 200, FinalURL: page.URL, ContentType: "image/png"},
			state: crawl.PageSkipped, cause: crawl.PageCause{Kind: crawl.PageNotDocument, ContentType: "image/png"}},
		{name: "a PDF", page: page, result: fetch.Result{StatusCode: 200, FinalURL: page.URL, ContentType: "application/pdf", Body: []byte("%PDF-1.7")},
			state: crawl.PageFetched},
		{name: "a PDF served as bytes", page: page, result: fetch.Result{StatusCode: 200, FinalURL: page.URL, ContentType: "application/octet-stream", Body: []byte("%PDF-1.7")},
			state: crawl.PageFetched},
		{name: "redirected to another site", page: page, result: html("https://other.example/a"), state: crawl.PageSkipped,
			cause: crawl.PageCause{Kind: crawl.PageRedirectedOffSite, URL: "https://other.example/a"}},
		{name: "excluded by path rules: links only", page: Page{URL: "https://example.com/hidden/x", Key: urlnorm.Key(mustURL(t, "https://example.com/hidden/x"))},
			result: html("https://example.com/hidden/x"), state: crawl.PageSkipped, cause: crawl.Because(crawl.PageDiscoverOnly), links: 1},
	} {
		out := Judge(tc.page, tc.result, rules, !tc.noLinks, refuse)
		if out.State != tc.state || out.Cause != tc.cause || len(out.Links) != tc.links {
			t.Errorf("%s: %s %+v with %d links, want %s %+v with %d", tc.name, out.State, out.Cause, len(out.Links), tc.state, tc.cause, tc.links)
		}
		if (out.State == crawl.PageFetched) != (len(out.Body) > 0) {
			t.Errorf("%s: state %s with %d bytes of HTML", tc.name, out.State, len(out.Body))
		}
		switch {
		case tc.retryIn == 0 && out.Retry != nil:
			t.Errorf("%s: retried %+v", tc.name, *out.Retry)
		case tc.retryIn != 0 && (out.Retry == nil || out.Retry.In != tc.retryIn || out.Retry.Attempts != tc.attempts || out.Retry.Attempt != 1):
			t.Errorf("%s: retry %+v, want attempt 1 of %d in %s", tc.name, out.Retry, tc.attempts, tc.retryIn)
		}
	}
}

// TestJudgeKeepsErrorPages: a crawl that keeps error pages (a Firecrawl
// scrape) keeps a 404 or a 500 with an HTML body at once, its status
// noted; one without a body, or not HTML, fails as in any crawl.
func TestJudgeKeepsErrorPages(t *testing.T) {
	rules := rulesFor(t, "https://example.com/", func(o *crawl.Options) { o.KeepErrorPages = true })
	p := Page{URL: "https://example.com/gone", Key: urlnorm.Key(mustURL(t, "https://example.com/gone"))}
	for _, tc := range []struct {
		result fetch.Result
		state  crawl.PageState
	}{
		{fetch.Result{StatusCode: 404, FinalURL: p.URL, ContentType: "text/html", Body: []byte("<h1>Not here</h1>")}, crawl.PageFetched},
		{fetch.Result{StatusCode: 500, FinalURL: p.URL, ContentType: "text/html", Body: []byte("<h1>Broken</h1>")}, crawl.PageFetched},
		{fetch.Result{StatusCode: 404, FinalURL: p.URL, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found\n")}, crawl.PageFetched},
		{fetch.Result{StatusCode: 404, FinalURL: p.URL, ContentType: "text/html"}, crawl.PageFailed},
		{fetch.Result{StatusCode: 403, FinalURL: p.URL, ContentType: "application/json", Body: []byte("{}")}, crawl.PageFailed},
	} {
		out := Judge(p, tc.result, rules, true, nil)
		want := crawl.PageCause{Kind: crawl.PageStatus, Status: tc.result.StatusCode}
		if out.State != tc.state || out.Cause != want || out.Retry != nil {
			t.Errorf("%d %q: %s %+v (retry %v), want %s %+v", tc.result.StatusCode, tc.result.Body, out.State, out.Cause, out.Retry, tc.state, want)
		}
	}
	// Without the option, a 404 with a body fails.
	if out := Judge(p, fetch.Result{StatusCode: 404, FinalURL: p.URL, ContentType: "text/html", Body: []byte("<h1>x</h1>")}, rulesFor(t, "https://example.com/", nil), true, nil); out.State != crawl.PageFailed {
		t.Errorf("a 404 in a crawl: %s", out.State)
	}
}

func TestJudgeBacksOff(t *testing.T) {
	rules := rulesFor(t, "https://example.com/", nil)
	for attempts, want := range []time.Duration{1, 2, 4, 8, 16} {
		p := Page{URL: "https://example.com/a", Key: "example.com/a", Attempts: attempts}
		out := Judge(p, fetch.Result{StatusCode: 502}, rules, true, nil)
		if out.Retry == nil || out.Retry.In != want*time.Second || out.Retry.Attempt != attempts+1 {
			t.Errorf("after %d failed attempts: retry %+v, want in %ds", attempts, out.Retry, want)
		}
	}
}

func TestRedirectTarget(t *testing.T) {
	rules := rulesFor(t, "https://example.com/", nil)
	p := Page{URL: "https://example.com/old", Key: urlnorm.Key(mustURL(t, "https://example.com/old"))}
	r := fetch.Result{URL: p.URL, FinalURL: "https://example.com/new", StatusCode: 200, ContentType: "text/html",
		Body: []byte("<p>x</p>"), Links: []string{"/x"}, Canonical: "/canon"}
	out := Judge(p, r, rules, true, nil)
	target, ok := out.RedirectTarget()
	if !ok || target.URL != "https://example.com/new" {
		t.Fatalf("RedirectTarget = %+v %v", target, ok)
	}
	if _, ok := out.CanonicalTarget(); ok {
		t.Error("the canonical address is asked before the redirect is settled")
	}
	if got := out.Redirected(false, nil); got.State != crawl.PageSkipped || len(got.Links) != 0 ||
		got.Cause != (crawl.PageCause{Kind: crawl.PageRedirectedKnown, URL: "https://example.com/new"}) {
		t.Errorf("redirect target owned by another page: %s %+v, %d links", got.State, got.Cause, len(got.Links))
	} else if _, ok := got.CanonicalTarget(); ok {
		t.Error("a skipped page still asks for its canonical address")
	}
	if got := out.Redirected(false, errors.New("db down")); got.State != crawl.PageFailed ||
		got.Cause != (crawl.PageCause{Kind: crawl.PageLookupFailed, Detail: "db down"}) {
		t.Errorf("claim failed: %s %+v", got.State, got.Cause)
	}
	owned := out.Redirected(true, nil)
	if owned.State != crawl.PageFetched || len(owned.Links) != 1 {
		t.Errorf("redirect target owned: %s, %d links", owned.State, len(owned.Links))
	}
	if canon, ok := owned.CanonicalTarget(); !ok || canon.URL != "https://example.com/canon" {
		t.Errorf("after the redirect: CanonicalTarget = %+v %v", canon, ok)
	}
}

func TestCanonicalized(t *testing.T) {
	rules := rulesFor(t, "https://example.com/", nil)
	p := Page{URL: "https://example.com/a", Key: urlnorm.Key(mustURL(t, "https://example.com/a")), Depth: 1, Rank: "004"}
	r := fetch.Result{URL: p.URL, FinalURL: p.URL, StatusCode: 200, ContentType: "text/html",
		Body: []byte("<p>x</p>"), Links: []string{"/x"}, Canonical: "/b"}
	out := Judge(p, r, rules, true, nil)
	for _, tc := range []struct {
		state crawl.PageState
		known bool
		want  crawl.PageState
		links int
	}{
		{"", false, crawl.PageSkipped, 2}, // queued under its canonical address
		{crawl.PageQueued, true, crawl.PageSkipped, 2},
		{crawl.PageStored, true, crawl.PageSkipped, 1},
		{crawl.PageFetched, true, crawl.PageSkipped, 1},
		{crawl.PageFailed, true, crawl.PageFetched, 1}, // the canonical page was not kept: this copy is
		{crawl.PageSkipped, true, crawl.PageFetched, 1},
	} {
		got := out.Canonicalized(tc.state, tc.known, nil)
		if got.State != tc.want || len(got.Links) != tc.links || (got.State == crawl.PageFetched) != (len(got.Body) > 0) {
			t.Errorf("canonical page %q (known %v): %s with %d links, want %s with %d", tc.state, tc.known, got.State, len(got.Links), tc.want, tc.links)
		}
		if tc.links == 2 && (got.Links[0].URL != "https://example.com/b" || got.Links[0].Depth != 1 || got.Links[0].Rank != "004") {
			t.Errorf("canonical page queued as %+v, want it at the page's depth and rank", got.Links[0])
		}
	}
	if got := out.Canonicalized("", false, errors.New("db down")); got.State != crawl.PageFailed {
		t.Errorf("lookup failed: %s", got.State)
	}
	sign := crawl.JavaScriptSign{Kind: crawl.SignEmptyMountPoint, Text: 10, Scripts: 1}
	if got := out.ToBrowser(sign); got.State != crawl.PageQueued || got.Body != nil ||
		got.Cause != (crawl.PageCause{Kind: crawl.PageNeedsJavaScript, JavaScript: sign}) {
		t.Errorf("ToBrowser: %s %+v", got.State, got.Cause)
	}
}

func TestRedirectRefusal(t *testing.T) {
	rules := rulesFor(t, "https://example.com/docs/", nil)
	policies := map[string]robotsPolicy{"https://example.com": parseRobots("User-agent: *\nDisallow: /docs/secret\n")}
	old := urlnorm.Key(mustURL(t, "https://example.com/docs/old"))
	known := func(key string) bool { return key == old }
	for _, tc := range []struct {
		from, to string
		want     crawl.PageCauseKind // "": followed
	}{
		{"https://example.com/docs/a", "https://example.com/docs/b", ""},
		{"http://example.com/docs", "https://example.com/docs/", ""}, // the same page
		{"https://example.com/docs/a", "https://other.example/", crawl.PageRedirectOffSite},
		{"https://example.com/docs/a", "https://example.com/blog/", crawl.PageRedirectOutOfScope},
		{"https://example.com/docs/a", "https://example.com/docs/secret", crawl.PageRedirectRobots},
		{"https://example.com/docs/a", "https://example.com/docs/old", crawl.PageRedirectKnown},
		{"https://example.com/docs/a", "ftp://example.com/docs/x", crawl.PageRedirectUnusable},
	} {
		got, refused := rules.RedirectRefusal(mustURL(t, tc.from), mustURL(t, tc.to), policies, known)
		if refused != (tc.want != "") || got.Kind != tc.want {
			t.Errorf("%s -> %s: %+v (refused %v), want %q", tc.from, tc.to, got, refused, tc.want)
		}
		if refused && got.Kind != crawl.PageRedirectUnusable && got.URL != tc.to {
			t.Errorf("%s -> %s: refusal names %q", tc.from, tc.to, got.URL)
		}
	}
}
