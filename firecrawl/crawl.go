// Package firecrawl reads and writes Firecrawl's HTTP API (v2, and the v1
// subset older clients call) in terms of the service's own crawls: a
// Firecrawl crawl or scrape is an ordinary crawl of the engine, with
// Firecrawl's meanings for its options. The api package serves it under
// /v1 and /v2; this package holds the shapes and the mapping, and no I/O.
package firecrawl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/schema"
)

// DefaultLimit is a crawl's page limit when the request gives none, as
// Firecrawl has it.
const DefaultLimit = 10000

// CrawlTimeout bounds a crawl started through Firecrawl's API, whose
// requests have no timeout of their own: a day, so that a large crawl
// ends by its limit, while one that cannot end is still ended.
const CrawlTimeout = 24 * 60 * 60

// CrawlRequest is the body of POST /v2/crawl (and /v1/crawl). Its fields
// are those of Fields in InCrawl; see there what each does here.
type CrawlRequest struct {
	URL                    string          `json:"url"`
	Limit                  *int            `json:"limit"`
	MaxDiscoveryDepth      *int            `json:"maxDiscoveryDepth"`
	MaxDepth               *int            `json:"maxDepth"` // v1's name of maxDiscoveryDepth
	IncludePaths           []string        `json:"includePaths"`
	ExcludePaths           []string        `json:"excludePaths"`
	CrawlEntireDomain      *bool           `json:"crawlEntireDomain"`
	AllowBackwardLinks     *bool           `json:"allowBackwardLinks"` // v1's name of crawlEntireDomain
	AllowSubdomains        *bool           `json:"allowSubdomains"`
	AllowExternalLinks     *bool           `json:"allowExternalLinks"`
	IgnoreRobotsTxt        *bool           `json:"ignoreRobotsTxt"`
	RobotsUserAgent        *string         `json:"robotsUserAgent"`
	Sitemap                string          `json:"sitemap"`
	IgnoreSitemap          *bool           `json:"ignoreSitemap"` // v1
	IgnoreQueryParameters  *bool           `json:"ignoreQueryParameters"`
	DeduplicateSimilarURLs *bool           `json:"deduplicateSimilarURLs"`
	Delay                  *float64        `json:"delay"`
	MaxConcurrency         *int            `json:"maxConcurrency"`
	RegexOnFullURL         *bool           `json:"regexOnFullURL"`
	ScrapeOptions          *ScrapeOptions  `json:"scrapeOptions"`
	Webhook                json.RawMessage `json:"webhook"`
	Prompt                 *string         `json:"prompt"`
	Origin                 *string         `json:"origin"`
	Integration            *string         `json:"integration"`
	ZeroDataRetention      *bool           `json:"zeroDataRetention"`
}

// ScrapeOptions are how each page is read and what it gives back: the
// fields of Fields in InScrapeOptions, each of Firecrawl's type.
type ScrapeOptions struct {
	Formats          []json.RawMessage `json:"formats"`
	OnlyMainContent  *bool             `json:"onlyMainContent"`
	OnlyCleanContent *bool             `json:"onlyCleanContent"`
	IncludeTags      []string          `json:"includeTags"`
	ExcludeTags      []string          `json:"excludeTags"`
	WaitFor          *int              `json:"waitFor"`
	Timeout          *int              `json:"timeout"`
	Headers          map[string]string `json:"headers"`
	Mobile           *bool             `json:"mobile"`
	Parsers          json.RawMessage   `json:"parsers"`
	ParsePDF         *bool             `json:"parsePDF"` // v1
	Location         *Location         `json:"location"`
	Geolocation      *Location         `json:"geolocation"` // v1's name of location
	// The cache: see docs/firecrawl.md.
	MaxAge       *int64 `json:"maxAge"`
	MinAge       *int64 `json:"minAge"`
	StoreInCache *bool  `json:"storeInCache"`
	// Accepted as hints (see Fields).
	SkipTLSVerification *bool           `json:"skipTlsVerification"`
	RemoveBase64Images  *bool           `json:"removeBase64Images"`
	BlockAds            *bool           `json:"blockAds"`
	FastMode            *bool           `json:"fastMode"`
	Integration         *string         `json:"integration"`
	AuditMetadata       json.RawMessage `json:"auditMetadata"`
	// Accepted at the values Fields lists, refused otherwise.
	Proxy             *string         `json:"proxy"`
	UseMock           *string         `json:"useMock"`
	Actions           json.RawMessage `json:"actions"`
	Lockdown          *bool           `json:"lockdown"`
	SafeMode          *bool           `json:"safeMode"`
	RedactPII         json.RawMessage `json:"redactPII"`
	ThreatProtection  json.RawMessage `json:"threatProtection"`
	Profile           json.RawMessage `json:"profile"`
	SearchPreview     *string         `json:"__searchPreviewToken"`
	OMCE              *bool           `json:"__experimental_omce"`
	OMCEDomain        *string         `json:"__experimental_omceDomain"`
	EnginePicker      *bool           `json:"__experimental_engpicker"`
	ExperimentalCache *bool           `json:"__experimental_cache"`
	ForceFirePDF      *bool           `json:"__forceFirePDF"`
	// v1's options of the json, extract and changeTracking formats.
	JSONOptions    json.RawMessage `json:"jsonOptions"`
	ExtractOptions json.RawMessage `json:"extract"`
	ChangeTracking json.RawMessage `json:"changeTrackingOptions"`
}

// Location is where Firecrawl's request appears to come from: languages
// are sent as Accept-Language; a country cannot be honoured here.
type Location struct {
	Country   *string  `json:"country"`
	Languages []string `json:"languages"`
}

// MaxHeaders bounds scrapeOptions.headers.
const MaxHeaders = 50

// reservedHeaders are headers a request's transport sets itself.
var reservedHeaders = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true, "connection": true,
	"keep-alive": true, "upgrade": true, "te": true, "trailer": true, "proxy-authorization": true, "proxy-connection": true}

// checkHeaders says what is wrong with the headers a request asks to send.
func checkHeaders(h map[string]string) []string {
	var bad []string
	if len(h) > MaxHeaders {
		bad = append(bad, fmt.Sprintf("at most %d headers", MaxHeaders))
	}
	for _, name := range slices.Sorted(maps.Keys(h)) {
		switch {
		case !httpguts.ValidHeaderFieldName(name):
			bad = append(bad, fmt.Sprintf("%q is not a header name", name))
		case reservedHeaders[strings.ToLower(name)]:
			bad = append(bad, fmt.Sprintf("%s is set by the crawler itself", name))
		case !httpguts.ValidHeaderFieldValue(h[name]):
			bad = append(bad, fmt.Sprintf("the value of %s is not a valid header value", name))
		}
	}
	return bad
}

// sessionOf copies what scrape options say of how pages are requested
// (headers, mobile, waitFor) onto o, once checked.
func sessionOf(so *ScrapeOptions, o *crawl.Options, srv crawl.Server) {
	if so == nil {
		return
	}
	o.WaitForMS = waitForMS(so)
	if acts, bad := pageaction.Parse(so.Actions, o.WaitForMS); len(bad) == 0 {
		o.Actions = pageaction.Encode(acts)
	}
	o.ScreenshotQuality, o.ScreenshotViewport = shotSettings(so)
	o.ProxyKind, o.ProxyCountry, _, _ = proxyOf(so, srv)
	if len(so.Headers) > 0 {
		o.Headers = so.Headers
	}
	o.Mobile = so.Mobile != nil && *so.Mobile
	o.SkipPDFs, o.PDFMaxPages, _ = parsersOf(so.Parsers)
	o.KeepOutOfCache = so.StoreInCache != nil && !*so.StoreInCache
	if asksSummary(so) {
		o.Formats = append(o.Formats, pageformats.Summary)
	}
	if so.ParsePDF != nil && !*so.ParsePDF {
		o.SkipPDFs = true
	}
	if langs := languagesOf(so); len(langs) > 0 && !hasHeader(o.Headers, "Accept-Language") {
		h := maps.Clone(o.Headers)
		if h == nil {
			h = map[string]string{}
		}
		h["Accept-Language"] = strings.Join(langs, ", ")
		o.Headers = h
	}
}

// proxyOf reads so's proxy and location country onto the operator's
// pools (srv.ProxyPools): the kind of pool the crawl's requests go
// through ("" directly; "auto" the basic pool where there is one, and the
// stealth pool for a page answered as blocked) and its country; or the
// field at fault and why.
func proxyOf(so *ScrapeOptions, srv crawl.Server) (kind, country, field, msg string) {
	has := func(name string) bool { return slices.Contains(srv.ProxyPools, name) }
	for _, l := range []*Location{so.Location, so.Geolocation} {
		if l != nil && l.Country != nil && strings.TrimSpace(*l.Country) != "" {
			country = strings.ToUpper(strings.TrimSpace(*l.Country))
		}
	}
	asked := "auto"
	if so.Proxy != nil && *so.Proxy != "" {
		asked = *so.Proxy
	}
	name := func(k string) string {
		if country == "" {
			return k
		}
		return k + "@" + country
	}
	countryField := "location.country"
	if so.Geolocation != nil && so.Location == nil {
		countryField = "geolocation.country"
	}
	switch asked {
	case "basic":
		if has(name("basic")) {
			return "basic", country, "", ""
		}
		if country != "" {
			return "", "", countryField, fmt.Sprintf("needs the operator's basic proxies of %s (a pool basic@%s in CRAWLER_PROXY_POOLS), and this deployment has none", country, country)
		}
		return "", "", "", ""
	case "stealth", "enhanced":
		if has(name(asked)) {
			return asked, country, "", ""
		}
		return "", "", "proxy", fmt.Sprintf("%s needs the operator's %s proxies (a pool %s in CRAWLER_PROXY_POOLS), and this deployment has none", asked, asked, name(asked))
	case "auto":
		if has(name("basic")) || has(name("stealth")) {
			return "auto", country, "", ""
		}
		if country != "" {
			return "", "", countryField, fmt.Sprintf("needs the operator's proxies of %s (a pool basic@%s or stealth@%s in CRAWLER_PROXY_POOLS), and this deployment has none", country, country, country)
		}
		return "", "", "", ""
	}
	return "", "", "proxy", "must be basic, stealth, enhanced or auto"
}

// languagesOf is the languages of so's location (or v1's geolocation).
func languagesOf(so *ScrapeOptions) []string {
	for _, l := range []*Location{so.Location, so.Geolocation} {
		if l != nil && len(l.Languages) > 0 {
			return l.Languages
		}
	}
	return nil
}

// hasHeader reports whether h names header, in any case.
func hasHeader(h map[string]string, header string) bool {
	for k := range h {
		if strings.EqualFold(k, header) {
			return true
		}
	}
	return false
}

// MaxPDFPages bounds a pdf parser's maxPages.
const MaxPDFPages = 10000

// parsersOf reads scrapeOptions.parsers: "pdf" or {"type": "pdf",
// "maxPages": n} reads PDF documents (the default when absent), an empty
// list leaves them out. It returns what to set, or why the value is
// refused.
func parsersOf(raw json.RawMessage) (skip bool, maxPages int, msg string) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return false, 0, ""
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return false, 0, `must be a list of "pdf" or {"type": "pdf", "maxPages": n}`
	}
	skip = true
	for _, p := range list {
		var name string
		if json.Unmarshal(p, &name) == nil {
			switch name {
			case "pdf":
				skip = false
			case "image": // accepted: image files are not read here
			default:
				return false, 0, fmt.Sprintf("%q is not a parser (pdf or image)", name)
			}
			continue
		}
		var obj struct {
			Type         string          `json:"type"`
			Mode         string          `json:"mode"`
			MaxPages     json.RawMessage `json:"maxPages"`
			Pages        bool            `json:"pages"`
			PageMarkdown bool            `json:"pageMarkdown"`
			Blocks       bool            `json:"blocks"`
			PageMarkers  bool            `json:"pageMarkers"`
			Async        bool            `json:"__firePdfAsync"`
		}
		dec := json.NewDecoder(bytes.NewReader(p))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil || obj.Type != "pdf" && obj.Type != "image" {
			return false, 0, `each parser must be "pdf", "image", {"type": "pdf", "maxPages": n} or {"type": "image"}`
		}
		if obj.Type == "image" {
			continue
		}
		switch {
		case obj.Mode != "" && obj.Mode != "auto" && obj.Mode != "fast":
			return false, 0, fmt.Sprintf("the pdf mode %q is not supported here: PDFs are read from their text (auto or fast)", obj.Mode)
		case obj.Pages || obj.PageMarkdown || obj.Blocks || obj.PageMarkers:
			return false, 0, "a PDF's pages, blocks and page markers are not supported here: its markdown is one document"
		}
		if len(obj.MaxPages) > 0 && string(obj.MaxPages) != "null" {
			// A JSON number, as JavaScript has them: 3.0 and 1e2 are whole.
			var n float64
			if err := json.Unmarshal(obj.MaxPages, &n); err != nil || n != math.Trunc(n) || n < 1 || n > MaxPDFPages {
				return false, 0, fmt.Sprintf("maxPages must be a whole number from 1 to %d", MaxPDFPages)
			}
			maxPages = int(n)
		}
		skip = false
	}
	return skip, maxPages, ""
}

// MaxWaitFor bounds scrapeOptions.waitFor, in milliseconds.
const MaxWaitFor = 60000

// waitForMS is the wait so asks the browser for, once checked.
func waitForMS(so *ScrapeOptions) int {
	if so == nil || so.WaitFor == nil {
		return 0
	}
	return *so.WaitFor
}

// MaxPrompt bounds a crawl's prompt, in bytes, as Firecrawl's schema does.
const MaxPrompt = 10000

// MaxDelay bounds a crawl's delay, in seconds.
const MaxDelay = 60

// jsonFormat is the json format's options: v2's format object, or v1's
// jsonOptions (and extract).
type jsonFormat struct {
	Type         string          `json:"type"`
	Prompt       string          `json:"prompt"`
	SystemPrompt string          `json:"systemPrompt"`
	Schema       json.RawMessage `json:"schema"`
}

// Formats a page may be asked for here: the service's own page formats
// under Firecrawl's names. The others Firecrawl knows are refused with a
// 400 that says so (see knownFormats).
var supportedFormats = map[string]bool{"markdown": true, "html": true, "rawHtml": true, "links": true, "images": true,
	"screenshot": true, "screenshot@fullPage": true}

// knownFormats are Firecrawl's formats (v2's and v1's) this service does
// not give yet.
var knownFormats = map[string]bool{
	"rawBase64": true, "deterministicJson": true, "attributes": true, "question": true, "highlights": true,
	"query": true, "branding": true, "product": true, "menu": true, "audio": true, "video": true, "content": true,
}

// SummaryPrompt is what the LLM is asked for a page's summary (the
// summary format), answering summarySchema.
const SummaryPrompt = "Summarize the page in a few sentences: what it is about and what it says, in its own language. Answer the summary alone, in the summary field."

// summarySchema is the shape of a summary's answer.
var summarySchema = json.RawMessage(`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`)

// CrawlOptions maps a Firecrawl crawl request onto the engine's options.
// The body is the request as sent; srv says what this deployment has.
// Errors are *crawl.Error with the Firecrawl field names at fault.
func CrawlOptions(body []byte, srv crawl.Server) (crawl.Options, error) {
	var req CrawlRequest
	if err := decodeStrict(body, &req, InCrawl); err != nil {
		return crawl.Options{}, err
	}
	var bad fieldErrors
	fail := bad.add
	native := map[string]any{"startUrl": strings.TrimSpace(req.URL), "deduplicateContent": false, "includeLinks": true}
	if strings.TrimSpace(req.URL) == "" {
		fail("url", "is required")
	}
	if len(req.Webhook) > 0 {
		native["webhook"] = req.Webhook // read by the service's own rules
	}
	limit := DefaultLimit
	if req.Limit != nil {
		limit = *req.Limit
		if limit < 1 || limit > crawl.MaxResultsCurrent {
			fail("limit", "must be between 1 and %d", crawl.MaxResultsCurrent)
		}
	}
	depth := bad.depth(req.MaxDiscoveryDepth, req.MaxDepth)
	entire := req.CrawlEntireDomain != nil && *req.CrawlEntireDomain || req.AllowBackwardLinks != nil && *req.AllowBackwardLinks
	if entire {
		native["entireWebsite"] = true
	}
	switch req.Sitemap {
	case "", "include", "skip", "only":
	default:
		fail("sitemap", "must be one of skip, include, only")
	}
	bad.crawler(req.Delay, req.IgnoreRobotsTxt, srv)
	if req.Prompt != nil && strings.TrimSpace(*req.Prompt) != "" {
		// The API plans the prompt into options before the request comes
		// here (see crawlplan); it needs an LLM.
		if !srv.LLM {
			fail("prompt", "needs an LLM, and this deployment has none (see CRAWLER_LLM_PROVIDER)")
		} else if len(*req.Prompt) > MaxPrompt {
			fail("prompt", "may hold at most %d characters", MaxPrompt)
		}
	}
	if req.MaxConcurrency != nil {
		if *req.MaxConcurrency < 1 {
			fail("maxConcurrency", "must be at least 1")
		} else {
			native["maxConcurrentPages"] = *req.MaxConcurrency
		}
	}
	bad.regexes("includePaths", req.IncludePaths)
	bad.regexes("excludePaths", req.ExcludePaths)
	so := req.ScrapeOptions
	if so == nil {
		so = &ScrapeOptions{}
	}
	bad = append(bad, scrapeOptions(so, "scrapeOptions.", native, srv)...)
	if len(bad) > 0 {
		return crawl.Options{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid crawl request", Details: bad}
	}
	raw, err := json.Marshal(native)
	if err != nil {
		return crawl.Options{}, err
	}
	o, err := crawl.ParseRequest(raw, srv)
	if err != nil {
		return crawl.Options{}, renameFields(err, "scrapeOptions.")
	}
	o.Shape = crawl.ShapeFirecrawl
	o.MaxResults = &limit
	o.MaxDepth = depth
	o.TimeoutSeconds = CrawlTimeout
	sessionOf(so, &o, srv)
	crawlScope(req, &o)
	o.IncludeOnlyPaths = nonNil(req.IncludePaths)
	o.ExcludePaths = nonNil(req.ExcludePaths)
	return o, nil
}

// fieldErrors gathers the fields at fault in a request.
type fieldErrors []crawl.FieldError

// add records that field is at fault, and why.
func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, crawl.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// regexes records each entry of field's list that Go's regular
// expressions cannot read, and a list that is too long.
func (f *fieldErrors) regexes(field string, list []string) {
	if len(list) > crawl.MaxPatterns {
		f.add(field, "may hold at most %d patterns", crawl.MaxPatterns)
	}
	for i, e := range list {
		if _, err := regexp.Compile(e); err != nil {
			f.add(fmt.Sprintf("%s[%d]", field, i), "is not a regular expression this service reads: %v", err)
		}
	}
}

// crawlScope copies onto o what req says of the crawl's reach: sitemaps,
// query parameters, subdomains, other sites, full-URL path rules, delay.
func crawlScope(req CrawlRequest, o *crawl.Options) {
	on := func(b *bool) bool { return b != nil && *b }
	o.IgnoreQuery = on(req.IgnoreQueryParameters)
	o.KeepSimilarURLs = req.DeduplicateSimilarURLs != nil && !*req.DeduplicateSimilarURLs
	o.AllowSubdomains = on(req.AllowSubdomains)
	o.RegexOnFullURL = on(req.RegexOnFullURL)
	o.AllowExternal = on(req.AllowExternalLinks)
	if req.Delay != nil {
		o.DelayMS = int(*req.Delay * 1000)
	}
	// "only" is the engine's sitemap crawl: the start page and the pages
	// of the site's sitemaps, links not followed. "include" (the default)
	// adds the sitemaps' pages to the start page and follows links from
	// all of them; "skip" (and v1's ignoreSitemap) follows links alone.
	// Sitemap pages are at depth 0, as Firecrawl counts them.
	skip := req.Sitemap == "skip" || req.Sitemap == "" && on(req.IgnoreSitemap)
	o.UseSitemap = !skip
	o.SitemapAndLinks = req.Sitemap != "only"
}

// crawler records the crawler options that are out of range (delay) or
// that this deployment cannot honour (ignoreRobotsTxt where robots.txt is
// obeyed); the fields whose values Fields restricts are refused as the
// request is decoded.
func (f *fieldErrors) crawler(delay *float64, ignoreRobots *bool, srv crawl.Server) {
	if delay != nil && (*delay < 0 || *delay > MaxDelay) {
		f.add("delay", "must be between 0 and %d seconds", MaxDelay)
	}
	if ignoreRobots != nil && *ignoreRobots && srv.ObeyRobots {
		f.add("ignoreRobotsTxt", "is refused: this deployment obeys robots.txt for every crawl")
	}
}

// depth is the link hops a request allows: maxDiscoveryDepth, or v1's
// maxDepth (none given: no limit), recording one out of range.
func (f *fieldErrors) depth(maxDiscoveryDepth, maxDepth *int) int {
	depth := crawl.NoDepthLimit
	for _, d := range []struct {
		name string
		v    *int
	}{{"maxDiscoveryDepth", maxDiscoveryDepth}, {"maxDepth", maxDepth}} {
		if d.v != nil {
			depth = *d.v
			if depth < 0 || depth > crawl.MaxDepthCurrent {
				f.add(d.name, "must be between 0 and %d", crawl.MaxDepthCurrent)
			}
		}
	}
	return depth
}

// scrapeOptions checks so and puts what it maps to into native, the
// service's own request; prefix names the fields in errors.
func scrapeOptions(so *ScrapeOptions, prefix string, native map[string]any, srv crawl.Server) []crawl.FieldError {
	var bad fieldErrors
	fail := func(field, format string, args ...any) { bad.add(prefix+field, format, args...) }
	bad = append(bad, formatsOf(so, prefix, native, srv)...)
	main := true
	if so.OnlyMainContent != nil {
		main = *so.OnlyMainContent
	}
	native["excludeNonMainTags"] = main
	if len(so.IncludeTags) > 0 {
		native["includeOnlyTags"] = so.IncludeTags
	}
	if len(so.ExcludeTags) > 0 {
		native["excludeTags"] = so.ExcludeTags
	}
	if so.WaitFor != nil && *so.WaitFor != 0 {
		if *so.WaitFor < 0 || *so.WaitFor > MaxWaitFor {
			fail("waitFor", "must be between 0 and %d milliseconds", MaxWaitFor)
		} else if !srv.Browser {
			fail("waitFor", "needs the browser engine, which this server does not run")
		} else {
			native["engineType"] = "playwright" // only the browser can wait for a page
		}
	}
	for _, msg := range checkHeaders(so.Headers) {
		fail("headers", "%s", msg)
	}
	if so.Mobile != nil && *so.Mobile {
		if !srv.Browser {
			fail("mobile", "needs the browser engine, which this server does not run")
		} else {
			native["engineType"] = "playwright" // only the browser can be a phone
		}
	}
	acts, problems := pageaction.Parse(so.Actions, waitForMS(so))
	for _, p := range problems {
		fail("actions"+p.Field, "%s", p.Message)
	}
	if len(acts) > 0 {
		if !srv.Browser {
			fail("actions", "needs the browser engine, which this server does not run")
		} else {
			native["engineType"] = "playwright" // only the browser can act on a page
		}
	}
	if so.WaitFor != nil && so.Timeout != nil && *so.Timeout > 0 && *so.WaitFor > *so.Timeout/2 {
		fail("waitFor", "must not exceed half of timeout")
	}
	if _, _, field, msg := proxyOf(so, srv); msg != "" {
		fail(field, "%s", msg)
	}
	for i, lang := range languagesOf(so) {
		if !httpguts.ValidHeaderFieldValue(lang) || strings.ContainsAny(lang, ",;") || lang == "" {
			fail(fmt.Sprintf("location.languages[%d]", i), "is not a language tag")
		}
	}
	if _, _, msg := parsersOf(so.Parsers); msg != "" {
		fail("parsers", "%s", msg)
	}
	for _, a := range []struct {
		name string
		v    *int64
	}{{"maxAge", so.MaxAge}, {"minAge", so.MinAge}} {
		if a.v != nil && *a.v < 0 {
			fail(a.name, "must be 0 or more milliseconds")
		}
	}
	if given(so.ChangeTracking) {
		if _, tracked := native["changeTracking"]; !tracked {
			fail("changeTrackingOptions", "needs the changeTracking format in formats")
		} else {
			bad = append(bad, changeTrackingOf(so.ChangeTracking, prefix+"changeTrackingOptions", native)...)
		}
	}
	return bad
}

// formatsOf checks the formats of so and puts those of the service's
// own request into native (a json format's prompt and schema, change
// tracking's options); prefix names the fields in errors.
func formatsOf(so *ScrapeOptions, prefix string, native map[string]any, srv crawl.Server) []crawl.FieldError {
	var bad fieldErrors
	fail := func(field, format string, args ...any) { bad.add(prefix+field, format, args...) }
	// Every document carries the page's metadata, as Firecrawl's do.
	formats := []string{"metadata"}
	asked := len(so.Formats) == 0
	var tracking json.RawMessage
	var trackingField string
	summary := -1
	for i, f := range so.Formats {
		name, err := formatName(f)
		switch {
		case err != nil:
			fail(fmt.Sprintf("formats[%d]", i), "%v", err)
		case name == "json" || name == "extract":
			bad = append(bad, jsonFormatOf(so, i, f, name, prefix, native)...)
		case name == "changeTracking":
			// Read after the loop: a json format's prompt and schema,
			// wherever it stands, win over this one's.
			tracking, trackingField = f, fmt.Sprintf("%sformats[%d]", prefix, i)
		case name == "markdown":
			asked = true // added once, below
		case name == "summary":
			summary = i
		case supportedFormats[name]:
			formats = append(formats, name)
		case knownFormats[name]:
			fail(fmt.Sprintf("formats[%d]", i), "the format %q is not supported here yet (supported: markdown, html, rawHtml, links, images, screenshot, json, summary, changeTracking)", name)
		default:
			fail(fmt.Sprintf("formats[%d]", i), "unknown format %q", name)
		}
	}
	if tracking != nil {
		bad = append(bad, changeTrackingOf(tracking, trackingField, native)...)
	}
	if summary >= 0 {
		bad = append(bad, summaryOf(fmt.Sprintf("%sformats[%d]", prefix, summary), native, srv)...)
	}
	if asked {
		formats = append(formats, "markdown")
	}
	native["formats"] = formats
	return bad
}

// summaryOf asks each page's summary of the deployment's LLM, as the
// crawl's extraction (field names the summary format in errors): it needs
// an LLM, and a crawl has one extraction, so it does not go with the json
// format.
func summaryOf(field string, native map[string]any, srv crawl.Server) []crawl.FieldError {
	var bad fieldErrors
	_, schema := native["extractionSchema"]
	_, prompt := native["extraction"]
	switch {
	case !srv.LLM:
		bad.add(field, "the summary format needs an LLM, and this deployment has none (see CRAWLER_LLM_PROVIDER)")
	case schema || prompt:
		bad.add(field, "the summary format cannot be asked with the json format or change tracking's json mode here yet")
	default:
		native["extraction"] = SummaryPrompt
		native["extractionSchema"] = summarySchema
	}
	return bad
}

// asksSummary reports whether so's formats hold the summary format.
func asksSummary(so *ScrapeOptions) bool {
	for _, f := range so.Formats {
		if name, err := formatName(f); err == nil && name == "summary" {
			return true
		}
	}
	return false
}

// changeTrackingOf reads the changeTracking format (or v1's
// changeTrackingOptions) at field: the crawl tracks changes; the git-diff
// mode is always on (changed pages carry their diff), and the json mode's
// schema and prompt, unless a json format gave the crawl an extraction
// (that one is kept whole), become its extraction (changed pages then name
// the fields that changed). It is read after every json format.
func changeTrackingOf(raw json.RawMessage, field string, native map[string]any) []crawl.FieldError {
	var bad fieldErrors
	native["changeTracking"] = true
	var opts struct {
		Modes  []string        `json:"modes"`
		Schema json.RawMessage `json:"schema"`
		Prompt string          `json:"prompt"`
		Tag    *string         `json:"tag"`
	}
	if raw[0] != '{' {
		return bad // the format by its name: every default
	}
	if err := json.Unmarshal(raw, &opts); err != nil {
		bad.add(field, "must be an object with modes, schema and prompt")
		return bad
	}
	jsonMode := false
	for i, m := range opts.Modes {
		switch m {
		case "git-diff":
		case "json":
			jsonMode = true
		default:
			bad.add(fmt.Sprintf("%s.modes[%d]", field, i), "must be git-diff or json")
		}
	}
	if opts.Tag != nil {
		bad.add(field+".tag", "is not supported here: a crawl compares with the previous crawl of the same URL, scope and options")
	}
	if !jsonMode || len(bad) > 0 {
		return bad
	}
	if !given(opts.Schema) && strings.TrimSpace(opts.Prompt) == "" {
		bad.add(field, "the json mode needs a schema or a prompt")
		return bad
	}
	_, ownSchema := native["extractionSchema"]
	_, ownPrompt := native["extraction"]
	if ownSchema || ownPrompt {
		return bad // a json format gave the crawl its extraction
	}
	if given(opts.Schema) {
		if _, err := schema.Compile(opts.Schema); err != nil {
			bad.add(field+".schema", "%v", err)
			return bad
		}
		native["extractionSchema"] = opts.Schema
	}
	prompt := strings.TrimSpace(opts.Prompt)
	if prompt == "" {
		prompt = "Extract the fields of the schema from the page."
	}
	native["extraction"] = prompt
	return bad
}

// jsonFormatOf reads the json format at formats[i] (raw): the
// extraction's prompt and schema, from the format object or, for v1's
// "json" and "extract", from jsonOptions or extract. They become the
// crawl's extraction instructions and schema in native.
func jsonFormatOf(so *ScrapeOptions, i int, raw json.RawMessage, name, prefix string, native map[string]any) []crawl.FieldError {
	var bad fieldErrors
	field := fmt.Sprintf("%sformats[%d]", prefix, i)
	var jf jsonFormat
	opts := raw
	if raw[0] == '"' {
		field, opts = prefix+"jsonOptions", so.JSONOptions
		if name == "extract" {
			field, opts = prefix+"extract", so.ExtractOptions
		}
	}
	if given(opts) {
		if err := json.Unmarshal(opts, &jf); err != nil {
			bad.add(field, "must be an object with prompt and schema")
			return bad
		}
	}
	prompt := strings.TrimSpace(strings.TrimSpace(jf.SystemPrompt) + "\n" + strings.TrimSpace(jf.Prompt))
	if prompt == "" && !given(jf.Schema) {
		bad.add(field, "the json format needs a prompt or a schema")
		return bad
	}
	if given(jf.Schema) {
		if _, err := schema.Compile(jf.Schema); err != nil {
			bad.add(field+".schema", "%v", err)
			return bad
		}
		native["extractionSchema"] = jf.Schema
	}
	if prompt != "" {
		native["extraction"] = prompt
	}
	return bad
}

// formatName reads one entry of formats: a name, or an object with a type.
func formatName(f json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(f, &name); err == nil {
		return name, nil
	}
	var obj struct {
		Type     string          `json:"type"`
		FullPage bool            `json:"fullPage"`
		Quality  json.RawMessage `json:"quality"`
		Viewport json.RawMessage `json:"viewport"`
	}
	if err := json.Unmarshal(f, &obj); err != nil || obj.Type == "" {
		return "", fmt.Errorf("must be a format's name or an object with its type")
	}
	if obj.Type == "screenshot" {
		if _, msg := screenshotQuality(obj.Quality); msg != "" {
			return "", fmt.Errorf("quality %s", msg)
		}
		if _, msg := pageaction.ParseViewport(obj.Viewport); msg != "" {
			return "", fmt.Errorf("viewport: %s", msg)
		}
		if obj.FullPage {
			return "screenshot@fullPage", nil
		}
	}
	return obj.Type, nil
}

// screenshotQuality reads a screenshot format's quality (a number from 1
// to 100; absent: 0, the default), or says what is wrong with it.
func screenshotQuality(raw json.RawMessage) (int, string) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return 0, ""
	}
	var q float64
	if err := json.Unmarshal(raw, &q); err != nil || q < 1 || q > 100 {
		return 0, "must be a number from 1 to 100"
	}
	return int(math.Round(q)), ""
}

// shotSettings are the quality and viewport (as JSON, nil for the
// session's) of the screenshot format so asks for, once checked.
func shotSettings(so *ScrapeOptions) (int, json.RawMessage) {
	for _, f := range so.Formats {
		var obj struct {
			Type     string          `json:"type"`
			Quality  json.RawMessage `json:"quality"`
			Viewport json.RawMessage `json:"viewport"`
		}
		if json.Unmarshal(f, &obj) != nil || obj.Type != "screenshot" {
			continue
		}
		q, _ := screenshotQuality(obj.Quality)
		if vp, _ := pageaction.ParseViewport(obj.Viewport); vp != nil {
			b, _ := json.Marshal(vp)
			return q, b
		}
		return q, nil
	}
	return 0, nil
}

// given reports whether a raw field was sent with a value other than null,
// false, 0 or an empty list or object.
func given(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "", "null", "false", "0", "[]", "{}":
		return false
	}
	return true
}

// renameFields gives the service's own field names in err the names the
// Firecrawl request used for them.
func renameFields(err error, scrapePrefix string) error {
	e, ok := err.(*crawl.Error)
	if !ok {
		return err
	}
	names := map[string]string{"startUrl": "url", "startUrls": "url", "maxConcurrentPages": "maxConcurrency",
		"includeOnlyTags": scrapePrefix + "includeTags", "excludeTags": scrapePrefix + "excludeTags",
		"formats":    scrapePrefix + "formats",
		"extraction": scrapePrefix + "formats.json.prompt", "extractionSchema": scrapePrefix + "formats.json.schema"}
	out := &crawl.Error{Code: e.Code, Message: e.Message}
	for _, d := range e.Details {
		field, rest, _ := strings.Cut(d.Field, "[")
		if n, ok := names[field]; ok {
			d.Field = n
			if rest != "" {
				d.Field += "[" + rest
			}
		}
		out.Details = append(out.Details, d)
	}
	return out
}

// decodeStrict decodes body into v, refusing fields that are not
// Firecrawl's in where (and in a crawl's or an extraction's
// scrapeOptions, not Firecrawl's scrape options), and values of them the
// service cannot honour.
func decodeStrict(body []byte, v any, where Where) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return &crawl.Error{Code: crawl.EINVALID, Message: "the request body must be a JSON object"}
	}
	var bad fieldErrors
	fields := FieldsIn(where)
	for _, k := range sortedKeys(top) {
		if !fields[k] {
			bad.add(k, "is not a field of this request")
		}
	}
	refuseUnhonoured(top, where, "", &bad)
	if inner, ok := top["scrapeOptions"]; ok && where&(InCrawl|InExtract|InSearch) != 0 && given(inner) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(inner, &obj); err != nil {
			bad.add("scrapeOptions", "must be an object")
		}
		nested := FieldsIn(InScrapeOptions)
		for _, k := range sortedKeys(obj) {
			if !nested[k] {
				bad.add("scrapeOptions."+k, "is not a field of scrapeOptions")
			}
		}
		refuseUnhonoured(obj, InScrapeOptions, "scrapeOptions.", &bad)
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid request", Details: bad}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid request", Details: []crawl.FieldError{{Field: typeErrorField(err), Message: "has the wrong type"}}}
	}
	return nil
}

// typeErrorField names the field of a JSON type error.
func typeErrorField(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return te.Field
	}
	return "body"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
