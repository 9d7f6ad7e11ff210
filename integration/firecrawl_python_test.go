package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/internal/officetest"
	"github.com/durablecrawl/crawler/usage"
)

// pythonReport runs tools/firecrawl-py/check.py with Firecrawl's Python
// SDK against the service and returns its report; the test skips, saying
// why, where the SDK could not be installed.
func pythonReport(ctx context.Context, t *testing.T, siteURL, quotaKey string) map[string]json.RawMessage {
	t.Helper()
	python := os.Getenv("CRAWLER_FIRECRAWL_PY")
	if python == "" {
		why := os.Getenv("CRAWLER_FIRECRAWL_PY_MISSING")
		if why == "" {
			why = "CRAWLER_FIRECRAWL_PY is not set: make test installs Firecrawl's Python SDK (ensure_firecrawl_py in scripts/lib.sh)"
		}
		t.Skip("Firecrawl's Python SDK is not installed: " + why)
	}
	cmd := exec.CommandContext(ctx, python, filepath.Join("..", "tools", "firecrawl-py", "check.py"), env.api, env.keyA, siteURL, env.llmAPI)
	cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+webhookSecret)
	if quotaKey != "" {
		cmd.Env = append(cmd.Env, "QUOTA_KEY="+quotaKey)
	}
	docx := filepath.Join(t.TempDir(), "harbour report.docx")
	if err := os.WriteFile(docx, officetest.DOCX(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "PARSE_DOCX="+docx)
	if dir := os.Getenv("CRAWLER_REALPDFS"); dir != "" {
		cmd.Env = append(cmd.Env, "PARSE_PDF="+filepath.Join(dir, "maint-guide.pdf"))
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the Python SDK's run failed: %v\n%s", err, out)
	}
	var report map[string]json.RawMessage
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the Python SDK's run printed %q: %v", out, err)
	}
	return report
}

// TestFirecrawlPythonSDK runs Firecrawl's Python SDK (firecrawl-py, the
// client LangChain's, LlamaIndex's and CrewAI's Firecrawl tools are built
// on) against the service with its own defaults: its v2 client's scrapes
// (formats, error pages, a repeat answered from the cache), crawls
// (formats, past one status answer, depth, sitemap, paths, robots.txt,
// errors, cancel, the active list, paged status), batches, maps, the json
// and summary formats, refusals with their status, both WebSocket
// watchers (a running crawl, and an ended one of 105 pages watched whole),
// and the v1 client's calls.
func TestFirecrawlPythonSDK(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()
	addSearchResults("durable crawl service", site.URL)
	addSearchResults("durable crawl service extract", site.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	// A team past its quota of pages, for the SDK's 402.
	quotaKey, _ := newTeamKey(t, "over-quota")
	var me struct {
		Team struct {
			Name string `json:"name"`
		} `json:"team"`
	}
	call(t, "GET", env.api+"/me", quotaKey, nil, &me)
	none := int64(0)
	if _, err := env.store.SetTeamQuota(ctx, me.Team.Name, usage.Quota{MonthlyPages: &none}); err != nil {
		t.Fatal(err)
	}
	report := pythonReport(ctx, t, site.URL, quotaKey)
	read := func(name string, v any) {
		t.Helper()
		if err := json.Unmarshal(report[name], v); err != nil {
			t.Fatalf("%s: %s: %v", name, report[name], err)
		}
	}
	notRaised := func(name string) {
		t.Helper()
		var r struct {
			Raised bool `json:"raised"`
		}
		if json.Unmarshal(report[name], &r) == nil && r.Raised {
			t.Errorf("%s raised: %s", name, report[name])
		}
	}
	for name := range report {
		if name != "sdk" && !slices.Contains([]string{"notHttp", "scrapeActionFails", "searchBadTbs", "overQuota", "paramsPreviewRefused", "crawlPromptNoLLM", "parseUnreadable", "scrapeActionsTooLong", "ignoreRobots", "badRegex", "unknownCrawl", "summaryWithoutLLM",
			"mapLocation", "scrapeJsonBadSchema", "extractNoLLM"}, name) {
			notRaised(name)
		}
	}
	type document struct {
		Markdown   string          `json:"markdown"`
		HTML       string          `json:"html"`
		RawHTML    string          `json:"rawHtml"`
		Links      []string        `json:"links"`
		Images     []string        `json:"images"`
		JSON       json.RawMessage `json:"json"`
		Summary    string          `json:"summary"`
		StatusCode int             `json:"statusCode"`
		SourceURL  string          `json:"sourceURL"`
		Error      string          `json:"error"`
		CacheState string          `json:"cacheState"`
		CachedAt   string          `json:"cachedAt"`
	}

	// Every request field of the SDK's request models is a field of
	// Firecrawl's the service knows (firecrawl.Fields, docs/firecrawl.md).
	var sdkFields map[string][]string
	read("sdkFields", &sdkFields)
	where := map[string]firecrawl.Where{"scrapeOptions": firecrawl.InScrapeOptions, "crawl": firecrawl.InCrawl,
		"batch": firecrawl.InBatch, "map": firecrawl.InMap, "extract": firecrawl.InExtract, "scrape": firecrawl.InScrape,
		"search": firecrawl.InSearch}
	// The v1 SDK's scrape parameters hold a webhook, which Firecrawl's v1
	// scrape schema does not: refused here as there.
	notFirecrawls := map[string]bool{"scrape webhook": true}
	for request, fields := range sdkFields {
		known := map[string]bool{}
		for name := range firecrawl.FieldsIn(where[request]) {
			known[strings.ToLower(name)] = true
		}
		for _, f := range fields {
			if !known[strings.ToLower(f)] && !notFirecrawls[request+" "+f] {
				t.Errorf("the Python SDK sends %s in a %s request, which firecrawl.Fields does not hold", f, request)
			}
		}
	}

	var d document
	read("scrape", &d)
	if !strings.Contains(d.Markdown, "Page 1 of section 1") || d.StatusCode != 200 || d.SourceURL != site.URL+"/s1/p1" {
		t.Errorf("scrape: %.500s", report["scrape"])
	}
	var errorPages map[string]document
	read("scrapeErrorPages", &errorPages)
	for path, status := range map[string]int{"/missing": 404, "/broken": 500, "/forbidden": 403} {
		if got := errorPages[path]; got.StatusCode != status || got.Markdown == "" {
			t.Errorf("scrape of %s: %+v", path, got)
		}
	}
	read("scrapeFormats", &d)
	if d.RawHTML != metaPage || !strings.Contains(d.HTML, "<h1>Harbour guide</h1>") || len(d.Links) != 3 || len(d.Images) != 1 {
		t.Errorf("formats: %.1500s", report["scrapeFormats"])
	}

	// How pages are requested: headers, a phone, a wait, screenshots.
	var shape map[string]document
	read("scrapeRequestShape", &shape)
	if md := shape["headers"].Markdown; !strings.Contains(md, `read "docs"`) {
		t.Errorf("headers: %.500s", md)
	}
	if md := shape["mobile"].Markdown; !strings.Contains(md, "Mobile") || !strings.Contains(md, "The window was 390 pixels wide.") {
		t.Errorf("mobile: %.500s", md)
	}
	read("scrapeWaitFor", &d)
	if !strings.Contains(d.Markdown, "The price of the kettle arrived from a script after a long while.") {
		t.Errorf("waitFor: %.500s", d.Markdown)
	}
	var shots struct {
		Viewport, Full string
	}
	read("screenshots", &shots)
	for _, u := range []string{shots.Viewport, shots.Full} {
		if !strings.HasPrefix(u, env.api+"/screenshots/") {
			t.Errorf("screenshots: %s", report["screenshots"])
		}
	}

	checkActions(t, report["scrapeActions"])
	checkSearch(t, report["search"], report["searchScrape"], site.URL)
	checkUsage(t, report)
	checkPlans(t, report, site.URL)
	checkParse(t, report)
	var wild struct {
		Status  string              `json:"status"`
		Data    map[string]any      `json:"data"`
		Sources map[string][]string `json:"sources"`
	}
	read("extractWildcard", &wild)
	if wild.Status != "completed" || len(wild.Sources["path"]) != 6 || !slices.Contains(wild.Sources["path"], site.URL+"/blog/2023/winter") {
		t.Errorf("an extraction of a wildcard: %s", report["extractWildcard"])
	}
	var started struct {
		ID     string `json:"id"`
		Status struct {
			Status    string              `json:"status"`
			Data      map[string]any      `json:"data"`
			Sources   map[string][]string `json:"sources"`
			ExpiresAt string              `json:"expires_at"`
		} `json:"status"`
	}
	read("extractStarted", &started)
	if started.ID == "" || started.Status.Status != "completed" || fmt.Sprint(started.Status.Data["items"]) != "[item-1 item-2]" ||
		len(started.Status.Sources["items"]) != 2 || started.Status.ExpiresAt == "" {
		t.Errorf("start_extract and get_extract_status: %s", report["extractStarted"])
	}
	var web struct {
		Status  string              `json:"status"`
		Data    map[string]any      `json:"data"`
		Sources map[string][]string `json:"sources"`
	}
	read("extractWebSearch", &web)
	if web.Status != "completed" || web.Data["path"] != "/s1/p1" || web.Sources != nil {
		t.Errorf("an extraction of the web search's pages: %s", report["extractWebSearch"])
	}
	var v1Search struct {
		Data []struct {
			URL      string `json:"url"`
			Title    string `json:"title"`
			Markdown string `json:"markdown"`
		} `json:"data"`
	}
	read("v1Search", &v1Search)
	if len(v1Search.Data) != 2 || v1Search.Data[0].URL != site.URL+"/s1/p1" || v1Search.Data[0].Title != "The first result" {
		t.Errorf("v1 search: %s", report["v1Search"])
	}

	// The SDK asks for pages younger than 4 hours: the repeat is answered
	// from the cache without a request to the site; maxAge 0 fetches.
	var cached struct {
		First, Again, Fresh document
		AgainSeconds        float64 `json:"againSeconds"`
	}
	read("scrapeCached", &cached)
	if cached.First.CacheState != "miss" || cached.Again.CacheState != "hit" || cached.Again.CachedAt == "" ||
		cached.Again.Markdown != cached.First.Markdown || cached.Fresh.CacheState != "miss" {
		t.Errorf("the cache: %s", report["scrapeCached"])
	}
	if hits := cachedHits.Load(); hits != 2 {
		t.Errorf("the site served /cached %d times, want 2 (the first scrape and the one with maxAge 0)", hits)
	}
	t.Logf("a scrape answered from the cache took %.0f ms", cached.AgainSeconds*1000)

	// Crawls.
	type crawled struct {
		ID            string   `json:"id"`
		Status        string   `json:"status"`
		Completed     int      `json:"completed"`
		URLs          []string `json:"urls"`
		MarkdownChars []int    `json:"markdownChars"`
	}
	var c crawled
	read("crawlFormats", &c)
	if c.Status != "completed" || len(c.URLs) != 3 {
		t.Errorf("crawl with formats: %s", report["crawlFormats"])
	}
	read("crawlPastOnePage", &c)
	distinct := map[string]bool{}
	for _, u := range c.URLs {
		distinct[u] = true
	}
	if c.Status != "completed" || len(distinct) != 150 || c.Completed != 150 || slices.Contains(c.MarkdownChars, 0) {
		t.Errorf("a 150-page crawl: %s, %d distinct documents, completed %d", c.Status, len(distinct), c.Completed)
	}
	read("crawlDepth0", &c)
	if len(c.URLs) != 1 || c.URLs[0] != site.URL+"/" {
		t.Errorf("maxDiscoveryDepth 0: %+v", c)
	}
	read("crawlDepth1", &c)
	if c.Status != "completed" || len(c.URLs) < 7 || len(c.URLs) >= 200 {
		t.Errorf("maxDiscoveryDepth 1: %s, %d documents", c.Status, len(c.URLs))
	}
	var withQuery, withoutQuery crawled
	read("crawlQueries", &withQuery)
	read("crawlIgnoreQueries", &withoutQuery)
	if len(withQuery.URLs) != 4 || len(withoutQuery.URLs) != 2 {
		t.Errorf("ignoreQueryParameters: %v without, %v with", withQuery.URLs, withoutQuery.URLs)
	}
	read("crawlSitemapInclude", &c)
	sort.Strings(c.URLs)
	if want := []string{site.URL + "/", site.URL + "/s1/p7", site.URL + "/s2/p10", site.URL + "/s4/p16"}; !slices.Equal(c.URLs, want) {
		t.Errorf("sitemap include at depth 0: %v", c.URLs)
	}
	var linked struct {
		URLs          []string `json:"urls"`
		RobotsBlocked []string `json:"robotsBlocked"`
	}
	read("robotsLinked", &linked)
	if !slices.Contains(linked.RobotsBlocked, site.URL+"/private/x") || slices.Contains(linked.URLs, site.URL+"/private/x") {
		t.Errorf("a linked page robots.txt disallows: %s", report["robotsLinked"])
	}
	read("crawlSitemapOnly", &c)
	sort.Strings(c.URLs)
	if want := []string{site.URL + "/", site.URL + "/s1/p7", site.URL + "/s2/p10", site.URL + "/s4/p16"}; !slices.Equal(c.URLs, want) {
		t.Errorf("sitemap only: %v", c.URLs)
	}
	read("crawlExclude", &c)
	excluded := regexp.MustCompile(`^/s2/|p1[0-9]$`)
	for _, u := range c.URLs {
		if excluded.MatchString(strings.TrimPrefix(u, site.URL)) {
			t.Errorf("excludePaths: %s was crawled", u)
		}
	}
	var paged struct {
		FirstPage int    `json:"firstPage"`
		Next      string `json:"next"`
		Whole     int    `json:"whole"`
		Status    string `json:"status"`
	}
	read("crawlPaged", &paged)
	if paged.FirstPage != 100 || paged.Next == "" || paged.Whole != 120 || paged.Status != "completed" {
		t.Errorf("paged status: %s", report["crawlPaged"])
	}
	var robots struct {
		Status        string `json:"status"`
		RobotsBlocked int    `json:"robotsBlocked"`
	}
	read("robots", &robots)
	if robots.Status != "completed" || robots.RobotsBlocked == 0 {
		t.Errorf("robots.txt: %s", report["robots"])
	}
	var missing struct {
		Errors struct {
			Errors []struct {
				URL string `json:"url"`
			} `json:"errors"`
		} `json:"errors"`
	}
	read("crawlMissing", &missing)
	if len(missing.Errors.Errors) != 1 || missing.Errors.Errors[0].URL != site.URL+"/missing" {
		t.Errorf("a missing start page: %s", report["crawlMissing"])
	}
	var cancelled struct {
		ID        string   `json:"id"`
		ActiveIDs []string `json:"activeIds"`
		Cancelled bool     `json:"cancelled"`
	}
	read("cancel", &cancelled)
	if !cancelled.Cancelled || !slices.Contains(cancelled.ActiveIDs, cancelled.ID) {
		t.Errorf("cancel: %s", report["cancel"])
	}

	// Batches: the missing page is in the errors.
	var batch struct {
		Status string   `json:"status"`
		URLs   []string `json:"urls"`
		Errors struct {
			Errors []struct {
				URL string `json:"url"`
			} `json:"errors"`
		} `json:"errors"`
	}
	read("batch", &batch)
	if batch.Status != "completed" || len(batch.URLs) != 2 || len(batch.Errors.Errors) != 1 {
		t.Errorf("batch: %.1000s", report["batch"])
	}
	var batchCancel struct {
		Cancelled bool `json:"cancelled"`
	}
	read("batchStartCancel", &batchCancel)
	if !batchCancel.Cancelled {
		t.Errorf("batch cancel: %s", report["batchStartCancel"])
	}
	var maps struct {
		All, Search, Only []string
	}
	read("map", &maps)
	if !slices.Contains(maps.All, site.URL+"/s1/p1") || len(maps.Only) != 4 || len(maps.Search) == 0 {
		t.Errorf("map: %.1000s", report["map"])
	}
	for _, u := range maps.Search {
		if !strings.Contains(strings.ToLower(u), "p1") {
			t.Errorf("map search P1: %s", u)
		}
	}

	// The watchers.
	var watch struct {
		Crawled   int      `json:"crawled"`
		Documents int      `json:"documents"`
		Done      bool     `json:"done"`
		Statuses  []string `json:"statuses"`
		Status    string   `json:"status"`
	}
	for name, want := range map[string]int{"watchRunning": 30, "watchEnded": 105, "watchBatch": 3} {
		read(name, &watch)
		if !watch.Done || watch.Documents != want || !slices.Contains(watch.Statuses, "completed") {
			t.Errorf("%s: %s, want %d documents and completed", name, report[name], want)
		}
	}
	// The v1 watcher reads until the service closes the connection, and
	// keeps the status of the catchup (Firecrawl says done in the close
	// frame's reason, which this client does not read).
	for name, want := range map[string]int{"v1Watch": 20, "v1WatchEnded": 105} {
		read(name, &watch)
		if watch.Documents != want {
			t.Errorf("%s: %s, want %d documents", name, report[name], want)
		}
	}
	if read("v1WatchEnded", &watch); watch.Status != "completed" {
		t.Errorf("v1 watch of an ended crawl: %s", report["v1WatchEnded"])
	}

	// The json and summary formats, through a deployment with an LLM.
	var withJSON, summed document
	read("scrapeJson", &withJSON)
	var product struct {
		Title string  `json:"title"`
		Price float64 `json:"price"`
	}
	if err := json.Unmarshal(withJSON.JSON, &product); err != nil || product.Price != 12.5 || product.Title != "Kettle" {
		t.Errorf("json: %s", report["scrapeJson"])
	}
	read("scrapeSummary", &summed)
	if summed.Summary != "A page of the test site at /schema-ok." || summed.Markdown != "" {
		t.Errorf("summary: %s", report["scrapeSummary"])
	}

	// An extraction of two pages: their answers combined.
	var extracted struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	read("extract", &extracted)
	var items struct {
		Title string   `json:"title"`
		Items []string `json:"items"`
	}
	if err := json.Unmarshal(extracted.Data, &items); err != nil || extracted.Status != "completed" || items.Title != "Kettle" ||
		!slices.Equal(items.Items, []string{"item-1", "item-2"}) {
		t.Errorf("extract: %s", report["extract"])
	}

	// Webhooks: signed, retried, every page, started and completed.
	checkWebhooks(t, report, site.URL)

	// The v1 client.
	var v1 struct {
		Success  bool     `json:"success"`
		Status   string   `json:"status"`
		Markdown string   `json:"markdown"`
		URLs     []string `json:"urls"`
		Links    []string `json:"links"`
	}
	read("v1Scrape", &v1)
	if !strings.Contains(v1.Markdown, "Page 1 of section 1") {
		t.Errorf("v1 scrape: %.500s", report["v1Scrape"])
	}
	read("v1Crawl", &v1)
	if v1.Status != "completed" || len(v1.URLs) != 5 {
		t.Errorf("v1 crawl: %s", report["v1Crawl"])
	}
	read("v1Map", &v1)
	if len(v1.Links) != 5 {
		t.Errorf("v1 map: %s", report["v1Map"])
	}
	var v1Batch struct {
		Status    string `json:"status"`
		Documents int    `json:"documents"`
	}
	read("v1Batch", &v1Batch)
	if v1Batch.Status != "completed" || v1Batch.Documents != 2 {
		t.Errorf("v1 batch: %s", report["v1Batch"])
	}

	// Refusals: the SDK raises them with their status and the field.
	checkRefusals(t, report, "raised", map[string]refusal{
		"notHttp":              {400, "url"},
		"scrapeActionFails":    {500, `action 0 (click "#no-such-button") failed`},
		"scrapeActionsTooLong": {400, "actions"},
		"searchBadTbs":         {400, "tbs"},
		"overQuota":            {402, "Insufficient credits"},
		"paramsPreviewRefused": {422, "could not be planned"},
		"crawlPromptNoLLM":     {400, "prompt"},
		"parseUnreadable":      {422, "noise.bin"},
		"ignoreRobots":         {400, "ignoreRobotsTxt"},
		"badRegex":             {400, "includePaths[0]"},
		"unknownCrawl":         {404, "not found"},
		"summaryWithoutLLM":    {400, "formats[0]"},
		"mapLocation":          {400, "location"},
		"scrapeJsonBadSchema":  {400, "formats[0].schema"},
		"extractNoLLM":         {400, "prompt"},
	})
}

// checkUsage checks the Python SDK's usage calls: keyA's team has no
// quota (unlimited, its pages counted), the team past its quota has none
// left.
func checkUsage(t *testing.T, report map[string]json.RawMessage) {
	t.Helper()
	var credits struct {
		RemainingCredits int64   `json:"remaining_credits"`
		PlanCredits      *int64  `json:"plan_credits"`
		Start            *string `json:"billing_period_start"`
		End              *string `json:"billing_period_end"`
	}
	if err := json.Unmarshal(report["creditUsage"], &credits); err != nil || credits.RemainingCredits != usage.Unlimited ||
		credits.PlanCredits != nil || credits.Start == nil || credits.End == nil {
		t.Errorf("get_credit_usage: %s", report["creditUsage"])
	}
	var tokens struct {
		RemainingTokens int64 `json:"remaining_tokens"`
	}
	if err := json.Unmarshal(report["tokenUsage"], &tokens); err != nil || tokens.RemainingTokens != usage.Unlimited {
		t.Errorf("get_token_usage: %s", report["tokenUsage"])
	}
	var hist struct {
		Success bool `json:"success"`
		Periods []struct {
			APIKey      string `json:"apiKey"`
			CreditsUsed int64  `json:"creditsUsed"`
		} `json:"periods"`
	}
	if err := json.Unmarshal(report["creditUsageHistorical"], &hist); err != nil || !hist.Success || len(hist.Periods) == 0 ||
		hist.Periods[0].APIKey == "" || hist.Periods[0].CreditsUsed <= 0 {
		t.Errorf("get_credit_usage_historical(by_api_key=True): %s", report["creditUsageHistorical"])
	}
	var tokHist struct {
		Success bool              `json:"success"`
		Periods []json.RawMessage `json:"periods"`
	}
	if err := json.Unmarshal(report["tokenUsageHistorical"], &tokHist); err != nil || !tokHist.Success {
		t.Errorf("get_token_usage_historical: %s", report["tokenUsageHistorical"])
	}
	var conc struct {
		Concurrency    int `json:"concurrency"`
		MaxConcurrency int `json:"max_concurrency"`
	}
	if err := json.Unmarshal(report["concurrency"], &conc); err != nil || conc.MaxConcurrency != usage.Unlimited || conc.Concurrency < 0 {
		t.Errorf("get_concurrency: %s", report["concurrency"])
	}
	var queue struct {
		JobsInQueue        int `json:"jobs_in_queue"`
		WaitingJobsInQueue int `json:"waiting_jobs_in_queue"`
		MaxConcurrency     int `json:"max_concurrency"`
	}
	if err := json.Unmarshal(report["queueStatus"], &queue); err != nil || queue.MaxConcurrency != usage.Unlimited || queue.WaitingJobsInQueue != 0 {
		t.Errorf("get_queue_status: %s", report["queueStatus"])
	}
	var over struct {
		RemainingCredits int64  `json:"remaining_credits"`
		PlanCredits      *int64 `json:"plan_credits"`
	}
	if err := json.Unmarshal(report["overQuotaCreditUsage"], &over); err != nil || over.RemainingCredits != 0 || over.PlanCredits == nil || *over.PlanCredits != 0 {
		t.Errorf("get_credit_usage past the quota: %s", report["overQuotaCreditUsage"])
	}
}

// checkPlans checks crawls planned from a sentence through the Python
// SDK: the preview's options, a planned option that does not hold left
// out with a warning, and a crawl started with a prompt that stored the
// 2024 posts alone and shows the options it was given.
func checkPlans(t *testing.T, report map[string]json.RawMessage, siteURL string) {
	t.Helper()
	var p struct {
		IncludePaths      []string `json:"include_paths"`
		ExcludePaths      []string `json:"exclude_paths"`
		MaxDiscoveryDepth *int     `json:"max_discovery_depth"`
		Sitemap           string   `json:"sitemap"`
		Limit             *int     `json:"limit"`
		Warning           string   `json:"warning"`
	}
	if err := json.Unmarshal(report["paramsPreview"], &p); err != nil || !slices.Equal(p.IncludePaths, []string{"^/blog/2024/"}) ||
		!slices.Equal(p.ExcludePaths, []string{"/tag/"}) || p.MaxDiscoveryDepth == nil || *p.MaxDiscoveryDepth != 3 || p.Sitemap != "skip" {
		t.Errorf("crawl_params_preview: %s", report["paramsPreview"])
	}
	p = struct {
		IncludePaths      []string `json:"include_paths"`
		ExcludePaths      []string `json:"exclude_paths"`
		MaxDiscoveryDepth *int     `json:"max_discovery_depth"`
		Sitemap           string   `json:"sitemap"`
		Limit             *int     `json:"limit"`
		Warning           string   `json:"warning"`
	}{}
	if err := json.Unmarshal(report["paramsPreviewBroken"], &p); err != nil || len(p.IncludePaths) != 0 || p.Limit == nil || *p.Limit != 7 ||
		!strings.Contains(p.Warning, "includePaths[0]") {
		t.Errorf("a plan with an option that does not hold: %s", report["paramsPreviewBroken"])
	}
	var c struct {
		ID     string   `json:"id"`
		Status string   `json:"status"`
		URLs   []string `json:"urls"`
	}
	if err := json.Unmarshal(report["crawlPrompt"], &c); err != nil {
		t.Fatalf("a crawl with a prompt: %s", report["crawlPrompt"])
	}
	sort.Strings(c.URLs)
	if c.Status != "completed" || !slices.Equal(c.URLs, []string{siteURL + "/blog/2024/autumn", siteURL + "/blog/2024/spring"}) {
		t.Errorf("a crawl with a prompt: %s", report["crawlPrompt"])
	}
	var native map[string]any
	if code, body := call(t, "GET", env.llmAPI+"/crawls/"+c.ID, env.keyA, nil, &native); code != 200 ||
		fmt.Sprint(native["includeOnlyPaths"]) != "[^/blog/2024/]" || fmt.Sprint(native["excludePaths"]) != "[/tag/]" {
		t.Errorf("the crawl planned from its prompt: %d %s", code, body)
	}
}

// checkParse checks files parsed through the Python SDK: a Word
// document, a real manual's PDF, and HTML sent as bytes.
func checkParse(t *testing.T, report map[string]json.RawMessage) {
	t.Helper()
	type parsed struct {
		Markdown string   `json:"markdown"`
		Title    string   `json:"title"`
		FileName string   `json:"fileName"`
		Links    []string `json:"links"`
	}
	var d parsed
	if err := json.Unmarshal(report["parseDocx"], &d); err != nil || d.FileName != "harbour report.docx" || d.Title != "Harbour report" ||
		!strings.Contains(d.Markdown, "## Ferries") || !strings.Contains(d.Markdown, "- Bicycles travel free") {
		t.Errorf("parse of a .docx: %s", report["parseDocx"])
	}
	d = parsed{}
	if err := json.Unmarshal(report["parsePdf"], &d); err != nil || !strings.Contains(d.Markdown, "Debian") || len(d.Markdown) < 1000 {
		t.Errorf("parse of a PDF: %.500s", report["parsePdf"])
	}
	d = parsed{}
	if err := json.Unmarshal(report["parseHtml"], &d); err != nil || d.Title != "Kettles" || !strings.Contains(d.Markdown, "A steel kettle for the stove.") ||
		!slices.Contains(d.Links, "https://example.com/k") {
		t.Errorf("parse of HTML: %s", report["parseHtml"])
	}
}
