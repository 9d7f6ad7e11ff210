package crawllog

import (
	"fmt"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
)

// Reason words why a page ended as it did (c), as its record keeps it: the
// error the API shows for a failed or skipped page, the note of a kept
// one ("" when it has none), and the reason in the page's log entry.
func Reason(c crawl.PageCause) string {
	r := reason(c)
	if c.Attempts > 0 {
		r = fmt.Sprintf("%s (after %d attempts)", r, c.Attempts)
	}
	return r
}

// reason words c, by the first of the groups of causes that knows it;
// a cause none knows is its kind and detail.
func reason(c crawl.PageCause) string {
	for _, words := range []func(crawl.PageCause) (string, bool){fetchReason, redirectReason, decisionReason, documentReason} {
		if r, ok := words(c); ok {
			return r
		}
	}
	if c.Detail != "" {
		return fmt.Sprintf("%s: %s", c.Kind, c.Detail)
	}
	return string(c.Kind)
}

// fetchReason words the causes of a page's fetch: kept, refused, timed
// out, an error or a status.
func fetchReason(c crawl.PageCause) (string, bool) {
	switch c.Kind {
	case crawl.PageKept:
		var notes []string
		if c.Truncated {
			notes = append(notes, fmt.Sprintf("the response was cut off at %d bytes", c.Bytes))
		}
		return strings.Join(append(notes, engineNotes(c.Engine)...), "; "), true
	case crawl.PageRefusedAddress:
		return "refused: the address is private, loopback, link-local or reserved (set CRAWLER_ALLOW_PRIVATE_NETWORKS=true to allow it)", true
	case crawl.PageTimedOut:
		return "timeout: the page did not answer within the page timeout (CRAWLER_PAGE_TIMEOUT)", true
	case crawl.PageFetchError, crawl.PageLookupFailed, crawl.PageActionFailed:
		return c.Detail, true
	case crawl.PageStatus:
		return fmt.Sprintf("the server answered %d", c.Status), true
	case crawl.PageScriptNotFound:
		return fmt.Sprintf("no such page: the server answers every address, but the page's script got \"not found\" for %s and drew a \"not found\" page", c.URL), true
	case crawl.PageNotDocument:
		return fmt.Sprintf("not an HTML page or a PDF (%s)", c.ContentType), true
	}
	return "", false
}

// redirectReason words the causes of a redirect the page answered or
// came through.
func redirectReason(c crawl.PageCause) (string, bool) {
	switch c.Kind {
	case crawl.PageRedirectDeclined:
		return fmt.Sprintf("redirects to %s, not followed", c.URL), true
	case crawl.PageRedirectUnusable:
		return fmt.Sprintf("redirects to an unusable URL (%s)", c.Detail), true
	case crawl.PageRedirectOffSite:
		return fmt.Sprintf("redirects to another site: %s", c.URL), true
	case crawl.PageRedirectOutOfScope:
		return fmt.Sprintf("redirects outside the crawl's scope or path rules: %s", c.URL), true
	case crawl.PageRedirectRobots:
		return fmt.Sprintf("redirects to %s, which the site's robots.txt disallows", c.URL), true
	case crawl.PageRedirectKnown:
		return fmt.Sprintf("redirects to %s, which this crawl already has", c.URL), true
	case crawl.PageRedirectedUnusable:
		return fmt.Sprintf("redirected to an unusable URL: %s", c.Detail), true
	case crawl.PageRedirectedOffSite:
		return fmt.Sprintf("redirected to another site: %s", c.URL), true
	case crawl.PageRedirectedKnown:
		return fmt.Sprintf("redirected to %s, which this crawl already has", c.URL), true
	case crawl.PageRedirectTarget:
		return fmt.Sprintf("reached through a redirect; kept as page %d", c.Page), true
	}
	return "", false
}

// decisionReason words the causes of the crawl's decisions on a page:
// its scope, canonical address, robots.txt, a copy, a pattern,
// JavaScript.
func decisionReason(c crawl.PageCause) (string, bool) {
	switch c.Kind {
	case crawl.PageDiscoverOnly:
		return "excluded by includeOnlyPaths/excludePaths; fetched only to discover links", true
	case crawl.PageCanonicalElsewhere:
		return fmt.Sprintf("its canonical URL is %s; the page is crawled under that address", c.URL), true
	case crawl.PageCanonicalKnown:
		return fmt.Sprintf("its canonical URL %s is a page this crawl already has", c.URL), true
	case crawl.PageRobotsDisallowed:
		return "disallowed by the site's robots.txt; not fetched", true
	case crawl.PageNoLongerLinked:
		return "no longer linked from the site's pages: removed since the previous crawl", true
	case crawl.PageExcludedByChange:
		return "excluded by a change of the running crawl's excludePaths", true
	case crawl.PageSameContent:
		return fmt.Sprintf("the same content as %s (page %d), which the crawl keeps: not a result of its own, and its links are not followed again", c.URL, c.Page), true
	case crawl.PageRepeatingPattern:
		return "not fetched: addresses that differ from the crawl's other pages only by " + c.Detail + " led to pages the crawl already has", true
	case crawl.PageNeedsJavaScript:
		if c.JavaScript.Kind == crawl.SignScriptedLinks {
			return "rendered to find its links (" + JavaScript(c.JavaScript) + "); queued again for the browser engine", true
		}
		return "needs JavaScript (" + JavaScript(c.JavaScript) + "); queued again for the browser engine", true
	}
	return "", false
}

// documentReason words the causes of a page's conversion, a PDF's
// reading, and its recording.
func documentReason(c crawl.PageCause) (string, bool) {
	switch c.Kind {
	case crawl.PageConvertFailed:
		return "could not convert the page: " + c.Detail, true
	case crawl.PagePDFHTMLOnly:
		return "a PDF document; this crawl converts HTML pages only", true
	case crawl.PagePDFLeftOut:
		return "a PDF document; the crawl's parsers leave PDFs out", true
	case crawl.PagePDFNoReader:
		return "a PDF document; this worker does not read PDFs", true
	case crawl.PagePDFTooLarge:
		return fmt.Sprintf("the PDF is larger than the page size cap of %d bytes (CRAWLER_MAX_PAGE_BYTES); not read", c.Bytes), true
	case crawl.PagePDFNoText:
		if c.Detail != "" {
			return c.Detail, true // the reader's own account: how many pages it read
		}
		return "the PDF has no text to read (scanned pages or images only)", true
	case crawl.PagePDFUnreadable:
		return "could not read the PDF: " + c.Detail, true
	case crawl.PageNotRecorded:
		return "the page could not be recorded: " + c.Detail, true
	}
	return "", false
}

// engineNotes words how the fetch engine took a page.
func engineNotes(n crawl.EngineNote) []string {
	var notes []string
	if n.LoadTimeout > 0 {
		notes = append(notes, fmt.Sprintf("the page had not finished loading after %v; it was taken as it stood", n.LoadTimeout))
	}
	if n.ScreenshotError != "" {
		notes = append(notes, "the screenshot failed: "+n.ScreenshotError)
	}
	if n.ScreenshotBytes > 0 {
		notes = append(notes, fmt.Sprintf("the screenshot was %d bytes, more than the %d kept: the page has none", n.ScreenshotBytes, n.ScreenshotMax))
	}
	if n.RenderError != "" {
		notes = append(notes, fmt.Sprintf("the browser could not render it (%s); it was fetched statically", n.RenderError))
	}
	if n.Blocked {
		what := "a challenge page"
		if n.BlockedStatus != 0 {
			what = fmt.Sprintf("%d", n.BlockedStatus)
		}
		notes = append(notes, fmt.Sprintf("it answered %s through the basic proxies and was fetched again through the stealth proxies", what))
	}
	return notes
}

// SameContent words that a page's content is the same as page's, at url:
// the page is recorded as its duplicate.
func SameContent(page int64, url string) string {
	return Reason(crawl.PageCause{Kind: crawl.PageSameContent, URL: url, Page: page})
}

// NotRecorded words why a page's outcome was not saved (err): the page is
// recorded as failed instead.
func NotRecorded(err error) string {
	return Reason(crawl.PageCause{Kind: crawl.PageNotRecorded, Detail: err.Error()})
}

// ConvertFailed words why a page the converter failed on (err) is
// skipped.
func ConvertFailed(err error) string {
	return Reason(crawl.PageCause{Kind: crawl.PageConvertFailed, Detail: err.Error()})
}

// JavaScript words the sign that a page needs a browser.
func JavaScript(s crawl.JavaScriptSign) string {
	switch s.Kind {
	case crawl.SignEmptyMountPoint:
		return fmt.Sprintf("a client-side app's mount point is empty (the page holds %d characters of text without its scripts)", s.Text)
	case crawl.SignNoscript:
		return fmt.Sprintf("the page asks for JavaScript in <noscript> and holds %d characters of text without it", s.Text)
	case crawl.SignNoTextScripts:
		return fmt.Sprintf("the page shows no text without its %d scripts", s.Scripts)
	case crawl.SignScriptedLinks:
		links := fmt.Sprintf("%d links", s.Links)
		if s.Links == 1 {
			links = "1 link"
		}
		return fmt.Sprintf("its static HTML has %s in scope while %d scripts run, which draw its navigation", links, s.Scripts)
	}
	return string(s.Kind)
}

// ExtractionFailure words why a page's extraction failed (c), as its
// record keeps it and its "Extraction failed" entry quotes it.
func ExtractionFailure(c crawl.ExtractionCause) string {
	switch c.Kind {
	case crawl.ExtractionBadSchema:
		return "the crawl's extraction schema: " + c.Detail
	case crawl.ExtractionInvalid:
		return fmt.Sprintf("the model's answer does not validate against the extraction schema (asked %d times): %s", c.Attempts, c.Detail)
	case crawl.ExtractionGaveUp:
		return fmt.Sprintf("gave up after %d attempts: %s", c.Attempts, c.Detail)
	}
	return c.Detail // the model's own account (ExtractionRefused)
}
