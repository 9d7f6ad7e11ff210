package integration

import (
	"testing"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/worker"
	"github.com/durablecrawl/crawler/workflows"
)

// TestWorkflowPanicEndsError runs crawls on a worker, configured as the
// service's, whose crawl workflow panics (a bug, or a change that broke
// determinism): the crawl ends error within seconds, with an error entry,
// instead of waiting for its execution timeout.
func TestWorkflowPanicEndsError(t *testing.T) {
	t.Parallel()
	const queue = "crawls-test-panic"
	cfg, err := config.LoadFrom(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	w := sdkworker.New(env.temporal, queue, worker.CrawlWorkerOptions(cfg))
	w.RegisterWorkflowWithOptions(func(workflow.Context, crawlflow.CrawlInput) (workflows.CrawlResult, error) {
		panic("a bug in workflow code")
	}, workflows.RegisterOptions())
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: queue, Server: testServer}))
	c := create(t, base, env.keyA, map[string]any{"startUrl": "http://127.0.0.1:9/"})
	began := time.Now()
	waitStatus(t, base, env.keyA, c.ID, 30*time.Second, "error")
	t.Logf("ended error after %v", time.Since(began).Round(100*time.Millisecond))
	logs := allLogs(t, base, env.keyA, c.ID, 100)
	if last := logs[len(logs)-1]; last.Level != "error" || last.Data["statusCode"] != float64(0) {
		t.Errorf("last entry %+v, want an error entry", last)
	}
}
