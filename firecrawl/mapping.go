package firecrawl

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/durablecrawl/crawler/crawl"
)

// MapRequest is the body of POST /v2/map (and /v1/map): a site's URLs.
// Its fields are those of Fields in InMap.
type MapRequest struct {
	URL                    string            `json:"url"`
	Search                 string            `json:"search"`
	Sitemap                string            `json:"sitemap"`
	IgnoreSitemap          *bool             `json:"ignoreSitemap"` // v1
	SitemapOnly            *bool             `json:"sitemapOnly"`   // v1
	IncludeSubdomains      *bool             `json:"includeSubdomains"`
	IgnoreQueryParameters  *bool             `json:"ignoreQueryParameters"`
	Limit                  *int              `json:"limit"`
	Timeout                *int              `json:"timeout"`
	Location               *Location         `json:"location"`
	Headers                map[string]string `json:"headers"`
	IncludePaths           []string          `json:"includePaths"`
	ExcludePaths           []string          `json:"excludePaths"`
	RegexOnFullURL         *bool             `json:"regexOnFullURL"`
	MaxDiscoveryDepth      *int              `json:"maxDiscoveryDepth"`
	MaxDepth               *int              `json:"maxDepth"` // v1
	CrawlEntireDomain      *bool             `json:"crawlEntireDomain"`
	AllowBackwardLinks     *bool             `json:"allowBackwardLinks"` // v1
	AllowExternalLinks     *bool             `json:"allowExternalLinks"`
	AllowSubdomains        *bool             `json:"allowSubdomains"`
	IgnoreRobotsTxt        *bool             `json:"ignoreRobotsTxt"`
	RobotsUserAgent        *string           `json:"robotsUserAgent"`
	DeduplicateSimilarURLs *bool             `json:"deduplicateSimilarURLs"`
	Delay                  *float64          `json:"delay"`
	FilterByPath           *bool             `json:"filterByPath"`
	UseIndex               *bool             `json:"useIndex"`
	IgnoreCache            *bool             `json:"ignoreCache"`
	UseMock                *string           `json:"useMock"`
	ThreatProtection       json.RawMessage   `json:"threatProtection"`
	AuditMetadata          json.RawMessage   `json:"auditMetadata"`
	Origin                 *string           `json:"origin"`
	Integration            *string           `json:"integration"`
}

// Bounds of a map: the URLs it answers (Firecrawl's default and most),
// the pages its crawl fetches to find them, and how long it may take.
const (
	DefaultMapLimit   = 5000
	MaxMapLimit       = 100000
	MapFetchPages     = 100
	DefaultMapTimeout = 60 * time.Second
)

// minCrawlSeconds is the shortest timeout a crawl has (crawl.Options'
// timeout, whose answers say it).
const minCrawlSeconds = 60

// MapQuery is what a map answers: at most Limit URLs, those holding every
// word of Search (any URL when empty), one per URL without its query when
// IgnoreQuery, once the crawl ends or Timeout passes.
type MapQuery struct {
	Search      []string
	Limit       int
	IgnoreQuery bool
	Timeout     time.Duration
}

// MapOptionsOf maps a map request onto a crawl of the engine that fetches
// up to MapFetchPages pages of the whole host for their links, reading
// the sitemaps unless sitemap is "skip", and keeps no markdown; the map
// answers the URLs that crawl found.
func MapOptionsOf(body []byte, srv crawl.Server) (crawl.Options, MapQuery, error) {
	var req MapRequest
	if err := decodeStrict(body, &req, InMap); err != nil {
		return crawl.Options{}, MapQuery{}, err
	}
	var bad fieldErrors
	q := MapQuery{Limit: DefaultMapLimit, IgnoreQuery: true, Timeout: DefaultMapTimeout, Search: strings.Fields(strings.ToLower(req.Search))}
	url := strings.TrimSpace(req.URL)
	if url == "" {
		bad.add("url", "is required")
	}
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > MaxMapLimit {
			bad.add("limit", "must be between 1 and %d", MaxMapLimit)
		} else {
			q.Limit = *req.Limit
		}
	}
	if req.Timeout != nil {
		if *req.Timeout < 1000 || *req.Timeout > 300000 {
			bad.add("timeout", "must be between 1000 and 300000 milliseconds")
		} else {
			q.Timeout = time.Duration(*req.Timeout) * time.Millisecond
		}
	}
	if req.IgnoreQueryParameters != nil {
		q.IgnoreQuery = *req.IgnoreQueryParameters
	}
	sitemap := req.Sitemap
	switch {
	case sitemap != "" && sitemap != "include" && sitemap != "skip" && sitemap != "only":
		bad.add("sitemap", "must be one of: include, skip, only")
	case req.SitemapOnly != nil && *req.SitemapOnly:
		sitemap = "only"
	case req.IgnoreSitemap != nil && *req.IgnoreSitemap:
		sitemap = "skip"
	}
	if req.Location != nil && req.Location.Country != nil && *req.Location.Country != "" {
		bad.add("location.country", "is not supported here: there are no geo-located proxies (languages are sent as Accept-Language)")
	}
	for _, msg := range checkHeaders(req.Headers) {
		bad.add("headers", "%s", msg)
	}
	bad.crawler(req.Delay, req.IgnoreRobotsTxt, srv)
	depth := bad.depth(req.MaxDiscoveryDepth, req.MaxDepth)
	bad.regexes("includePaths", req.IncludePaths)
	bad.regexes("excludePaths", req.ExcludePaths)
	if len(bad) > 0 {
		return crawl.Options{}, MapQuery{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid map request", Details: bad}
	}
	native := map[string]any{"startUrl": url, "deduplicateContent": false, "includeLinks": true,
		"entireWebsite": true, "useSitemap": sitemap != "skip"}
	raw, err := json.Marshal(native)
	if err != nil {
		return crawl.Options{}, MapQuery{}, err
	}
	o, err := crawl.ParseRequest(raw, srv)
	if err != nil {
		return crawl.Options{}, MapQuery{}, renameFields(err, "")
	}
	fetch := min(q.Limit, MapFetchPages)
	o.Shape, o.MapOnly = crawl.ShapeFirecrawl, true
	o.SitemapAndLinks = sitemap == "" || sitemap == "include"
	// Subdomains are listed unless the request says not to, as Firecrawl
	// has it (allowSubdomains, of the crawler options, says the same).
	o.AllowSubdomains = req.IncludeSubdomains == nil || *req.IncludeSubdomains || req.AllowSubdomains != nil && *req.AllowSubdomains
	o.AllowExternal = req.AllowExternalLinks != nil && *req.AllowExternalLinks
	o.RegexOnFullURL = req.RegexOnFullURL != nil && *req.RegexOnFullURL
	o.IncludeOnlyPaths, o.ExcludePaths = nonNil(req.IncludePaths), nonNil(req.ExcludePaths)
	if req.Delay != nil {
		o.DelayMS = int(*req.Delay * 1000)
	}
	sessionOf(&ScrapeOptions{Headers: req.Headers, Location: req.Location}, &o, srv)
	// The map answers at its timeout with what its crawl found by then;
	// the crawl itself has the service's shortest bound at least (a
	// minute), and ends by its page limit well before.
	o.TimeoutSeconds = max(minCrawlSeconds, int((q.Timeout+time.Second-1)/time.Second))
	o.MaxResults, o.MaxDepth = &fetch, depth
	return o, q, nil
}
