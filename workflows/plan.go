package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/crawlflow"
)

// RegisterPlanOptions registers PlanCrawlWorkflow under its contract's
// name.
func RegisterPlanOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: crawlflow.PlanCrawlWorkflowName}
}

// planActivity is the activity that asks the model, on the LLM task
// queue (activities.PlanCrawl).
const planActivity = "PlanCrawl"

// PlanCrawlWorkflow asks the deployment's LLM for the options of a crawl
// described in a sentence: one activity on the LLM task queue, retried
// when the provider is busy, its answer checked by the activity. Its
// history holds the sentence and the options, nothing of any page.
func PlanCrawlWorkflow(ctx workflow.Context, in crawlflow.PlanCrawlInput) (crawlflow.PlanCrawlResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           in.LLMTaskQueue,
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 20 * time.Second,
			MaximumAttempts: 4, NonRetryableErrorTypes: []string{"CrawlInvalid", "PlanRefused"}},
	})
	var out crawlflow.PlanCrawlResult
	err := workflow.ExecuteActivity(ctx, planActivity, in).Get(ctx, &out)
	return out, err
}
