package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/internal/officetest"
)

// TestMCP runs the MCP TypeScript SDK's client (tools/mcp) against two MCP
// servers: Firecrawl's own (firecrawl-mcp, over stdio, pointed at the
// service) with its tools' arguments as an agent sends them — scrape
// (markdown, formats, a 404 page, json with a schema, summary), map,
// crawl and its status, refusals — and the service's own endpoint at /mcp
// (streamable HTTP, the API key as bearer): scrape, map, a durable crawl
// started, followed, read a page at a time and listed, a crawl cancelled,
// refusals as tool errors, and a wrong key refused.
func TestMCP(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("CRAWLER_MCP_CLIENTS")
	if clients == "" {
		t.Fatal("CRAWLER_MCP_CLIENTS is not set: make test installs the MCP clients (ensure_mcp_clients in scripts/lib.sh)")
	}
	site := httptest.NewServer(firecrawlSite())
	addSearchResults("durable crawl service mcp", site.URL)
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	docx := filepath.Join(t.TempDir(), "report.docx")
	if err := os.WriteFile(docx, officetest.DOCX(), 0o644); err != nil {
		t.Fatal(err)
	}
	report := nodeReport(ctx, t, "the MCP clients", []string{"PARSE_FILE=" + docx, "PARSE_DOCX_B64=" + base64.StdEncoding.EncodeToString(officetest.DOCX())},
		filepath.Join(clients, "check.mjs"), env.api, env.keyA, site.URL, env.llmAPI)
	type result struct {
		Thrown     bool            `json:"thrown"`
		Message    string          `json:"message"`
		IsError    bool            `json:"isError"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
	}
	get := func(name string) result {
		t.Helper()
		var r result
		if err := json.Unmarshal(report[name], &r); err != nil {
			t.Fatalf("%s: %s: %v", name, report[name], err)
		}
		return r
	}
	ok := func(name string, words ...string) result {
		t.Helper()
		r := get(name)
		if r.Thrown || r.IsError {
			t.Errorf("%s failed: %.1000s", name, report[name])
			return r
		}
		for _, w := range words {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s does not say %q: %.1500s", name, w, r.Text)
			}
		}
		return r
	}
	refused := func(name string, words ...string) {
		t.Helper()
		r := get(name)
		if !r.Thrown && !r.IsError {
			t.Errorf("%s was not refused: %.1000s", name, report[name])
		}
		for _, w := range words {
			if !strings.Contains(r.Text+r.Message, w) {
				t.Errorf("%s: the refusal does not say %q: %.1000s", name, w, report[name])
			}
		}
	}

	// Firecrawl's MCP server.
	var tools []string
	_ = json.Unmarshal(report["firecrawlTools"], &tools)
	for _, want := range []string{"firecrawl_scrape", "firecrawl_map", "firecrawl_crawl", "firecrawl_check_crawl_status",
		"firecrawl_monitor_create", "firecrawl_monitor_run", "firecrawl_monitor_checks", "firecrawl_search", "firecrawl_credit_usage", "firecrawl_parse"} {
		if !slices.Contains(tools, want) {
			t.Errorf("Firecrawl's MCP server has no %s: %v", want, tools)
		}
	}
	ok("fcScrape", "Page 1 of section 1")
	ok("fcScrapeMissing", "404")
	ok("fcScrapeFormats", site.URL+"/s1/p1", "Harbour guide")
	ok("fcMap", site.URL+"/s1/p1")
	if r := ok("fcMapSearch"); strings.Contains(r.Text, site.URL+"/s2/p2\"") {
		t.Errorf("a map searching p1 lists /s2/p2: %.1000s", r.Text)
	}
	ok("fcSearch", site.URL+"/s1/p1", "The first result", site.URL+"/s1/p3")
	if r := ok("fcSearchScrape", site.URL+"/s2/p2", "Page 2 of section 2"); strings.Contains(r.Text, site.URL+"/s1/p3") {
		t.Errorf("firecrawl_search with limit 2 answered a third result: %.1000s", r.Text)
	}
	ok("fcParse", "Harbour report", "Bicycles travel free")
	ok("fcCredits", `"remainingCredits": 2147483647`, "billingPeriodEnd")
	ok("fcCreditsByKey", `"creditsUsed"`, `"apiKey"`)
	ok("fcCrawl")
	var crawlID string
	_ = json.Unmarshal(report["fcCrawlId"], &crawlID)
	if crawlID == "" {
		t.Errorf("firecrawl_crawl answered no crawl ID: %s", report["fcCrawl"])
	}
	ok("fcCrawlStatus", "completed", site.URL+"/")
	// Firecrawl's server words a crawl's refusal itself ("Request failed
	// with status code 400"), without the answer's message.
	refused("fcCrawlBad", "400")
	refused("fcStatusUnknown")
	// Monitors: a schedule of crawls, created, listed, read, run, its
	// checks read, paused and deleted through Firecrawl's monitor tools.
	var monitorID string
	_ = json.Unmarshal(report["fcMonitorId"], &monitorID)
	ok("fcMonitorCreate", "shop")
	if monitorID == "" {
		t.Errorf("firecrawl_monitor_create answered no ID: %s", report["fcMonitorCreate"])
	}
	ok("fcMonitorList", monitorID)
	ok("fcMonitorGet", monitorID, "0 3 * * *")
	ok("fcMonitorRun")
	ok("fcMonitorChecks", "completed")
	ok("fcMonitorCheck", site.URL+"/")
	ok("fcMonitorPause", "paused")
	ok("fcMonitorDelete")
	// The tool's simple form: a page, a goal, a schedule in words — none
	// of which a monitor here has (docs/firecrawl.md).
	refused("fcMonitorScrape")
	ok("fcScrapeJson", `"price": 12.5`)
	ok("fcScrapeSummary", "A page of the test site at /schema-ok.")

	// The service's own MCP endpoint.
	var bad struct {
		Connected bool `json:"connected"`
	}
	_ = json.Unmarshal(report["ownBadKey"], &bad)
	if bad.Connected {
		t.Errorf("a wrong key connected to /mcp: %s", report["ownBadKey"])
	}
	_ = json.Unmarshal(report["ownTools"], &tools)
	for _, want := range []string{"scrape", "map", "search", "extract", "parse", "start_crawl", "crawl_status", "crawl_pages", "cancel_crawl", "list_crawls"} {
		if !slices.Contains(tools, want) {
			t.Errorf("/mcp has no %s: %v", want, tools)
		}
	}
	ok("ownScrape", "Page 1 of section 1")
	refused("ownScrapeBad", "url")
	ok("ownMap", site.URL+"/s1/p1")
	ok("ownSearch", "[web] The first result", site.URL+"/s2/p2", "Page 2 of section 2")
	ok("ownParse", "A steel kettle for the stove.")
	ok("ownParseDocx", "## Ferries", "| Island")
	ok("ownExtract", `"item-1"`, `"item-2"`, `"completed"`, site.URL+"/schema-list-2")
	start := ok("ownStart", "started")
	var started struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(start.Structured, &started)
	status := ok("ownStatus", "succeeded", "25 pages stored")
	var st struct {
		ID         string `json:"id"`
		TotalPages int    `json:"totalPages"`
		Ended      bool   `json:"ended"`
	}
	_ = json.Unmarshal(status.Structured, &st)
	if st.ID != started.ID || st.TotalPages != 25 || !st.Ended {
		t.Errorf("crawl_status: %s", status.Structured)
	}
	// The crawl is the service's own, readable through its API.
	var native crawlObj
	if code, body := call(t, "GET", env.api+"/crawls/"+started.ID, env.keyA, nil, &native); code != 200 || native.TotalPages != 25 {
		t.Errorf("GET /crawls/%s: %d %s", started.ID, code, body)
	}
	type pages struct {
		Page, TotalPages, NextPage int
		Pages                      []struct {
			URL, Markdown string
		}
	}
	var p1, p3 pages
	_ = json.Unmarshal(ok("ownPages1", "(page 1 of 3)").Structured, &p1)
	_ = json.Unmarshal(ok("ownPages3", "(page 3 of 3)").Structured, &p3)
	if len(p1.Pages) != 10 || p1.NextPage != 2 || len(p3.Pages) != 5 || p3.NextPage != 0 || p1.Pages[0].Markdown == "" {
		t.Errorf("crawl_pages: %+v / %+v", p1, p3)
	}
	ok("ownList", started.ID)
	ok("ownCancel", "aborted")
	refused("ownStartBad", "maxResults")
}
