package crawllog

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
)

// TestReasons pins the words of every kind of page cause: they are what
// the API shows as a page's error and what its log entry says, so a kind
// added to package crawl without words here fails.
func TestReasons(t *testing.T) {
	const u = "https://example.com/b"
	cases := map[crawl.PageCauseKind]struct {
		cause crawl.PageCause
		want  string
	}{
		crawl.PageKept: {crawl.PageCause{Truncated: true, Bytes: 10, Engine: crawl.EngineNote{LoadTimeout: 5 * time.Second,
			ScreenshotError: "timeout", ScreenshotBytes: 9000000, ScreenshotMax: 8000000, RenderError: "crashed"}},
			"the response was cut off at 10 bytes; the page had not finished loading after 5s; it was taken as it stood; " +
				"the screenshot failed: timeout; the screenshot was 9000000 bytes, more than the 8000000 kept: the page has none; " +
				"the browser could not render it (crashed); it was fetched statically"},
		crawl.PageRefusedAddress: {crawl.PageCause{}, "refused: the address is private, loopback, link-local or reserved (set CRAWLER_ALLOW_PRIVATE_NETWORKS=true to allow it)"},
		crawl.PageTimedOut:       {crawl.PageCause{Attempts: 2}, "timeout: the page did not answer within the page timeout (CRAWLER_PAGE_TIMEOUT) (after 2 attempts)"},
		crawl.PageFetchError:     {crawl.PageCause{Detail: "EOF"}, "EOF"},
		crawl.PageActionFailed: {crawl.PageCause{Detail: `action 1 (click "#more") failed: timed out`},
			`action 1 (click "#more") failed: timed out`},
		crawl.PageStatus: {crawl.PageCause{Status: 404}, "the server answered 404"},
		crawl.PageScriptNotFound: {crawl.PageCause{URL: "https://x.test/guide/missing.md"},
			`no such page: the server answers every address, but the page's script got "not found" for https://x.test/guide/missing.md and drew a "not found" page`},
		crawl.PageNotDocument:        {crawl.PageCause{ContentType: "image/png"}, "not an HTML page or a PDF (image/png)"},
		crawl.PageRedirectDeclined:   {crawl.PageCause{URL: "/b"}, "redirects to /b, not followed"},
		crawl.PageRedirectUnusable:   {crawl.PageCause{Detail: "bad scheme"}, "redirects to an unusable URL (bad scheme)"},
		crawl.PageRedirectOffSite:    {crawl.PageCause{URL: u}, "redirects to another site: " + u},
		crawl.PageRedirectOutOfScope: {crawl.PageCause{URL: u}, "redirects outside the crawl's scope or path rules: " + u},
		crawl.PageRedirectRobots:     {crawl.PageCause{URL: u}, "redirects to " + u + ", which the site's robots.txt disallows"},
		crawl.PageRedirectKnown:      {crawl.PageCause{URL: u}, "redirects to " + u + ", which this crawl already has"},
		crawl.PageRedirectedUnusable: {crawl.PageCause{Detail: "bad scheme"}, "redirected to an unusable URL: bad scheme"},
		crawl.PageRedirectedOffSite:  {crawl.PageCause{URL: u}, "redirected to another site: " + u},
		crawl.PageRedirectedKnown:    {crawl.PageCause{URL: u}, "redirected to " + u + ", which this crawl already has"},
		crawl.PageRedirectTarget:     {crawl.PageCause{Page: 7}, "reached through a redirect; kept as page 7"},
		crawl.PageDiscoverOnly:       {crawl.PageCause{}, "excluded by includeOnlyPaths/excludePaths; fetched only to discover links"},
		crawl.PageCanonicalElsewhere: {crawl.PageCause{URL: u}, "its canonical URL is " + u + "; the page is crawled under that address"},
		crawl.PageCanonicalKnown:     {crawl.PageCause{URL: u}, "its canonical URL " + u + " is a page this crawl already has"},
		crawl.PageRobotsDisallowed:   {crawl.PageCause{}, "disallowed by the site's robots.txt; not fetched"},
		crawl.PageExcludedByChange:   {crawl.PageCause{}, "excluded by a change of the running crawl's excludePaths"},
		crawl.PageNoLongerLinked:     {crawl.PageCause{}, "no longer linked from the site's pages: removed since the previous crawl"},
		crawl.PageNeedsJavaScript: {crawl.PageCause{JavaScript: crawl.JavaScriptSign{Kind: crawl.SignNoTextScripts, Scripts: 3}},
			"needs JavaScript (the page shows no text without its 3 scripts); queued again for the browser engine"},
		crawl.PageLookupFailed: {crawl.PageCause{Detail: "db down"}, "db down"},
		crawl.PageRepeatingPattern: {crawl.PageCause{Detail: `the query parameter "id"`},
			`not fetched: addresses that differ from the crawl's other pages only by the query parameter "id" led to pages the crawl already has`},
		crawl.PageSameContent: {crawl.PageCause{URL: u, Page: 4},
			"the same content as " + u + " (page 4), which the crawl keeps: not a result of its own, and its links are not followed again"},
		crawl.PageConvertFailed: {crawl.PageCause{Detail: "no body"}, "could not convert the page: no body"},
		crawl.PagePDFHTMLOnly:   {crawl.PageCause{}, "a PDF document; this crawl converts HTML pages only"},
		crawl.PagePDFLeftOut:    {crawl.PageCause{}, "a PDF document; the crawl's parsers leave PDFs out"},
		crawl.PagePDFNoReader:   {crawl.PageCause{}, "a PDF document; this worker does not read PDFs"},
		crawl.PagePDFTooLarge:   {crawl.PageCause{Bytes: 100}, "the PDF is larger than the page size cap of 100 bytes (CRAWLER_MAX_PAGE_BYTES); not read"},
		crawl.PagePDFNoText:     {crawl.PageCause{}, "the PDF has no text to read (scanned pages or images only)"},
		crawl.PagePDFUnreadable: {crawl.PageCause{Detail: "encrypted"}, "could not read the PDF: encrypted"},
		crawl.PageNotRecorded:   {crawl.PageCause{Detail: "value too long"}, "the page could not be recorded: value too long"},
	}
	for kind, tc := range cases {
		tc.cause.Kind = kind
		if got := Reason(tc.cause); got != tc.want {
			t.Errorf("%q: %q, want %q", kind, got, tc.want)
		}
	}
	for _, kind := range constantsOf(t, "PageCauseKind") {
		if _, ok := cases[crawl.PageCauseKind(kind)]; !ok {
			t.Errorf("page cause %q has no words pinned here", kind)
		}
	}
	if got := Reason(crawl.PageCause{}); got != "" {
		t.Errorf("a kept page with no note: %q", got)
	}
	if got := ConvertFailed(errors.New("no body")); got != "could not convert the page: no body" {
		t.Errorf("ConvertFailed: %q", got)
	}
	if got := NotRecorded(errors.New("x")); got != "the page could not be recorded: x" {
		t.Errorf("NotRecorded: %q", got)
	}
	// The PDF reader's own account, when it gives one, is the reason.
	const read = "the PDF has no text to read (scanned pages or images only) in the 3 pages read of 3"
	if got := Reason(crawl.PageCause{Kind: crawl.PagePDFNoText, Detail: read}); got != read {
		t.Errorf("a PDF without text: %q", got)
	}
}

// TestJavaScriptSigns pins the words of every sign that a page needs a
// browser.
func TestJavaScriptSigns(t *testing.T) {
	cases := map[crawl.JavaScriptSignKind]string{
		crawl.SignEmptyMountPoint: "a client-side app's mount point is empty (the page holds 12 characters of text without its scripts)",
		crawl.SignNoscript:        "the page asks for JavaScript in <noscript> and holds 12 characters of text without it",
		crawl.SignNoTextScripts:   "the page shows no text without its 3 scripts",
		crawl.SignScriptedLinks:   "its static HTML has 1 link in scope while 3 scripts run, which draw its navigation",
	}
	for kind, want := range cases {
		if got := JavaScript(crawl.JavaScriptSign{Kind: kind, Text: 12, Scripts: 3, Links: 1}); got != want {
			t.Errorf("%q: %q, want %q", kind, got, want)
		}
	}
	for _, kind := range constantsOf(t, "JavaScriptSignKind") {
		if _, ok := cases[crawl.JavaScriptSignKind(kind)]; !ok {
			t.Errorf("sign %q has no words pinned here", kind)
		}
	}
}

// constantsOf returns the values of package crawl's constants of type
// typ, read from its source.
func constantsOf(t *testing.T, typ string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../crawl/cause.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			for _, val := range v.Values {
				lit, ok := val.(*ast.BasicLit)
				if !ok {
					t.Fatalf("constant of %s is not a literal", typ)
				}
				s, _ := strconv.Unquote(lit.Value)
				out = append(out, s)
			}
		}
	}
	if len(out) < 3 {
		t.Fatalf("found %d constants of %s in crawl/cause.go", len(out), typ)
	}
	return out
}

// TestExtractionFailures pins the words of every kind of extraction
// failure: the page's extraction error, and what its log entry quotes.
func TestExtractionFailures(t *testing.T) {
	cases := map[crawl.ExtractionCauseKind]struct {
		cause crawl.ExtractionCause
		want  string
	}{
		crawl.ExtractionBadSchema: {crawl.ExtractionCause{Detail: "type: unknown"}, "the crawl's extraction schema: type: unknown"},
		crawl.ExtractionRefused:   {crawl.ExtractionCause{Detail: "the LLM answered 400: bad request"}, "the LLM answered 400: bad request"},
		crawl.ExtractionInvalid: {crawl.ExtractionCause{Attempts: 3, Detail: "price: want number"},
			"the model's answer does not validate against the extraction schema (asked 3 times): price: want number"},
		crawl.ExtractionGaveUp: {crawl.ExtractionCause{Attempts: 5, Detail: "the LLM answered 503"}, "gave up after 5 attempts: the LLM answered 503"},
	}
	for kind, tc := range cases {
		tc.cause.Kind = kind
		if got := ExtractionFailure(tc.cause); got != tc.want {
			t.Errorf("%q: %q, want %q", kind, got, tc.want)
		}
	}
	for _, kind := range constantsOf(t, "ExtractionCauseKind") {
		if _, ok := cases[crawl.ExtractionCauseKind(kind)]; !ok {
			t.Errorf("extraction failure %q has no words pinned here", kind)
		}
	}
}

// TestBlockedNote: a page fetched again through the stealth proxies says
// why, with the status it first answered, or that it was a challenge.
func TestBlockedNote(t *testing.T) {
	for note, want := range map[crawl.EngineNote]string{
		{Blocked: true, BlockedStatus: 403}: "it answered 403 through the basic proxies and was fetched again through the stealth proxies",
		{Blocked: true}:                     "it answered a challenge page through the basic proxies and was fetched again through the stealth proxies",
	} {
		if got := Reason(crawl.PageCause{Engine: note}); got != want {
			t.Errorf("%+v: %q, want %q", note, got, want)
		}
	}
}
