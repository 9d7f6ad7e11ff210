package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/urlnorm"
)

// StartCrawlInput names the crawl to start.
type StartCrawlInput struct {
	CrawlID string
}

// CrawlPlan is what the workflow needs to drive a crawl: counters and
// bounds, never the crawl's content.
type CrawlPlan struct {
	// Status is the crawl's status when the workflow started; a crawl that
	// is already terminal is not crawled again.
	Status crawl.Status
	// Budget is the most result pages the crawl may store.
	Budget int
	// BatchSize is how many pages one fetch activity claims.
	BatchSize int
	// TimeoutSeconds is the crawl's timeout.
	TimeoutSeconds int
	// UseSitemap asks the workflow to seed the frontier from sitemaps.
	UseSitemap bool
	// Engine fetches the crawl's pages: cheerio (FetchPages) or playwright
	// (RenderPages on BrowserTaskQueue).
	Engine           string
	BrowserTaskQueue string `json:",omitempty"`
	// Detect asks FetchPages to check start pages for JavaScript content
	// and switch the crawl to the browser engine when they need it.
	Detect bool `json:",omitempty"`
	// LLMTaskQueue is set for a crawl with extraction instructions: its
	// result pages go through ExtractPage there.
	LLMTaskQueue string `json:",omitempty"`
}

// StartCrawl seeds the frontier with the crawl's start URLs, writes the
// crawl's first log entry and returns its plan.
func (a *Activities) StartCrawl(ctx context.Context, in StartCrawlInput) (CrawlPlan, error) {
	c, o, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return CrawlPlan{}, err
	}
	concurrency := o.Concurrency(a.Settings.DefaultConcurrentPages, a.Settings.MaxConcurrentPages)
	plan := CrawlPlan{
		Status:         c.Status,
		Budget:         o.PageBudget(a.Settings.MaxPagesPerCrawl),
		BatchSize:      batchSize(concurrency),
		TimeoutSeconds: c.TimeoutSeconds,
		UseSitemap:     o.UseSitemap,
		Engine:         a.engineOf(o),
	}
	if o.Extraction != "" {
		plan.LLMTaskQueue = a.Settings.LLMTaskQueue
	}
	if a.Settings.BrowserAvailable {
		plan.BrowserTaskQueue = a.Settings.BrowserTaskQueue
		plan.Detect = o.EngineType == crawl.EngineAuto && o.Stack == "" && plan.Engine == crawl.EngineCheerio
	}
	if c.Status.Terminal() {
		return plan, nil
	}

	var seeds []db.NewPage
	for _, s := range o.StartURLs {
		fetchURL, key, err := urlnorm.Normalize(s)
		if err != nil {
			continue // validated at creation; nothing to crawl
		}
		seeds = append(seeds, db.NewPage{URL: fetchURL, NormalizedURL: key, Depth: 0, Rank: childRank("", len(seeds))})
	}
	if _, err := a.Store.Enqueue(ctx, c.ID, seeds); err != nil {
		return CrawlPlan{}, err
	}

	bounds := fmt.Sprintf("maxDepth %d, ", o.MaxDepth)
	if o.MaxResults != nil {
		bounds += fmt.Sprintf("maxResults %d, ", *o.MaxResults)
	}
	if o.Unbounded() {
		bounds = fmt.Sprintf("no depth limit, up to %d pages, ", plan.Budget)
	}
	entry := db.CrawlLog{
		CrawlID: c.ID, TeamID: c.TeamID, Key: "start", Level: "info",
		Message: "Crawl started",
		Description: fmt.Sprintf("Crawling %s (%sengine %s, %d pages at a time, timeout %ds).",
			strings.Join(o.StartURLs, ", "), bounds, o.EngineType, concurrency, o.TimeoutSeconds),
		// Every entry carries url and statusCode; 0 means no HTTP response
		// belongs to the entry.
		Data: map[string]any{"url": o.StartURLs[0], "statusCode": 0, "startUrls": o.StartURLs},
	}
	engine := engineLog(c, o, plan.Engine)
	if err := a.Store.InsertLogs(ctx, []db.CrawlLog{entry, engine}); err != nil {
		return CrawlPlan{}, err
	}
	return plan, nil
}

// engineOf decides the engine of a crawl: the one it asks for, or with
// auto the one its stack implies (the browser only where the deployment
// has browser workers), else static.
func (a *Activities) engineOf(o crawl.Options) string {
	switch {
	case o.EngineType == crawl.EnginePlaywright:
		return crawl.EnginePlaywright
	case o.EngineType == crawl.EngineAuto && crawl.Stacks[o.Stack] == crawl.EnginePlaywright && a.Settings.BrowserAvailable:
		return crawl.EnginePlaywright
	}
	return crawl.EngineCheerio
}

// engineLog says which engine fetches the crawl's pages, and why.
func engineLog(c *db.Crawl, o crawl.Options, engine string) db.CrawlLog {
	e := db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: "engine", Level: "info", Message: "Engine chosen",
		Data: map[string]any{"url": o.StartURLs[0], "statusCode": 0, "engine": engine}}
	switch {
	case o.EngineType != crawl.EngineAuto:
		e.Description = fmt.Sprintf("Pages are fetched by the %s engine, as the crawl asks.", o.EngineType)
	case engine == crawl.EnginePlaywright:
		e.Description = fmt.Sprintf("The stack %q renders its pages with JavaScript: pages are rendered by the browser engine (playwright).", o.Stack)
	case o.Stack != "" && crawl.Stacks[o.Stack] == crawl.EnginePlaywright:
		e.Level = "warn"
		e.Description = fmt.Sprintf("The stack %q suggests the browser engine, which this server does not run; pages are fetched by the static engine (cheerio).", o.Stack)
	case o.Stack != "":
		e.Description = fmt.Sprintf("The stack %q is served as static HTML: pages are fetched by the static engine (cheerio).", o.Stack)
	default:
		e.Description = "engineType auto: pages are fetched by the static engine (cheerio), unless the start page turns out to need JavaScript."
	}
	return e
}

// FinishCrawlInput asks to end a crawl with a status.
type FinishCrawlInput struct {
	CrawlID string
	Status  crawl.Status
	// Reason explains the status in the crawl's last log entry.
	Reason string
	// BudgetSpent is set when the crawl stopped at its page limit.
	BudgetSpent bool `json:",omitempty"`
}

// FinishCrawlResult is the crawl's status after FinishCrawl: the asked-for
// one, or the one another party set first.
type FinishCrawlResult struct {
	Status     crawl.Status
	TotalPages int
}

// FinishCrawl moves a running crawl to a terminal status, sets its
// completion time and writes its last log entry.
func (a *Activities) FinishCrawl(ctx context.Context, in FinishCrawlInput) (FinishCrawlResult, error) {
	c, _, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return FinishCrawlResult{}, err
	}
	if !in.Status.Terminal() {
		return FinishCrawlResult{}, nonRetryable(fmt.Errorf("finish crawl with status %q", in.Status))
	}
	if in.BudgetSpent && !c.Status.Terminal() {
		if err := a.logLimit(ctx, c); err != nil {
			return FinishCrawlResult{}, err
		}
	}
	c, err = Finish(ctx, a.Store, c.ID, in.Status, in.Reason)
	if err != nil {
		return FinishCrawlResult{}, err
	}
	return FinishCrawlResult{Status: c.Status, TotalPages: c.TotalPages}, nil
}

// logLimit writes why a crawl stopped with pages left in its frontier:
// its maxResults, or the server's page cap.
func (a *Activities) logLimit(ctx context.Context, c *db.Crawl) error {
	counts, err := a.Store.CountPages(ctx, c.ID)
	if err != nil || counts[db.PageQueued] == 0 {
		return err
	}
	o := c.Options
	entry := db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: "limit", Level: "info", Message: "maxResults reached",
		Data: map[string]any{"url": c.StartURLs[0], "statusCode": 0, "notCrawled": counts[db.PageQueued]}}
	budget := o.PageBudget(a.Settings.MaxPagesPerCrawl)
	if budget == a.Settings.MaxPagesPerCrawl && (o.MaxResults == nil || o.Unbounded() || *o.MaxResults > budget) {
		entry.Level, entry.Message = "warn", "Server page cap reached"
		entry.Description = fmt.Sprintf("The crawl stopped at this server's cap of %d pages per crawl (CRAWLER_MAX_PAGES_PER_CRAWL); %d discovered pages were not crawled.",
			budget, counts[db.PageQueued])
	} else {
		entry.Description = fmt.Sprintf("The crawl stopped at maxResults (%d pages); %d discovered pages were not crawled.", budget, counts[db.PageQueued])
	}
	return a.Store.InsertLogs(ctx, []db.CrawlLog{entry})
}

// finisher is what Finish needs of the database.
type finisher interface {
	Finish(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
		logs func(c *db.Crawl, unlogged []db.Page) []db.CrawlLog) (*db.Crawl, error)
}

// Finish ends a running crawl with status (compare-and-set: a crawl that
// already ended keeps its status), closes the pages it left half-done, and
// writes the page entries a cancelled batch did not write and then the
// crawl's last entry for whichever status it ended with, in one
// transaction. The workflow, the API and the reconciler all end crawls
// through it; it is idempotent.
func Finish(ctx context.Context, store finisher, id uuid.UUID, status crawl.Status, reason string) (*db.Crawl, error) {
	return store.Finish(ctx, id, status, reason, func(c *db.Crawl, unlogged []db.Page) []db.CrawlLog {
		var logs []db.CrawlLog
		for _, p := range unlogged {
			logs = append(logs, pageLogs(c, p)...)
		}
		return append(logs, endLog(c, status, reason))
	})
}

// endLog is a crawl's last log entry.
func endLog(c *db.Crawl, asked crawl.Status, reason string) db.CrawlLog {
	if c.Status != asked {
		reason = c.ErrorMessage
	}
	level := "info"
	switch c.Status {
	case crawl.StatusFailed, crawl.StatusError:
		level = "error"
	case crawl.StatusAborted, crawl.StatusTimedOut:
		level = "warn"
	}
	desc := fmt.Sprintf("The crawl ended %s with %d pages.", c.Status, c.TotalPages)
	if reason != "" {
		desc += " " + reason
	}
	return db.CrawlLog{
		CrawlID: c.ID, TeamID: c.TeamID, Key: "end", Level: level,
		Message:     endMessages[c.Status],
		Description: desc,
		Data: map[string]any{
			"url": c.StartURLs[0], "statusCode": 0, "status": c.Status, "totalPages": c.TotalPages,
			"durationInSeconds": crawl.Duration(c.CreatedAt, c.CompletedAt, c.UpdatedAt),
		},
	}
}

var endMessages = map[crawl.Status]string{
	crawl.StatusSucceeded: "Crawl succeeded",
	crawl.StatusFailed:    "Crawl failed",
	crawl.StatusAborted:   "Crawl aborted",
	crawl.StatusTimedOut:  "Crawl timed out",
	crawl.StatusError:     "Crawl stopped by an internal error",
}

// nonRetryable marks err as one a retry cannot fix.
func nonRetryable(err error) error {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), "CrawlInvalid", err)
}

// batchSize is how many pages one FetchPages claims. Every batch costs a
// few Temporal round trips (tens of milliseconds), so batches are much
// larger than the pages in flight; the concurrency still bounds those. At
// most 60 pages per request slot keep a batch of pages that all time out
// (30 s each by default) within the activity's time limit.
func batchSize(concurrency int) int {
	return min(max(16*concurrency, 64), 256, 60*concurrency)
}
