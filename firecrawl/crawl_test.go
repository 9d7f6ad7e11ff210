package firecrawl

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// TestCrawlOptionsMapsFirecrawlMeanings: limit, depth, whole domain and
// path regexes keep Firecrawl's meanings on the engine.
func TestCrawlOptionsMapsFirecrawlMeanings(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/docs/","origin":"js-sdk@4.42.0"}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	// sitemap "include", the default: the sitemaps' pages and links.
	if o.Shape != crawl.ShapeFirecrawl || *o.MaxResults != DefaultLimit || o.DepthLimit() != -1 || o.EntireWebsite || !o.UseSitemap ||
		!o.SitemapAndLinks || o.DeduplicateContent || !o.ExcludeNonMainTags || o.Unbounded() || o.TimeoutSeconds != CrawlTimeout {
		t.Errorf("defaults: %+v", o)
	}
	o, err = CrawlOptions([]byte(`{"url":"https://example.com/","limit":5,"maxDiscoveryDepth":2,"crawlEntireDomain":true,"sitemap":"skip",
		"includePaths":["^/blog/.*$"],"excludePaths":["private"],"maxConcurrency":4,
		"scrapeOptions":{"formats":["markdown"],"onlyMainContent":false,"excludeTags":["nav"]}}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	if *o.MaxResults != 5 || o.DepthLimit() != 2 || !o.EntireWebsite || o.Unbounded() || o.PageBudget(1000) != 5 || o.UseSitemap ||
		o.ExcludeNonMainTags || *o.MaxConcurrentPages != 4 || o.ExcludeTags[0] != "nav" || !o.PathRegexes() ||
		o.IncludeOnlyPaths[0] != "^/blog/.*$" || o.ExcludePaths[0] != "private" {
		t.Errorf("given: %+v", o)
	}
}

// TestDelayAndWaitFor: delay (seconds) pauses after each request;
// waitFor (milliseconds) has the browser wait on each page, which only
// a deployment with one can do.
func TestDelayAndWaitFor(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","delay":1.5,"scrapeOptions":{"waitFor":500}}`), crawl.Server{Browser: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.DelayMS != 1500 || o.WaitForMS != 500 || o.EngineType != crawl.EnginePlaywright || o.IgnoreQuery || o.AllowSubdomains || o.AllowExternal {
		t.Errorf("%+v", o)
	}
	o, _, err = ScrapeOptionsOf([]byte(`{"url":"https://example.com/","waitFor":250}`), crawl.Server{Browser: true})
	if err != nil || o.WaitForMS != 250 || o.EngineType != crawl.EnginePlaywright {
		t.Errorf("a scrape's waitFor: %+v, %v", o, err)
	}
	_, err = CrawlOptions([]byte(`{"url":"https://example.com/","scrapeOptions":{"waitFor":500}}`), crawl.Server{})
	var e *crawl.Error
	if !errors.As(err, &e) || len(e.Details) != 1 || e.Details[0].Field != "scrapeOptions.waitFor" {
		t.Errorf("waitFor without a browser: %v", err)
	}
}

// TestHeadersAndMobile: headers go with every page request, checked;
// mobile renders in the browser.
func TestHeadersAndMobile(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","scrapeOptions":{"headers":{"Cookie":"a=1","X-Team":"docs"},"mobile":true}}`),
		crawl.Server{Browser: true})
	if err != nil || o.Headers["Cookie"] != "a=1" || o.Headers["X-Team"] != "docs" || !o.Mobile || o.EngineType != crawl.EnginePlaywright {
		t.Errorf("%+v, %v", o, err)
	}
	for body, field := range map[string]string{`{"url":"https://example.com/","headers":{"Host":"evil.example"}}`: "headers",
		`{"url":"https://example.com/","headers":{"a b":"c"}}`: "headers", `{"url":"https://example.com/","mobile":true}`: "mobile"} {
		_, _, err := ScrapeOptionsOf([]byte(body), crawl.Server{})
		var e *crawl.Error
		if !errors.As(err, &e) || len(e.Details) != 1 || e.Details[0].Field != field {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestWiderScope: allowSubdomains and allowExternalLinks widen the
// crawl's scope; a map's includeSubdomains too.
func TestWiderScope(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","allowSubdomains":true,"allowExternalLinks":true,"ignoreQueryParameters":true}`), crawl.Server{})
	if err != nil || !o.AllowSubdomains || !o.AllowExternal || !o.IgnoreQuery {
		t.Errorf("%+v, %v", o, err)
	}
	o, _, err = MapOptionsOf([]byte(`{"url":"https://example.com/","includeSubdomains":true}`), crawl.Server{})
	if err != nil || !o.AllowSubdomains {
		t.Errorf("map: %+v, %v", o, err)
	}
}

// TestSitemapOnly: "only" is the engine's sitemap crawl, still bounded by
// the limit.
func TestSitemapOnly(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","sitemap":"only","limit":7}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.UseSitemap || o.SitemapAndLinks || o.Unbounded() || o.PageBudget(1000) != 7 {
		t.Errorf("%+v", o)
	}
	o, err = CrawlOptions([]byte(`{"url":"https://example.com/","ignoreSitemap":true}`), crawl.Server{})
	if err != nil || o.UseSitemap {
		t.Errorf("v1's ignoreSitemap: %+v, %v", o, err)
	}
}

// TestCrawlWebhook: a webhook given as a URL or an object is kept with
// the crawl; a batch's events are named batch_scrape.
func TestCrawlWebhook(t *testing.T) {
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","webhook":{"url":"https://hooks.example/in",
		"headers":{"Authorization":"Bearer t"},"metadata":{"run":7},"events":["page","completed"]}}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	if w := o.Webhook; w == nil || w.URL != "https://hooks.example/in" || w.Headers["Authorization"] != "Bearer t" ||
		w.Wants("started") || !w.Wants("page") || w.Type("page") != "crawl.page" {
		t.Errorf("webhook %+v", o.Webhook)
	}
	o, _, err = BatchOptionsOf([]byte(`{"urls":["https://example.com/"],"webhook":"https://hooks.example/b"}`), crawl.Server{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := o.Webhook; w == nil || w.Type("completed") != "batch_scrape.completed" || !w.Wants("started") {
		t.Errorf("batch webhook %+v", o.Webhook)
	}
}

// TestJSONFormat: the json format's prompt and schema become the crawl's
// extraction instructions and schema; v1's jsonOptions too.
func TestJSONFormat(t *testing.T) {
	llm := crawl.Server{LLM: true}
	o, err := CrawlOptions([]byte(`{"url":"https://example.com/","scrapeOptions":{"formats":["markdown",
		{"type":"json","prompt":"The product.","schema":{"type":"object","properties":{"price":{"type":"number"}}}}]}}`), llm)
	if err != nil {
		t.Fatal(err)
	}
	if o.Extraction != "The product." || string(o.ExtractionSchema) != `{"type":"object","properties":{"price":{"type":"number"}}}` ||
		strings.Join(o.Formats, ",") != "metadata,markdown" {
		t.Errorf("%+v", o)
	}
	o, _, err = ScrapeOptionsOf([]byte(`{"url":"https://example.com/","formats":["json"],"jsonOptions":{"schema":{"type":"object"}}}`), llm)
	if err != nil {
		t.Fatal(err)
	}
	if o.Extraction != crawl.DefaultSchemaInstructions || string(o.ExtractionSchema) != `{"type":"object"}` {
		t.Errorf("v1 jsonOptions: %+v", o)
	}
}

// TestCrawlOptionsRefusals: bad or unsupported fields are 400s naming the
// Firecrawl field.
func TestCrawlOptionsRefusals(t *testing.T) {
	cases := []struct{ body, field string }{
		{`{"url":"ftp://example.com/"}`, "url"},
		{`{}`, "url"},
		{`{"url":"https://example.com/","limit":0}`, "limit"},
		{`{"url":"https://example.com/","includePaths":["(?<=x)"]}`, "includePaths[0]"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":["pdfText"]}}`, "scrapeOptions.formats[0]"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":["screenshot"]}}`, "scrapeOptions.formats"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":[{"type":"screenshot","viewport":{"width":10}}]}}`, "scrapeOptions.formats[0]"},
		{`{"url":"https://example.com/","scrapeOptions":{"actions":[{"type":"click"}]}}`, "scrapeOptions.actions[0].selector"},
		{`{"url":"https://example.com/","scrapeOptions":{"actions":[{"type":"wait","milliseconds":500}]}}`, "scrapeOptions.actions"},
		{`{"url":"https://example.com/","scrapeOptions":{"actions":[{"type":"hover","selector":"a"}]}}`, "scrapeOptions.actions[0].type"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":[{"type":"screenshot","quality":101}]}}`, "scrapeOptions.formats[0]"},
		{`{"url":"https://example.com/","webhook":"ftp://hooks.example/"}`, "webhook.url"},
		{`{"url":"https://example.com/","webhook":{"url":"http://127.0.0.1:9/in"}}`, "webhook.url"},
		{`{"url":"https://example.com/","webhook":{"url":"https://hooks.example/","events":["done"]}}`, "webhook.events[0]"},
		{`{"url":"https://example.com/","webhook":{"url":"https://hooks.example/","headers":{"X":"a\nb"}}}`, "webhook.headers.X"},
		{`{"url":"https://example.com/","webhook":{"url":"https://hooks.example/","secret":"s"}}`, "webhook"},
		{`{"url":"https://example.com/","prompt":"the docs"}`, "prompt"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":[{"type":"json"}]}}`, "scrapeOptions.formats[0]"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":["markdown",{"type":"json","schema":{"type":"thing"}}]}}`, "scrapeOptions.formats[1].schema"},
		{`{"url":"https://example.com/","scrapeOptions":{"formats":[{"type":"json","prompt":"the prices"}]}}`, "scrapeOptions.formats.json.prompt"},
		{`{"url":"https://example.com/","colour":"blue"}`, "colour"},
		{`{"url":"https://example.com/","scrapeOptions":{"colour":"blue"}}`, "scrapeOptions.colour"},
		{`{"url":"https://example.com/","limit":"ten"}`, "limit"},
		{`{"url":"https://example.com/","maxConcurrency":0}`, "maxConcurrency"},
		{`{"url":"https://example.com/","delay":600}`, "delay"},
		{`{"url":"https://example.com/","scrapeOptions":{"waitFor":-1}}`, "scrapeOptions.waitFor"},
		{`{"url":"https://example.com/","scrapeOptions":{"waitFor":3000,"timeout":5000}}`, "scrapeOptions.waitFor"},
		{`{"url":"https://example.com/","scrapeOptions":{"proxy":"stealth"}}`, "scrapeOptions.proxy"},
		{`{"url":"https://example.com/","scrapeOptions":{"proxy":7}}`, "scrapeOptions.proxy"},
		{`{"url":"https://example.com/","scrapeOptions":{"redactPII":true}}`, "scrapeOptions.redactPII"},
		{`{"url":"https://example.com/","scrapeOptions":{"location":{"country":"DE"}}}`, "scrapeOptions.location.country"},
		{`{"url":"https://example.com/","scrapeOptions":{"maxAge":-1}}`, "scrapeOptions.maxAge"},
		{`{"url":"https://example.com/","scrapeOptions":{"parsers":[{"type":"pdf","mode":"ocr"}]}}`, "scrapeOptions.parsers"},
		{`{"url":"https://example.com/","zeroDataRetention":true}`, "zeroDataRetention"},
		{`{"url":"https://example.com/","ignoreRobotsTxt":true}`, "ignoreRobotsTxt"},
		{`{"url":"https://example.com/","ignoreRobotsTxt":"no"}`, "ignoreRobotsTxt"},
	}
	for _, c := range cases {
		_, err := CrawlOptions([]byte(c.body), crawl.Server{ObeyRobots: true})
		var e *crawl.Error
		if !errors.As(err, &e) || e.Code != crawl.EINVALID {
			t.Errorf("%s: %v, want an invalid request", c.body, err)
			continue
		}
		found := false
		for _, d := range e.Details {
			found = found || d.Field == c.field
		}
		if !found {
			t.Errorf("%s: details %+v do not name %s", c.body, e.Details, c.field)
		}
		if body := ErrorOf(e.Code, e.Message, e.Details); !strings.Contains(body.Error, c.field) || body.Success {
			t.Errorf("%s: the error %q does not name %s", c.body, body.Error, c.field)
		}
	}
}

// TestScrapeOptions: a scrape is a one-page crawl bounded by its timeout.
func TestScrapeOptions(t *testing.T) {
	o, timeout, err := ScrapeOptionsOf([]byte(`{"url":"https://example.com/a","formats":["markdown"],"timeout":15000,"onlyMainContent":false}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	if *o.MaxResults != 1 || o.DepthLimit() != 0 || o.UseSitemap || o.ExcludeNonMainTags || timeout.Timeout.Milliseconds() != 15000 {
		t.Errorf("%+v, timeout %s", o, timeout)
	}
	if _, _, err := ScrapeOptionsOf([]byte(`{"url":"https://example.com/a","timeout":5}`), crawl.Server{}); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("a 5 ms timeout: %v", err)
	}
}

// TestBatchOptions: a batch is a crawl of its URLs alone; invalid URLs are
// left out when the request asks, and named otherwise.
func TestBatchOptions(t *testing.T) {
	o, invalid, err := BatchOptionsOf([]byte(`{"urls":["https://example.com/a","https://example.org/b","https://example.com/a","mailto:x@example.com"],
		"ignoreInvalidURLs":true,"formats":["markdown"],"onlyMainContent":false}`), crawl.Server{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.StartURLs) != 2 || *o.MaxResults != 2 || o.DepthLimit() != 0 || o.ExcludeNonMainTags || len(invalid) != 1 || invalid[0] != "mailto:x@example.com" {
		t.Errorf("%+v, invalid %v", o, invalid)
	}
	// v1 refuses an invalid URL unless asked to leave it out; v2 leaves
	// it out unless asked not to, as Firecrawl's defaults have it.
	_, _, err = BatchOptionsOf([]byte(`{"urls":["https://example.com/a","mailto:x@example.com"]}`), crawl.Server{}, true)
	if err == nil || !strings.Contains(ErrorOf(crawl.EINVALID, "invalid", err.(*crawl.Error).Details).Error, "urls[1]") {
		t.Errorf("v1: an invalid URL without ignoreInvalidURLs: %v", err)
	}
	_, _, err = BatchOptionsOf([]byte(`{"urls":["https://example.com/a","mailto:x@example.com"],"ignoreInvalidURLs":false}`), crawl.Server{}, false)
	if err == nil || !strings.Contains(ErrorOf(crawl.EINVALID, "invalid", err.(*crawl.Error).Details).Error, "urls[1]") {
		t.Errorf("v2: an invalid URL with ignoreInvalidURLs false: %v", err)
	}
	if _, invalid, err := BatchOptionsOf([]byte(`{"urls":["https://example.com/a","mailto:x@example.com"]}`), crawl.Server{}, false); err != nil || len(invalid) != 1 {
		t.Errorf("v2: an invalid URL by default: %v, invalid %v", err, invalid)
	}
	if _, _, err := BatchOptionsOf([]byte(`{"urls":[]}`), crawl.Server{}, false); err == nil {
		t.Error("no URLs: accepted")
	}
}

func TestParsersOf(t *testing.T) {
	for raw, want := range map[string]struct {
		skip     bool
		maxPages int
		bad      bool
	}{
		``:                                  {},
		`null`:                              {},
		`["pdf"]`:                           {},
		`[]`:                                {skip: true},
		`[{"type":"pdf","maxPages":3}]`:     {maxPages: 3},
		`[{"type":"pdf","maxPages":3.0}]`:   {maxPages: 3},
		`[{"type":"pdf","maxPages":1e2}]`:   {maxPages: 100},
		`[{"type":"pdf","maxPages":2.5}]`:   {bad: true},
		`[{"type":"pdf","maxPages":"3"}]`:   {bad: true},
		`[{"type":"pdf"}]`:                  {},
		`["docx"]`:                          {bad: true},
		`[{"type":"pdf","maxPages":0}]`:     {bad: true},
		`[{"type":"pdf","maxPages":10001}]`: {bad: true},
		`[{"type":"pdf","pages":3}]`:        {bad: true},
		`"pdf"`:                             {bad: true},
	} {
		skip, maxPages, msg := parsersOf(json.RawMessage(raw))
		if (msg != "") != want.bad || !want.bad && (skip != want.skip || maxPages != want.maxPages) {
			t.Errorf("%s: skip %v, maxPages %d, %q; want %+v", raw, skip, maxPages, msg, want)
		}
	}
}

// TestExtractOptions: an extraction is a crawl of its URLs alone with its
// prompt and schema as the crawl's extraction; what it cannot do is a 400
// naming the field.
func TestExtractOptions(t *testing.T) {
	llm := crawl.Server{LLM: true}
	o, invalid, err := ExtractOptionsOf([]byte(`{"urls":["https://example.com/a","https://example.com/b","not a url"],
		"prompt":"The prices.","schema":{"type":"object","properties":{"price":{"type":"number"}}},"scrapeOptions":{"onlyMainContent":false}}`), llm)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.StartURLs) != 2 || o.DepthLimit() != 0 || o.Extraction != "The prices." || len(o.ExtractionSchema) == 0 ||
		o.ExcludeNonMainTags || len(invalid) != 1 {
		t.Errorf("%+v, invalid %v", o, invalid)
	}
	for body, field := range map[string]string{
		`{"urls":["https://example.com/"]}`:                                                  "prompt",
		`{"prompt":"x"}`:                                                                     "urls",
		`{"urls":["https://example.com/*/a"],"prompt":"x"}`:                                  "urls[0]",
		`{"urls":["https://example.com/"],"schema":{},"enableWebSearch":true}`:               "enableWebSearch",
		`{"urls":["https://example.com/docs/*"],"prompt":"x","limit":1001}`:                  "limit",
		`{"urls":["https://example.com/"],"schema":{"type":"thing"}}`:                        "schema",
		`{"urls":["https://example.com/"],"prompt":"x","scrapeOptions":{"waitFor":-1}}`:      "scrapeOptions.waitFor",
		`{"urls":["https://example.com/"],"prompt":"x","scrapeOptions":{"colour":"blue"}}`:   "scrapeOptions.colour",
		`{"urls":["https://example.com/"],"prompt":"x","scrapeOptions":{"proxy":"stealth"}}`: "scrapeOptions.proxy",
	} {
		_, _, err := ExtractOptionsOf([]byte(body), llm)
		if !names(err, field) {
			t.Errorf("%s: %v, want a 400 naming %s", body, err, field)
		}
	}
	if _, _, err := ExtractOptionsOf([]byte(`{"urls":["https://example.com/"],"prompt":"x"}`), crawl.Server{}); !names(err, "prompt") {
		t.Errorf("without an LLM: %v", err)
	}
	// A wildcard: a crawl of that part of the site, and of the listed page.
	o, _, err = ExtractOptionsOf([]byte(`{"urls":["https://example.com/docs/*","https://example.com/pricing"],"prompt":"x","limit":200}`), llm, "https://found.example/page")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.StartURLs, []string{"https://example.com/docs/", "https://example.com/pricing", "https://found.example/page"}) ||
		*o.MaxResults != 200 || o.DepthLimit() == 0 || !o.RegexOnFullURL ||
		!slices.Equal(o.IncludeOnlyPaths, []string{`^https://example\.com/docs/`, `^https://example\.com/pricing$`, `^https://found\.example/page$`}) {
		t.Errorf("a wildcard's crawl: %+v", o)
	}
}

// TestSourcesOf: the pages each field came from.
func TestSourcesOf(t *testing.T) {
	got := SourcesOf([]json.RawMessage{[]byte(`{"name":"A","tags":[],"price":{"amount":3}}`), []byte(`{"name":null,"tags":["x"],"price":{"amount":null}}`), []byte(`7`)},
		[]string{"https://a.example/", "https://b.example/", "https://c.example/"})
	want := map[string][]string{"name": {"https://a.example/"}, "tags": {"https://b.example/"}, "price": {"https://a.example/", "https://b.example/"},
		"price.amount": {"https://a.example/"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SourcesOf = %v, want %v", got, want)
	}
}

// TestExtractionOf: the pages' answers combine into one.
func TestExtractionOf(t *testing.T) {
	for _, c := range []struct {
		answers []string
		want    string
	}{
		{nil, `null`},
		{[]string{`{"a":1}`}, `{"a":1}`},
		{[]string{`{"name":null,"tags":["x"],"price":3}`, ``, `{"name":"Kettle","tags":["x","y"],"price":4}`},
			`{"name":"Kettle","price":3,"tags":["x","y"]}`},
		{[]string{`{"shop":{"city":"Oslo"}}`, `{"shop":{"street":"Main"}}`}, `{"shop":{"city":"Oslo","street":"Main"}}`},
		{[]string{`"one"`, `"two"`}, `["one","two"]`},
	} {
		var raw []json.RawMessage
		for _, a := range c.answers {
			raw = append(raw, json.RawMessage(a))
		}
		if got := string(ExtractionOf(raw)); got != c.want {
			t.Errorf("%v: %s, want %s", c.answers, got, c.want)
		}
	}
}
