package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// steering holds what the change handler shares with the crawl's run.
type steering struct {
	// closing: the run is ending, changes are refused; continuing says
	// whether the crawl goes on in a new run (try again) or is finishing.
	closing, continuing bool
}

// acceptChanges registers the ChangeCrawl handler of the run in (for runs
// begun after the change that brought it).
func acceptChanges(ctx workflow.Context, in *RunState) *steering {
	st := &steering{}
	if workflow.GetVersion(ctx, steerableCrawl, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return st
	}
	validate := func(_ workflow.Context, ch crawl.Change) error {
		switch {
		case st.closing && st.continuing:
			return temporal.NewApplicationError("the crawl is moving to a new workflow run: try again", crawlflow.ErrCrawlContinuing)
		case st.closing:
			return temporal.NewApplicationError("the crawl is ending", crawlflow.ErrCrawlEnded)
		}
		if bad := ch.Check(in.Stored, in.Plan.MaxConcurrency); len(bad) > 0 {
			return temporal.NewApplicationError(fmt.Sprintf("%s: %s", bad[0].Field, bad[0].Message), "InvalidChange", bad)
		}
		return nil
	}
	apply := func(ctx workflow.Context, ch crawl.Change) (crawlflow.ChangeResult, error) {
		ctx = workflow.WithActivityOptions(ctx, quickActivityOptions)
		var res activities.ApplyCrawlChangeResult
		err := workflow.ExecuteActivity(ctx, a.ApplyCrawlChange, activities.ApplyCrawlChangeInput{
			CrawlID: in.CrawlID, Change: ch, ChangeID: workflow.GetCurrentUpdateInfo(ctx).ID}).Get(ctx, &res)
		if err != nil {
			return crawlflow.ChangeResult{}, err
		}
		if !res.Applied {
			return crawlflow.ChangeResult{}, temporal.NewApplicationError("the crawl has ended", crawlflow.ErrCrawlEnded)
		}
		in.Plan.Budget, in.Plan.BatchSize, in.Paused = res.Budget, res.BatchSize, res.Paused
		doing := "Crawling"
		if in.Paused {
			doing = "Paused"
		}
		showProgress(ctx, in, doing)
		return crawlflow.ChangeResult{Budget: res.Budget, Paused: res.Paused, Dropped: res.Dropped}, nil
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, crawlflow.ChangeUpdateName, apply,
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
