package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawlflow"
)

// The sequential loop of runs begun before pipelined-batches: one batch
// fetched, converted and stored at a time.

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
