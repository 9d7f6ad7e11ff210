// Package workflows holds CrawlWorkflow, the durable loop that drives one
// crawl from its start URLs to a terminal status.
package workflows

import (
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/crawllog"
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
		budgetSpent, loopErr = crawlBatches(c, in, *h)
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
		return failInTemporal(ctx)(finish(ctx, *in, crawl.StatusTimedOut, crawllog.TimedOut(in.Plan.TimeoutSeconds)))
	case loopErr != nil:
		if errors.As(loopErr, &can) {
			return CrawlResult{}, loopErr
		}
		return finishAfter(ctx, *in, loopErr)
	case in.Stored == 0:
		return failInTemporal(ctx)(finish(ctx, *in, crawl.StatusFailed, crawllog.Because(crawllog.EndNothingCrawled)))
	default:
		return finishSpent(ctx, *in, crawl.StatusSucceeded, crawllog.Because(crawllog.EndDone), budgetSpent)
	}
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
