package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
)

// ChangeUpdateName is the Temporal Update that changes a running crawl
// (crawl.Change): its page limit, excludePaths, pages in flight, or
// whether it is paused. Its validator refuses a change that is not valid
// (it never enters history); the update is answered once the change is
// applied.
const ChangeUpdateName = "ChangeCrawl"

// steerableCrawl marks the workflow change that takes ChangeCrawl updates.
const steerableCrawl = "steerable-crawl"

// ChangeResult is the crawl after a change: its page limit, whether it is
// paused, and how many queued pages the change dropped.
type ChangeResult struct {
	Budget  int
	Paused  bool
	Dropped int
}

// ErrCrawlEnded is the type of the error an update to a crawl that is
// ending (or ended) gets.
const ErrCrawlEnded = "CrawlEnded"

// steering holds what the change handler shares with the crawl's run.
type steering struct {
	// closing: the run is ending, changes are refused; continuing says
	// whether the crawl goes on in a new run (try again) or is finishing.
	closing, continuing bool
}

// ErrCrawlContinuing is the type of the error an update gets in the last
// moments of a run that continues as new: the next run takes it.
const ErrCrawlContinuing = "CrawlContinuing"

// acceptChanges registers the ChangeCrawl handler of the run in (for runs
// begun after the change that brought it).
func acceptChanges(ctx workflow.Context, in *CrawlInput) *steering {
	st := &steering{}
	if workflow.GetVersion(ctx, steerableCrawl, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return st
	}
	validate := func(_ workflow.Context, ch crawl.Change) error {
		switch {
		case st.closing && st.continuing:
			return temporal.NewApplicationError("the crawl is moving to a new workflow run: try again", ErrCrawlContinuing)
		case st.closing:
			return temporal.NewApplicationError("the crawl is ending", ErrCrawlEnded)
		}
		if bad := ch.Check(in.Stored, in.Plan.MaxConcurrency); len(bad) > 0 {
			return temporal.NewApplicationError(fmt.Sprintf("%s: %s", bad[0].Field, bad[0].Message), "InvalidChange", bad)
		}
		return nil
	}
	apply := func(ctx workflow.Context, ch crawl.Change) (ChangeResult, error) {
		ctx = workflow.WithActivityOptions(ctx, quickActivityOptions)
		var res activities.ApplyCrawlChangeResult
		err := workflow.ExecuteActivity(ctx, a.ApplyCrawlChange, activities.ApplyCrawlChangeInput{
			CrawlID: in.CrawlID, Change: ch, ChangeID: workflow.GetCurrentUpdateInfo(ctx).ID}).Get(ctx, &res)
		if err != nil {
			return ChangeResult{}, err
		}
		if !res.Applied {
			return ChangeResult{}, temporal.NewApplicationError("the crawl has ended", ErrCrawlEnded)
		}
		in.Plan.Budget, in.Plan.BatchSize, in.Paused = res.Budget, res.BatchSize, res.Paused
		doing := "Crawling"
		if in.Paused {
			doing = "Paused"
		}
		showProgress(ctx, in, doing)
		return ChangeResult{Budget: res.Budget, Paused: res.Paused, Dropped: res.Dropped}, nil
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, ChangeUpdateName, apply,
		workflow.UpdateHandlerOptions{Validator: validate}); err != nil {
		workflow.GetLogger(ctx).Error("register the change handler", "Error", err)
	}
	return st
}

// settle refuses further changes and waits for those being applied
// before the run ends (continuing: the crawl goes on in a new run, which
// takes changes again).
func (st *steering) settle(ctx workflow.Context, continuing bool) {
	st.closing, st.continuing = true, continuing
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}
