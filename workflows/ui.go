package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/crawlflow"
)

// What the Temporal UI shows of a crawl: a one-line summary and fixed
// details given when the workflow starts (crawlflow.StartText), and current details
// the workflow keeps up to date (showProgress) — what an operator looks at
// to tell crawls apart and see where one stands.

// showProgress sets the workflow's current details: pages stored against
// the budget, the next batch, the engine, and what the crawl is doing.
func showProgress(ctx workflow.Context, in *RunState, doing string) {
	if in.Plan == nil {
		workflow.SetCurrentDetails(ctx, "**"+doing+"**")
		return
	}
	// The start URL is repeated here: a run after continue-as-new has no
	// static summary of its own.
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**%s** %s\n\n%d of at most %d pages stored · batch %d · engine %s",
		doing, crawlflow.Clip(in.Plan.StartURL, crawlflow.SummaryBytes), in.Stored, in.Plan.Budget, in.Batch, in.Plan.Engine))
}
