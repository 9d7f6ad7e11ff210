package firecrawl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
)

// ExtractRequest is the body of POST /v2/extract (and /v1/extract):
// structured data drawn by the deployment's LLM from the pages at urls.
// Its fields are those of Fields in InExtract.
type ExtractRequest struct {
	URLs              []string        `json:"urls"`
	Prompt            *string         `json:"prompt"`
	SystemPrompt      *string         `json:"systemPrompt"`
	Schema            json.RawMessage `json:"schema"`
	Limit             *int            `json:"limit"`
	IgnoreSitemap     *bool           `json:"ignoreSitemap"`
	IncludeSubdomains *bool           `json:"includeSubdomains"`
	AllowExternal     *bool           `json:"allowExternalLinks"`
	EnableWebSearch   *bool           `json:"enableWebSearch"`
	ScrapeOptions     *ScrapeOptions  `json:"scrapeOptions"`
	Origin            *string         `json:"origin"`
	Integration       *string         `json:"integration"`
	URLTrace          *bool           `json:"urlTrace"`
	Timeout           *int            `json:"timeout"`
	Agent             json.RawMessage `json:"agent"`
	StreamSteps       *bool           `json:"__experimental_streamSteps"`
	LLMUsage          *bool           `json:"__experimental_llmUsage"`
	ShowSourcesX      *bool           `json:"__experimental_showSources"`
	ShowSources       *bool           `json:"showSources"`
	CacheKey          *string         `json:"__experimental_cacheKey"`
	CacheMode         *string         `json:"__experimental_cacheMode"`
	ShowCostTracking  *bool           `json:"__experimental_showCostTracking"`
	IgnoreInvalidURLs *bool           `json:"ignoreInvalidURLs"`
	Webhook           json.RawMessage `json:"webhook"`
	ThreatProtection  json.RawMessage `json:"threatProtection"`
}

// Bounds of an extraction over wildcards: the pages its crawl stores
// (each read by the LLM, in parts that fit its context) when the request
// gives no limit, and at most.
const (
	DefaultExtractPages = 100
	MaxExtractPages     = 1000
)

// ExtractWebSearch is what an extract request asks of the web search
// (enableWebSearch): the words to search for (its prompt), or "" when it
// asks for none. A request that is not one answers "": ExtractOptionsOf
// says what is wrong with it.
func ExtractWebSearch(body []byte) string {
	var req struct {
		Prompt          *string `json:"prompt"`
		EnableWebSearch *bool   `json:"enableWebSearch"`
	}
	if json.Unmarshal(body, &req) != nil || req.EnableWebSearch == nil || !*req.EnableWebSearch || req.Prompt == nil {
		return ""
	}
	q := strings.Join(strings.Fields(*req.Prompt), " ")
	if len(q) > 300 {
		q = q[:300]
	}
	return q
}

// ExtractShowsSources reports whether a stored extract request asked
// which pages each field came from (showSources).
func ExtractShowsSources(request json.RawMessage) bool {
	var req struct {
		ShowSources  *bool `json:"showSources"`
		ShowSourcesX *bool `json:"__experimental_showSources"`
	}
	_ = json.Unmarshal(request, &req)
	return req.ShowSources != nil && *req.ShowSources || req.ShowSourcesX != nil && *req.ShowSourcesX
}

// wildcard is an extract URL that ends in /*: the part of the site under
// it, crawled. It answers the crawl's start URL.
func wildcard(u string) (string, bool) {
	u = strings.TrimSpace(u)
	if !strings.HasSuffix(u, "/*") || strings.Count(u, "*") != 1 {
		return u, false
	}
	return strings.TrimSuffix(u, "*"), true
}

// ExtractOptionsOf maps an extract request onto a crawl, each page read
// with the request's prompt and schema as the crawl's extraction;
// ExtractionOf combines the pages' answers into the extraction's. URLs
// alone are a crawl of those pages (as a batch scrape's); a URL ending in
// /* makes it a crawl of that part of the site too (its sitemaps and
// links, within limit pages). found are the pages a web search gave
// (enableWebSearch), read as listed URLs. URLs the service refuses are
// left out and returned (unless ignoreInvalidURLs is false: then each
// is a 400).
func ExtractOptionsOf(body []byte, srv crawl.Server, found ...string) (crawl.Options, []string, error) {
	var req ExtractRequest
	if err := decodeStrict(body, &req, InExtract); err != nil {
		return crawl.Options{}, nil, err
	}
	var bad fieldErrors
	prompt := ""
	if req.Prompt != nil {
		prompt = strings.TrimSpace(*req.Prompt)
	}
	if prompt == "" && !given(req.Schema) {
		bad.add("prompt", "a prompt or a schema is required")
	}
	web := req.EnableWebSearch != nil && *req.EnableWebSearch
	if web && prompt == "" {
		bad.add("enableWebSearch", "searches the web for the prompt, which is empty")
	}
	if len(req.URLs) == 0 && !web {
		bad.add("urls", "is required: the pages to read (a URL ending in /* reads that part of the site), unless enableWebSearch finds them")
	}
	for i, u := range req.URLs {
		if _, ok := wildcard(u); !ok && strings.Contains(u, "*") {
			bad.add(fmt.Sprintf("urls[%d]", i), "a wildcard may only end a URL, as https://example.com/docs/*")
		}
	}
	limit := DefaultExtractPages
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > MaxExtractPages {
			bad.add("limit", "must be between 1 and %d pages", MaxExtractPages)
		}
		limit = *req.Limit
	}
	if len(bad) > 0 {
		return crawl.Options{}, nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid extract request", Details: bad}
	}
	urls := append(slices.Clone(req.URLs), found...)
	if len(urls) == 0 {
		return crawl.Options{}, nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid extract request",
			Details: []crawl.FieldError{{Field: "enableWebSearch", Message: "the web search found no page for the prompt"}}}
	}
	raw, err := extractBatch(req, prompt, urls)
	if err != nil {
		return crawl.Options{}, nil, err
	}
	o, invalid, err := BatchOptionsOf(raw, srv, false)
	if err != nil {
		return crawl.Options{}, nil, extractFields(err)
	}
	if slices.ContainsFunc(req.URLs, func(u string) bool { _, ok := wildcard(u); return ok }) {
		crawlWildcards(&o, req, urls, invalid, limit)
	}
	return o, invalid, nil
}

// extractBatch is the batch scrape an extraction is: the scrape options,
// the URLs (a wildcard's start), and a json format of the prompt and
// schema.
func extractBatch(req ExtractRequest, prompt string, urls []string) ([]byte, error) {
	batch := map[string]any{}
	if req.ScrapeOptions != nil {
		raw, _ := json.Marshal(req.ScrapeOptions)
		_ = json.Unmarshal(raw, &batch) // a struct's own encoding
		for k, v := range batch {
			if v == nil {
				delete(batch, k)
			}
		}
	}
	jsonFormat := map[string]any{"type": "json"}
	if prompt != "" {
		jsonFormat["prompt"] = prompt
	}
	if req.SystemPrompt != nil && strings.TrimSpace(*req.SystemPrompt) != "" {
		jsonFormat["systemPrompt"] = *req.SystemPrompt
	}
	if given(req.Schema) {
		jsonFormat["schema"] = req.Schema
	}
	batch["formats"] = []any{"markdown", jsonFormat}
	starts := make([]string, len(urls))
	for i, u := range urls {
		starts[i], _ = wildcard(u)
	}
	batch["urls"] = starts
	batch["ignoreInvalidURLs"] = req.IgnoreInvalidURLs == nil || *req.IgnoreInvalidURLs
	return json.Marshal(batch)
}

// crawlWildcards makes o a crawl of the wildcards' parts of their sites
// and of the listed pages: a URL is kept when it is under a wildcard or
// is a listed page, and links are followed from every page kept, within
// limit results. invalid are the URLs the batch left out.
func crawlWildcards(o *crawl.Options, req ExtractRequest, urls, invalid []string, limit int) {
	var keep []string
	for _, u := range urls {
		start, isWild := wildcard(u)
		if slices.Contains(invalid, start) {
			continue
		}
		if isWild {
			keep = append(keep, "^"+regexp.QuoteMeta(start))
		} else {
			keep = append(keep, "^"+regexp.QuoteMeta(u)+"$")
		}
	}
	o.MaxResults = &limit
	o.MaxDepth = crawl.NoDepthLimit
	o.IncludeOnlyPaths, o.ExcludePaths = keep, []string{}
	o.RegexOnFullURL = true
	o.EntireWebsite = true // the include rules, not the start URLs' directories, bound it
	o.AllowSubdomains = req.IncludeSubdomains == nil || *req.IncludeSubdomains
	o.AllowExternal = req.AllowExternal != nil && *req.AllowExternal
	o.UseSitemap = req.IgnoreSitemap == nil || !*req.IgnoreSitemap
	o.SitemapAndLinks = true
	o.KeepSimilarURLs = false
}

// extractFields names the fields of a batch's error as the extract
// request has them: its json format is the prompt and schema, the other
// scrape options are under scrapeOptions.
func extractFields(err error) error {
	e, ok := err.(*crawl.Error)
	if !ok {
		return err
	}
	out := &crawl.Error{Code: e.Code, Message: strings.Replace(e.Message, "batch scrape", "extract", 1)}
	for _, d := range e.Details {
		switch {
		case d.Field == "formats.json.prompt" || d.Field == "formats[1]":
			d.Field = "prompt"
		case strings.HasPrefix(d.Field, "formats[1].schema"):
			d.Field = "schema" + strings.TrimPrefix(d.Field, "formats[1].schema")
		case d.Field == "formats.json.schema":
			d.Field = "schema"
		case strings.HasPrefix(d.Field, "urls"):
		default:
			d.Field = "scrapeOptions." + d.Field
		}
		out.Details = append(out.Details, d)
	}
	return out
}

// ExtractStatusOf is Firecrawl's status of an extraction whose crawl has
// status s.
func ExtractStatusOf(s crawl.Status) string {
	switch s {
	case crawl.StatusRunning:
		return "processing"
	case crawl.StatusSucceeded:
		return "completed"
	case crawl.StatusAborted:
		return "cancelled"
	}
	return "failed"
}

// ExtractionOf combines the answers of an extraction's pages (in the
// order of its URLs) into one: objects are merged key by key (lists
// joined, each item once; nested objects merged; otherwise the first
// page's value that is not null), and answers that are not all objects
// are one answer alone or a list of them. It is null without answers.
func ExtractionOf(answers []json.RawMessage) json.RawMessage {
	var values []any
	for _, a := range answers {
		var v any
		if len(bytes.TrimSpace(a)) > 0 && json.Unmarshal(a, &v) == nil && v != nil {
			values = append(values, v)
		}
	}
	var out any
	switch {
	case len(values) == 0:
		return json.RawMessage("null")
	case len(values) == 1:
		out = values[0]
	case allObjects(values):
		out = mergeObjects(values)
	default:
		out = values
	}
	raw, _ := json.Marshal(out) // decoded JSON: it encodes
	return raw
}

func allObjects(values []any) bool {
	for _, v := range values {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// mergeObjects merges objects key by key, as ExtractionOf says.
func mergeObjects(objects []any) map[string]any {
	out := map[string]any{}
	var keys []string
	byKey := map[string][]any{}
	for _, o := range objects {
		m := o.(map[string]any)
		for _, k := range sortedAnyKeys(m) {
			if _, seen := byKey[k]; !seen {
				keys = append(keys, k)
			}
			if m[k] != nil {
				byKey[k] = append(byKey[k], m[k])
			} else if byKey[k] == nil {
				byKey[k] = []any{}
			}
		}
	}
	for _, k := range keys {
		vs := byKey[k]
		switch {
		case len(vs) == 0:
			out[k] = nil
		case allLists(vs):
			var joined []any
			seen := map[string]bool{}
			for _, v := range vs {
				for _, item := range v.([]any) {
					key, _ := json.Marshal(item)
					if !seen[string(key)] {
						seen[string(key)] = true
						joined = append(joined, item)
					}
				}
			}
			out[k] = joined
		case allObjects(vs) && len(vs) > 1:
			out[k] = mergeObjects(vs)
		default:
			out[k] = vs[0]
		}
	}
	return out
}

func allLists(values []any) bool {
	for _, v := range values {
		if _, ok := v.([]any); !ok {
			return false
		}
	}
	return true
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// SourcesOf is which pages each field of an extraction's answer came
// from (Firecrawl's sources): for each key of the pages' answers (objects)
// and each key of an object under one (key.sub), the pages (from, in
// the answers' order) whose answer gave it a value other than null or
// an empty list.
func SourcesOf(answers []json.RawMessage, from []string) map[string][]string {
	out := map[string][]string{}
	add := func(field, page string) {
		if !slices.Contains(out[field], page) {
			out[field] = append(out[field], page)
		}
	}
	for i, a := range answers {
		var m map[string]any
		if json.Unmarshal(a, &m) != nil {
			continue
		}
		for k, v := range m {
			if !holds(v) {
				continue
			}
			add(k, from[i])
			if sub, ok := v.(map[string]any); ok {
				for sk, sv := range sub {
					if holds(sv) {
						add(k+"."+sk, from[i])
					}
				}
			}
		}
	}
	return out
}

// holds reports whether an answer's value says something: not null, not
// an empty list or object, not an empty string.
func holds(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case string:
		return strings.TrimSpace(x) != ""
	}
	return true
}
