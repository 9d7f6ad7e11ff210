package worker

import (
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/durablecrawl/crawler/config"
)

// TestCrawlWorkerOptionsFailPanickingWorkflows: a panic in workflow code
// fails the run at once, so that the reconciler ends the crawl error
// rather than the crawl reading running until its execution timeout.
func TestCrawlWorkerOptionsFailPanickingWorkflows(t *testing.T) {
	cfg, err := config.LoadFrom(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	o := CrawlWorkerOptions(cfg)
	if o.WorkflowPanicPolicy != worker.FailWorkflow {
		t.Errorf("WorkflowPanicPolicy = %v, want FailWorkflow", o.WorkflowPanicPolicy)
	}
	if o.MaxConcurrentActivityExecutionSize < 2 {
		t.Errorf("MaxConcurrentActivityExecutionSize = %d, want several activities at once", o.MaxConcurrentActivityExecutionSize)
	}
}

// TestCrawlWorkerOptionsFromConfig: the tuning variables reach the crawl
// task queue's worker.
func TestCrawlWorkerOptionsFromConfig(t *testing.T) {
	vars := map[string]string{
		"CRAWLER_WORKER_ACTIVITY_SLOTS": "40", "CRAWLER_WORKER_WORKFLOW_SLOTS": "300",
		"CRAWLER_WORKER_ACTIVITY_POLLERS": "5", "CRAWLER_WORKER_WORKFLOW_POLLERS": "6",
		"CRAWLER_SHUTDOWN_TIMEOUT": "45s",
	}
	cfg, err := config.LoadFrom(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	o := CrawlWorkerOptions(cfg)
	if o.MaxConcurrentActivityExecutionSize != 40 || o.MaxConcurrentWorkflowTaskExecutionSize != 300 ||
		o.MaxConcurrentActivityTaskPollers != 5 || o.MaxConcurrentWorkflowTaskPollers != 6 ||
		o.WorkerStopTimeout != 45*time.Second {
		t.Errorf("options %+v do not follow %v", o, vars)
	}
}
