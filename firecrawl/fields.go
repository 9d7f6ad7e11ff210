package firecrawl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The request fields of Firecrawl's API (its v2 and v1 request schemas)
// are the contract: every field is accepted with Firecrawl's type, and
// each is honoured or has a meaning of its own here, written down in
// Fields. A field whose value the service cannot honour is accepted at the
// values listed in its Accept (Firecrawl's default among them) and
// refused with a 400 naming it otherwise. docs/firecrawl.md holds the
// same list as a table (see FieldTable).

// Where is the set of requests a field belongs to.
type Where uint8

const (
	// InScrape is POST /scrape's body.
	InScrape Where = 1 << iota
	// InBatch is POST /batch/scrape's body.
	InBatch
	// InCrawl is POST /crawl's body.
	InCrawl
	// InMap is POST /map's body.
	InMap
	// InScrapeOptions is a crawl's (or an extraction's) scrapeOptions.
	InScrapeOptions
	// InExtract is POST /extract's body.
	InExtract
	// InSearch is POST /search's body.
	InSearch

	// scrapeOpts are the fields of Firecrawl's scrape options: a
	// scrape's and a batch's body, and a crawl's scrapeOptions.
	scrapeOpts = InScrape | InBatch | InScrapeOptions
)

// Field is one field of Firecrawl's request schemas.
type Field struct {
	Name string
	In   Where
	// Version is "v1" or "v2" for a field of one version's schemas
	// only, "" for both.
	Version string
	// Default is Firecrawl's default, as JSON ("" when it has none).
	Default string
	// Accept lists, as JSON, the only values accepted of a field the
	// service cannot honour (absent and null are always accepted); nil
	// accepts any value of the field's type.
	Accept []string
	// Why says why another value is refused.
	Why string
	// Firecrawl is what the field means to Firecrawl; Here what the
	// service does with it.
	Firecrawl, Here string
}

// noSuchFeature is the reason given for the values of a field of
// Firecrawl's hosted service this service has no counterpart of.
const noSuchFeature = "is not supported here: the service has no such feature"

// Fields is every field of Firecrawl's scrape, batch-scrape, crawl and
// map request schemas, v2's and v1's.
var Fields = []Field{
	// Every request.
	{Name: "url", In: InScrape | InCrawl | InMap, Firecrawl: "the page or site (http or https)",
		Here: "the start URL; private addresses are refused unless the deployment allows them"},
	{Name: "origin", In: InScrape | InBatch | InCrawl | InMap | InExtract | InSearch, Default: `"api"`, Firecrawl: "a label of the caller",
		Here: "accepted as a label; the crawl is recorded with origin api"},
	{Name: "integration", In: InScrape | InBatch | InCrawl | InMap | InScrapeOptions | InExtract | InSearch, Firecrawl: "the integration that sent the request",
		Here: "accepted as a label"},
	{Name: "zeroDataRetention", In: InScrape | InBatch | InCrawl, Accept: []string{"false"},
		Why:       "is not supported here: the service keeps a crawl's pages until the crawl is deleted (DELETE /crawls/{id})",
		Firecrawl: "keep nothing of the request once answered", Here: "false only"},
	{Name: "__agentInterop", In: InScrape | InBatch | InSearch, Accept: []string{}, Why: noSuchFeature,
		Firecrawl: "internal: a request made by Firecrawl's agent", Here: "refused when given"},

	// Scrape options.
	{Name: "formats", In: scrapeOpts, Default: `["markdown"]`, Firecrawl: "what each document holds",
		Here: "markdown, html, rawHtml, links, images, screenshot, json, changeTracking, summary (see Crawl options); the others are refused naming the entry"},
	{Name: "headers", In: scrapeOpts | InMap, Firecrawl: "headers sent with each request",
		Here: "sent to the pages' own hosts, at most 50; headers a transport sets are refused"},
	{Name: "includeTags", In: scrapeOpts, Firecrawl: "CSS selectors of the only elements kept", Here: "honoured"},
	{Name: "excludeTags", In: scrapeOpts, Firecrawl: "CSS selectors of elements removed", Here: "honoured"},
	{Name: "onlyMainContent", In: scrapeOpts, Default: "true", Firecrawl: "the page's main content only", Here: "honoured"},
	{Name: "onlyCleanContent", In: scrapeOpts, Default: "false", Accept: []string{"false"},
		Why:       "is not supported here: onlyMainContent gives the main content",
		Firecrawl: "an LLM pass that cleans the content", Here: "false only"},
	{Name: "timeout", In: scrapeOpts | InMap | InExtract, Firecrawl: "milliseconds a scrape (or map, or extraction) may take, at least 1000",
		Here: "a scrape's and a map's bound (1,000 to 300,000; default 60,000); in a batch, crawl or extraction each page has the engine's fetch timeouts"},
	{Name: "waitFor", In: scrapeOpts, Default: "0", Firecrawl: "milliseconds to wait before reading the page (at most 60,000 and half the timeout)",
		Here: "the page is rendered in the browser and read that long after it settled"},
	{Name: "mobile", In: scrapeOpts, Default: "false", Firecrawl: "read the page as a phone", Here: "rendered in the browser as a phone"},
	{Name: "parsers", In: scrapeOpts, Default: `["pdf","image"]`, Firecrawl: "how PDF (and image) files are read",
		Here: `"pdf" (or {"type":"pdf","maxPages":n,"mode":"fast"|"auto"}) reads PDFs; "image" is accepted, image files are not read (no OCR); [] leaves PDFs out`},
	{Name: "parsePDF", In: scrapeOpts, Version: "v1", Default: "true", Firecrawl: "read PDF files", Here: "false leaves PDFs out"},
	{Name: "actions", In: scrapeOpts, Firecrawl: "clicks, typing and scrolls before the page is read",
		Here: "run in order in the browser before each page is read (at most 50, with at most 60 s of waiting in all, waitFor included); the document's actions holds their screenshots, scrapes, javascriptReturns and pdfs; a failed action fails the page, naming it and why"},
	{Name: "location", In: scrapeOpts | InMap, Firecrawl: "{country, languages}: where the request appears to come from",
		Here: "languages become the Accept-Language header; a country sends the requests through the operator's pool of that country (kind@COUNTRY), a 400 without one"},
	{Name: "geolocation", In: scrapeOpts, Version: "v1", Firecrawl: "v1's name of location", Here: "as location"},
	{Name: "skipTlsVerification", In: scrapeOpts, Firecrawl: "accept any TLS certificate (Firecrawl's default unless headers or actions are given)",
		Here: "accepted; certificates are always verified"},
	{Name: "removeBase64Images", In: scrapeOpts, Default: "true", Firecrawl: "leave base64 images out of the markdown",
		Here: "base64 images are always left out of the markdown (an image's alt text stays)"},
	{Name: "fastMode", In: scrapeOpts, Default: "false", Firecrawl: "a quicker, less thorough scrape", Here: "accepted; every scrape is read the same way"},
	{Name: "useMock", In: scrapeOpts | InMap, Accept: []string{`""`}, Why: "is not supported here: it names Firecrawl's own test fixtures",
		Firecrawl: "internal: answer from a recorded fixture", Here: "refused when given"},
	{Name: "blockAds", In: scrapeOpts, Default: "true", Firecrawl: "block ads and cookie banners",
		Here: "accepted; the static engine loads no page resources, the browser engine loads no images, fonts or media"},
	{Name: "proxy", In: scrapeOpts, Default: `"auto"`, Firecrawl: "basic, stealth, enhanced or auto proxies",
		Here: "the operator's pools (CRAWLER_PROXY_POOLS), in rotation: basic through the basic pool (directly without one); stealth and enhanced through their pools (a 400 without one); auto through the basic pool, a page answered 403, 429 or a challenge fetched again through the stealth pool"},
	{Name: "maxAge", In: scrapeOpts, Firecrawl: "answer from a cached copy younger than this many milliseconds",
		Here: "a scrape is answered from the team's cache (see Cache); none given: 0, always fetched"},
	{Name: "minAge", In: scrapeOpts, Version: "v2", Firecrawl: "answer only from a cached copy at least this old",
		Here: "a scrape is answered from a cached copy at least this old, or refused with 404 when there is none"},
	{Name: "storeInCache", In: scrapeOpts, Default: "true", Firecrawl: "keep the page in the cache", Here: "false keeps the pages out of the cache"},
	{Name: "lockdown", In: scrapeOpts, Version: "v2", Default: "false", Accept: []string{"false"}, Why: noSuchFeature,
		Firecrawl: "answer from the cache alone, never fetching", Here: "false only (minAge answers from the cache alone)"},
	{Name: "safeMode", In: scrapeOpts, Version: "v2", Accept: []string{"false"}, Why: noSuchFeature,
		Firecrawl: "a restricted scrape mode", Here: "false only"},
	{Name: "redactPII", In: scrapeOpts, Version: "v2", Accept: []string{"false"}, Why: noSuchFeature,
		Firecrawl: "redact personal data from the answer", Here: "false only"},
	{Name: "threatProtection", In: scrapeOpts | InMap | InExtract, Accept: []string{"{}"}, Why: noSuchFeature,
		Firecrawl: "enterprise: a per-request threat-protection policy", Here: "refused when given"},
	{Name: "auditMetadata", In: scrapeOpts | InMap, Firecrawl: "enterprise: labels for the audit log",
		Here: "accepted; the service has no audit log (the crawl's own log records the request)"},
	{Name: "profile", In: scrapeOpts, Version: "v2", Accept: []string{}, Why: noSuchFeature,
		Firecrawl: "a saved browser profile to scrape with", Here: "refused when given"},
	{Name: "jsonOptions", In: scrapeOpts, Version: "v1", Firecrawl: "the json format's prompt and schema", Here: "honoured (see formats)"},
	{Name: "extract", In: scrapeOpts, Version: "v1", Firecrawl: "the extract format's prompt and schema", Here: "honoured (see formats)"},
	{Name: "changeTrackingOptions", In: scrapeOpts, Version: "v1", Firecrawl: "the changeTracking format's options", Here: "honoured (see formats)"},
	{Name: "agent", In: InScrape, Version: "v1", Accept: []string{}, Why: noSuchFeature,
		Firecrawl: "FIRE-1 agent that acts on the page", Here: "refused when given"},
	{Name: "__searchPreviewToken", In: scrapeOpts, Accept: []string{}, Why: noSuchFeature, Firecrawl: "internal", Here: "refused when given"},
	{Name: "__experimental_omce", In: scrapeOpts, Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "__experimental_omceDomain", In: scrapeOpts, Accept: []string{}, Why: noSuchFeature, Firecrawl: "internal", Here: "refused when given"},
	{Name: "__experimental_engpicker", In: scrapeOpts, Version: "v2", Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "__experimental_cache", In: scrapeOpts, Version: "v1", Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "__forceFirePDF", In: scrapeOpts, Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},

	// Batch scrape.
	{Name: "urls", In: InBatch | InExtract, Firecrawl: "the pages to scrape (an extraction's may end in /* for a whole site)",
		Here: "at most 1,000; a URL given twice is scraped once; an extraction's URL ending in /* is a crawl of that part of its site (sitemaps and links, within limit pages)"},
	{Name: "ignoreInvalidURLs", In: InBatch | InExtract, Default: "true (v1: false)", Firecrawl: "leave out URLs that are not valid instead of refusing the batch",
		Here: "honoured, with Firecrawl's default of each version; those left out are listed in invalidURLs"},
	{Name: "appendToId", In: InBatch, Accept: []string{}, Why: "is not supported here yet: start a batch of its own",
		Firecrawl: "add the URLs to a running batch", Here: "refused when given"},

	// Crawl (and map, which shares Firecrawl's crawler options).
	{Name: "scrapeOptions", In: InCrawl | InExtract, Firecrawl: "how each page is read (the scrape options above)", Here: "honoured"},
	{Name: "limit", In: InCrawl | InMap | InExtract, Default: "10000 (map: 5000)", Firecrawl: "pages crawled (a map's URLs answered)",
		Here: "crawl: pages stored, 1 to 10,000; map: URLs answered, 1 to 100,000; extract: the pages a wildcard's crawl reads, 1 to 1,000, default 100"},
	{Name: "maxDiscoveryDepth", In: InCrawl | InMap, Firecrawl: "link hops from the start page (sitemap pages count as 0)", Here: "honoured, 0 to 100"},
	{Name: "maxDepth", In: InCrawl | InMap, Version: "v1", Default: "10", Firecrawl: "v1's depth bound",
		Here: "read as maxDiscoveryDepth; none given: no depth limit"},
	{Name: "includePaths", In: InCrawl | InMap, Default: "[]", Firecrawl: "regular expressions a URL's path must match", Here: "honoured (RE2)"},
	{Name: "excludePaths", In: InCrawl | InMap, Default: "[]", Firecrawl: "regular expressions a URL's path must not match", Here: "honoured (RE2)"},
	{Name: "regexOnFullURL", In: InCrawl | InMap, Default: "false", Firecrawl: "path rules match the whole URL", Here: "honoured"},
	{Name: "crawlEntireDomain", In: InCrawl | InMap, Default: "false", Firecrawl: "the whole domain, not only below the start URL",
		Here: "honoured (a map always takes the whole host)"},
	{Name: "allowBackwardLinks", In: InCrawl | InMap, Version: "v1", Default: "false", Firecrawl: "v1's name of crawlEntireDomain", Here: "as crawlEntireDomain"},
	{Name: "allowExternalLinks", In: InCrawl | InMap | InExtract, Default: "false", Firecrawl: "follow links to other sites",
		Here: "honoured (an extraction's wildcard crawl follows them too)"},
	{Name: "allowSubdomains", In: InCrawl | InMap, Default: "false", Firecrawl: "follow links to subdomains", Here: "honoured"},
	{Name: "ignoreRobotsTxt", In: InCrawl | InMap, Default: "false", Firecrawl: "crawl what robots.txt disallows",
		Here: "true is refused on a deployment that obeys robots.txt (CRAWLER_OBEY_ROBOTS, the default), accepted on one that does not"},
	{Name: "robotsUserAgent", In: InCrawl | InMap, Version: "v2", Firecrawl: "the user agent robots.txt rules are read for",
		Here: "accepted; robots.txt is read for the deployment's user agent (CRAWLER_USER_AGENT)"},
	{Name: "sitemap", In: InCrawl | InMap, Default: `"include"`, Firecrawl: "skip, include or only the sitemaps' pages", Here: "honoured"},
	{Name: "ignoreSitemap", In: InCrawl | InMap | InExtract, Default: "false", Firecrawl: "do not read sitemaps (v1's crawl and map, an extraction's wildcard)",
		Here: `as sitemap "skip" (an extraction's wildcard crawl then follows links alone)`},
	{Name: "sitemapOnly", In: InMap, Version: "v1", Default: "false", Firecrawl: "v1: the sitemaps' URLs alone", Here: `as sitemap "only"`},
	{Name: "deduplicateSimilarURLs", In: InCrawl | InMap, Default: "true", Firecrawl: "treat www., http/https and index variants as one page",
		Here: "a page the same as one of another address of it is that page's duplicate; a map lists each URL once either way"},
	{Name: "ignoreQueryParameters", In: InCrawl | InMap, Default: "false (map: true)", Firecrawl: "URLs differing only in their query are one page", Here: "honoured"},
	{Name: "delay", In: InCrawl | InMap, Firecrawl: "seconds between requests, at most 60", Here: "honoured: pages fetched one at a time with that pause"},
	{Name: "maxConcurrency", In: InCrawl | InBatch, Firecrawl: "pages scraped at once", Here: "honoured within the server's bound"},
	{Name: "webhook", In: InCrawl | InBatch, Firecrawl: "a URL or {url, headers, metadata, events} told of the job's events",
		Here: "honoured: signed, retried for hours, logged"},
	{Name: "prompt", In: InCrawl, Version: "v2", Firecrawl: "options written in words, turned into options by an LLM",
		Here: "honoured with an LLM: its options join those typed (which win), each checked as a typed one; a 400 without an LLM"},

	// Extract.
	{Name: "prompt", In: InExtract, Firecrawl: "what to extract, in words", Here: "honoured: each page is read with it by the deployment's LLM"},
	{Name: "systemPrompt", In: InExtract, Firecrawl: "instructions before the prompt", Here: "honoured: put before the prompt"},
	{Name: "schema", In: InExtract, Firecrawl: "the JSON Schema of the answer", Here: "honoured: each page's answer is validated against it (and asked again when it does not validate)"},
	{Name: "enableWebSearch", In: InExtract, Default: "false", Firecrawl: "search the web for more pages",
		Here: "honoured through the search backend (CRAWLER_SEARXNG_URL): the prompt's first five web results are read too; a 400 without a backend"},
	{Name: "urlTrace", In: InExtract, Default: "false", Accept: []string{"false"}, Why: noSuchFeature,
		Firecrawl: "say how each URL was used", Here: "false only"},
	{Name: "showSources", In: InExtract, Default: "false", Firecrawl: "say which page each value came from",
		Here: "honoured: the status's sources names, for each field of the answer (and field.sub), the pages that gave it"},
	{Name: "agent", In: InExtract, Accept: []string{}, Why: noSuchFeature, Firecrawl: "FIRE-1 agent options", Here: "refused when given"},
	{Name: "__experimental_streamSteps", In: InExtract, Default: "false", Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "__experimental_llmUsage", In: InExtract, Default: "false", Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "__experimental_showSources", In: InExtract, Default: "false", Firecrawl: "the older name of showSources", Here: "as showSources"},
	{Name: "__experimental_showCostTracking", In: InExtract, Default: "false", Accept: []string{"false"}, Why: noSuchFeature, Firecrawl: "internal", Here: "false only"},
	{Name: "webhook", In: InExtract, Accept: []string{}, Why: "is not supported here yet for an extraction: poll GET /v2/extract/{id}",
		Firecrawl: "told of the extraction's events", Here: "refused when given"},
	{Name: "__experimental_cacheKey", In: InExtract, Firecrawl: "internal; no effect", Here: "accepted; no effect"},
	{Name: "__experimental_cacheMode", In: InExtract, Default: `"direct"`, Firecrawl: "internal; no effect", Here: "accepted; no effect"},

	// Search.
	{Name: "query", In: InSearch, Firecrawl: "the words to search for", Here: "honoured: asked of the deployment's search backend (CRAWLER_SEARXNG_URL)"},
	{Name: "limit", In: InSearch, Default: "10 (v1: 5)", Firecrawl: "results of each source, at most 100", Here: "honoured"},
	{Name: "sources", In: InSearch, Default: `["web"]`, Firecrawl: "web, news and images, by name or as {type, …} (a web source with its own tbs, lang, country and location); alexandria, its catalogue of data providers",
		Here: "honoured: each asked of the backend's category (general, news, images); alexandria is answered Firecrawl's 403 for a team without it"},
	{Name: "categories", In: InSearch, Accept: []string{"[]"}, Why: "is not supported here: the search backend has no such categories",
		Firecrawl: "github, research, pdf or developer results only", Here: "an empty list only"},
	{Name: "tbs", In: InSearch, Firecrawl: "a time range: qdr:h/d/w/m/y (qdr:m6), or cdr:1,cd_min:…,cd_max:…",
		Here: "honoured: the backend's range, and the results' dates filtered (a result without a date is left out)"},
	{Name: "filter", In: InSearch, Firecrawl: "a search engine's filter", Here: "accepted; the backend has none (the answer's warning says so)"},
	{Name: "includeDomains", In: InSearch, Firecrawl: "only results on these hosts", Here: "honoured (a host's subdomains too)"},
	{Name: "excludeDomains", In: InSearch, Firecrawl: "no results on these hosts", Here: "honoured (a host's subdomains too)"},
	{Name: "lang", In: InSearch, Default: `"en"`, Firecrawl: "the results' language", Here: "honoured: the backend's language"},
	{Name: "country", In: InSearch, Default: `"us"`, Firecrawl: "the country results come from", Here: "honoured: the backend's region (lang-COUNTRY)"},
	{Name: "location", In: InSearch, Firecrawl: "a place results are searched from", Here: "accepted; the backend has none (the answer's warning says so)"},
	{Name: "safe", In: InSearch, Firecrawl: "leave adult results out", Here: "honoured: the backend's safe search"},
	{Name: "timeout", In: InSearch, Default: "60000", Firecrawl: "milliseconds the search (and its scrapes) may take",
		Here: "honoured: results not scraped by then are answered without their document, with a warning"},
	{Name: "ignoreInvalidURLs", In: InSearch, Default: "false", Firecrawl: "leave out results whose URLs cannot be scraped",
		Here: "honoured: such results are left out of the answer (they are never scraped)"},
	{Name: "asyncScraping", In: InSearch, Default: "false", Accept: []string{"false"}, Why: "is not supported here yet: results are scraped within the request",
		Firecrawl: "answer at once, the scrapes going on", Here: "false only"},
	{Name: "highlights", In: InSearch, Firecrawl: "snippets replaced by highlights from Firecrawl's index", Here: "accepted; the snippets are the backend's"},
	{Name: "domainTools", In: InSearch, Firecrawl: "tools of Firecrawl's catalogue matched to the results' sites",
		Here: "true is answered Firecrawl's 403 for a team without the catalogue"},
	{Name: "toolDetail", In: InSearch, Firecrawl: "how much of each catalogue tool is answered (compact, summary, full)", Here: "accepted; there are no catalogue tools"},
	{Name: "enterprise", In: InSearch, Accept: []string{"[]", `["default"]`}, Why: noSuchFeature, Firecrawl: "zero-data-retention or anonymous search", Here: "default only"},
	{Name: "threatProtection", In: InSearch, Accept: []string{}, Why: noSuchFeature, Firecrawl: "internal", Here: "refused when given"},
	{Name: "__searchPreviewToken", In: InSearch, Accept: []string{}, Why: noSuchFeature, Firecrawl: "internal", Here: "refused when given"},
	{Name: "scrapeOptions", In: InSearch, Firecrawl: "scrape each result with these options",
		Here: "honoured when it asks for formats: the results are scraped as one batch scrape (a durable crawl), each document merged into its result"},

	// Map only.
	{Name: "search", In: InMap, Firecrawl: "keep URLs matching these words", Here: "URLs holding each word (case-insensitive)"},
	{Name: "includeSubdomains", In: InMap | InExtract, Default: "true", Firecrawl: "list the subdomains' URLs too (an extraction's wildcard's)",
		Here: "honoured (an extraction's wildcard crawl follows links to the subdomains when true)"},
	{Name: "filterByPath", In: InMap, Version: "v2", Default: "true", Firecrawl: "keep URLs under the start URL's path from the index",
		Here: "accepted; the map lists what its own crawl of the host finds (it has no index)"},
	{Name: "useIndex", In: InMap, Version: "v2", Default: "true", Firecrawl: "answer from Firecrawl's index of the web",
		Here: "accepted; the map always crawls the host itself"},
	{Name: "ignoreCache", In: InMap, Version: "v2", Default: "false", Firecrawl: "do not answer from cached maps",
		Here: "accepted; a map is never answered from a cache"},
}

// FieldsIn is the set of field names allowed in where, of either
// version: the service answers both under each version's paths.
func FieldsIn(where Where) map[string]bool {
	m := map[string]bool{}
	for _, f := range Fields {
		if f.In&where != 0 {
			m[f.Name] = true
		}
	}
	return m
}

// fieldByName finds a field of where by its name.
func fieldByName(where Where, name string) (Field, bool) {
	for _, f := range Fields {
		if f.In&where != 0 && f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// refuseUnhonoured records, for each field of obj (in where) whose value
// the service cannot honour, why it is refused; prefix names the fields.
func refuseUnhonoured(obj map[string]json.RawMessage, where Where, prefix string, bad *fieldErrors) {
	for _, name := range sortedKeys(obj) {
		f, ok := fieldByName(where, name)
		if !ok || f.Accept == nil {
			continue
		}
		v := bytes.TrimSpace(obj[name])
		if string(v) == "null" {
			continue
		}
		var compact bytes.Buffer
		if json.Compact(&compact, v) == nil && slices.Contains(f.Accept, compact.String()) {
			continue
		}
		bad.add(prefix+name, "%s", f.Why)
	}
}

// FieldTable is the table of Fields as docs/firecrawl.md holds it.
func FieldTable() string {
	var b strings.Builder
	b.WriteString("| field | in | Firecrawl's default | Firecrawl's meaning | here |\n|---|---|---|---|---|\n")
	for _, f := range Fields {
		var in []string
		for _, w := range []struct {
			w    Where
			name string
		}{{InScrape, "scrape"}, {InBatch, "batch"}, {InCrawl, "crawl"}, {InScrapeOptions, "scrapeOptions"}, {InMap, "map"}, {InExtract, "extract"}, {InSearch, "search"}} {
			if f.In&w.w != 0 {
				in = append(in, w.name)
			}
		}
		where := strings.Join(in, ", ")
		if f.Version != "" {
			where += " (" + f.Version + ")"
		}
		def := "—"
		if f.Default != "" {
			def = "`" + f.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, where, def, f.Firecrawl, f.Here)
	}
	return b.String()
}
