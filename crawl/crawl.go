// Package crawl holds the service's domain: a crawl's options and status,
// the rules that turn a create request into options, and the error codes the
// rest of the service speaks.
package crawl

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/durablecrawl/crawler/webhook"
)

// Status is the state of a crawl.
type Status string

// The statuses of a crawl. Every status but StatusRunning is terminal.
const (
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusAborted   Status = "aborted"
	StatusTimedOut  Status = "timed_out"
	StatusError     Status = "error"
)

// Terminal reports whether no further transition can leave s.
func (s Status) Terminal() bool { return s != StatusRunning }

// Statuses lists every status a crawl can have.
var Statuses = []Status{StatusRunning, StatusSucceeded, StatusFailed, StatusAborted, StatusTimedOut, StatusError}

// Known reports whether s is one of Statuses.
func (s Status) Known() bool {
	for _, x := range Statuses {
		if s == x {
			return true
		}
	}
	return false
}

// Engine types (engineType, and engine in the older request shape).
const (
	EngineAuto       = "auto"
	EngineCheerio    = "cheerio"
	EnginePlaywright = "playwright"
)

// Origins of a crawl.
const (
	OriginAPI = "api"
	OriginWeb = "web"
)

// Request shapes: the two POST /crawls accepts, and Firecrawl's (the
// /v1 and /v2 API), whose crawls read some options with Firecrawl's
// meanings (see Unbounded, DepthLimit and PathRegexes).
const (
	ShapeCurrent   = "current"   // startUrl, engineType
	ShapeLegacy    = "legacy"    // startUrls, engine
	ShapeFirecrawl = "firecrawl" // url, limit, crawlEntireDomain, …
)

// NoDepthLimit is MaxDepth of a crawl whose links are followed at any
// depth (Firecrawl's crawls without maxDiscoveryDepth).
const NoDepthLimit = -1

// Options are a crawl's effective options, after defaults. They are stored
// with the crawl and read by the activities; the workflow never sees them.
//
// This struct is the one definition of the options; each field's tags say
// all that the rest of the service needs to know about it:
//   - json: its name in a create request and in the Crawl object the API
//     answers ("-": neither);
//   - bun: its column in the crawls table (Crawl, the record, embeds Options);
//   - option: how ParseRequest reads it from a request (see optionRule);
//     "custom" marks the fields whose rules ParseRequest spells out in code.
//
// ParseRequest reads the fields in the order they are declared here, which
// is the order of the errors it reports.
type Options struct {
	Shape      string   `json:"-" bun:"request_shape,notnull"`
	StartURLs  []string `json:"startUrls" bun:"start_urls,array,notnull" option:"custom"`
	MaxResults *int     `json:"maxResults" bun:"max_results" option:"custom"` // nil: bounded by the server's page cap only
	MaxDepth   int      `json:"maxDepth" bun:"max_depth,notnull" option:"custom"`

	UseSitemap           bool `json:"useSitemap" bun:"use_sitemap,notnull" option:"default=false"`
	EntireWebsite        bool `json:"entireWebsite" bun:"entire_website,notnull" option:"default=false"`
	ExcludeNonMainTags   bool `json:"excludeNonMainTags" bun:"exclude_non_main_tags,notnull" option:"default=true"`
	IncludeLinks         bool `json:"includeLinks" bun:"include_links,notnull" option:"default=true"`
	DeduplicateContent   bool `json:"deduplicateContent" bun:"deduplicate_content,notnull" option:"default=true"`
	IncludeExternalLinks bool `json:"includeExternalLinks" bun:"include_external_links,notnull" option:"default=false"`
	UseStaticIPs         bool `json:"useStaticIps" bun:"use_static_ips,notnull" option:"custom"`

	Extraction string `json:"extraction" bun:"extraction,notnull" option:"custom"`
	// ExtractionSchema is a JSON Schema the extraction's answer must
	// validate against (see package schema); nil when there is none.
	ExtractionSchema json.RawMessage `json:"extractionSchema" bun:"extraction_schema,type:jsonb,nullzero" option:"custom"`
	EngineType       string          `json:"engineType" bun:"engine_type,notnull" option:"custom"`
	// A week is the longest timeout: it bounds how long a workflow may run.
	TimeoutSeconds     int    `json:"timeout" bun:"timeout_seconds,notnull" option:"min=60,max=604800,default=1800"`
	Origin             string `json:"origin" bun:"origin,notnull" option:"oneof=api|web,default=api"`
	Stack              string `json:"stack" bun:"stack,notnull" option:"custom"`
	MaxConcurrentPages *int   `json:"maxConcurrentPages" bun:"max_concurrent_pages" option:"min=1,max=1000"`

	IncludeOnlyPaths []string `json:"includeOnlyPaths" bun:"include_only_paths,array,notnull" option:"each=path"`
	ExcludePaths     []string `json:"excludePaths" bun:"exclude_paths,array,notnull" option:"each=path"`
	IncludeOnlyTags  []string `json:"includeOnlyTags" bun:"include_only_tags,array,notnull" option:"each=selector"`
	ExcludeTags      []string `json:"excludeTags" bun:"exclude_tags,array,notnull" option:"each=selector"`

	// Formats are the forms of each page kept besides its markdown (see
	// pageformats): html, rawHtml, links, images, metadata, and the
	// screenshots, which need the browser engine.
	Formats []string `json:"formats" bun:"formats,array,notnull" option:"custom"`

	// MapOnly marks the crawl of a Firecrawl map: its pages are fetched
	// for their links only, and kept without markdown.
	MapOnly bool `json:"-" bun:"map_only,notnull"`
	// SitemapAndLinks follows links from every page of a crawl that has
	// useSitemap, also when the sitemaps gave it pages (Firecrawl's
	// sitemap "include" for a map).
	SitemapAndLinks bool `json:"-" bun:"sitemap_and_links,notnull"`
	// DelayMS is a pause after each request, pages then fetched one at a
	// time (Firecrawl's delay); a site's longer Crawl-delay still wins.
	DelayMS int `json:"-" bun:"delay_ms,notnull"`
	// AllowSubdomains also follows links to the start hosts' subdomains;
	// AllowExternal to any host (Firecrawl's allowSubdomains and
	// allowExternalLinks). limit and depth still bound the crawl.
	AllowSubdomains bool `json:"-" bun:"allow_subdomains,notnull"`
	AllowExternal   bool `json:"-" bun:"allow_external,notnull"`
	// RegexOnFullURL matches includeOnlyPaths and excludePaths (regular
	// expressions) against the whole URL, not its path (Firecrawl's
	// regexOnFullURL).
	RegexOnFullURL bool `json:"-" bun:"regex_on_full_url,notnull"`
	// IgnoreQuery makes URLs that differ only in their query one page of
	// the crawl, the first found fetched (Firecrawl's
	// ignoreQueryParameters).
	IgnoreQuery bool `json:"-" bun:"ignore_query,notnull"`
	// KeepSimilarURLs stores a page whose content repeats a page of the
	// crawl at an address of the same page (another query, a print
	// view) as a result of its own, where it is otherwise recorded as that
	// page's duplicate (Firecrawl's deduplicateSimilarURLs false, and a
	// batch scrape, whose addresses are each asked for).
	KeepSimilarURLs bool `json:"-" bun:"keep_similar_urls,notnull"`
	// KeepErrorPages keeps a page the server answered with an error status
	// (4xx or 5xx) and an HTML body as a result, its status and the error
	// noted, at once, without retries (a Firecrawl scrape, which answers
	// the page with metadata.statusCode 404 rather than an error).
	KeepErrorPages bool `json:"-" bun:"keep_error_pages,notnull"`
	// Headers are sent with every page request (Firecrawl's headers); they
	// may hold credentials, so they stay in the database, never in
	// workflow history or answers. Mobile renders pages as a phone would
	// (Firecrawl's mobile).
	Headers map[string]string `json:"-" bun:"headers,type:jsonb"`
	Mobile  bool              `json:"-" bun:"mobile,notnull"`
	// WaitForMS is how long the browser waits on each page after it has
	// loaded and settled, before reading it (Firecrawl's waitFor).
	WaitForMS int `json:"-" bun:"wait_for_ms,notnull"`
	// Actions are the steps the browser takes on each page before reading
	// it (pageaction.Encode's list; Firecrawl's actions): the crawl is
	// rendered. ScreenshotQuality (JPEG, 1 to 100; 0 the default) and
	// ScreenshotViewport ({width, height}; nil the session's) are how
	// the screenshot formats are taken.
	Actions            json.RawMessage `json:"-" bun:"actions,type:jsonb,nullzero"`
	ScreenshotQuality  int             `json:"-" bun:"screenshot_quality,notnull"`
	ScreenshotViewport json.RawMessage `json:"-" bun:"screenshot_viewport,type:jsonb,nullzero"`
	// ProxyKind is the operator's proxy pool the crawl's requests go
	// through (Firecrawl's proxy: basic, stealth, enhanced; auto: basic
	// where there is such a pool, and the stealth pool again for a page
	// that answered as blocked; "": none), for ProxyCountry ("" any).
	ProxyKind    string `json:"-" bun:"proxy_kind,notnull"`
	ProxyCountry string `json:"-" bun:"proxy_country,notnull"`
	// SkipPDFs leaves PDF documents out (Firecrawl's parsers without
	// "pdf"); PDFMaxPages reads at most this many pages of each (its
	// maxPages; 0: the server's bound).
	SkipPDFs    bool `json:"-" bun:"skip_pdfs,notnull"`
	PDFMaxPages int  `json:"-" bun:"pdf_max_pages,notnull"`

	// Webhook is where the crawl's events go (see package webhook); nil
	// when the crawl has none.
	Webhook *webhook.Config `json:"webhook" bun:"webhook,type:jsonb" option:"custom"`

	// ChangeTracking compares each page with the same page of the previous
	// crawl like this one (see BaselineKey): pages are asked for with the
	// validators that crawl stored, unchanged ones keep its markdown and
	// extraction, and every result says whether it is new, changed or the
	// same (package changes).
	ChangeTracking bool `json:"changeTracking" bun:"change_tracking,notnull" option:"default=false"`

	// KeepOutOfCache keeps the crawl's pages out of the page cache (a
	// Firecrawl request's storeInCache false); see CacheKey.
	KeepOutOfCache bool `json:"-" bun:"keep_out_of_cache,notnull"`
}

// CacheKey names the pages of this crawl a later scrape may be answered
// with (Firecrawl's maxAge): those of crawls whose pages are read and
// converted the same way — engine, request headers, egress, formats,
// main content and tag rules, extraction, PDFs, deduplication — whatever
// their start URLs, scope and limits. It is "" for a crawl whose pages
// are kept out of the cache: asked so, a map (its pages have no
// markdown), a crawl that tracks changes (its unchanged pages keep an
// earlier crawl's markdown), or one whose pages are read after actions
// (what a page shows then is the actions', not the address's).
func (o Options) CacheKey() string {
	if o.KeepOutOfCache || o.MapOnly || o.ChangeTracking || len(o.Actions) > 0 {
		return ""
	}
	formats := slices.Clone(list(o.Formats))
	slices.Sort(formats)
	key := struct {
		Shape                                 string
		MainOnly, Links, ExternalLinks, Dedup bool
		Extraction                            string
		ExtractionSchema                      json.RawMessage
		EngineType, Stack                     string
		IncludeOnlyTags, ExcludeTags, Formats []string
		Mobile, StaticIPs, SkipPDFs           bool
		WaitForMS, PDFMaxPages                int
		Headers                               map[string]string
		// Added after keys were stored: left out when unset.
		ProxyCountry string `json:",omitempty"`
	}{o.Shape, o.ExcludeNonMainTags, o.IncludeLinks, o.IncludeExternalLinks, o.DeduplicateContent,
		o.Extraction, canonicalJSON(o.ExtractionSchema), o.EngineType, o.Stack,
		list(o.IncludeOnlyTags), list(o.ExcludeTags), formats, o.Mobile, o.UseStaticIPs, o.SkipPDFs,
		o.WaitForMS, o.PDFMaxPages, o.Headers, o.ProxyCountry}
	if len(key.Headers) == 0 {
		key.Headers = nil
	}
	b, _ := json.Marshal(key) // plain values: it cannot fail
	sum := sha256.Sum256(b)
	return "c1-" + hex.EncodeToString(sum[:16])
}

// canonicalJSON is raw decoded and encoded again, so that every spelling
// of it (a schema read back from jsonb has its keys reordered) is one; nil
// when it holds nothing.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return nil
	}
	out, _ := json.Marshal(v)
	return out
}

// BaselineKey names what a crawl's pages can be compared with: crawls of
// the same request shape, start URLs, scope, engine, request headers,
// egress and conversion options (PDFs' among them) give the same key (a digest: header
// values are not kept in it). Limits, timeouts, pacing and webhooks do not
// change what a page is, and are left out.
func (o Options) BaselineKey() string {
	key := struct {
		Shape                                      string
		StartURLs                                  []string
		MaxDepth                                   int
		UseSitemap, EntireWebsite, MainOnly, Links bool
		ExternalLinks                              bool
		Extraction                                 string
		ExtractionSchema                           json.RawMessage
		EngineType, Stack                          string
		IncludeOnlyPaths, ExcludePaths             []string
		IncludeOnlyTags, ExcludeTags, Formats      []string
		MapOnly, SitemapAndLinks, AllowSubdomains  bool
		AllowExternal, RegexOnFullURL, IgnoreQuery bool
		Mobile, StaticIPs                          bool
		WaitForMS                                  int
		Headers                                    map[string]string
		// Added after keys were stored: left out when unset, so that
		// those keys still match.
		SkipPDFs           bool            `json:",omitempty"`
		PDFMaxPages        int             `json:",omitempty"`
		Actions            json.RawMessage `json:",omitempty"`
		ScreenshotQuality  int             `json:",omitempty"`
		ScreenshotViewport json.RawMessage `json:",omitempty"`
	}{o.Shape, list(o.StartURLs), o.MaxDepth, o.UseSitemap, o.EntireWebsite, o.ExcludeNonMainTags, o.IncludeLinks,
		o.IncludeExternalLinks, o.Extraction, o.ExtractionSchema, o.EngineType, o.Stack,
		list(o.IncludeOnlyPaths), list(o.ExcludePaths), list(o.IncludeOnlyTags), list(o.ExcludeTags), list(o.Formats),
		o.MapOnly, o.SitemapAndLinks, o.AllowSubdomains, o.AllowExternal, o.RegexOnFullURL, o.IgnoreQuery,
		o.Mobile, o.UseStaticIPs, o.WaitForMS, o.Headers, o.SkipPDFs, o.PDFMaxPages,
		canonicalJSON(o.Actions), o.ScreenshotQuality, canonicalJSON(o.ScreenshotViewport)}
	if len(key.Headers) == 0 {
		key.Headers = nil
	}
	// A schema read back from the database has its keys in jsonb's order:
	// decoded and encoded again, every spelling of it is one.
	var schema any
	if json.Unmarshal(key.ExtractionSchema, &schema) != nil || schema == nil {
		key.ExtractionSchema = nil
	} else {
		key.ExtractionSchema, _ = json.Marshal(schema)
	}
	b, _ := json.Marshal(key) // plain values: it cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Unbounded reports whether maxResults and maxDepth are ignored: with
// useSitemap or entireWebsite only the server's page cap and the timeout
// bound the crawl.
func (o Options) Unbounded() bool {
	// A Firecrawl crawl of a whole domain still has its limit and depth.
	return (o.UseSitemap || o.EntireWebsite) && o.Shape != ShapeFirecrawl
}

// PathRegexes reports whether IncludeOnlyPaths and ExcludePaths are
// regular expressions searched in the URL's path, as Firecrawl reads
// includePaths and excludePaths, rather than globs.
func (o Options) PathRegexes() bool { return o.Shape == ShapeFirecrawl }

// PageBudget is the most result pages the crawl may store.
func (o Options) PageBudget(serverCap int) int {
	if o.Unbounded() || o.MaxResults == nil || *o.MaxResults > serverCap {
		return serverCap
	}
	return *o.MaxResults
}

// DepthLimit is the deepest link hop followed; -1 means no limit.
func (o Options) DepthLimit() int {
	if o.Unbounded() || o.MaxDepth < 0 {
		return -1
	}
	return o.MaxDepth
}

// Concurrency is the number of pages the crawl keeps in flight.
func (o Options) Concurrency(def, limit int) int {
	n := def
	if o.MaxConcurrentPages != nil {
		n = *o.MaxConcurrentPages
	}
	return min(max(n, 1), limit)
}

// Duration of a crawl in whole seconds, from creation to completion (or to
// now while it runs).
func Duration(createdAt time.Time, completedAt *time.Time, now time.Time) int64 {
	end := now
	if completedAt != nil {
		end = *completedAt
	}
	d := int64(end.Sub(createdAt) / time.Second)
	if d < 0 {
		return 0
	}
	return d
}

// list is l with nil as empty: a list left out and an empty one are the
// same option.
func list(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// ExecutionMargin is added to a crawl's timeout to give its workflow an
// execution timeout: a backstop for a crawl whose own timer could not end
// it. The reconciler marks such crawls timed_out.
const ExecutionMargin = 15 * time.Minute

// ExecutionTimeout is the execution timeout of the workflow of a crawl
// with options o: its timeout and a margin, and for a crawl with a webhook
// the time its last events may be tried after it ends (two retry windows,
// webhookRetryFor each or webhook.DefaultRetryFor: the page events', then
// the end event's, which begins once they are done with).
func ExecutionTimeout(o Options, webhookRetryFor time.Duration) time.Duration {
	d := time.Duration(o.TimeoutSeconds)*time.Second + ExecutionMargin
	if o.Webhook != nil {
		if webhookRetryFor <= 0 {
			webhookRetryFor = webhook.DefaultRetryFor
		}
		d += 2*webhookRetryFor + time.Hour
	}
	return d
}
