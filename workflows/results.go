package workflows

// A batch's pages made results: deduplicated and stored, then sent
// through the LLM when the crawl has extraction instructions.

import (
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
)

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
