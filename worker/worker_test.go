package worker

import (
	"testing"

	"go.temporal.io/sdk/worker"
)

// TestCrawlWorkerOptionsFailPanickingWorkflows: a panic in workflow code
// fails the run at once, so that the reconciler ends the crawl error
// rather than the crawl reading running until its execution timeout.
func TestCrawlWorkerOptionsFailPanickingWorkflows(t *testing.T) {
	o := CrawlWorkerOptions()
	if o.WorkflowPanicPolicy != worker.FailWorkflow {
		t.Errorf("WorkflowPanicPolicy = %v, want FailWorkflow", o.WorkflowPanicPolicy)
	}
	if o.MaxConcurrentActivityExecutionSize < 2 {
		t.Errorf("MaxConcurrentActivityExecutionSize = %d, want several activities at once", o.MaxConcurrentActivityExecutionSize)
	}
}
