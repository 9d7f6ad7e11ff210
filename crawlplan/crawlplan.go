// Package crawlplan turns a sentence about what to crawl ("only the blog
// posts from 2024, not the tag pages") into the options of a Firecrawl
// crawl request, with the deployment's LLM: the question asked, the
// shape the answer must have, and how the answer joins the options the
// caller typed (which win). The options it gives are checked as typed
// ones are (package firecrawl); it does no I/O.
package crawlplan

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/durablecrawl/crawler/schema"
)

// SystemPrompt is what the model is told of its task.
const SystemPrompt = "You plan web crawls. Given a site's start URL and a sentence saying what to crawl, " +
	"you answer the crawl's options as one JSON object, and nothing else. " +
	"includePaths and excludePaths are regular expressions (Go's RE2 syntax) matched against a URL's path, as ^/blog/2024/ or /tag/; " +
	"give only the options the sentence asks for."

// Fields are the options the model may answer, with what each means; the
// answer's schema (Schema) holds them.
var Fields = map[string]string{
	"includePaths":           "regular expressions: only pages whose path matches one are kept",
	"excludePaths":           "regular expressions: pages whose path matches one are left out",
	"maxDiscoveryDepth":      "how many links deep from the start page (0 is the start page alone)",
	"limit":                  "the most pages the crawl stores",
	"sitemap":                "include (use the site's sitemaps and links), only (the sitemaps alone) or skip (links alone)",
	"crawlEntireDomain":      "the whole site, not only the pages under the start URL's path",
	"allowSubdomains":        "follow links to the site's subdomains too",
	"allowExternalLinks":     "follow links to other sites too",
	"ignoreQueryParameters":  "take addresses that differ only in their query as one page",
	"deduplicateSimilarURLs": "take addresses of the same page (another query, a print view) as one page",
}

// Schema is the JSON Schema of the model's answer.
var Schema = json.RawMessage(`{"type": "object", "additionalProperties": false, "properties": {
	"includePaths": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
	"excludePaths": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
	"maxDiscoveryDepth": {"type": "integer", "minimum": 0, "maximum": 100},
	"limit": {"type": "integer", "minimum": 1, "maximum": 10000},
	"sitemap": {"enum": ["include", "only", "skip"]},
	"crawlEntireDomain": {"type": "boolean"},
	"allowSubdomains": {"type": "boolean"},
	"allowExternalLinks": {"type": "boolean"},
	"ignoreQueryParameters": {"type": "boolean"},
	"deduplicateSimilarURLs": {"type": "boolean"}}}`)

// Question is what the model is asked about startURL and sentence.
func Question(startURL, sentence string) string {
	names := make([]string, 0, len(Fields))
	for n := range Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "Start URL: %s\nWhat to crawl: %s\n\nThe options you may give:\n", startURL, strings.TrimSpace(sentence))
	for _, n := range names {
		fmt.Fprintf(&b, "- %s: %s\n", n, Fields[n])
	}
	b.WriteString("\nAnswer with the JSON object alone.")
	return b.String()
}

// Read takes the model's answer: a JSON object (code fences around it
// aside) that validates against Schema.
func Read(answer string) (map[string]json.RawMessage, error) {
	text := strings.TrimSpace(answer)
	if i := strings.Index(text, "{"); i >= 0 {
		if j := strings.LastIndex(text, "}"); j > i {
			text = text[i : j+1]
		}
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("the model's answer is not JSON: %w", err)
	}
	sch, err := schema.Compile(Schema)
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(json.RawMessage(text)); err != nil {
		return nil, fmt.Errorf("the model's answer is not a crawl's options: %w", err)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Merge is the crawl request body with the planned options added: what
// the caller typed wins, and the prompt is kept as asked.
func Merge(body map[string]json.RawMessage, planned map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(body)+len(planned))
	for k, v := range planned {
		out[k] = v
	}
	for k, v := range body {
		if t := strings.TrimSpace(string(v)); t == "null" {
			if _, ok := planned[k]; ok {
				continue
			}
		}
		out[k] = v
	}
	return out
}
