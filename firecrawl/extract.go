package firecrawl

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// ExtractOptionsOf maps an extract request onto a crawl of its URLs alone
// (as a batch scrape's), each page read with the request's prompt and
// schema as the crawl's extraction; ExtractionOf combines the pages'
// answers into the extraction's. URLs the service refuses are left out
// and returned (unless ignoreInvalidURLs is false: then each is a 400).
func ExtractOptionsOf(body []byte, srv crawl.Server) (crawl.Options, []string, error) {
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
	if len(req.URLs) == 0 {
		bad.add("urls", "is required here: the service extracts from the pages it is given (there is no web search)")
	}
	for i, u := range req.URLs {
		if strings.Contains(u, "*") {
			bad.add(fmt.Sprintf("urls[%d]", i), "wildcards are not supported here yet: give the pages' URLs (POST /v2/map lists a site's)")
		}
	}
	if len(bad) > 0 {
		return crawl.Options{}, nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid extract request", Details: bad}
	}
	// The batch scrape the extraction is: the scrape options, the URLs,
	// and a json format of the prompt and schema.
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
	batch["urls"] = req.URLs
	batch["ignoreInvalidURLs"] = req.IgnoreInvalidURLs == nil || *req.IgnoreInvalidURLs
	raw, err := json.Marshal(batch)
	if err != nil {
		return crawl.Options{}, nil, err
	}
	o, invalid, err := BatchOptionsOf(raw, srv, false)
	if err != nil {
		return crawl.Options{}, nil, extractFields(err)
	}
	return o, invalid, nil
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
