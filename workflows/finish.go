package workflows

// The end of a crawl: settling deduplication and changes, FinishCrawl,
// and the run's own end in Temporal.

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/crawllog"
)

// finishAfter ends the crawl after err stopped it: aborted when the
// workflow was cancelled, error otherwise. It returns err so that the run
// ends cancelled or failed in Temporal too.
func finishAfter(ctx workflow.Context, in RunState, err error) (CrawlResult, error) {
	if temporal.IsCanceledError(err) || ctx.Err() != nil {
		res, ferr := finish(ctx, in, crawl.StatusAborted, crawllog.Because(crawllog.EndCancelled))
		if ferr != nil {
			return res, ferr
		}
		return res, temporal.NewCanceledError()
	}
	res, ferr := finish(ctx, in, crawl.StatusError, crawllog.Internal(rootCause(err)))
	if ferr != nil {
		return res, ferr
	}
	return res, err
}

// finish records the terminal status. It runs on a disconnected context so
// that it completes even when the workflow is being cancelled.
func finish(ctx workflow.Context, in RunState, status crawl.Status, cause crawllog.EndCause) (CrawlResult, error) {
	return finishSpent(ctx, in, status, cause, false)
}

// finishSpent is finish for a crawl that may have stopped at its page
// budget with pages left in its frontier.
func finishSpent(ctx workflow.Context, in RunState, status crawl.Status, cause crawllog.EndCause, budgetSpent bool) (CrawlResult, error) {
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
		CrawlID: in.CrawlID, Status: status, Cause: cause, BudgetSpent: budgetSpent,
		// Worded too, for a worker from before typed causes that takes
		// the activity during a rolling deploy.
		Reason: cause.Sentence(),
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
