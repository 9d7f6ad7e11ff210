package firecrawl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/webhook"
)

// Document is one page as Firecrawl answers it: the formats asked for,
// and its metadata.
type Document struct {
	Markdown *string   `json:"markdown,omitempty"`
	HTML     *string   `json:"html,omitempty"`
	RawHTML  *string   `json:"rawHtml,omitempty"`
	Links    *[]string `json:"links,omitempty"`
	Images   *[]string `json:"images,omitempty"`
	// Screenshot is the URL of the page's screenshot.
	Screenshot string `json:"screenshot,omitempty"`
	// Actions is what the page's actions gave back (scrapeOptions'
	// actions), their screenshots and PDFs by URL.
	Actions *pageaction.Document `json:"actions,omitempty"`
	// JSON is the extraction's answer (the json format); Warning says why
	// a page asked for one has none.
	JSON json.RawMessage `json:"json,omitempty"`
	// Summary is the page summed up (the summary format).
	Summary  string         `json:"summary,omitempty"`
	Warning  string         `json:"warning,omitempty"`
	Metadata map[string]any `json:"metadata"`
	// ChangeTracking, on the pages of a crawl with the changeTracking
	// format, says how the page compares with the previous crawl.
	ChangeTracking *ChangeTracking `json:"changeTracking,omitempty"`
}

// ChangeTracking is Firecrawl's changeTracking of a document: the
// page's status, when the previous crawl fetched it, and on a changed page
// the git-style diff of its markdown and the fields of its json that
// changed.
type ChangeTracking struct {
	PreviousScrapeAt *string                        `json:"previousScrapeAt"`
	ChangeStatus     changes.Status                 `json:"changeStatus"`
	Visibility       string                         `json:"visibility"`
	Diff             string                         `json:"diff,omitempty"`
	JSON             map[string]changes.FieldChange `json:"json,omitempty"`
}

// trackingOf is the changeTracking of a page that compares as v.
func trackingOf(v *changes.View) *ChangeTracking {
	if v == nil {
		return nil
	}
	ct := &ChangeTracking{ChangeStatus: v.Status, Visibility: "visible", Diff: v.Diff, JSON: v.Fields}
	if v.PreviousAt != nil {
		at := v.PreviousAt.UTC().Format(time.RFC3339)
		ct.PreviousScrapeAt = &at
	}
	return ct
}

// Page is what the service stored of a page, as far as a document needs:
// Formats are the crawl's formats, Extra the page's forms besides
// markdown (pageformats.Page as JSON).
type Page struct {
	URL, FinalURL, Title, Markdown, ContentType, Error string
	StatusCode                                         int
	Formats                                            []string
	Extra                                              json.RawMessage
	// JSON and JSONError are the page's extraction and why it failed.
	JSON      json.RawMessage
	JSONError string
	// Base is the API's base URL, which a screenshot's URL starts with.
	Base string
	// Change is how the page compares with the previous crawl (nil:
	// the crawl does not track changes).
	Change *changes.View
}

// StoredPage is what a document needs of page p of a crawl with formats.
func StoredPage(p crawl.Page, formats []string) Page {
	out := Page{URL: p.URL, Formats: formats, Extra: p.Formats, JSON: p.Extraction}
	for dst, src := range map[*string]*string{&out.FinalURL: p.FinalURL, &out.Title: p.Title,
		&out.Markdown: p.Markdown, &out.ContentType: p.ContentType, &out.Error: p.Error, &out.JSONError: p.ExtractionError} {
		if src != nil {
			*dst = *src
		}
	}
	if p.StatusCode != nil {
		out.StatusCode = *p.StatusCode
	}
	return out
}

// StoredDocument is the document of page p of crawl c, as the API at
// base answers it; prev holds what PreviousOf read of the previous
// crawl's pages (nil: none).
func StoredDocument(p crawl.Page, c *crawl.Crawl, prev map[int64]changes.Previous, base string) Document {
	page := StoredPage(p, c.Formats)
	page.Base = base
	if c.ChangeTracking {
		page.Change = changes.ViewOf(p, prev)
	}
	return DocumentOf(page)
}

// ogNames are the og: tags Firecrawl's metadata names in camel case.
var ogNames = map[string]string{"og:title": "ogTitle", "og:description": "ogDescription", "og:url": "ogUrl",
	"og:image": "ogImage", "og:site_name": "ogSiteName", "og:locale": "ogLocale", "og:type": "ogType"}

// DocumentOf is the document of a stored page.
func DocumentOf(p Page) Document {
	var extra pageformats.Page
	if len(p.Extra) > 0 {
		_ = json.Unmarshal(p.Extra, &extra) // written by the converter from this type
	}
	d := Document{HTML: extra.HTML, RawHTML: extra.RawHTML, Links: extra.Links, Images: extra.Images, Metadata: map[string]any{},
		JSON: p.JSON, ChangeTracking: trackingOf(p.Change)}
	if p.JSONError != "" {
		d.Warning = "json: " + p.JSONError
	}
	if slices.Contains(p.Formats, pageformats.Summary) {
		// The extraction is the summary's: its answer is the summary.
		var answer struct {
			Summary string `json:"summary"`
		}
		_ = json.Unmarshal(p.JSON, &answer) // validated against summarySchema when stored
		d.Summary, d.JSON = answer.Summary, nil
		if p.JSONError != "" {
			d.Warning = "summary: " + p.JSONError
		}
	}
	if extra.Screenshot != nil {
		d.Screenshot = p.Base + *extra.Screenshot
	}
	d.Actions = extra.Actions.Absolute(p.Base)
	if len(p.Formats) == 0 || slices.Contains(p.Formats, pageformats.Markdown) {
		md := p.Markdown
		d.Markdown = &md
	}
	m := d.Metadata
	if h := extra.Metadata; h != nil {
		for name, content := range h.Meta {
			if camel, ok := ogNames[name]; ok {
				m[camel] = content
			}
			m[name] = content
		}
		for k, v := range map[string]string{"title": h.Title, "description": h.Description, "language": h.Language,
			"keywords": h.Keywords, "robots": h.Robots, "favicon": h.Favicon, "canonical": h.Canonical} {
			if v != "" {
				m[k] = v
			}
		}
	}
	if p.Title != "" {
		m["title"] = p.Title
	}
	m["sourceURL"], m["url"], m["statusCode"] = p.URL, p.URL, p.StatusCode
	if p.FinalURL != "" {
		m["url"] = p.FinalURL
	}
	if p.ContentType != "" {
		m["contentType"] = p.ContentType
	}
	if p.Error != "" {
		m["error"] = p.Error
	}
	return d
}

// Size is about how many bytes d takes in an answer.
func (d Document) Size() int {
	n := 0
	for _, s := range []*string{d.Markdown, d.HTML, d.RawHTML} {
		if s != nil {
			n += len(*s)
		}
	}
	for _, l := range []*[]string{d.Links, d.Images} {
		if l != nil {
			for _, u := range *l {
				n += len(u) + 3
			}
		}
	}
	return n
}

// MaxDocuments and MaxDocumentBytes bound one answer of a crawl's status:
// at most 100 documents, and no more once about 10 MB of markdown is in
// it (one document always goes, however large).
const (
	MaxDocuments     = 100
	MaxDocumentBytes = 10 << 20
)

// CrawlStatus is the answer of GET /v2/crawl/{id}.
type CrawlStatus struct {
	Success     bool       `json:"success"`
	Status      string     `json:"status"`
	Total       int        `json:"total"`
	Completed   int        `json:"completed"`
	CreditsUsed int        `json:"creditsUsed"`
	ExpiresAt   string     `json:"expiresAt"`
	Next        *string    `json:"next,omitempty"`
	Data        []Document `json:"data"`
}

// StatusOf is the Firecrawl status of a crawl in the service's terms.
func StatusOf(s crawl.Status) string {
	switch s {
	case crawl.StatusRunning:
		return "scraping"
	case crawl.StatusSucceeded:
		return "completed"
	case crawl.StatusAborted:
		return "cancelled"
	default:
		return "failed"
	}
}

// Retention is how long Firecrawl says a crawl's results stay readable
// (expiresAt); this service keeps them until the crawl is deleted, and
// answers the same horizon for clients that read it.
const Retention = 24 * time.Hour

// ExpiresAt is the expiresAt of a crawl created at created.
func ExpiresAt(created time.Time) string {
	return created.Add(Retention).UTC().Format(time.RFC3339Nano)
}

// ErrorBody is Firecrawl's shape of an error answer.
type ErrorBody struct {
	Success bool               `json:"success"`
	Error   string             `json:"error"`
	Code    string             `json:"code,omitempty"`
	Details []crawl.FieldError `json:"details,omitempty"`
}

// ErrorOf is the Firecrawl answer to a service error with this message,
// code and fields at fault: the message names the fields, since most
// clients show only error.
func ErrorOf(code, message string, details []crawl.FieldError) ErrorBody {
	msg := message
	if len(details) > 0 {
		parts := make([]string, 0, len(details))
		for _, d := range details {
			parts = append(parts, d.Field+": "+d.Message)
		}
		msg += ": " + strings.Join(parts, "; ")
	}
	return ErrorBody{Success: false, Error: msg, Code: code, Details: details}
}

// ScrapeRequest is the body of POST /v2/scrape: a URL and the scrape
// options, with the scrape's timeout in milliseconds.
type ScrapeRequest struct {
	URL string `json:"url"`
	ScrapeOptions
	Origin            *string         `json:"origin"`
	ZeroDataRetention *bool           `json:"zeroDataRetention"`
	Agent             json.RawMessage `json:"agent"`
	AgentInterop      json.RawMessage `json:"__agentInterop"`
}

// DefaultScrapeTimeout is a scrape's bound when its request gives none.
const DefaultScrapeTimeout = 60 * time.Second

// ScrapeQuery is how a scrape is answered besides its crawl's options:
// within Timeout, and from the cache when a copy of the page stored
// between MinAge and MaxAge ago is there (MaxAge 0: never; MinAge > 0:
// only from the cache).
type ScrapeQuery struct {
	Timeout        time.Duration
	MaxAge, MinAge time.Duration
}

// ScrapeOptionsOf maps a scrape request onto the options of a one-page
// crawl of the engine, and returns how the scrape is answered.
func ScrapeOptionsOf(body []byte, srv crawl.Server) (crawl.Options, ScrapeQuery, error) {
	var req ScrapeRequest
	if err := decodeStrict(body, &req, InScrape); err != nil {
		return crawl.Options{}, ScrapeQuery{}, err
	}
	native := map[string]any{"startUrl": strings.TrimSpace(req.URL), "deduplicateContent": false, "includeLinks": true}
	var bad fieldErrors
	if strings.TrimSpace(req.URL) == "" {
		bad.add("url", "is required")
	}
	timeout := DefaultScrapeTimeout
	if req.Timeout != nil {
		if *req.Timeout < 1000 || *req.Timeout > 300000 {
			bad.add("timeout", "must be between 1000 and 300000 milliseconds")
		}
		timeout = time.Duration(*req.Timeout) * time.Millisecond
	}
	opts := req.ScrapeOptions
	bad = append(bad, scrapeOptions(&opts, "", native, srv)...)
	if len(bad) > 0 {
		return crawl.Options{}, ScrapeQuery{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid scrape request", Details: bad}
	}
	raw, err := json.Marshal(native)
	if err != nil {
		return crawl.Options{}, ScrapeQuery{}, err
	}
	o, err := crawl.ParseRequest(raw, srv)
	if err != nil {
		return crawl.Options{}, ScrapeQuery{}, renameFields(err, "")
	}
	q := ScrapeQuery{Timeout: timeout}
	if opts.MaxAge != nil {
		q.MaxAge = time.Duration(*opts.MaxAge) * time.Millisecond
	}
	if opts.MinAge != nil {
		q.MinAge = time.Duration(*opts.MinAge) * time.Millisecond
		q.MaxAge = max(q.MaxAge, q.MinAge) // a copy older than minAge is wanted: maxAge cannot be below it
		if opts.MaxAge == nil {
			q.MaxAge = 100 * 365 * 24 * time.Hour // any copy at least minAge old
		}
	}
	one := 1
	sessionOf(&opts, &o, srv)
	o.Shape = crawl.ShapeFirecrawl
	o.KeepErrorPages = true // answered with its status, as Firecrawl does
	o.MaxResults = &one
	o.MaxDepth = 0
	o.UseSitemap = false
	o.IncludeOnlyPaths, o.ExcludePaths = []string{}, []string{}
	return o, q, nil
}

// MaxBatchURLs bounds the URLs of one batch scrape.
const MaxBatchURLs = 1000

// BatchRequest is the body of POST /v2/batch/scrape: URLs and the scrape
// options each is read with.
type BatchRequest struct {
	URLs []string `json:"urls"`
	ScrapeOptions
	IgnoreInvalidURLs *bool           `json:"ignoreInvalidURLs"`
	MaxConcurrency    *int            `json:"maxConcurrency"`
	Webhook           json.RawMessage `json:"webhook"`
	AppendToID        *string         `json:"appendToId"`
	Origin            *string         `json:"origin"`
	ZeroDataRetention *bool           `json:"zeroDataRetention"`
	AgentInterop      json.RawMessage `json:"__agentInterop"`
}

// BatchOptionsOf maps a batch scrape onto a crawl of its URLs alone
// (depth 0, one page each). With ignoreInvalidURLs, URLs the service
// refuses are left out and returned; without it, each is a 400 naming
// its entry. It is on unless the request says otherwise, as v2 has it;
// v1 (a request under /v1) has it off.
func BatchOptionsOf(body []byte, srv crawl.Server, v1 bool) (crawl.Options, []string, error) {
	var req BatchRequest
	if err := decodeStrict(body, &req, InBatch); err != nil {
		return crawl.Options{}, nil, err
	}
	var bad fieldErrors
	fail := bad.add
	skipInvalid := !v1
	if req.IgnoreInvalidURLs != nil {
		skipInvalid = *req.IgnoreInvalidURLs
	}
	var valid, invalid []string
	seen := map[string]bool{}
	for i, u := range req.URLs {
		u = strings.TrimSpace(u)
		one, _ := json.Marshal(map[string]string{"startUrl": u})
		_, err := crawl.ParseRequest(one, srv)
		switch {
		case err != nil && skipInvalid:
			invalid = append(invalid, u)
		case err != nil:
			fail(fmt.Sprintf("urls[%d]", i), "is not a URL this service crawls (http or https, public)")
		case !seen[u]:
			seen[u] = true
			valid = append(valid, u)
		}
	}
	switch {
	case len(req.URLs) == 0:
		fail("urls", "is required: at least one URL")
	case len(valid) == 0 && len(bad) == 0:
		fail("urls", "holds no valid URL")
	case len(valid) > MaxBatchURLs:
		fail("urls", "may hold at most %d URLs here", MaxBatchURLs)
	}
	native := map[string]any{"deduplicateContent": false, "includeLinks": true}
	if len(req.Webhook) > 0 {
		native["webhook"] = req.Webhook
	}
	if len(valid) > 0 {
		native["startUrl"] = valid[0]
	}
	if req.MaxConcurrency != nil {
		if *req.MaxConcurrency < 1 {
			fail("maxConcurrency", "must be at least 1")
		} else {
			native["maxConcurrentPages"] = *req.MaxConcurrency
		}
	}
	opts := req.ScrapeOptions
	bad = append(bad, scrapeOptions(&opts, "", native, srv)...)
	if len(bad) > 0 {
		return crawl.Options{}, nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid batch scrape request", Details: bad}
	}
	raw, err := json.Marshal(native)
	if err != nil {
		return crawl.Options{}, nil, err
	}
	o, err := crawl.ParseRequest(raw, srv)
	if err != nil {
		return crawl.Options{}, nil, renameFields(err, "")
	}
	n := len(valid)
	sessionOf(&opts, &o, srv)
	if o.Webhook != nil {
		o.Webhook.Kind = webhook.KindBatchScrape
	}
	o.Shape = crawl.ShapeFirecrawl
	o.StartURLs = valid
	o.KeepSimilarURLs = true // each address was asked for
	o.MaxResults = &n
	o.MaxDepth = 0
	o.UseSitemap = false
	o.IncludeOnlyPaths, o.ExcludePaths = []string{}, []string{}
	return o, invalid, nil
}
