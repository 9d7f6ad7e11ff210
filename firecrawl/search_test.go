package firecrawl

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/search"
)

var searchNow = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// TestSearchOf reads Firecrawl's search requests into what the backend
// is asked and how results are scraped.
func TestSearchOf(t *testing.T) {
	srv := crawl.Server{Browser: true}
	plan, err := SearchOf([]byte(`{"query":"durable crawls","sources":["web","news","web"],"limit":7,"tbs":"qdr:w","lang":"de","country":"ch",
		"includeDomains":["Example.org"],"location":"Zurich","timeout":30000,"ignoreInvalidURLs":true,
		"scrapeOptions":{"formats":["markdown","links"],"onlyMainContent":false}}`), srv, searchNow, false)
	if err != nil {
		t.Fatal(err)
	}
	b := plan.Backend
	if b.Query != "durable crawls" || !slices.Equal(plan.Sources, []string{search.Web, search.News}) || b.Limit != 7 ||
		b.TimeRange != "week" || !b.Since.Equal(searchNow.AddDate(0, 0, -7)) || b.Language != "de-CH" ||
		!slices.Equal(b.IncludeDomains, []string{"example.org"}) || plan.Timeout != 30*time.Second || !plan.DropInvalid {
		t.Errorf("plan: %+v", plan)
	}
	if len(plan.Warnings) != 1 || plan.Scrape == nil {
		t.Errorf("warnings %v, scrape %s", plan.Warnings, plan.Scrape)
	}
	opts, invalid, err := SearchBatch(plan, []string{"https://example.org/a", "ftp://example.org/b"}, srv)
	if err != nil || !slices.Equal(opts.StartURLs, []string{"https://example.org/a"}) || !slices.Equal(invalid, []string{"ftp://example.org/b"}) ||
		opts.ExcludeNonMainTags || !slices.Contains(opts.Formats, "links") {
		t.Errorf("batch: %+v %v %v", opts, invalid, err)
	}
	// Defaults: v2 10 results, v1 5; web only; scrapeOptions without
	// formats scrape nothing.
	for _, c := range []struct {
		body  string
		v1    bool
		limit int
	}{{`{"query":"x"}`, false, 10}, {`{"query":"x"}`, true, 5}, {`{"query":"x","scrapeOptions":{"onlyMainContent":true}}`, false, 10}} {
		p, err := SearchOf([]byte(c.body), srv, searchNow, c.v1)
		if err != nil || p.Backend.Limit != c.limit || !slices.Equal(p.Sources, []string{search.Web}) || p.Scrape != nil || p.Backend.Language != "en" {
			t.Errorf("%s (v1 %v): %+v, %v", c.body, c.v1, p, err)
		}
	}
	// Advanced sources: a web source's own options.
	p, err := SearchOf([]byte(`{"query":"x","sources":[{"type":"web","tbs":"cdr:1,cd_min:1/2/2025,cd_max:1/31/2025","country":"de"},{"type":"images"}]}`), srv, searchNow, false)
	if err != nil || !p.Backend.Since.Equal(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) || p.Backend.Until.Day() != 31 || p.Backend.Language != "en-DE" ||
		!slices.Equal(p.Sources, []string{search.Web, search.Images}) {
		t.Errorf("advanced sources: %+v %v", p, err)
	}
}

// TestSearchRefusals: each problem names its field, as Firecrawl's
// schema does.
func TestSearchRefusals(t *testing.T) {
	for _, c := range []struct{ body, field string }{
		{`{}`, "query"},
		{`{"query":"  "}`, "query"},
		{`{"query":"x","limit":0}`, "limit"},
		{`{"query":"x","limit":101}`, "limit"},
		{`{"query":"x","sources":["videos"]}`, "sources"},
		{`{"query":"x","sources":[{"type":"news","tbs":"qdr:d"}]}`, "sources"},
		{`{"query":"x","tbs":"qdr:x"}`, "tbs"},
		{`{"query":"x","tbs":"cdr:1,cd_min:2025-01-01"}`, "tbs"},
		{`{"query":"x","includeDomains":["https://example.org/"]}`, "includeDomains[0]"},
		{`{"query":"x","includeDomains":["a.org"],"excludeDomains":["b.org"]}`, "includeDomains"},
		{`{"query":"x","country":"Germany"}`, "country"},
		{`{"query":"x","timeout":0}`, "timeout"},
		{`{"query":"x","categories":["github"]}`, "categories"},
		{`{"query":"x","asyncScraping":true}`, "asyncScraping"},
		{`{"query":"x","scrapeOptions":{"formats":["pdfText"]}}`, "scrapeOptions.formats[0]"},
		{`{"query":"x","scrapeOptions":{"webhook":"https://h.example/"}}`, "scrapeOptions.webhook"},
		{`{"query":"x","colour":"blue"}`, "colour"},
	} {
		_, err := SearchOf([]byte(c.body), crawl.Server{}, searchNow, false)
		var e *crawl.Error
		if !errors.As(err, &e) || e.Code != crawl.EINVALID {
			t.Errorf("%s: %v, want a 400", c.body, err)
			continue
		}
		found := false
		for _, d := range e.Details {
			found = found || d.Field == c.field
		}
		if !found {
			t.Errorf("%s: %+v does not name %s", c.body, e.Details, c.field)
		}
	}
}

// TestSearchCatalogue: a source of Firecrawl's catalogue is Firecrawl's
// 403 for a team without it, whose exact words Firecrawl's MCP server
// knows and falls back to the web alone after.
func TestSearchCatalogue(t *testing.T) {
	for _, body := range []string{`{"query":"x","sources":["web","alexandria"],"domainTools":true,"toolDetail":"compact"}`,
		`{"query":"x","sources":[{"type":"exchange"}]}`} {
		_, err := SearchOf([]byte(body), crawl.Server{}, searchNow, false)
		var e *crawl.Error
		if !errors.As(err, &e) || e.Code != CodeNotEnabled || e.Message != "This endpoint is not enabled for this team." {
			t.Errorf("%s: %v", body, err)
		}
	}
	if _, err := SearchOf([]byte(`{"query":"x","sources":["web"],"domainTools":false,"toolDetail":"compact"}`), crawl.Server{}, searchNow, false); err != nil {
		t.Errorf("the MCP server's fallback is refused: %v", err)
	}
}

// TestSearchItemOf: each source's result in Firecrawl's shape, and a
// scraped result with its document.
func TestSearchItemOf(t *testing.T) {
	md := "# Page"
	web := SearchItemOf(search.Web, 1, search.Result{URL: "https://a.example/", Title: "A", Description: "About a"}, &Document{Markdown: &md, Metadata: map[string]any{"statusCode": 200}})
	if web["url"] != "https://a.example/" || web["title"] != "A" || web["description"] != "About a" || web["markdown"] != md || web["position"] != 1 || web["metadata"] == nil {
		t.Errorf("web: %v", web)
	}
	news := SearchItemOf(search.News, 2, search.Result{URL: "https://n.example/", Title: "N", Description: "snip", Published: searchNow, ImageURL: "https://n.example/i.png"}, nil)
	if news["snippet"] != "snip" || news["date"] != "2026-12-07T12:00:00Z" || news["imageUrl"] != "https://n.example/i.png" {
		t.Errorf("news: %v", news)
	}
	img := SearchItemOf(search.Images, 3, search.Result{URL: "https://i.example/", ImageURL: "https://i.example/p.png", ImageWidth: 8, ImageHeight: 6}, nil)
	if img["imageUrl"] != "https://i.example/p.png" || img["imageWidth"] != 8 || img["imageHeight"] != 6 {
		t.Errorf("images: %v", img)
	}
}
