package crawl

import "time"

// PageCause is why a page ended as it did: why it failed, was skipped or
// went back to the frontier, or, on a kept page, what its note says (a
// cut-off body, how the engine took it). The frontier and the batch
// decide causes; package crawllog words them, once, when the outcome is
// saved (the page's error column holds the words the API shows).
//
// A cause holds what its words need and no page content: the kind, and
// the fields that kind names.
type PageCause struct {
	Kind PageCauseKind
	// URL is the address the cause is about: where a redirect led or
	// would have led, the page's canonical address.
	URL string
	// Status is the server's answer, for PageStatus.
	Status int
	// ContentType is the response's type, for PageNotDocument.
	ContentType string
	// Truncated marks a kept page whose body was cut off, at Bytes.
	Truncated bool
	// Bytes is a size: where a kept body was cut off (PageKept), the
	// size of a PDF over the page size cap (PagePDFTooLarge).
	Bytes int
	// Detail is text the cause carries from elsewhere: an error's
	// message, the PDF reader's account of a document without text.
	Detail string
	// Engine is how the fetch engine took a kept page, when that was not
	// as asked.
	Engine EngineNote
	// Attempts is how many fetches the page had when a failure came
	// after retries (0: the first fetch failed).
	Attempts int
	// Page is another page of the crawl, for PageRedirectTarget and
	// PageSameContent.
	Page int64
	// JavaScript is the sign that the page needs a browser, for
	// PageNeedsJavaScript.
	JavaScript JavaScriptSign
}

// PageCauseKind names a kind of cause.
type PageCauseKind string

// The kinds of cause. PageKept, the empty kind, is a kept page's: it says
// nothing unless the body was cut off (Truncated) or the engine left a note
// (Engine).
const (
	PageKept PageCauseKind = ""

	// A fetch that got no usable answer.
	PageRefusedAddress PageCauseKind = "refused-address" // the network guard refused it
	PageTimedOut       PageCauseKind = "timeout"
	PageFetchError     PageCauseKind = "fetch-error"   // Detail
	PageActionFailed   PageCauseKind = "action-failed" // Detail: which action, and why
	PageStatus         PageCauseKind = "status"        // Status
	// The server answered, but the page's script found no such page (URL:
	// what it asked for and got 404 or 410), and the page says so.
	PageScriptNotFound PageCauseKind = "script-not-found"
	PageNotDocument    PageCauseKind = "not-document" // ContentType

	// A redirect the fetch declined to follow (URL: its target).
	PageRedirectDeclined   PageCauseKind = "redirect-declined"
	PageRedirectUnusable   PageCauseKind = "redirect-unusable" // Detail
	PageRedirectOffSite    PageCauseKind = "redirect-off-site"
	PageRedirectOutOfScope PageCauseKind = "redirect-out-of-scope"
	PageRedirectRobots     PageCauseKind = "redirect-robots"
	PageRedirectKnown      PageCauseKind = "redirect-known"

	// A redirect the fetch followed, to an address the page cannot keep.
	PageRedirectedUnusable PageCauseKind = "redirected-unusable" // Detail
	PageRedirectedOffSite  PageCauseKind = "redirected-off-site" // URL
	PageRedirectedKnown    PageCauseKind = "redirected-known"    // URL
	// The address a redirect led to, kept as the page that followed it.
	PageRedirectTarget PageCauseKind = "redirect-target" // Page

	// The crawl's rules.
	PageDiscoverOnly       PageCauseKind = "discover-only"       // a start page the path rules exclude
	PageCanonicalElsewhere PageCauseKind = "canonical-elsewhere" // URL, queued in its place
	PageCanonicalKnown     PageCauseKind = "canonical-known"     // URL, already in the crawl
	PageRobotsDisallowed   PageCauseKind = "robots-disallowed"
	PageExcludedByChange   PageCauseKind = "excluded-by-change"
	PageNoLongerLinked     PageCauseKind = "no-longer-linked"  // a page of the previous crawl no page links to now
	PageNeedsJavaScript    PageCauseKind = "needs-javascript"  // JavaScript
	PageLookupFailed       PageCauseKind = "lookup-failed"     // Detail: the crawl's state could not be read
	PageSameContent        PageCauseKind = "same-content"      // URL, Page: the page whose content this one repeats
	PageRepeatingPattern   PageCauseKind = "repeating-pattern" // Detail: the pattern of addresses, worded

	// Reading the page.
	PageConvertFailed PageCauseKind = "convert-failed" // Detail
	PagePDFHTMLOnly   PageCauseKind = "pdf-html-only"  // a run from before PDFs were read
	PagePDFLeftOut    PageCauseKind = "pdf-left-out"   // the crawl's parsers leave PDFs out
	PagePDFNoReader   PageCauseKind = "pdf-no-reader"  // the worker reads no PDFs
	PagePDFTooLarge   PageCauseKind = "pdf-too-large"  // Bytes
	PagePDFNoText     PageCauseKind = "pdf-no-text"    // scans, images only
	PagePDFUnreadable PageCauseKind = "pdf-unreadable" // Detail
	PageNotRecorded   PageCauseKind = "not-recorded"   // Detail: saving the outcome failed
)

// Because is the cause of kind k with no fields.
func Because(k PageCauseKind) PageCause { return PageCause{Kind: k} }

// EngineNote is how a fetch engine took a page when that was not as asked;
// the zero EngineNote says nothing.
type EngineNote struct {
	// LoadTimeout is set when the page had not finished loading after it,
	// and was taken as it stood.
	LoadTimeout time.Duration
	// ScreenshotError is why the page's screenshot failed; or the
	// screenshot was ScreenshotBytes, more than the ScreenshotMax kept.
	ScreenshotError                string
	ScreenshotBytes, ScreenshotMax int
	// RenderError is why the browser could not render the page, which
	// was then fetched statically.
	RenderError string
	// BlockedStatus is the status the page first answered as blocked
	// with (0: a challenge page), when it was fetched again through the
	// operator's fallback proxies (Firecrawl's auto proxy).
	BlockedStatus int  `json:",omitempty"`
	Blocked       bool `json:",omitempty"`
}

// Retry says which fetch of a page failed for a passing reason, and when
// the page is fetched again.
type Retry struct {
	// Attempt is the fetch that failed, counted from 1, of Attempts in all.
	Attempt, Attempts int
	In                time.Duration
}

// JavaScriptSign is what shows that a statically fetched page gets its
// content from its scripts.
type JavaScriptSign struct {
	Kind JavaScriptSignKind
	// Text is the characters of text the page holds without its scripts.
	Text int
	// Scripts is how many scripts it loads.
	Scripts int
	// Links is how many links to follow its HTML offers, for
	// SignScriptedLinks.
	Links int `json:",omitempty"`
}

// JavaScriptSignKind names a sign.
type JavaScriptSignKind string

// The signs.
const (
	SignEmptyMountPoint JavaScriptSignKind = "empty-mount-point" // Text
	SignNoscript        JavaScriptSignKind = "noscript"          // Text
	SignNoTextScripts   JavaScriptSignKind = "no-text-scripts"   // Scripts
	// The page's text is in its HTML but its links are not: it is
	// rendered to find them.
	SignScriptedLinks JavaScriptSignKind = "scripted-links" // Links, Scripts
)

// ExtractionCause is why a page's extraction failed; package crawllog
// words it (the page's extraction error, and its log entry).
type ExtractionCause struct {
	Kind ExtractionCauseKind
	// Detail is the error: the schema's, the model's, the answer's
	// mismatch with the schema.
	Detail string
	// Attempts is how many times the model was asked (ExtractionInvalid)
	// or the activity tried (ExtractionGaveUp).
	Attempts int
}

// ExtractionCauseKind names a kind of extraction failure.
type ExtractionCauseKind string

// The kinds of extraction failure.
const (
	ExtractionBadSchema ExtractionCauseKind = "bad-schema" // the crawl's schema does not compile
	ExtractionRefused   ExtractionCauseKind = "refused"    // the model (or splitting the page) failed for good
	ExtractionInvalid   ExtractionCauseKind = "invalid"    // the answers never validated against the schema
	ExtractionGaveUp    ExtractionCauseKind = "gave-up"    // the model stayed unavailable through every attempt
)
