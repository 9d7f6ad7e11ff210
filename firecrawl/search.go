package firecrawl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/search"
)

// SearchRequest is the body of POST /v2/search (and /v1/search). Its
// fields are those of Fields in InSearch.
type SearchRequest struct {
	Query             *string         `json:"query"`
	Limit             *int            `json:"limit"`
	TBS               *string         `json:"tbs"`
	Filter            *string         `json:"filter"`
	Sources           json.RawMessage `json:"sources"`
	Categories        json.RawMessage `json:"categories"`
	IncludeDomains    []string        `json:"includeDomains"`
	ExcludeDomains    []string        `json:"excludeDomains"`
	Lang              *string         `json:"lang"`
	Safe              *bool           `json:"safe"`
	Enterprise        []string        `json:"enterprise"`
	Country           *string         `json:"country"`
	Location          *string         `json:"location"`
	Origin            *string         `json:"origin"`
	Integration       *string         `json:"integration"`
	Timeout           *int            `json:"timeout"`
	IgnoreInvalidURLs *bool           `json:"ignoreInvalidURLs"`
	AsyncScraping     *bool           `json:"asyncScraping"`
	Highlights        *bool           `json:"highlights"`
	SearchPreview     *string         `json:"__searchPreviewToken"`
	ThreatProtection  json.RawMessage `json:"threatProtection"`
	AgentInterop      json.RawMessage `json:"__agentInterop"`
	ScrapeOptions     json.RawMessage `json:"scrapeOptions"`
	DomainTools       *bool           `json:"domainTools"`
	ToolDetail        *string         `json:"toolDetail"`
}

// CodeNotEnabled is the code of Firecrawl's 403 for a feature the team
// does not have; its clients know the message NotEnabled.
const (
	CodeNotEnabled = "NOT_ENABLED"
	NotEnabled     = "This endpoint is not enabled for this team."
)

// catalogue are the sources of Firecrawl's catalogue of data providers
// (Alexandria), which this deployment does not have.
var catalogue = map[string]bool{"alexandria": true, "exchange": true}

// Bounds of a search request, Firecrawl's.
const (
	MaxSearchLimit       = 100
	DefaultSearchTimeout = 60 * time.Second
	maxSearchTimeout     = 300 * time.Second
)

// SearchPlan is a search request once checked: what to ask the backend,
// how long the whole answer may take, and how to scrape the results
// (Scrape nil: they are answered as found).
type SearchPlan struct {
	Backend search.Request
	Sources []string
	Timeout time.Duration
	// Scrape is the results' scrapeOptions, as a batch scrape's body
	// without its urls (see SearchBatch).
	Scrape json.RawMessage
	// DropInvalid leaves out of the answer the results whose addresses
	// the service does not scrape (ignoreInvalidURLs).
	DropInvalid bool
	// Warnings are told in the answer's warning.
	Warnings []string
}

// searchDomain is what an includeDomains or excludeDomains entry must be:
// a host name, without scheme or path.
var searchDomain = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$`)

// SearchOf reads a search request (v1 has a limit of 5 by default, v2
// 10); now dates tbs's past ranges. Errors are *crawl.Error naming the
// fields at fault.
func SearchOf(body []byte, srv crawl.Server, now time.Time, v1 bool) (SearchPlan, error) {
	var req SearchRequest
	if err := decodeStrict(body, &req, InSearch); err != nil {
		return SearchPlan{}, err
	}
	var bad fieldErrors
	fail := bad.add
	plan := SearchPlan{Timeout: DefaultSearchTimeout}
	r := &plan.Backend
	if req.Query == nil || strings.TrimSpace(*req.Query) == "" {
		fail("query", "is required: the words to search for")
	} else {
		r.Query = *req.Query
	}
	r.Limit = 10
	if v1 {
		r.Limit = 5
	}
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > MaxSearchLimit {
			fail("limit", "must be between 1 and %d", MaxSearchLimit)
		}
		r.Limit = *req.Limit
	}
	if req.Timeout != nil {
		if *req.Timeout < 1 || time.Duration(*req.Timeout)*time.Millisecond > maxSearchTimeout {
			fail("timeout", "must be between 1 and %d milliseconds", maxSearchTimeout/time.Millisecond)
		}
		plan.Timeout = time.Duration(*req.Timeout) * time.Millisecond
	}
	lang, country := bad.searchLocale(req)
	plan.Sources = []string{search.Web}
	if hasCatalogue(req.Sources) || req.DomainTools != nil && *req.DomainTools {
		// Firecrawl's answer to a team without its catalogue, which its
		// MCP server knows and searches the web alone after.
		return SearchPlan{}, &crawl.Error{Code: CodeNotEnabled, Message: NotEnabled}
	}
	if req.ToolDetail != nil && *req.ToolDetail != "compact" && *req.ToolDetail != "summary" && *req.ToolDetail != "full" {
		fail("toolDetail", "must be compact, summary or full")
	}
	if given(req.Sources) {
		srcs, opts, msg := sourcesOf(req.Sources)
		if msg != "" {
			fail("sources", "%s", msg)
		}
		plan.Sources = srcs
		// A web source's own options win over the request's.
		if opts.TBS != "" {
			req.TBS = &opts.TBS
		}
		if opts.Lang != "" {
			lang = opts.Lang
		}
		if opts.Country != "" {
			country = strings.ToUpper(opts.Country)
		}
		if opts.Location != "" {
			req.Location = &opts.Location
		}
	}
	r.Sources = plan.Sources
	r.Language = lang
	if country != "" && !strings.Contains(lang, "-") {
		r.Language = lang + "-" + country
	}
	if req.TBS != nil && strings.TrimSpace(*req.TBS) != "" {
		if msg := timeRangeOf(strings.TrimSpace(*req.TBS), now, r); msg != "" {
			fail("tbs", "%s", msg)
		}
	}
	if req.Location != nil && strings.TrimSpace(*req.Location) != "" {
		plan.Warnings = append(plan.Warnings, "location is not used by this deployment's search backend: give country (a two-letter code) and lang instead")
	}
	if req.Filter != nil && strings.TrimSpace(*req.Filter) != "" {
		plan.Warnings = append(plan.Warnings, "filter is not used by this deployment's search backend")
	}
	r.SafeSearch = req.Safe != nil && *req.Safe
	r.IncludeDomains, r.ExcludeDomains = bad.searchDomains(req)
	plan.DropInvalid = req.IgnoreInvalidURLs != nil && *req.IgnoreInvalidURLs
	if given(req.ScrapeOptions) {
		scrape, problems := searchScrapeOptions(req.ScrapeOptions, srv)
		bad = append(bad, problems...)
		plan.Scrape = scrape
	}
	if len(bad) > 0 {
		return SearchPlan{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid search request", Details: bad}
	}
	return plan, nil
}

// searchLocale reads a search's language and country (as an upper-case
// code; "" for none), recording what is wrong with them.
func (f *fieldErrors) searchLocale(req SearchRequest) (lang, country string) {
	lang = "en"
	if req.Lang != nil && strings.TrimSpace(*req.Lang) != "" {
		lang = strings.TrimSpace(*req.Lang)
		if !languageTag.MatchString(lang) {
			f.add("lang", "must be a language code (en, de, pt-BR)")
		}
	}
	if req.Country != nil && *req.Country != "" {
		country = strings.ToUpper(strings.TrimSpace(*req.Country))
		if !countryCode.MatchString(country) {
			f.add("country", "must be a two-letter country code (us, de)")
		}
	}
	return lang, country
}

// searchDomains reads a search's includeDomains and excludeDomains as
// lower-case host names, recording entries that are not one, and the two
// given together.
func (f *fieldErrors) searchDomains(req SearchRequest) (include, exclude []string) {
	read := func(name string, list []string) []string {
		var out []string
		for i, host := range list {
			host = strings.ToLower(strings.TrimSpace(host))
			if len(host) > 253 || !searchDomain.MatchString(host) {
				f.add(fmt.Sprintf("%s[%d]", name, i), "must be a host name without scheme or path (example.com)")
			}
			out = append(out, host)
		}
		return out
	}
	include, exclude = read("includeDomains", req.IncludeDomains), read("excludeDomains", req.ExcludeDomains)
	if len(include) > 0 && len(exclude) > 0 {
		f.add("includeDomains", "cannot be given with excludeDomains")
	}
	return include, exclude
}

var (
	languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$`)
	countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
)

// hasCatalogue reports whether sources name a source of Firecrawl's
// catalogue.
func hasCatalogue(raw json.RawMessage) bool {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return false
	}
	for _, item := range list {
		var name string
		if json.Unmarshal(item, &name) != nil {
			var o struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(item, &o)
			name = o.Type
		}
		if catalogue[name] {
			return true
		}
	}
	return false
}

// sourceOptions are a web source's own options (the advanced form of
// sources).
type sourceOptions struct {
	Type     string `json:"type"`
	TBS      string `json:"tbs"`
	Filter   string `json:"filter"`
	Lang     string `json:"lang"`
	Country  string `json:"country"`
	Location string `json:"location"`
}

// sourcesOf reads sources: names (web, news, images) or objects with a
// type (a web source's with its own tbs, lang, country and location).
func sourcesOf(raw json.RawMessage) ([]string, sourceOptions, string) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, sourceOptions{}, `must be a list of web, news and images`
	}
	var out []string
	var web sourceOptions
	seen := map[string]bool{}
	for _, item := range list {
		var name string
		if json.Unmarshal(item, &name) != nil {
			var o sourceOptions
			dec := json.NewDecoder(bytes.NewReader(item))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&o); err != nil {
				return nil, sourceOptions{}, `each source must be web, news or images, or {"type": …} with a web source's tbs, filter, lang, country and location`
			}
			if o.Type != search.Web && (o.TBS != "" || o.Filter != "" || o.Lang != "" || o.Country != "" || o.Location != "") {
				return nil, sourceOptions{}, fmt.Sprintf("a %s source takes no options", o.Type)
			}
			name = o.Type
			if name == search.Web {
				web = o
			}
		}
		switch name {
		case search.Web, search.News, search.Images:
		default:
			return nil, sourceOptions{}, fmt.Sprintf("%q is not a source: web, news or images", name)
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, web, ""
}

// timeRangeOf reads Google's time-based search parameter (tbs) onto r:
// qdr:h, qdr:d, qdr:w, qdr:m, qdr:y (the past hour, day, week, month or
// year, with a number: qdr:m6) and cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY
// (a range of dates); sbd:1 (sort by date) is accepted. It answers what
// is wrong with it, or "".
func timeRangeOf(tbs string, now time.Time, r *search.Request) string {
	const form = "must be qdr:h, qdr:d, qdr:w, qdr:m or qdr:y (with a number, as qdr:m6), or cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY"
	parts := map[string]string{}
	for _, p := range strings.Split(tbs, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return form
		}
		parts[k] = v
	}
	for k := range parts {
		switch k {
		case "qdr", "cdr", "cd_min", "cd_max", "sbd":
		default:
			return form
		}
	}
	if q, ok := parts["qdr"]; ok {
		if q == "" {
			return form
		}
		n := 1
		if len(q) > 1 {
			if _, err := fmt.Sscanf(q[1:], "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != q[1:] {
				return form
			}
		}
		var since time.Time
		switch q[0] {
		case 'h':
			since = now.Add(-time.Duration(n) * time.Hour)
		case 'd':
			since = now.AddDate(0, 0, -n)
		case 'w':
			since = now.AddDate(0, 0, -7*n)
		case 'm':
			since = now.AddDate(0, -n, 0)
		case 'y':
			since = now.AddDate(-n, 0, 0)
		default:
			return form
		}
		// The backend is asked for the smallest of its ranges that holds
		// the period; the dates are filtered here.
		switch period := now.Sub(since); {
		case period <= 24*time.Hour:
			r.TimeRange = "day"
		case period <= 7*24*time.Hour:
			r.TimeRange = "week"
		case period <= 31*24*time.Hour:
			r.TimeRange = "month"
		case period <= 366*24*time.Hour:
			r.TimeRange = "year"
		}
		r.Since = since
		return ""
	}
	if parts["cdr"] == "1" {
		for _, b := range []struct {
			key string
			dst *time.Time
		}{{"cd_min", &r.Since}, {"cd_max", &r.Until}} {
			v, ok := parts[b.key]
			if !ok {
				continue
			}
			t, err := time.Parse("1/2/2006", v)
			if err != nil {
				return form
			}
			if b.key == "cd_max" {
				t = t.Add(24*time.Hour - time.Nanosecond) // the whole last day
			}
			*b.dst = t
		}
		if r.Since.IsZero() && r.Until.IsZero() {
			return form
		}
		return ""
	}
	if _, ok := parts["sbd"]; ok && len(parts) == 1 {
		return "" // sorting by date alone: the backend's order stands
	}
	return form
}

// searchScrapeOptions checks a search's scrapeOptions as a batch scrape's
// options are checked, and answers them as a batch's body (nil when they
// ask for no format: the results are then not scraped, as Firecrawl
// has it).
func searchScrapeOptions(raw json.RawMessage, srv crawl.Server) (json.RawMessage, []crawl.FieldError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, []crawl.FieldError{{Field: "scrapeOptions", Message: "must be an object"}}
	}
	var formats []json.RawMessage
	if f, ok := obj["formats"]; ok {
		_ = json.Unmarshal(f, &formats) // checked below, as a batch's
	}
	_, _, err := batchOf(obj, []string{"https://example.com/"}, srv)
	if err != nil {
		return nil, prefixed(err, "scrapeOptions.")
	}
	if len(formats) == 0 {
		return nil, nil
	}
	b, _ := json.Marshal(obj) // decoded from JSON: it cannot fail
	return b, nil
}

// prefixed is the field errors of err, each field prefixed.
func prefixed(err error, prefix string) []crawl.FieldError {
	e, ok := err.(*crawl.Error)
	if !ok {
		return []crawl.FieldError{{Field: strings.TrimSuffix(prefix, "."), Message: err.Error()}}
	}
	out := make([]crawl.FieldError, 0, len(e.Details))
	for _, d := range e.Details {
		d.Field = prefix + d.Field
		out = append(out, d)
	}
	if len(out) == 0 {
		out = append(out, crawl.FieldError{Field: strings.TrimSuffix(prefix, "."), Message: e.Message})
	}
	return out
}

// batchOf is the batch scrape of urls with scrape options obj; invalid
// URLs are left out and returned.
func batchOf(obj map[string]json.RawMessage, urls []string, srv crawl.Server) (crawl.Options, []string, error) {
	body := make(map[string]json.RawMessage, len(obj)+2)
	for k, v := range obj {
		body[k] = v
	}
	body["urls"], _ = json.Marshal(urls)
	body["ignoreInvalidURLs"] = json.RawMessage("true")
	b, _ := json.Marshal(body)
	return BatchOptionsOf(b, srv, false)
}

// SearchBatch is the batch scrape of a search's results (urls) with the
// plan's scrape options; the URLs the service does not scrape are left
// out and returned.
func SearchBatch(plan SearchPlan, urls []string, srv crawl.Server) (crawl.Options, []string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(plan.Scrape, &obj); err != nil {
		return crawl.Options{}, nil, err
	}
	return batchOf(obj, urls, srv)
}

// SearchItem is one result as the answer holds it: the result's own
// fields, and, when it was scraped, its document's.
type SearchItem map[string]any

// SearchItemOf is result r of source src at position (from 1), merged
// with its document d when it was scraped (nil: it was not).
func SearchItemOf(src string, position int, r search.Result, d *Document) SearchItem {
	item := SearchItem{"url": r.URL, "position": position}
	if d != nil {
		b, _ := json.Marshal(d) // a document: plain values
		_ = json.Unmarshal(b, &item)
		item["url"] = r.URL
	}
	set := func(k, v string) {
		if v != "" {
			item[k] = v
		}
	}
	switch src {
	case search.Web:
		set("title", r.Title)
		set("description", r.Description)
	case search.News:
		set("title", r.Title)
		set("snippet", r.Description)
		set("imageUrl", r.ImageURL)
		if !r.Published.IsZero() {
			item["date"] = r.Published.UTC().Format(time.RFC3339)
		}
	case search.Images:
		set("title", r.Title)
		set("imageUrl", r.ImageURL)
		if r.ImageWidth > 0 && r.ImageHeight > 0 {
			item["imageWidth"], item["imageHeight"] = r.ImageWidth, r.ImageHeight
		}
	}
	return item
}
