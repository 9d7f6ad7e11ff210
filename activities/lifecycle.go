package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/frontier"
)

// lifecycleStore is what StartCrawl and FinishCrawl need of the database.
type lifecycleStore interface {
	crawlLoader
	crawllog.Ender
	Enqueue(ctx context.Context, crawlID uuid.UUID, pages []db.NewPage) (int, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
	CountPages(ctx context.Context, crawlID uuid.UUID) (map[crawl.PageState]int, error)
	ChooseBaseline(ctx context.Context, c *crawl.Crawl) (*uuid.UUID, error)
}

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
	// StartURL is the crawl's first start URL, which the workflow shows
	// in the Temporal UI.
	StartURL string `json:",omitempty"`
	// Webhooks is set for a crawl with a webhook: the workflow delivers
	// its events (DeliverWebhooks) as it goes and after it ends.
	Webhooks bool `json:",omitempty"`
	// ChangeTracking is set for a crawl that compares its pages with an
	// earlier crawl's: the workflow settles the comparison when it ends
	// (SettleChanges).
	ChangeTracking bool `json:",omitempty"`
	// MaxConcurrency is the server's bound on a crawl's pages in flight,
	// which a change of a running crawl must keep to.
	MaxConcurrency int `json:",omitempty"`
}

// StartCrawl seeds the frontier with the crawl's start URLs, writes the
// crawl's first log entries and returns its plan.
func (a *Activities) StartCrawl(ctx context.Context, in StartCrawlInput) (CrawlPlan, error) {
	return startCrawl(ctx, a.Store, a.Settings, in)
}

func startCrawl(ctx context.Context, store lifecycleStore, s Settings, in StartCrawlInput) (CrawlPlan, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return CrawlPlan{}, err
	}
	plan := planOf(c, o, s)
	if c.Status.Terminal() {
		return plan, nil
	}
	if _, err := store.Enqueue(ctx, c.ID, batch.NewPages(frontier.SeedsOf(o))); err != nil {
		return CrawlPlan{}, err
	}
	logs := []crawl.CrawlLog{crawllog.Started(c, plan.Budget, s.concurrency(o)), crawllog.EngineChosen(c, plan.Engine)}
	if o.ChangeTracking {
		entry, err := chooseBaseline(ctx, store, c, o)
		if err != nil {
			return CrawlPlan{}, err
		}
		logs = append(logs, entry)
	}
	if err := store.InsertLogs(ctx, logs); err != nil {
		return CrawlPlan{}, err
	}
	return plan, nil
}

// chooseBaseline settles which crawl a change-tracking crawl compares
// with, and returns the log entry that says so.
func chooseBaseline(ctx context.Context, store lifecycleStore, c *crawl.Crawl, o crawl.Options) (crawl.CrawlLog, error) {
	c.BaselineKey = o.BaselineKey()
	prevID, err := store.ChooseBaseline(ctx, c)
	if err != nil || prevID == nil {
		return crawllog.Baseline(c, nil), err
	}
	c.PreviousCrawlID = prevID
	prev, err := store.CrawlByID(ctx, *prevID)
	if err != nil {
		return crawl.CrawlLog{}, err
	}
	return crawllog.Baseline(c, prev), nil
}

// planOf returns the plan of crawl c with options o on a server with
// settings s.
func planOf(c *crawl.Crawl, o crawl.Options, s Settings) CrawlPlan {
	plan := CrawlPlan{
		Status:         c.Status,
		Budget:         o.PageBudget(s.MaxPagesPerCrawl),
		BatchSize:      batchSize(s.concurrency(o)),
		TimeoutSeconds: c.TimeoutSeconds,
		UseSitemap:     o.UseSitemap,
		Engine:         engineOf(o, s.BrowserAvailable),
		StartURL:       o.StartURLs[0],
		Webhooks:       o.Webhook != nil,
		ChangeTracking: o.ChangeTracking,
		MaxConcurrency: s.MaxConcurrentPages,
	}
	if o.Extraction != "" {
		plan.LLMTaskQueue = s.LLMTaskQueue
	}
	if o.DelayMS > 0 {
		// Pages go one at a time, a delay apart: a batch takes at most
		// about half an hour, far within the fetch activity's time limit.
		plan.BatchSize = max(1, min(plan.BatchSize, int(delayedBatch/(time.Duration(o.DelayMS)*time.Millisecond))))
	}
	if s.BrowserAvailable {
		plan.BrowserTaskQueue = s.BrowserTaskQueue
		plan.Detect = o.EngineType == crawl.EngineAuto && o.Stack == "" && plan.Engine == crawl.EngineCheerio
	}
	return plan
}

// delayedBatch is about the longest a batch of a crawl with a delay
// takes.
const delayedBatch = 30 * time.Minute

// engineOf decides the engine of a crawl: the one it asks for, or with
// auto the one its stack implies (the browser only where the deployment
// has browser workers), else static.
func engineOf(o crawl.Options, browserAvailable bool) string {
	switch {
	case o.EngineType == crawl.EnginePlaywright:
		return crawl.EnginePlaywright
	case o.EngineType == crawl.EngineAuto && crawl.Stacks[o.Stack] == crawl.EnginePlaywright && browserAvailable:
		return crawl.EnginePlaywright
	}
	return crawl.EngineCheerio
}

// batchSize is how many pages one FetchPages claims. Every batch costs a
// few Temporal round trips (tens of milliseconds), so batches are much
// larger than the pages in flight; the concurrency still bounds those. At
// most 60 pages per request slot keep a batch of pages that all time out
// (30 s each by default) within the activity's time limit.
func batchSize(concurrency int) int {
	return min(max(16*concurrency, 64), 256, 60*concurrency)
}

// FinishCrawlInput asks to end a crawl with a status.
type FinishCrawlInput struct {
	CrawlID string
	Status  crawl.Status
	// Cause is why the crawl ended, worded in its last log entry.
	Cause crawllog.EndCause `json:",omitempty"`
	// Reason is the cause worded already, as workflows from before typed
	// causes send it; read only when Cause is empty.
	Reason string `json:",omitempty"`
	// BudgetSpent is set when the crawl stopped at its page limit.
	BudgetSpent bool `json:",omitempty"`
}

// FinishCrawlResult is the crawl's status after FinishCrawl: the asked-for
// one, or the one another party set first.
type FinishCrawlResult struct {
	Status     crawl.Status
	TotalPages int
}

// FinishCrawl ends a running crawl with a terminal status (crawllog.End):
// it sets its completion time and writes its last log entries, and, when
// the crawl stopped at its page limit with pages left, an entry saying so.
func (a *Activities) FinishCrawl(ctx context.Context, in FinishCrawlInput) (FinishCrawlResult, error) {
	if id, err := uuid.Parse(in.CrawlID); err == nil {
		a.Links.Forget(id) // this worker's; others forget it as their memo fills
	}
	return finishCrawl(ctx, a.Store, a.Settings, in)
}

func finishCrawl(ctx context.Context, store lifecycleStore, s Settings, in FinishCrawlInput) (FinishCrawlResult, error) {
	c, _, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return FinishCrawlResult{}, err
	}
	if !in.Status.Terminal() {
		return FinishCrawlResult{}, nonRetryable(fmt.Errorf("finish crawl with status %q", in.Status))
	}
	if in.BudgetSpent && !c.Status.Terminal() {
		counts, err := store.CountPages(ctx, c.ID)
		if err != nil {
			return FinishCrawlResult{}, err
		}
		if left := counts[crawl.PageQueued]; left > 0 {
			if err := store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.LimitReached(c, s.MaxPagesPerCrawl, left)}); err != nil {
				return FinishCrawlResult{}, err
			}
		}
	}
	if in.Cause == (crawllog.EndCause{}) && in.Reason != "" {
		c, err = crawllog.EndWith(ctx, store, c.ID, in.Status, in.Reason)
	} else {
		c, err = crawllog.End(ctx, store, c.ID, in.Status, in.Cause)
	}
	if err != nil {
		return FinishCrawlResult{}, err
	}
	return FinishCrawlResult{Status: c.Status, TotalPages: c.TotalPages}, nil
}
