// Package workflows holds CrawlWorkflow, the durable loop that drives one
// crawl from its start URLs to a terminal status.
package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// RegisterOptions registers CrawlWorkflow under crawlflow.CrawlWorkflowName.
func RegisterOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: crawlflow.CrawlWorkflowName}
}

// RunState is CrawlWorkflow's input: crawlflow.CrawlInput as a caller
// sends it (CrawlID), and what a crawl carries across continue-as-new.
type RunState struct {
	CrawlID string
	// Plan is nil on the first run.
	Plan *activities.CrawlPlan `json:",omitempty"`
	// Batch is the number of the next fetch batch.
	Batch int `json:",omitempty"`
	// Stored counts the crawl's result pages so far.
	Stored int `json:",omitempty"`
	// Deadline is when the crawl's timeout elapses.
	Deadline time.Time `json:",omitempty"`
	// Seeded is set once the sitemaps are read; NoLinks when the crawl's
	// pages come from them.
	Seeded  bool `json:",omitempty"`
	NoLinks bool `json:",omitempty"`
	// RenderQueued counts the pages a static batch sent to the browser
	// that wait for a browser batch.
	RenderQueued int `json:",omitempty"`
	// Paused is set while a change (ChangeCrawl) holds the crawl still.
	Paused bool `json:",omitempty"`
}

// CrawlResult is the crawl's terminal status.
type CrawlResult struct {
	Status     crawl.Status
	TotalPages int
}

// batchesPerRun bounds one run's history: a batch adds about a dozen
// events, so a run stays far below Temporal's 51,200-event limit even when
// the server does not suggest continue-as-new.
const batchesPerRun = 500

// eventsPerRun is the history length after which a run continues as new
// at its next batch. Up to two batches may still be in the results stage
// and finish in this run; with extraction each adds about six events per
// page (ExtractPage's three, and a workflow task for its completion), at
// most 256 pages a batch, so a run stays under 10,000 events: a replay of
// its history stays quick, and far below Temporal's hard limit.
const eventsPerRun = 5000

// CrawlWorkflow runs one crawl. StartCrawl seeds the frontier with the
// start URLs (and, with useSitemap, SeedFromSitemap with the sitemaps'
// pages); then the crawl goes breadth-first in batches: each claims queued
// pages (shallowest first), fetches them (FetchPages, or RenderPages on
// the browser task queue) and converts each to markdown as it comes
// (ConvertPages did that afterwards in runs begun before convert-at-fetch),
// deduplicates and stores them as results (DeduplicatePages), sends each
// result through the LLM when the crawl has extraction instructions
// (ExtractPage on the LLM task queue) and logs every page (WriteLogs, or
// DeduplicatePages itself for a crawl without extraction).
// The next batch is fetched while the last one is converted and stored.
// It ends when the frontier is empty or the page budget is spent, with
// FinishCrawl. The crawl's timeout is a timer: when it fires the batches
// in flight are cancelled and the crawl ends timed_out with the pages
// stored so far. A cancel from the Temporal UI or CLI ends it aborted.
// Long crawls continue as new runs, so that no history grows large.
//
// A crawl with a webhook delivers its events alongside (see hooks), and
// its run ends only once they are delivered or given up.
func CrawlWorkflow(ctx workflow.Context, in RunState) (CrawlResult, error) {
	ctx = workflow.WithActivityOptions(ctx, quickActivityOptions)
	var h *hooks
	res, err := crawlRun(ctx, &in, &h)
	h.end(ctx, &in, err)
	return res, err
}

// crawlRun is CrawlWorkflow's run; it starts the webhook delivery (*h)
// once the crawl has its plan.
func crawlRun(ctx workflow.Context, in *RunState, h **hooks) (CrawlResult, error) {
	logger := workflow.GetLogger(ctx)

	if in.Plan == nil {
		var plan activities.CrawlPlan
		if err := workflow.ExecuteActivity(ctx, a.StartCrawl, activities.StartCrawlInput{CrawlID: in.CrawlID}).Get(ctx, &plan); err != nil {
			return finishAfter(ctx, *in, err)
		}
		if plan.Status.Terminal() {
			return CrawlResult{Status: plan.Status}, nil
		}
		in.Plan = &plan
		in.Deadline = workflow.GetInfo(ctx).WorkflowStartTime.Add(time.Duration(plan.TimeoutSeconds) * time.Second)
	}
	*h = startHooks(ctx, in)
	st := acceptChanges(ctx, in)
	showProgress(ctx, in, "Crawling")

	loopCtx, cancelLoop := workflow.WithCancel(ctx)
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timedOut := false
	if remaining := in.Deadline.Sub(workflow.Now(ctx)); remaining > 0 {
		workflow.Go(timerCtx, func(c workflow.Context) {
			if workflow.NewTimer(c, remaining).Get(c, nil) == nil {
				timedOut = true
				cancelLoop()
			}
		})
	} else {
		timedOut = true
		cancelLoop()
	}

	var loopErr error
	loopDone, budgetSpent := false, false
	workflow.Go(loopCtx, func(c workflow.Context) {
		// Sitemaps are read under the crawl's timeout too.
		if in.Plan.UseSitemap && !in.Seeded {
			var seeded activities.SeedSitemapResult
			sitemapCtx := workflow.WithActivityOptions(c, pageActivityOptions)
			if loopErr = workflow.ExecuteActivity(sitemapCtx, a.SeedFromSitemap,
				activities.SeedSitemapInput{CrawlID: in.CrawlID}).Get(c, &seeded); loopErr != nil {
				loopDone = true
				return
			}
			in.Seeded, in.NoLinks = true, seeded.Pages > 0
		}
		budgetSpent, loopErr = crawlLoop(c, in, *h)
		loopDone = true
	})
	if err := workflow.Await(ctx, func() bool { return loopDone }); err != nil {
		loopErr = err // the workflow itself was cancelled
	}
	cancelTimer()
	st.settle(ctx, errors.Is(loopErr, errContinueAsNew))
	if errors.Is(loopErr, errContinueAsNew) {
		// Taken now, the input holds every change applied in this run.
		loopErr = workflow.NewContinueAsNewError(ctx, crawlflow.CrawlWorkflowName, *in)
	}
	var can *workflow.ContinueAsNewError

	switch {
	case ctx.Err() != nil:
		logger.Info("crawl cancelled", "CrawlID", in.CrawlID)
		return finishAfter(ctx, *in, ctx.Err())
	case timedOut:
		reason := fmt.Sprintf("The crawl's timeout of %d seconds elapsed; the pages crawled so far are kept.", in.Plan.TimeoutSeconds)
		return failInTemporal(ctx)(finish(ctx, *in, crawl.StatusTimedOut, reason))
	case loopErr != nil:
		if errors.As(loopErr, &can) {
			return CrawlResult{}, loopErr
		}
		return finishAfter(ctx, *in, loopErr)
	case in.Stored == 0:
		return failInTemporal(ctx)(finish(ctx, *in, crawl.StatusFailed, "No page could be crawled; the page entries above say why."))
	default:
		return finishSpent(ctx, *in, crawl.StatusSucceeded, "", budgetSpent)
	}
}

// crawlLoop runs rounds until the frontier is empty or the budget is spent
// (and then says so), and returns a ContinueAsNewError when the run's
// history grows long.
func crawlLoop(ctx workflow.Context, in *RunState, h *hooks) (bool, error) {
	firstBatch := in.Batch
	pageCtx := workflow.WithActivityOptions(ctx, pageActivityOptions)
	browserOptions := pageActivityOptions
	browserOptions.TaskQueue = in.Plan.BrowserTaskQueue
	// A batch no browser worker takes within minutes means busy browser
	// workers (the crawl waits on) or none at all (a deployment fault: the
	// crawl ends error rather than waiting out its timeout).
	browserOptions.ScheduleToStartTimeout = 5 * time.Minute
	browserCtx := workflow.WithActivityOptions(ctx, browserOptions)
	if workflow.GetVersion(ctx, pipelinedBatches, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		return pipelinedLoop(ctx, in, pageCtx, browserCtx, h)
	}
	for {
		limit := min(in.Plan.BatchSize, in.Plan.Budget-in.Stored)
		if limit <= 0 {
			return true, nil
		}
		fetched, err := fetchBatch(ctx, in, limit, pageCtx, browserCtx, false, false, false)
		if err != nil {
			return false, err
		}
		if fetched.Claimed == 0 && fetched.Waiting > 0 {
			// Pages wait for a retry. (Histories recorded before retries
			// existed never carry Waiting: their replay takes no new path.)
			if err := workflow.Sleep(ctx, max(fetched.RetryIn, minRetryWait)); err != nil {
				return false, err
			}
			continue
		}
		if fetched.SwitchTo != "" {
			// The decision holds for the rest of the crawl, across
			// continue-as-new too: it lives in the plan.
			in.Plan.Engine, in.Plan.Detect = fetched.SwitchTo, false
		}
		if fetched.Claimed == 0 {
			return false, nil
		}
		if fetched.Fetched > 0 {
			if err := convertAndStore(ctx, pageCtx, in); err != nil {
				return false, err
			}
		}
		if err := workflow.ExecuteActivity(ctx, a.WriteLogs,
			activities.WriteLogsInput{CrawlID: in.CrawlID, Batch: in.Batch}).Get(ctx, nil); err != nil {
			return false, err
		}
		in.Batch++
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() || in.Batch-firstBatch >= batchesPerRun {
			return false, workflow.NewContinueAsNewError(ctx, crawlflow.CrawlWorkflowName, *in)
		}
	}
}

// errContinueAsNew is how pipelinedLoop says that the run should continue
// as new: crawlRun makes the ContinueAsNewError once changes in flight are
// applied, so that the next run's input holds them.
var errContinueAsNew = errors.New("continue as new")

// pipelinedBatches marks the workflow change that fetches the next batch
// while the last one is converted, deduplicated and logged.
const pipelinedBatches = "pipelined-batches"

// pipelinedLoop is crawlLoop as three stages that overlap: fetching,
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

// logsWithResults marks the workflow change that writes a batch's log
// entries in DeduplicatePages when the crawl has no extraction, instead
// of in an activity of their own. Version 2 still runs WriteLogs when
// DeduplicatePages did not say it wrote them (a worker older than the
// change ignores the request).
const logsWithResults = "logs-with-results"

// convertAtFetch marks the workflow change that converts each page in
// the fetch activity, as soon as it is fetched, instead of writing its
// HTML to the database for ConvertPages to read back. Version 2 still
// runs ConvertPages on a batch whose fetch left pages unconverted.
const convertAtFetch = "convert-at-fetch"

// totalPagesAttribute marks the workflow change that updates
// CrawlTotalPages after each stored batch, not only at the end.
const totalPagesAttribute = "total-pages-attribute"

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

// renderDeepPages marks the workflow change that renders, in browser
// batches of their own, the pages below the start page that a static
// fetch found to need JavaScript, while the rest of the crawl stays static.
const renderDeepPages = "render-deep-pages"

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

// longRun reports whether the run should continue as new: Temporal
// suggests it, its history passed eventsPerRun, or it ran batchesPerRun
// batches.
func longRun(ctx workflow.Context, batches int) bool {
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= eventsPerRun || batches >= batchesPerRun
}

// notStarted reports whether err is an activity that no worker started
// within its schedule-to-start timeout.
func notStarted(err error) bool {
	var te *temporal.TimeoutError
	return errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START
}

// maxFetchedAhead bounds the fetched batches whose results are not done:
// one storing, one converting, one waiting.
const maxFetchedAhead = 3

// minRetryWait is the shortest sleep for pages that wait for a retry.
const minRetryWait = 200 * time.Millisecond

// dedupeAndExtract marks the workflow change that split storing results
// out of ConvertPages into DeduplicatePages, followed by ExtractPage.
const dedupeAndExtract = "deduplicate-and-extract"

// convertAndStore turns the fetched pages of the batch in.Batch into results:
// converted to markdown, deduplicated and stored, then, for a crawl with
// extraction instructions, each sent to the LLM.
func convertAndStore(ctx, pageCtx workflow.Context, in *RunState) error {
	if workflow.GetVersion(ctx, dedupeAndExtract, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		// Runs begun before the change: ConvertPages stores the results.
		var converted activities.ConvertPagesResult
		err := workflow.ExecuteActivity(pageCtx, a.ConvertPages,
			activities.ConvertPagesInput{CrawlID: in.CrawlID, Batch: in.Batch, Budget: in.Plan.Budget}).Get(ctx, &converted)
		if err != nil {
			return err
		}
		in.Stored = converted.TotalPages
		return nil
	}
	err := workflow.ExecuteActivity(pageCtx, a.ConvertPages, activities.ConvertPagesInput{
		CrawlID: in.CrawlID, Batch: in.Batch, Budget: in.Plan.Budget, StoreLater: true}).Get(ctx, nil)
	if err != nil {
		return err
	}
	_, err = storeResults(ctx, pageCtx, in, false)
	return err
}

// storeResults deduplicates and stores the converted pages of the batch
// in.Batch (and, with writeLogs, writes its log entries, reporting
// whether it did), then, for a
// crawl with extraction instructions, sends each to the LLM.
func storeResults(ctx, pageCtx workflow.Context, in *RunState, writeLogs bool) (logged bool, err error) {
	var stored activities.DeduplicatePagesResult
	err = workflow.ExecuteActivity(pageCtx, a.DeduplicatePages, activities.DeduplicatePagesInput{
		CrawlID: in.CrawlID, Batch: in.Batch, Budget: in.Plan.Budget, WriteLogs: writeLogs}).Get(ctx, &stored)
	if err != nil {
		return false, err
	}
	in.Stored = stored.TotalPages
	if in.Plan.LLMTaskQueue == "" || len(stored.Extract) == 0 {
		return stored.Logged, nil
	}
	return stored.Logged, extractPages(ctx, in, stored.Extract)
}

// extractWindow bounds a crawl's extractions in flight, so that one crawl
// does not fill the LLM task queue ahead of the others.
const extractWindow = 32

// extractPages runs ExtractPage on each page on the LLM task queue, at
// most extractWindow at a time. An extraction that fails for good leaves
// its page without one (WriteLogs says so); only a cancellation stops the
// crawl.
func extractPages(ctx workflow.Context, in *RunState, pageIDs []int64) error {
	opts := llmActivityOptions
	opts.TaskQueue = in.Plan.LLMTaskQueue
	llmCtx := workflow.WithActivityOptions(ctx, opts)
	logger := workflow.GetLogger(ctx)
	sel := workflow.NewSelector(ctx)
	inFlight, next := 0, 0
	for next < len(pageIDs) || inFlight > 0 {
		for ; next < len(pageIDs) && inFlight < extractWindow; next++ {
			pageID := pageIDs[next]
			f := workflow.ExecuteActivity(llmCtx, a.ExtractPage, activities.ExtractPageInput{CrawlID: in.CrawlID, PageID: pageID})
			inFlight++
			sel.AddFuture(f, func(f workflow.Future) {
				inFlight--
				if err := f.Get(ctx, nil); err != nil && ctx.Err() == nil {
					logger.Warn("extraction failed", "CrawlID", in.CrawlID, "PageID", pageID, "Error", err)
				}
			})
		}
		sel.Select(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// finishAfter ends the crawl after err stopped it: aborted when the
// workflow was cancelled, error otherwise. It returns err so that the run
// ends cancelled or failed in Temporal too.
func finishAfter(ctx workflow.Context, in RunState, err error) (CrawlResult, error) {
	if temporal.IsCanceledError(err) || ctx.Err() != nil {
		res, ferr := finish(ctx, in, crawl.StatusAborted, "The crawl was cancelled.")
		if ferr != nil {
			return res, ferr
		}
		return res, temporal.NewCanceledError()
	}
	res, ferr := finish(ctx, in, crawl.StatusError, fmt.Sprintf("Internal error: %v", rootCause(err)))
	if ferr != nil {
		return res, ferr
	}
	return res, err
}

// finish records the terminal status. It runs on a disconnected context so
// that it completes even when the workflow is being cancelled.
func finish(ctx workflow.Context, in RunState, status crawl.Status, reason string) (CrawlResult, error) {
	return finishSpent(ctx, in, status, reason, false)
}

// finishSpent is finish for a crawl that may have stopped at its page
// budget with pages left in its frontier.
func finishSpent(ctx workflow.Context, in RunState, status crawl.Status, reason string, budgetSpent bool) (CrawlResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if workflow.GetVersion(dctx, settleDeduplication, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		// What it cannot settle stays stored whole: the crawl still ends.
		_ = workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, settleActivityOptions), a.SettleDeduplication,
			activities.SettleDeduplicationInput{CrawlID: in.CrawlID}).Get(dctx, nil)
	}
	changed := settleChanges(dctx, in, status == crawl.StatusSucceeded && !budgetSpent)
	dctx = workflow.WithActivityOptions(dctx, finishActivityOptions)
	var res activities.FinishCrawlResult
	err := workflow.ExecuteActivity(dctx, a.FinishCrawl, activities.FinishCrawlInput{
		CrawlID: in.CrawlID, Status: status, Reason: reason, BudgetSpent: budgetSpent,
	}).Get(dctx, &res)
	if err != nil {
		return CrawlResult{Status: status}, err
	}
	_ = workflow.UpsertTypedSearchAttributes(dctx,
		crawlflow.AttrStatus.ValueSet(string(res.Status)),
		crawlflow.AttrTotalPages.ValueSet(int64(res.TotalPages)))
	in.Stored = res.TotalPages
	showProgress(ctx, &in, "Ended: "+string(res.Status)+changed)
	return CrawlResult{Status: res.Status, TotalPages: res.TotalPages}, nil
}

// changeTracking marks the workflow change that settles, when a
// change-tracking crawl ends, how its pages compare with the previous
// crawl's (SettleChanges).
const changeTracking = "change-tracking"

// settleChanges runs SettleChanges for a change-tracking crawl (complete:
// its frontier ran out) and returns the counts as the Temporal UI shows
// them; "" for other crawls, or when it could not run (the crawl still
// ends, without counts).
func settleChanges(dctx workflow.Context, in RunState, complete bool) string {
	if in.Plan == nil || !in.Plan.ChangeTracking ||
		workflow.GetVersion(dctx, changeTracking, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return ""
	}
	var ch activities.SettleChangesResult
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, settleActivityOptions), a.SettleChanges,
		activities.SettleChangesInput{CrawlID: in.CrawlID, Complete: complete}).Get(dctx, &ch)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" · %d new, %d changed, %d same, %d removed", ch.New, ch.Changed, ch.Same, ch.Removed)
}

// settleDeduplication marks the workflow change that deduplicates the
// crawl's result pages as a whole when it ends (SettleDeduplication), so
// that what each keeps does not depend on the order pages were fetched
// in; DeduplicatePages then stores pages whole as they come.
const settleDeduplication = "settle-deduplication"

// endStatusInTemporal marks the workflow change that ends the run of a
// failed or timed-out crawl as a failed workflow, not a completed one.
const endStatusInTemporal = "end-status-in-temporal"

// failInTemporal returns what turns a crawl's end into the run's: a crawl
// recorded failed or timed_out fails the run with a non-retryable error of
// type CrawlFailed or CrawlTimedOut, so that the Temporal UI's status and
// ExecutionStatus queries agree with CrawlStatus. (Aborted crawls already
// end cancelled, internal errors failed.)
func failInTemporal(ctx workflow.Context) func(CrawlResult, error) (CrawlResult, error) {
	return func(res CrawlResult, err error) (CrawlResult, error) {
		if err != nil || workflow.GetVersion(ctx, endStatusInTemporal, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return res, err
		}
		switch res.Status {
		case crawl.StatusFailed:
			return res, temporal.NewNonRetryableApplicationError("the crawl failed: no page could be crawled", "CrawlFailed", nil)
		case crawl.StatusTimedOut:
			return res, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("the crawl timed out after storing %d pages", res.TotalPages), "CrawlTimedOut", nil)
		}
		return res, nil
	}
}

func rootCause(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Error()
	}
	return err.Error()
}

// a is a nil *Activities whose methods name the activities in
// ExecuteActivity; Temporal resolves them by name on the worker.
var a *activities.Activities

// pageActivityOptions are those of FetchPages and ConvertPages: long, and
// heartbeating, so that a batch on a worker that died is retried on another
// within the heartbeat timeout.
var pageActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Hour,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
		MaximumAttempts:    5,
	},
}

// llmActivityOptions are those of ExtractPage (its TaskQueue is the
// crawl's LLM task queue). Rate limits and server errors are retried with
// backoff for about three minutes when the provider names no wait; the
// activity records the failure itself on its last attempt. There is no
// limit on the wait for a worker: the queue's rate limit may hold pages
// back for long, and the crawl's own timeout bounds it.
var llmActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Hour,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    2 * time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    8,
	},
}

// quickActivityOptions are those of the short bookkeeping activities.
var quickActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
		MaximumAttempts:    5,
	},
}

// settleActivityOptions are those of SettleDeduplication: it reads every
// result page twice, which takes minutes on the largest crawls, and
// heartbeats as it goes.
var settleActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Hour,
	HeartbeatTimeout:    time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    5,
	},
}

// finishActivityOptions retry longer: a crawl must not stay running
// because its last write failed.
var finishActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    20,
	},
}
