package workflows

// The batches of a crawl as three overlapping stages: fetching the next
// batch while the last is converted and stored (pipelinedLoop).

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// crawlBatches runs the crawl's batches (pipelinedLoop) until the frontier
// is empty or the budget is spent (and then says so), and returns a
// ContinueAsNewError when the run's history grows long. Runs begun before
// pipelined-batches are below the version floor (versions.go).
func crawlBatches(ctx workflow.Context, in *RunState, h *hooks) (bool, error) {
	pageCtx := workflow.WithActivityOptions(ctx, pageActivityOptions)
	browserOptions := pageActivityOptions
	browserOptions.TaskQueue = in.Plan.BrowserTaskQueue
	// A batch no browser worker takes within minutes means busy browser
	// workers (the crawl waits on) or none at all (a deployment fault: the
	// crawl ends error rather than waiting out its timeout).
	browserOptions.ScheduleToStartTimeout = 5 * time.Minute
	browserCtx := workflow.WithActivityOptions(ctx, browserOptions)
	workflow.GetVersion(ctx, pipelinedBatches, 1, 1)
	return pipelinedLoop(ctx, in, pageCtx, browserCtx, h)
}

// errContinueAsNew is how pipelinedLoop says that the run should continue
// as new: crawlRun makes the ContinueAsNewError once changes in flight are
// applied, so that the next run's input holds them.
var errContinueAsNew = errors.New("continue as new")

// pipelinedLoop runs the batches as three stages that overlap: fetching,
// conversion (which runs no activity once fetching converts), and storing
// (deduplication, extraction, logs). Conversion
// and storing each take the fetched batches in batch order, in workflow
// goroutines; conversion may run a batch ahead of storing, and fetching up
// to maxFetchedAhead batches ahead of both. Network waits, the worker's
// CPU and the database's thus work at once while the crawl keeps its
// breadth-first order, deduplication its page order, and the budget its
// bound: a batch claims no more pages than the budget has room for once
// the batches in the later stages are stored. Only fetching adds to the
// frontier, so an empty claim means it is done.
func pipelinedLoop(ctx workflow.Context, in *RunState, pageCtx, browserCtx workflow.Context, h *hooks) (bool, error) {
	firstBatch := in.Batch
	p := &pipeline{in: in, pageCtx: pageCtx, hooks: h,
		upsertTotal: workflow.GetVersion(ctx, totalPagesAttribute, workflow.DefaultVersion, 1) != workflow.DefaultVersion}
	renderDeep := workflow.GetVersion(ctx, renderDeepPages, workflow.DefaultVersion, 1) != workflow.DefaultVersion
	atFetch := workflow.GetVersion(ctx, convertAtFetch, workflow.DefaultVersion, 2)
	p.convertAtFetch, p.convertLeft = atFetch != workflow.DefaultVersion, atFetch >= 2
	withResults := workflow.GetVersion(ctx, logsWithResults, workflow.DefaultVersion, 2)
	p.logsWithResults, p.logsChecked = withResults != workflow.DefaultVersion, withResults >= 2
	lastRendered := false
	workflow.Go(ctx, p.convertStage)
	workflow.Go(ctx, p.storeStage)
	for {
		if err := workflow.Await(ctx, func() bool { return len(p.queue) < maxFetchedAhead || p.err != nil }); err != nil {
			return false, err
		}
		if p.err != nil {
			return false, p.err
		}
		if longRun(ctx, in.Batch-firstBatch) {
			// Also after waits for retries or browser workers, which add
			// events without a batch.
			if err := p.drained(ctx); err != nil {
				return false, err
			}
			// The run's input is taken once the changes being applied are
			// (see crawlRun).
			return false, errContinueAsNew
		}
		limit := min(in.Plan.BatchSize, in.Plan.Budget-in.Stored-p.pending())
		if limit <= 0 {
			if len(p.queue) == 0 {
				return true, nil
			}
			// The batches in the results stage may fill the budget, or
			// leave room (pages they skip): wait and see.
			if err := p.drained(ctx); err != nil {
				return false, err
			}
			continue
		}
		if in.Paused {
			if err := p.whilePaused(ctx); err != nil {
				return false, err
			}
			continue
		}
		// Pages sent to the browser get every other batch, so that neither
		// they nor the static ones wait for the other kind to run out.
		renderOnly := renderDeep && in.Plan.Engine == crawl.EngineCheerio && in.RenderQueued > 0 && !lastRendered
		lastRendered = renderOnly
		fetched, err := fetchBatch(ctx, in, limit, pageCtx, browserCtx, renderDeep, renderOnly, p.convertAtFetch)
		if err != nil && (in.Plan.Engine == crawl.EnginePlaywright || renderOnly) && notStarted(err) && browserWorkersBusy(ctx, in) {
			continue
		}
		if err != nil {
			// The batches fetched before are finished first, as they
			// would have been one after the other.
			if ctx.Err() == nil {
				_ = p.drained(ctx)
			}
			return false, err
		}
		in.note(fetched, renderDeep)
		if fetched.Claimed == 0 && !renderOnly && in.RenderQueued > 0 && in.Plan.Engine == crawl.EngineCheerio {
			continue // nothing static to claim: the browser's turn
		}
		if fetched.Claimed == 0 && fetched.Waiting > 0 {
			// Pages wait for a retry (the site was busy): sleep until the
			// first may go. The crawl's timeout bounds the wait.
			showProgress(ctx, in, fmt.Sprintf("Waiting to retry %d pages", fetched.Waiting))
			if err := workflow.Sleep(ctx, max(fetched.RetryIn, minRetryWait)); err != nil {
				return false, err
			}
			continue
		}
		if fetched.Claimed == 0 {
			// The frontier is empty for good: only fetching adds to it.
			return false, p.drained(ctx)
		}
		p.queue = append(p.queue, &fetchedBatch{batch: in.Batch, fetched: fetched.Fetched, unconverted: fetched.Fetched - fetched.Converted})
		in.Batch++
	}
}

// browserWorkersBusy reports, after no browser worker took a batch in
// time, whether browser workers are there (busy: the batch is tried again,
// the crawl's timeout bounding the wait) rather than none at all (a
// deployment fault, which ends the crawl error).
func browserWorkersBusy(ctx workflow.Context, in *RunState) bool {
	var workers int
	err := workflow.ExecuteActivity(ctx, a.BrowserWorkers, activities.BrowserWorkersInput{
		TaskQueue: in.Plan.BrowserTaskQueue}).Get(ctx, &workers)
	return err == nil && workers > 0
}

// note keeps what a fetch batch found for the batches after it: the engine
// the crawl switched to, and (renderDeep) the pages waiting for the browser.
func (in *RunState) note(fetched activities.FetchPagesResult, renderDeep bool) {
	if fetched.SwitchTo != "" {
		in.Plan.Engine, in.Plan.Detect = fetched.SwitchTo, false
	}
	if renderDeep {
		in.RenderQueued = fetched.RenderQueued
	}
}

// pipeline is what pipelinedLoop shares with its two stages, which run
// in workflow goroutines.
type pipeline struct {
	in      *RunState
	pageCtx workflow.Context
	// queue holds the fetched batches whose results are not done, in
	// batch order: converted ones first, then the one converting.
	queue []*fetchedBatch
	// err is the first failure of a stage; both stages stop at it.
	err error
	// upsertTotal keeps the CrawlTotalPages search attribute up to date
	// as batches are stored (runs begun before that change do not).
	upsertTotal bool
	// convertAtFetch has the fetch batches convert their pages: the
	// conversion stage then runs no activity (runs begun before that
	// change run ConvertPages), unless, with convertLeft, a batch left
	// pages unconverted (a fetch activity of a worker older than the
	// change, which saves their HTML).
	convertAtFetch, convertLeft bool
	// hooks hears of each stored batch (nil: the crawl has no webhook).
	hooks *hooks
	// logsWithResults has DeduplicatePages write the log entries of a
	// crawl without extraction (runs begun before that change run
	// WriteLogs after it); with logsChecked, only when DeduplicatePages
	// says it wrote them (a worker older than the change does not).
	logsWithResults, logsChecked bool
}

// fetchedBatch is a batch in the later stages: its number, its fetched
// pages not yet counted as stored, and whether it is converted.
type fetchedBatch struct {
	batch, fetched int
	// unconverted counts the fetched pages the fetch did not convert.
	unconverted int
	converted   bool
}

// whilePaused waits while a change holds the crawl still: no batch starts
// (none holds a worker) until it is resumed; the timeout keeps running.
func (p *pipeline) whilePaused(ctx workflow.Context) error {
	showProgress(ctx, p.in, "Paused")
	if err := workflow.Await(ctx, func() bool { return !p.in.Paused || p.err != nil }); err != nil {
		return err
	}
	showProgress(ctx, p.in, "Crawling")
	return nil
}

func (p *pipeline) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// convertStage converts the fetched batches in order, while the batch
// before is deduplicated and stored: batches convert independently.
func (p *pipeline) convertStage(ctx workflow.Context) {
	for {
		var next *fetchedBatch
		if err := workflow.Await(ctx, func() bool {
			for _, b := range p.queue {
				if !b.converted {
					next = b
					return true
				}
			}
			return p.err != nil
		}); err != nil || p.err != nil {
			return
		}
		if next.fetched > 0 && (!p.convertAtFetch || p.convertLeft && next.unconverted > 0) {
			if err := workflow.ExecuteActivity(p.pageCtx, a.ConvertPages, activities.ConvertPagesInput{
				CrawlID: p.in.CrawlID, Batch: next.batch, Budget: p.in.Plan.Budget, StoreLater: true}).Get(ctx, nil); err != nil {
				p.fail(err)
				return
			}
		}
		next.converted = true
	}
}

// storeStage deduplicates, extracts and logs the converted batches in
// order: the first page of the crawl to hold a fragment keeps it.
func (p *pipeline) storeStage(ctx workflow.Context) {
	for {
		if err := workflow.Await(ctx, func() bool { return (len(p.queue) > 0 && p.queue[0].converted) || p.err != nil }); err != nil || p.err != nil {
			return
		}
		b := p.queue[0]
		logged := false
		if b.fetched > 0 {
			batchIn := *p.in
			batchIn.Batch = b.batch
			// Without extraction, the entries wait for nothing once the
			// pages are stored: DeduplicatePages writes them.
			asked := p.logsWithResults && p.in.Plan.LLMTaskQueue == ""
			wrote, err := storeResults(ctx, p.pageCtx, &batchIn, asked)
			if err != nil {
				p.fail(err)
				return
			}
			logged = asked && (wrote || !p.logsChecked)
			// Counted in Stored now, no longer pending.
			stored := batchIn.Stored != p.in.Stored
			p.in.Stored, b.fetched = batchIn.Stored, 0
			if stored && p.upsertTotal {
				_ = workflow.UpsertTypedSearchAttributes(ctx, crawlflow.AttrTotalPages.ValueSet(int64(p.in.Stored)))
			}
			showProgress(ctx, p.in, "Crawling")
			p.hooks.notify()
		}
		if !logged {
			if err := workflow.ExecuteActivity(ctx, a.WriteLogs,
				activities.WriteLogsInput{CrawlID: p.in.CrawlID, Batch: b.batch}).Get(ctx, nil); err != nil {
				p.fail(err)
				return
			}
		}
		p.queue = p.queue[1:]
	}
}

// pending counts the fetched pages of the batches not stored yet.
func (p *pipeline) pending() int {
	n := 0
	for _, b := range p.queue {
		n += b.fetched
	}
	return n
}

// drained waits for the later stages to finish every fetched batch.
func (p *pipeline) drained(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return len(p.queue) == 0 || p.err != nil }); err != nil {
		return err
	}
	return p.err
}

// fetchBatch claims and fetches the batch in.Batch of up to limit pages,
// with the crawl's engine, or (renderOnly) the pages sent to the browser.
// renderDeep lets a static batch send pages to the browser.
func fetchBatch(ctx workflow.Context, in *RunState, limit int, pageCtx, browserCtx workflow.Context,
	renderDeep, renderOnly, convert bool) (activities.FetchPagesResult, error) {
	fetchPages, fetchCtx := a.FetchPages, pageCtx
	if in.Plan.Engine == crawl.EnginePlaywright || renderOnly {
		fetchPages, fetchCtx = a.RenderPages, browserCtx
	}
	var fetched activities.FetchPagesResult
	err := workflow.ExecuteActivity(fetchCtx, fetchPages, activities.FetchPagesInput{
		CrawlID: in.CrawlID, Batch: in.Batch, Limit: limit, NoLinks: in.NoLinks, Detect: in.Plan.Detect,
		RenderDeep: renderDeep && in.Plan.Detect, RenderOnly: renderOnly, Convert: convert,
	}).Get(ctx, &fetched)
	return fetched, err
}

// maxFetchedAhead bounds the fetched batches whose results are not done:
// one storing, one converting, one waiting.
const maxFetchedAhead = 3

// minRetryWait is the shortest sleep for pages that wait for a retry.
const minRetryWait = 200 * time.Millisecond
