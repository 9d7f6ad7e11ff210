package workflows

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistories replays the histories of real crawls,
// recorded by the integration tests (static, browser, sitemap,
// deduplication with extraction, deduplication settled when the crawl
// ends, timed out, aborted, continued as new, webhook events delivered
// after the crawl ended, through a worker restart, a change-tracking
// crawl compared with the one before, a schedule's run),
// against the workflow code as it is now: a change that would break
// crawls in flight fails here. A change of the workflow's commands goes
// behind workflow.GetVersion; new histories are added with
// CRAWLER_RECORD_HISTORIES (see integration/record_test.go), old ones stay.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/histories/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 7 {
		t.Fatalf("%d recorded histories in testdata/histories, want the seven kinds of crawl", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
			r.RegisterWorkflowWithOptions(ScheduledCrawlWorkflow, RegisterScheduledOptions())
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Errorf("replay: %v", err)
			}
		})
	}
}
