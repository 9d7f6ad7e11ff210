package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawlflow"
)

// TestPlanCrawlWorkflow runs PlanCrawl on the LLM task queue it is
// given, tries a busy provider again, and answers the options.
func TestPlanCrawlWorkflow(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(PlanCrawlWorkflow, RegisterPlanOptions())
	env.RegisterActivity(&activities.Activities{})
	calls := 0
	env.OnActivity(a.PlanCrawl, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in crawlflow.PlanCrawlInput) (crawlflow.PlanCrawlResult, error) {
			calls++
			if q := activity.GetInfo(ctx).TaskQueue; q != "llm" {
				t.Errorf("PlanCrawl ran on %q, want the LLM task queue", q)
			}
			if calls == 1 {
				return crawlflow.PlanCrawlResult{}, temporal.NewApplicationError("the provider is busy", "Busy")
			}
			return crawlflow.PlanCrawlResult{Options: []byte(`{"limit":5}`), TokensIn: 100, TokensOut: 10}, nil
		})
	env.ExecuteWorkflow(crawlflow.PlanCrawlWorkflowName, crawlflow.PlanCrawlInput{URL: "https://x.example/", Prompt: "five pages", LLMTaskQueue: "llm"})
	var out crawlflow.PlanCrawlResult
	if err := env.GetWorkflowResult(&out); err != nil || string(out.Options) != `{"limit":5}` || out.TokensIn != 100 || calls != 2 {
		t.Errorf("plan: %+v, %v, %d calls", out, err, calls)
	}
}

// TestPlanCrawlRefusedIsFinal: a model that gives no options is not
// asked again by the workflow.
func TestPlanCrawlRefusedIsFinal(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(PlanCrawlWorkflow, RegisterPlanOptions())
	env.RegisterActivity(&activities.Activities{})
	calls := 0
	env.OnActivity(a.PlanCrawl, mock.Anything, mock.Anything).Return(
		func(context.Context, crawlflow.PlanCrawlInput) (crawlflow.PlanCrawlResult, error) {
			calls++
			return crawlflow.PlanCrawlResult{}, temporal.NewNonRetryableApplicationError("no options", "PlanRefused", nil)
		})
	env.ExecuteWorkflow(crawlflow.PlanCrawlWorkflowName, crawlflow.PlanCrawlInput{URL: "https://x.example/", Prompt: "?", LLMTaskQueue: "llm"})
	if err := env.GetWorkflowError(); err == nil || calls != 1 {
		t.Errorf("a refused plan: %v after %d calls", err, calls)
	}
}
