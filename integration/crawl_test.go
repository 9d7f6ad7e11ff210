package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/internal/testenv"
	"github.com/durablecrawl/crawler/workflows"
)

// TestCrawlFixtureSite crawls the fixture site two hops deep with the
// current request shape and checks the record, the pages, the markdown,
// the logs and their pagination, and the workflow in Temporal.
func TestCrawlFixtureSite(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	created := create(t, env.api, env.keyA, map[string]any{
		"startUrl": s.URL + "/", "maxDepth": 2, "maxConcurrentPages": 2,
	})
	if created.Status != "running" || created.ID == "" || len(created.StartURLs) != 1 || created.StartURLs[0] != s.URL+"/" {
		t.Fatalf("created crawl = %+v", created)
	}
	if created.MaxDepth != 2 || created.MaxResults != nil || created.TimeoutSeconds != 1800 || created.EngineType != "auto" ||
		!created.ExcludeNonMainTags || !created.IncludeLinks || !created.DeduplicateContent || created.Origin != "api" {
		t.Errorf("created crawl does not carry the defaults: %+v", created)
	}
	if created.BrandID == nil || *created.BrandID != "brand-a" {
		t.Errorf("brandId = %v, want brand-a", created.BrandID)
	}
	if created.CreatedAt.IsZero() || created.UpdatedAt.IsZero() || created.CompletedAt != nil {
		t.Errorf("timestamps of a new crawl: %+v", created)
	}

	done := waitStatus(t, env.api, env.keyA, created.ID, 2*time.Minute, "succeeded")
	if done.TotalPages != pagesToDepth2 {
		t.Errorf("totalPages = %d, want %d", done.TotalPages, pagesToDepth2)
	}

	pages := allPages(t, env.api, env.keyA, created.ID)
	if len(pages) != pagesToDepth2 {
		t.Fatalf("%d result pages, want %d", len(pages), pagesToDepth2)
	}
	seen := map[string]bool{}
	lastDepth := 0
	for _, p := range pages {
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimSuffix(u.Path, "/")
		if seen[path] {
			t.Errorf("page %s stored twice", path)
		}
		seen[path] = true
		wantDepth := strings.Count(path, "/section/")*1 + strings.Count(path, "/article/")
		if path == "" {
			wantDepth = 0
		}
		if p.Depth != wantDepth {
			t.Errorf("%s: depth %d, want %d", p.URL, p.Depth, wantDepth)
		}
		if p.Depth < lastDepth {
			t.Errorf("%s (depth %d) stored after a page of depth %d: not breadth-first", p.URL, p.Depth, lastDepth)
		}
		lastDepth = p.Depth
		if p.StatusCode != 200 || p.Engine != "cheerio" || p.Title == "" {
			t.Errorf("%s: status %d, engine %q, title %q", p.URL, p.StatusCode, p.Engine, p.Title)
		}
		if strings.Contains(p.Markdown, footerText) {
			t.Errorf("%s: markdown holds the footer, want main content only", p.URL)
		}
		if strings.HasPrefix(path, "/deep") || path == "/missing" || strings.HasSuffix(path, ".pdf") || path == "/old-section-1" {
			t.Errorf("%s is not a result of a depth-2 crawl", p.URL)
		}
	}
	for i := 0; i < sections; i++ {
		for j := 0; j < articlesPerSect; j++ {
			if !seen[fmt.Sprintf("/section/%d/article/%d", i, j)] {
				t.Errorf("article %d-%d missing", i, j)
			}
		}
	}
	// Markdown of one article: its text, an absolute link, no navigation.
	for _, p := range pages {
		if strings.HasSuffix(p.URL, "/section/1/article/3") {
			if !strings.Contains(p.Markdown, "Unique content of article 1-3.") {
				t.Errorf("article 1-3 markdown lacks its text:\n%s", p.Markdown)
			}
			if !strings.Contains(p.Markdown, "]("+s.URL+"/section/1/article/4)") {
				t.Errorf("article 1-3 markdown lacks the absolute link to article 1-4:\n%s", p.Markdown)
			}
			if strings.Contains(p.Markdown, "Sections") {
				t.Errorf("article 1-3 markdown holds the navigation:\n%s", p.Markdown)
			}
		}
	}
	// No page was fetched twice, whatever spellings the site used.
	if n := s.hitsOf("/section/2"); n != 1 {
		t.Errorf("/section/2 fetched %d times, want 1", n)
	}
	if n := s.hitsOf("/section/1"); n != 1 {
		t.Errorf("/section/1 fetched %d times (also through /old-section-1), want 1", n)
	}
	if n := s.hitsOf("/deep/1"); n != 0 {
		t.Errorf("/deep/1 (depth 3) fetched %d times, want 0", n)
	}
	if n := s.hitsOf("/about"); n != 1 {
		t.Errorf("footer link fetched %d times, want 1 (links are followed from the whole page)", n)
	}

	// Logs: start, engine, one per page (results, the 404, the PDF, the
	// redirect, the footer link's 404), one for each page deduplication
	// took text from and one closing it, end; the same through every
	// page size.
	logs := allLogs(t, env.api, env.keyA, created.ID, 7)
	deduplicated := 0
	for _, l := range logs {
		if l.Message == "Page deduplicated" {
			deduplicated++
		}
	}
	if deduplicated == 0 {
		t.Error("no page lost the articles' shared notice to deduplication")
	}
	if want := 2 + pagesToDepth2 + 4 + deduplicated + 1 + 1; len(logs) != want {
		t.Errorf("%d log entries, want %d", len(logs), want)
	}
	if logs[1].Message != "Engine chosen" || logs[1].Data["engine"] != "cheerio" {
		t.Errorf("second entry: %+v", logs[1])
	}
	if whole := allLogs(t, env.api, env.keyA, created.ID, 1200); len(whole) != len(logs) {
		t.Errorf("limit 1200 gives %d entries, limit 7 gives %d", len(whole), len(logs))
	} else {
		for i := range whole {
			if whole[i].ID != logs[i].ID {
				t.Fatalf("entry %d differs between page sizes: %s vs %s", i, whole[i].ID, logs[i].ID)
			}
		}
	}
	if logs[0].Message != "Crawl started" || logs[len(logs)-1].Message != "Crawl succeeded" {
		t.Errorf("first and last entries: %q, %q", logs[0].Message, logs[len(logs)-1].Message)
	}
	byURL := map[string]logEntry{}
	for i, l := range logs {
		if l.CrawlID != created.ID || l.TeamID != env.teamA || l.ID == "" || l.CreatedAt.IsZero() {
			t.Errorf("entry %d: %+v", i, l)
		}
		if i > 0 && (l.CreatedAt.Before(logs[i-1].CreatedAt)) {
			t.Errorf("entry %d is older than entry %d", i, i-1)
		}
		if !map[string]bool{"debug": true, "info": true, "warn": true, "error": true}[l.Level] {
			t.Errorf("entry %d has level %q", i, l.Level)
		}
		if _, ok := l.Data["url"].(string); !ok {
			t.Errorf("entry %d has no data.url: %v", i, l.Data)
		}
		if _, ok := l.Data["statusCode"].(float64); !ok {
			t.Errorf("entry %d has no data.statusCode: %v", i, l.Data)
		}
		if strings.HasPrefix(l.Message, "Page") {
			byURL[l.Data["url"].(string)] = l
		}
	}
	if l := byURL[s.URL+"/missing"]; l.Message != "Page failed" || l.Data["statusCode"] != float64(404) {
		t.Errorf("entry of /missing: %+v", l)
	}
	if l := byURL[s.URL+"/files/report.pdf"]; l.Message != "Page failed" || l.Data["statusCode"] != float64(200) || !strings.Contains(l.Description, "could not read the PDF") {
		t.Errorf("entry of the PDF: %+v", l)
	}
	if l := byURL[s.URL+"/old-section-1"]; l.Message != "Page skipped" || !strings.Contains(l.Description, "/section/1") {
		t.Errorf("entry of the redirect: %+v", l)
	}
	if l := byURL[s.URL+"/section/0/article/0"]; l.Message != "Page crawled" || l.Data["statusCode"] != float64(200) || l.Data["depth"] != float64(2) {
		t.Errorf("entry of article 0-0: %+v", l)
	}

	// Temporal: the workflow is named after the crawl, carries its search
	// attributes, and continued as new along the way.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wfID := crawlflow.WorkflowID(created.ID)
	var result workflows.CrawlResult
	if err := env.temporal.GetWorkflow(ctx, wfID, "").Get(ctx, &result); err != nil || result.Status != "succeeded" || result.TotalPages != pagesToDepth2 {
		t.Errorf("workflow result %+v, %v", result, err)
	}
	desc, err := env.temporal.DescribeWorkflowExecution(ctx, wfID, "")
	if err != nil {
		t.Fatalf("describe %s: %v", wfID, err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("workflow status %v, want completed", st)
	}
	attrs := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()
	if p := attrs["CrawlStatus"]; p == nil || !strings.Contains(string(p.GetData()), "succeeded") {
		t.Errorf("CrawlStatus search attribute = %v, want succeeded", p)
	}
	if p := attrs["CrawlId"]; p == nil || !strings.Contains(string(p.GetData()), created.ID) {
		t.Errorf("CrawlId search attribute = %v", p)
	}
	if desc.GetWorkflowExecutionInfo().GetType().GetName() != "CrawlWorkflow" {
		t.Errorf("workflow type %q", desc.GetWorkflowExecutionInfo().GetType().GetName())
	}
	first, last := desc.GetWorkflowExecutionInfo().GetFirstRunId(), desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	if first == last {
		t.Errorf("a crawl of %d batches did not continue as new", pagesToDepth2/8)
	}
	replay(t, wfID, first)
	replay(t, wfID, last)
}

// TestOlderShapeMaxResults crawls with the older request shape: exactly
// maxResults pages, breadth-first, and the same pages as the current shape
// given the same bounds.
func TestOlderShapeMaxResults(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	legacy := create(t, env.api, env.keyA, map[string]any{
		"startUrls": []string{s.URL + "/"}, "maxDepth": 3, "maxResults": 10, "engine": "cheerio",
	})
	current := create(t, env.api, env.keyA, map[string]any{
		"startUrl": s.URL + "/", "maxDepth": 3, "maxResults": 10, "engineType": "cheerio",
	})
	if legacy.MaxResults == nil || *legacy.MaxResults != 10 || legacy.MaxDepth != 3 || legacy.EngineType != "cheerio" {
		t.Errorf("older-shape crawl = %+v", legacy)
	}
	var sets [2][]string
	for i, c := range []crawlObj{legacy, current} {
		done := waitStatus(t, env.api, env.keyA, c.ID, 2*time.Minute, "succeeded")
		if done.TotalPages != 10 {
			t.Errorf("crawl %d: totalPages %d, want exactly 10", i, done.TotalPages)
		}
		pages := allPages(t, env.api, env.keyA, c.ID)
		if len(pages) != 10 {
			t.Fatalf("crawl %d: %d pages, want 10", i, len(pages))
		}
		depths := map[int]int{}
		for _, p := range pages {
			depths[p.Depth]++
			sets[i] = append(sets[i], p.URL)
		}
		// Breadth-first: home and all five sections before any article.
		if depths[0] != 1 || depths[1] != sections || depths[2] != 10-1-sections {
			t.Errorf("crawl %d: pages per depth %v, want 1, %d, %d", i, depths, sections, 10-1-sections)
		}
		sort.Strings(sets[i])
	}
	if strings.Join(sets[0], " ") != strings.Join(sets[1], " ") {
		t.Errorf("the two shapes crawled different pages:\n%v\n%v", sets[0], sets[1])
	}
	for _, c := range []crawlObj{legacy, current} {
		e := allLogs(t, env.api, env.keyA, c.ID, 1200)
		if l := e[len(e)-2]; l.Message != "maxResults reached" || !strings.Contains(l.Description, "10 pages") {
			t.Errorf("no note of the maxResults stop: %+v", l)
		}
	}
}

// TestMaxDepthOne: the start page and the pages it links to.
func TestMaxDepthOne(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": s.URL, "maxDepth": 1})
	done := waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
	if done.TotalPages != 1+sections {
		t.Errorf("totalPages = %d, want %d", done.TotalPages, 1+sections)
	}
	for _, p := range allPages(t, env.api, env.keyA, c.ID) {
		if p.Depth > 1 {
			t.Errorf("%s at depth %d", p.URL, p.Depth)
		}
	}
	if s.hitsOf("/section/0/article/0") != 0 {
		t.Error("a depth-2 page was fetched")
	}
}

// TestTimedOut: a crawl of a site that never ends stops at its 60-second
// timeout with the pages it crawled.
func TestTimedOut(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 700*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/", "timeout": 60, "maxConcurrentPages": 2})
	if c.TimeoutSeconds != 60 {
		t.Errorf("timeout reads back as %d, want 60", c.TimeoutSeconds)
	}
	running := waitFor(t, env.api, env.keyA, c.ID, 30*time.Second, "a first page", func(c crawlObj) bool { return c.TotalPages > 0 })
	if running.Status != "running" || running.CompletedAt != nil || running.DurationInSeconds == nil {
		t.Errorf("crawl in progress reads %+v", running)
	}
	done := waitStatus(t, env.api, env.keyA, c.ID, 2*time.Minute, "timed_out")
	if *done.DurationInSeconds < 60 || *done.DurationInSeconds > 75 {
		t.Errorf("durationInSeconds = %d, want about 60", *done.DurationInSeconds)
	}
	if done.TotalPages < 10 {
		t.Errorf("totalPages = %d, want the pages of a minute's crawl", done.TotalPages)
	}
	time.Sleep(2 * time.Second) // nothing is stored after the end
	if pages := allPages(t, env.api, env.keyA, c.ID); len(pages) != done.TotalPages {
		t.Errorf("%d pages kept, totalPages says %d", len(pages), done.TotalPages)
	}
	logs := allLogs(t, env.api, env.keyA, c.ID, 1200)
	if last := logs[len(logs)-1]; last.Message != "Crawl timed out" {
		t.Errorf("last log entry %q, want Crawl timed out", last.Message)
	}
	if n := countMessages(logs, "Page crawled"); n != done.TotalPages {
		t.Errorf("%d page entries for %d pages: the batch cut by the timeout is not logged", n, done.TotalPages)
	}
	replay(t, crawlflow.WorkflowID(c.ID), "")
}

// TestCancelledWithTemporalCLI: `temporal workflow cancel` ends a crawl
// aborted, keeping its pages.
func TestCancelledWithTemporalCLI(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 300*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/", "maxConcurrentPages": 2})
	waitFor(t, env.api, env.keyA, c.ID, 30*time.Second, "a first page", func(c crawlObj) bool { return c.TotalPages > 0 })

	cli, err := testenv.TemporalCLI()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cli, "workflow", "cancel", "--address", env.temporalAddr,
		"--workflow-id", crawlflow.WorkflowID(c.ID)).CombinedOutput()
	if err != nil {
		t.Fatalf("temporal workflow cancel: %v\n%s", err, out)
	}
	done := waitStatus(t, env.api, env.keyA, c.ID, 30*time.Second, "aborted")
	if pages := allPages(t, env.api, env.keyA, c.ID); len(pages) != done.TotalPages || done.TotalPages == 0 {
		t.Errorf("%d pages kept, totalPages says %d", len(pages), done.TotalPages)
	}
	if n := countMessages(allLogs(t, env.api, env.keyA, c.ID, 1200), "Page crawled"); n != done.TotalPages {
		t.Errorf("%d page entries for %d pages", n, done.TotalPages)
	}
	// The crawl is recorded aborted just before its workflow run closes.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := env.temporal.GetWorkflow(ctx, crawlflow.WorkflowID(c.ID), "").Get(ctx, nil); !temporal.IsCanceledError(err) {
		t.Errorf("workflow run ended with %v, want cancelled", err)
	}
	desc, err := env.temporal.DescribeWorkflowExecution(ctx, crawlflow.WorkflowID(c.ID), "")
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED {
		t.Errorf("workflow status %v, want canceled", st)
	}
	replay(t, crawlflow.WorkflowID(c.ID), "")
}

// TestTerminatedIsReconciled: terminate runs no workflow code; the
// reconciler settles the crawl as aborted.
func TestTerminatedIsReconciled(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 300*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/", "maxConcurrentPages": 1})
	waitFor(t, env.api, env.keyA, c.ID, 30*time.Second, "a first page", func(c crawlObj) bool { return c.TotalPages > 0 })
	if err := env.temporal.TerminateWorkflow(context.Background(), crawlflow.WorkflowID(c.ID), "", "test"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, env.api, env.keyA, c.ID, 30*time.Second, "aborted")
	logs := allLogs(t, env.api, env.keyA, c.ID, 1200)
	if last := logs[len(logs)-1]; last.Message != "Crawl aborted" || !strings.Contains(last.Description, "terminated") {
		t.Errorf("last log entry %+v", last)
	}
}

// TestDeleteAborts: DELETE /crawls/{id} is the abort.
func TestDeleteAborts(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 300*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/"})
	if status, raw := call(t, "DELETE", env.api+"/crawls/"+c.ID, env.keyB, nil, nil); status != http.StatusNotFound {
		t.Errorf("DELETE by another team = %d %s, want 404", status, raw)
	}
	var got crawlObj
	if status, raw := call(t, "DELETE", env.api+"/crawls/"+c.ID, env.keyA, nil, &got); status != http.StatusOK || got.Progress == nil {
		t.Fatalf("DELETE = %d %s, want 200 with progress", status, raw)
	}
	waitStatus(t, env.api, env.keyA, c.ID, 30*time.Second, "aborted")
}

// TestListAndProgress: a running crawl shows where its pages stand; when
// it ends, its stored pages are its total; the team's list shows it, newest
// first, and another team's does not.
func TestListAndProgress(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	key, err := env.store.CreateAPIKey(context.Background(), "team-list-"+uuid.NewString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	first := create(t, env.api, key, map[string]any{"startUrl": s.URL + "/", "maxResults": 3})
	c := create(t, env.api, key, map[string]any{"startUrl": s.URL + "/", "maxResults": 30, "maxConcurrentPages": 2})
	if c.Progress != nil {
		t.Errorf("POST /crawls answered progress %+v", c.Progress)
	}
	running := waitFor(t, env.api, key, c.ID, 30*time.Second, "pages in the frontier", func(c crawlObj) bool {
		return c.Progress != nil && c.Progress.Queued+c.Progress.InProgress > 0 && c.Progress.Stored > 0
	})
	if running.Status == "running" && running.Progress.Stored < running.TotalPages {
		t.Errorf("running: %d pages stored, totalPages %d", running.Progress.Stored, running.TotalPages)
	}
	done := waitStatus(t, env.api, key, c.ID, time.Minute, "succeeded")
	if done.Progress == nil || done.Progress.Stored != done.TotalPages || done.TotalPages != 30 {
		t.Errorf("ended with %d pages, progress %+v", done.TotalPages, done.Progress)
	}
	waitStatus(t, env.api, key, first.ID, time.Minute, "succeeded")

	var list pageOf[crawlObj]
	status, raw := call(t, "GET", env.api+"/crawls?status=succeeded&limit=1", key, nil, &list)
	if status != http.StatusOK || len(list.Results) != 1 || list.Results[0].ID != c.ID || list.Results[0].Progress != nil {
		t.Fatalf("GET /crawls?status=succeeded&limit=1 = %d %s, want the newer crawl without progress", status, raw)
	}
	var second pageOf[crawlObj]
	next := followNext(t, list)
	if status, raw := call(t, "GET", next, key, nil, &second); status != http.StatusOK || len(second.Results) != 1 || second.Results[0].ID != first.ID {
		t.Errorf("next page %s = %d %s, want the older crawl", next, status, raw)
	}
	status, _ = call(t, "GET", env.api+"/crawls?limit=100", env.keyA, nil, &list)
	for _, x := range list.Results {
		if x.ID == c.ID || x.ID == first.ID {
			t.Errorf("another team lists crawl %s", x.ID)
		}
	}
	if status != http.StatusOK {
		t.Errorf("GET /crawls = %d", status)
	}
}

// TestAbortEndpoint: POST /crawls/{id}/abort aborts, and again is a no-op.
func TestAbortEndpoint(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 300*time.Millisecond)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": slow.URL + "/"})
	var got crawlObj
	if status, raw := call(t, "POST", env.api+"/crawls/"+c.ID+"/abort", env.keyB, nil, nil); status != http.StatusNotFound {
		t.Errorf("abort by another team = %d %s, want 404", status, raw)
	}
	if status, raw := call(t, "POST", env.api+"/crawls/"+c.ID+"/abort", env.keyA, nil, &got); status != http.StatusOK {
		t.Fatalf("abort = %d %s", status, raw)
	}
	waitStatus(t, env.api, env.keyA, c.ID, 30*time.Second, "aborted")
	if status, _ := call(t, "POST", env.api+"/crawls/"+c.ID+"/abort", env.keyA, nil, &got); status != http.StatusOK || got.Status != "aborted" {
		t.Errorf("second abort = %d %q, want 200 aborted", status, got.Status)
	}
}

// TestPrivateNetworksRefused: without CRAWLER_ALLOW_PRIVATE_NETWORKS the
// API answers 400 to internal start URLs, and the worker refuses loopback
// when it dials: such a crawl fails with a logged refusal.
func TestPrivateNetworksRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	// The API refuses internal start URLs at once.
	port := s.URL[strings.LastIndex(s.URL, ":"):]
	for _, u := range []string{s.URL + "/", "http://localhost" + port + "/", "http://[::1]" + port + "/", "http://169.254.169.254/"} {
		var e errorObj
		status, raw := call(t, "POST", env.guardedAPI+"/crawls", env.keyA, map[string]any{"startUrl": u}, &e)
		if status != http.StatusBadRequest || len(e.Error.Details) != 1 || e.Error.Details[0].Field != "startUrl" {
			t.Errorf("start URL %s = %d %s, want 400 naming startUrl", u, status, raw)
		}
	}
	// What the API lets through, the worker refuses when it dials.
	c := create(t, env.guardedWorkerAPI, env.keyA, map[string]any{"startUrl": s.URL + "/", "maxDepth": 1})
	done := waitStatus(t, env.guardedAPI, env.keyA, c.ID, time.Minute, "failed")
	if done.TotalPages != 0 {
		t.Errorf("totalPages = %d, want 0", done.TotalPages)
	}
	if n := s.hitsOf("/"); n != 0 {
		t.Errorf("the refused site was requested %d times", n)
	}
	logs := allLogs(t, env.guardedAPI, env.keyA, c.ID, 100)
	if len(logs) != 4 {
		t.Fatalf("%d log entries, want start, engine, the refused page, end: %+v", len(logs), logs)
	}
	if l := logs[2]; l.Level != "error" || !strings.Contains(l.Description, "refused") {
		t.Errorf("entry of the refused page: %+v", l)
	}
	if l := logs[3]; l.Message != "Crawl failed" {
		t.Errorf("last entry: %+v", l)
	}
	// The Temporal UI shows the run failed, as the crawl (once the run
	// has ended, just after it recorded the crawl's end).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var appErr *temporal.ApplicationError
	if err := env.temporal.GetWorkflow(ctx, crawlflow.WorkflowID(c.ID), "").Get(ctx, nil); !errors.As(err, &appErr) || appErr.Type() != "CrawlFailed" {
		t.Errorf("workflow result: %v, want a CrawlFailed error", err)
	}
	desc, err := env.temporal.DescribeWorkflowExecution(ctx, crawlflow.WorkflowID(c.ID), "")
	if err != nil || desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
		t.Errorf("workflow of the failed crawl: %v (%v), want failed", desc.GetWorkflowExecutionInfo().GetStatus(), err)
	}
}

// TestLongestStartURL: a start URL of the longest length accepted starts
// its workflow and is crawled (its search attribute is cut, not refused).
func TestLongestStartURL(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	u := s.URL + "/?q=" + strings.Repeat("x", crawl.MaxURLLength-len(s.URL)-4)
	if len(u) != crawl.MaxURLLength {
		t.Fatalf("URL of %d bytes", len(u))
	}
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": u, "maxResults": 1})
	done := waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
	if done.StartURL != u || done.TotalPages != 1 {
		t.Errorf("crawl of the long URL: start URL of %d bytes, %d pages", len(done.StartURL), done.TotalPages)
	}
}

// TestUnreachableStartPage: a start URL nobody answers ends failed.
func TestUnreachableStartPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	base := s.URL
	s.Close()
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": base + "/"})
	waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "failed")
}

// TestAuthAndTenancy: every endpoint needs a key; another team's crawl is
// not found.
func TestAuthAndTenancy(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": s.URL + "/", "maxDepth": 1})
	paths := []struct{ method, path string }{
		{"POST", "/crawls"},
		{"GET", "/crawls/" + c.ID},
		{"GET", "/crawls/" + c.ID + "/pages"},
		{"POST", "/crawls/" + c.ID + "/abort"},
		{"GET", "/crawl-logs/" + c.ID},
	}
	for _, p := range paths {
		for _, key := range []string{"", "ck_not-a-key"} {
			var e errorObj
			status, raw := call(t, p.method, env.api+p.path, key, nil, &e)
			if status != http.StatusUnauthorized || e.Error.Code != "unauthorized" || e.Error.Message == "" {
				t.Errorf("%s %s with key %q = %d %s, want 401", p.method, p.path, key, status, raw)
			}
		}
		if p.method == "GET" {
			var e errorObj
			status, raw := call(t, p.method, env.api+p.path, env.keyB, nil, &e)
			if status != http.StatusNotFound || e.Error.Code != "not_found" {
				t.Errorf("%s %s by another team = %d %s, want 404", p.method, p.path, status, raw)
			}
		}
	}
	req, _ := http.NewRequest("GET", env.api+"/crawls/"+c.ID, nil)
	req.Header.Set("Authorization", "Basic "+env.keyA)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("Basic scheme: %v %v, want 401", resp, err)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		if status, _ := call(t, "GET", env.api+"/crawls/"+id, env.keyA, nil, nil); status != http.StatusNotFound {
			t.Errorf("GET /crawls/%s = %d, want 404", id, status)
		}
		if status, _ := call(t, "GET", env.api+"/crawl-logs/"+id, env.keyA, nil, nil); status != http.StatusNotFound {
			t.Errorf("GET /crawl-logs/%s = %d, want 404", id, status)
		}
	}
	waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
}

// TestInvalidBodies: every invalid body is a 400 naming its fields, and
// nothing is recorded.
func TestInvalidBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		body  string
		field string
	}{
		{`{"startUrl": "https://example.com/"`, "body"},
		{`[]`, "body"},
		{`{}`, "startUrl"},
		{`{"startUrl": "https://example.com/", "startUrls": ["https://example.com/"], "maxDepth": 1, "maxResults": 1}`, "startUrls"},
		{`{"startUrl": "https://example.com/", "depth": 3}`, "depth"},
		{`{"startUrl": "example.com"}`, "startUrl"},
		{`{"startUrl": "https://example.com/", "maxResults": 10001}`, "maxResults"},
		{`{"startUrl": "https://example.com/", "maxDepth": "3"}`, "maxDepth"},
		{`{"startUrl": "https://example.com/", "timeout": 59}`, "timeout"},
		{`{"startUrl": "https://example.com/", "engineType": "chrome"}`, "engineType"},
		{`{"startUrl": "https://example.com/", "useStaticIps": true}`, "useStaticIps"},
		{`{"startUrl": "https://example.com/", "extraction": "the prices"}`, "extraction"},
		{`{"startUrls": ["https://example.com/"], "maxDepth": 51, "maxResults": 5}`, "maxDepth"},
		{`{"startUrls": ["https://example.com/"], "maxDepth": 5, "maxResults": 1000}`, "maxResults"},
		{`{"startUrls": ["https://example.com/"], "maxDepth": 5}`, "maxResults"},
		{`{"startUrls": [], "maxDepth": 5, "maxResults": 5}`, "startUrls"},
		{`{"startUrl": "https://example.com/", "excludePaths": ["/a\u0000"]}`, "excludePaths"},
		{`{"startUrl": "https://example.com/", "startUrl": "\u0000"}`, "startUrl"},
		{"{\"startUrl\": \"https://example.com/\x00\"}", "body"},
	}
	for _, tc := range cases {
		var e errorObj
		status, raw := call(t, "POST", env.api+"/crawls", env.keyA, tc.body, &e)
		if status != http.StatusBadRequest || e.Error.Code != "invalid_request" {
			t.Errorf("%s = %d %s, want 400", tc.body, status, raw)
			continue
		}
		found := false
		for _, d := range e.Error.Details {
			found = found || d.Field == tc.field
		}
		if !found {
			t.Errorf("%s: details %+v do not name %s", tc.body, e.Error.Details, tc.field)
		}
	}
	var e errorObj
	if status, _ := call(t, "POST", env.api+"/crawls", env.keyA, strings.Repeat("x", 2<<20), &e); status != http.StatusRequestEntityTooLarge || e.Error.Code != "request_too_large" {
		t.Errorf("body over 1 MiB = %d %+v, want 413", status, e)
	}
	// No valid test crawls example.com: any such crawl came from a 400.
	n, err := env.store.DB().NewSelect().Table("crawls").Where("start_urls[1] = 'https://example.com/'").Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d crawls recorded from invalid bodies", n)
	}
}

// TestLogPagination checks the page and limit parameters.
func TestLogPagination(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": s.URL + "/", "maxDepth": 1})
	waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
	for _, q := range []string{"limit=0", "limit=1201", "limit=-3", "page=0", "page=-1", "page=abc", "limit=1.5"} {
		var e errorObj
		status, raw := call(t, "GET", env.api+"/crawl-logs/"+c.ID+"?"+q, env.keyA, nil, &e)
		field, _, _ := strings.Cut(q, "=")
		if status != http.StatusBadRequest || len(e.Error.Details) != 1 || e.Error.Details[0].Field != field {
			t.Errorf("?%s = %d %s, want 400 naming %s", q, status, raw, field)
		}
	}
	if status, _ := call(t, "GET", env.api+"/crawls/"+c.ID+"/pages?limit=101", env.keyA, nil, nil); status != http.StatusBadRequest {
		t.Errorf("pages with limit=101 = %d, want 400 (results pages hold at most 100)", status)
	}
	var p pageOf[logEntry]
	if status, raw := call(t, "GET", env.api+"/crawl-logs/"+c.ID, env.keyA, nil, &p); status != 200 || p.Page != 1 || p.Limit != 100 {
		t.Errorf("defaults = %d %s, want page 1 limit 100", status, raw)
	}
	total := p.TotalResults
	if status, _ := call(t, "GET", env.api+"/crawl-logs/"+c.ID+"?limit=1200&page=1", env.keyA, nil, &p); status != 200 || len(p.Results) != total {
		t.Errorf("limit=1200: %d, %d entries, want %d", status, len(p.Results), total)
	}
	if status, _ := call(t, "GET", env.api+"/crawl-logs/"+c.ID+"?limit=2&page=99", env.keyA, nil, &p); status != 200 || len(p.Results) != 0 || p.TotalResults != total {
		t.Errorf("page past the end: %d %+v", status, p)
	}
}

// failingTemporal cannot start workflows.
type failingTemporal struct{ client.Client }

func (failingTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, errors.New("temporal is unavailable")
}

// TestWorkflowStartFailure: when the workflow cannot be started the answer
// is 500 and the crawl is recorded as error, with its completion time.
func TestWorkflowStartFailure(t *testing.T) {
	t.Parallel()
	base := serve(api.New(api.Options{Store: env.store, Temporal: failingTemporal{}, TaskQueue: taskQueue, Server: testServer}))
	var e errorObj
	status, raw := call(t, "POST", base+"/crawls", env.keyB, `{"startUrl": "https://start-failure.example/"}`, &e)
	if status != http.StatusInternalServerError || e.Error.Code != "internal" {
		t.Fatalf("POST /crawls = %d %s, want 500", status, raw)
	}
	var rec crawl.Crawl
	err := env.store.DB().NewSelect().Model(&rec).Where("start_urls[1] = ?", "https://start-failure.example/").Scan(context.Background())
	if err != nil {
		t.Fatalf("the crawl was not recorded: %v", err)
	}
	if rec.Status != "error" || rec.CompletedAt == nil {
		t.Errorf("recorded crawl: status %q, completedAt %v; want error with a completion time", rec.Status, rec.CompletedAt)
	}
	if !strings.Contains(e.Error.Message, rec.ID.String()) {
		t.Errorf("the message %q does not name the crawl %s", e.Error.Message, rec.ID)
	}
	var c crawlObj
	if status, _ := call(t, "GET", env.api+"/crawls/"+rec.ID.String(), env.keyB, nil, &c); status != 200 || c.Status != "error" {
		t.Errorf("GET the failed crawl = %d %q", status, c.Status)
	}
	logs := allLogs(t, env.api, env.keyB, rec.ID.String(), 10)
	if len(logs) != 1 || logs[0].Level != "error" {
		t.Errorf("logs of the failed crawl: %+v", logs)
	}
}

// TestWorkerRestart stops the only worker of a crawl in the middle of it
// and starts another: the crawl goes on where it was and ends with exactly
// the server's page cap of pages (it has no maxResults), none stored
// twice, and says that the cap stopped it.
func TestWorkerRestart(t *testing.T) {
	t.Parallel()
	start := func() (func(), func()) {
		stop, err := startWorker(env.restartConfig, nil)
		if err != nil {
			t.Fatal(err)
		}
		return stop, func() {}
	}
	slow := slowSite(t, 200*time.Millisecond)
	stop, closeFetcher := start()
	c := create(t, env.restartAPI, env.keyA, map[string]any{"startUrl": slow.URL + "/", "maxConcurrentPages": 2})
	waitFor(t, env.restartAPI, env.keyA, c.ID, 30*time.Second, "ten pages", func(c crawlObj) bool { return c.TotalPages >= 10 })
	stop()
	closeFetcher()
	stopped := waitFor(t, env.restartAPI, env.keyA, c.ID, 5*time.Second, "a stop", func(crawlObj) bool { return true })
	time.Sleep(2 * time.Second)
	if again := waitFor(t, env.restartAPI, env.keyA, c.ID, 5*time.Second, "a stop", func(crawlObj) bool { return true }); again.TotalPages != stopped.TotalPages || again.Status != "running" {
		t.Fatalf("the crawl moved without a worker: %+v then %+v", stopped, again)
	}

	stop, closeFetcher = start()
	defer closeFetcher()
	defer stop()
	done := waitStatus(t, env.restartAPI, env.keyA, c.ID, 2*time.Minute, "succeeded")
	if done.TotalPages != restartPageCap {
		t.Errorf("totalPages = %d, want the cap %d", done.TotalPages, restartPageCap)
	}
	logs := allLogs(t, env.restartAPI, env.keyA, c.ID, 1200)
	if len(logs) < 2 || logs[len(logs)-2].Message != "Server page cap reached" || logs[len(logs)-2].Level != "warn" {
		t.Errorf("no warning about the page cap before the last entry: %+v", logs[max(0, len(logs)-2):])
	}
	pages := allPages(t, env.restartAPI, env.keyA, c.ID)
	seen := map[string]bool{}
	for _, p := range pages {
		if seen[p.URL] {
			t.Errorf("%s stored twice", p.URL)
		}
		seen[p.URL] = true
	}
	if len(pages) != restartPageCap {
		t.Errorf("%d pages stored, want %d", len(pages), restartPageCap)
	}
}

func countMessages(logs []logEntry, message string) int {
	n := 0
	for _, l := range logs {
		if l.Message == message {
			n++
		}
	}
	return n
}

// TestHostileContent: pages in other encodings, with NUL bytes, absurdly
// long links or no content type are crawled, not fatal to the crawl; a body
// with odd but valid JSON is recorded as understood.
func TestHostileContent(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("x", 3000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><body><main><p>Start page with links.</p><a href="/latin1">latin1</a> <a href="/nul">nul</a>
				<a href="%s">long</a> <a href="/untyped">untyped</a></main></body></html>`, long)
		case "/latin1":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><head><title>Caf\xe9</title><meta charset=\"windows-1252\"></head><body><p>Un caf\xe9 cr\xe8me.</p></body></html>"))
		case "/nul":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><head><title>N\x00UL</title></head><body><p>Before\x00after \xff\xfe end.</p></body></html>"))
		case "/untyped":
			w.Header()["Content-Type"] = nil
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	body := `{"startUrl": "` + srv.URL + `/", "maxDepth": 1, "includeOnlyPaths": ["/\ud800", "/**"], "startUrl": "` + srv.URL + `/"}`
	c := create(t, env.api, env.keyA, body)
	done := waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
	if done.TotalPages != 3 {
		t.Errorf("totalPages = %d, want 3 (start, latin1, nul)", done.TotalPages)
	}
	for _, p := range allPages(t, env.api, env.keyA, c.ID) {
		switch {
		case strings.HasSuffix(p.URL, "/latin1") && (p.Title != "Café" || !strings.Contains(p.Markdown, "Un café crème.")):
			t.Errorf("latin1 page: %q %q", p.Title, p.Markdown)
		case strings.HasSuffix(p.URL, "/nul") && (p.Title != "NUL" || !strings.Contains(p.Markdown, "Beforeafter")):
			t.Errorf("NUL page: %q %q", p.Title, p.Markdown)
		}
	}
	for _, l := range allLogs(t, env.api, env.keyA, c.ID, 100) {
		if l.Data["url"] == srv.URL+"/untyped" && l.Message != "Page skipped" {
			t.Errorf("the untyped PNG: %+v", l)
		}
	}
}

// TestTemporalUIStory: the workflow carries a summary and details from its
// start, current details with its progress, and CrawlTotalPages as its
// batches are stored, before it ends.
func TestTemporalUIStory(t *testing.T) {
	t.Parallel()
	slow := slowSite(t, 50*time.Millisecond)
	c := create(t, env.llmAPI, env.keyA, map[string]any{"startUrl": slow.URL + "/", "maxResults": 400, "maxConcurrentPages": 4,
		"extraction": "a secret instruction"})
	waitFor(t, env.llmAPI, env.keyA, c.ID, 30*time.Second, "pages stored", func(c crawlObj) bool { return c.TotalPages >= 12 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wfID := crawlflow.WorkflowID(c.ID)
	var total int64
	for total == 0 && ctx.Err() == nil {
		desc, err := env.temporal.DescribeWorkflowExecution(ctx, wfID, "")
		if err != nil {
			t.Fatal(err)
		}
		if p := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()["CrawlTotalPages"]; p != nil {
			total, _ = strconv.ParseInt(string(p.GetData()), 10, 64)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if total == 0 {
		t.Errorf("CrawlTotalPages not set while the crawl runs")
	}
	// The first run has the summary and details given at its start.
	desc, err := env.temporal.DescribeWorkflowExecution(ctx, wfID, "")
	if err == nil {
		desc, err = env.temporal.DescribeWorkflowExecution(ctx, wfID, desc.GetWorkflowExecutionInfo().GetFirstRunId())
	}
	if err != nil {
		t.Fatal(err)
	}
	var summary, details string
	conv := converter.GetDefaultDataConverter()
	md := desc.GetExecutionConfig().GetUserMetadata()
	_ = conv.FromPayload(md.GetSummary(), &summary)
	_ = conv.FromPayload(md.GetDetails(), &details)
	if !strings.Contains(summary, slow.URL) || !strings.Contains(details, c.ID) || !strings.Contains(details, "up to 400 pages") {
		t.Errorf("summary %q, details %q", summary, details)
	}
	if strings.Contains(details, "secret") || !strings.Contains(details, "extraction") {
		t.Errorf("details show the extraction instructions, or not that there are some: %q", details)
	}
	v, err := env.temporal.QueryWorkflow(ctx, wfID, "", "__temporal_workflow_metadata")
	if err != nil {
		t.Fatal(err)
	}
	var meta sdkpb.WorkflowMetadata
	if err := v.Get(&meta); err != nil || !strings.Contains(meta.GetCurrentDetails(), "of at most 400 pages stored") ||
		!strings.Contains(meta.GetCurrentDetails(), slow.URL) {
		t.Errorf("current details %q (%v)", meta.GetCurrentDetails(), err)
	}
	if status, raw := call(t, "DELETE", env.llmAPI+"/crawls/"+c.ID, env.keyA, nil, nil); status != http.StatusOK {
		t.Fatalf("DELETE = %d %s", status, raw)
	}
	waitStatus(t, env.llmAPI, env.keyA, c.ID, 30*time.Second, "aborted")
}

// TestCommandLineClient runs the crawler binary's client commands against
// the API: a crawl waited for, then its pages as markdown, its log and the
// team's list.
func TestCommandLineClient(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "crawler")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/crawler").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	key, err := env.store.CreateAPIKey(context.Background(), "team-cli-"+uuid.NewString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSite(t)
	crawler := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "CRAWLER_API_URL="+env.api, "CRAWLER_API_KEY="+key)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, progress, err := crawler("crawl", s.URL+"/", "--maxResults", "5", "--excludeNonMainTags=false", "--wait")
	if err != nil {
		t.Fatalf("crawl --wait: %v\n%s\n%s", err, out, progress)
	}
	var id string
	if _, err := fmt.Sscanf(out, "crawl %s created", &id); err != nil || !strings.Contains(out, "crawl "+id+" succeeded: 5 pages") {
		t.Fatalf("crawl --wait printed %q", out)
	}
	var c crawlObj
	call(t, "GET", env.api+"/crawls/"+id, key, nil, &c)
	if c.ExcludeNonMainTags || c.MaxResults == nil || *c.MaxResults != 5 {
		t.Errorf("the flags did not reach the crawl: %+v", c.Options)
	}
	md, _, err := crawler("pages", id, "--markdown")
	if err != nil || strings.Count(md, "<!-- "+s.URL) != 5 || !strings.Contains(md, "<!-- "+s.URL+"/ -->\n") {
		t.Errorf("pages --markdown: %v\n%s", err, md)
	}
	logs, _, err := crawler("logs", id)
	if err != nil || !strings.Contains(logs, "Crawl started") || !strings.Contains(logs, "Crawl succeeded") {
		t.Errorf("logs: %v\n%s", err, logs)
	}
	list, _, err := crawler("crawls")
	if err != nil || !strings.Contains(list, id+"  succeeded  5") {
		t.Errorf("crawls: %v\n%s", err, list)
	}
	if _, stderr, err := crawler("crawl", "ftp://x/"); err == nil || !strings.Contains(stderr, "startUrl") {
		t.Errorf("a bad start URL: %v, %q", err, stderr)
	}

	// Schedules: created paused, run now, listed with their last crawl,
	// paused with a note, deleted.
	out, stderr, err := crawler("schedules", "create", s.URL+"/", "--interval", "2h", "--name", "fixture", "--paused")
	var sid string
	if _, serr := fmt.Sscanf(out, "schedule %s created", &sid); err != nil || serr != nil || !strings.Contains(out, "every 2h0m0s") {
		t.Fatalf("schedules create: %v %q %q", err, out, stderr)
	}
	if out, _, err := crawler("schedules", "trigger", sid); err != nil || !strings.Contains(out, "a run was asked for") {
		t.Fatalf("schedules trigger: %v %q", err, out)
	}
	var listed string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if listed, _, err = crawler("schedules"); err == nil && strings.Contains(listed, " succeeded") {
			break
		}
	}
	if !strings.Contains(listed, sid+"  fixture  every 2h0m0s  true") || !strings.Contains(listed, " succeeded") {
		t.Errorf("schedules list after a run:\n%s", listed)
	}
	if out, _, err := crawler("schedules", "pause", sid, "--note", "for the test"); err != nil || !strings.Contains(out, "paused: true") {
		t.Errorf("schedules pause: %v %q", err, out)
	}
	if out, _, err := crawler("schedules", "get", sid); err != nil || !strings.Contains(out, `"note":"for the test"`) {
		t.Errorf("schedules get: %v %q", err, out)
	}
	if _, stderr, err := crawler("schedules", "create", s.URL+"/", "--interval", "10s"); err == nil || !strings.Contains(stderr, "interval") {
		t.Errorf("a 10 s interval: %v %q", err, stderr)
	}
	if out, _, err := crawler("schedules", "delete", sid); err != nil || !strings.Contains(out, "deleted") {
		t.Errorf("schedules delete: %v %q", err, out)
	}
}

// TestMetricsAndReadiness: after a crawl the API's /metrics counts crawls
// by status and its requests, the worker's counts page fetches, bytes,
// latency, activities and the Temporal SDK's own series; both /readyz
// answer ready.
func TestMetricsAndReadiness(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": s.URL + "/", "maxResults": 5})
	waitStatus(t, env.api, env.keyA, c.ID, time.Minute, "succeeded")
	scrape := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d %s", url, resp.StatusCode, raw)
		}
		return string(raw)
	}
	positive := func(text, series string) {
		t.Helper()
		for _, line := range strings.Split(text, "\n") {
			name, value, ok := strings.Cut(line, " ")
			if ok && strings.HasPrefix(name, series) {
				if v, err := strconv.ParseFloat(value, 64); err == nil && v > 0 {
					return
				}
			}
		}
		t.Errorf("no positive value of %s", series)
	}
	api := scrape(env.api + "/metrics")
	positive(api, `crawler_crawls{status="succeeded"}`)
	positive(api, `crawler_crawls_created_total`)
	positive(api, `crawler_http_requests_total{code="2xx",method="GET",route="/crawls/:id"}`)
	worker := scrape(env.workerStatus + "/metrics")
	positive(worker, `crawler_pages_fetched_total{code="2xx",engine="static"}`)
	positive(worker, `crawler_fetched_bytes_total{engine="static"}`)
	positive(worker, `crawler_fetch_duration_seconds_count{engine="static"}`)
	positive(worker, `crawler_activity_executions_total{activity="FetchPages"}`)
	positive(worker, `temporal_request{`)
	positive(worker, `temporal_activity_execution_latency_count{`)
	for _, base := range []string{env.api, env.workerStatus} {
		var r struct {
			Status string
			Checks map[string]string
		}
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if resp.StatusCode != 200 || r.Status != "ok" || r.Checks["postgres"] != "ok" || r.Checks["temporal"] != "ok" {
			t.Errorf("%s/readyz = %d %+v", base, resp.StatusCode, r)
		}
	}
}
