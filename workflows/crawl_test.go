package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// newEnv returns a test environment with every activity registered (mocks
// replace them per test) and a plan of budget pages.
func newEnv(t *testing.T, budget, timeoutSeconds int) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.StartCrawl, mock.Anything, activities.StartCrawlInput{CrawlID: "c1"}).Return(activities.CrawlPlan{
		Status: crawl.StatusRunning, Budget: budget, BatchSize: 10, TimeoutSeconds: timeoutSeconds,
	}, nil).Once()
	// Runs begun before logs-with-results, batches without fetched pages
	// and crawls with extraction write their logs in WriteLogs.
	env.OnActivity(a.WriteLogs, mock.Anything, mock.Anything).Return(1, nil).Maybe()
	env.OnActivity(a.SettleDeduplication, mock.Anything, activities.SettleDeduplicationInput{CrawlID: "c1"}).
		Return(activities.SettleDeduplicationResult{}, nil).Maybe()
	return env
}

// expectFinish records the status FinishCrawl is asked for and answers it.
func expectFinish(env *testsuite.TestWorkflowEnvironment, got *crawl.Status, total int) {
	env.OnActivity(a.FinishCrawl, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishCrawlInput) (activities.FinishCrawlResult, error) {
			*got = in.Status
			return activities.FinishCrawlResult{Status: in.Status, TotalPages: total}, nil
		}).Once()
}

// activitiesStarted records the type of each activity the workflow
// starts, mocked or not. (The environment's AssertNotCalled sees calls of
// mocked activities only: on any other it passes whatever the workflow
// does.) It takes the environment's one started-listener.
func activitiesStarted(env *testsuite.TestWorkflowEnvironment) *[]string {
	var started []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		started = append(started, info.ActivityType.Name)
	})
	return &started
}

// checkNotStarted fails the test for each of names among started.
func checkNotStarted(t *testing.T, started []string, names ...string) {
	t.Helper()
	for _, name := range names {
		if slices.Contains(started, name) {
			t.Errorf("%s ran (activities started: %v)", name, started)
		}
	}
}

// runCrawl runs the crawl workflow to its end and checks that it ends
// having asked FinishCrawl for want: without error when it succeeded, with
// a non-retryable error naming the status when it failed or timed out.
func runCrawl(t *testing.T, env *testsuite.TestWorkflowEnvironment, status *crawl.Status, want crawl.Status) {
	t.Helper()
	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	errType := map[crawl.Status]string{crawl.StatusFailed: "CrawlFailed", crawl.StatusTimedOut: "CrawlTimedOut"}[want]
	var appErr *temporal.ApplicationError
	switch err := env.GetWorkflowError(); {
	case errType == "" && err != nil:
		t.Fatalf("workflow error: %v", err)
	case errType != "" && (!errors.As(err, &appErr) || appErr.Type() != errType || !appErr.NonRetryable()):
		t.Fatalf("workflow error %v, want a non-retryable %s", err, errType)
	}
	if *status != want {
		t.Errorf("status = %q, want %q", *status, want)
	}
}

func TestCrawlSucceeds(t *testing.T) {
	t.Run("pages converted as they are fetched", func(t *testing.T) { testCrawlSucceeds(t, true) })
	t.Run("run begun before convert-at-fetch", func(t *testing.T) { testCrawlSucceeds(t, false) })
}

// testCrawlSucceeds runs a crawl of two batches; atFetch says
// whether the run has the workflow change that converts pages in the
// fetch activity, or runs ConvertPages on each batch as runs begun before
// it do.
func testCrawlSucceeds(t *testing.T, atFetch bool) {
	env := newEnv(t, 100, 1800)
	if !atFetch {
		env.OnGetVersion(convertAtFetch, workflow.DefaultVersion, 2).Return(workflow.DefaultVersion)
		env.OnGetVersion(logsWithResults, workflow.DefaultVersion, 2).Return(workflow.DefaultVersion)
	}
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: atFetch}).
		Return(activities.FetchPagesResult{Claimed: 3, Fetched: 3, Converted: 3}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 0, Budget: 100, WriteLogs: atFetch}).
		Return(activities.DeduplicatePagesResult{Stored: 3, TotalPages: 3, Logged: atFetch}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: atFetch}).
		Return(activities.FetchPagesResult{Claimed: 2, Fetched: 1, Converted: 1, Failed: 1}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 1, Budget: 100, WriteLogs: atFetch}).
		Return(activities.DeduplicatePagesResult{Stored: 1, TotalPages: 4, Logged: atFetch}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 2, Limit: 10, Convert: atFetch}).
		Return(activities.FetchPagesResult{}, nil).Once()
	if atFetch {
		env.OnActivity(a.ConvertPages, mock.Anything, mock.Anything).Return(activities.ConvertPagesResult{}, nil).Maybe()
	} else {
		env.OnActivity(a.ConvertPages, mock.Anything, activities.ConvertPagesInput{CrawlID: "c1", Batch: 0, Budget: 100, StoreLater: true}).
			Return(activities.ConvertPagesResult{Converted: 3}, nil).Once()
		env.OnActivity(a.ConvertPages, mock.Anything, activities.ConvertPagesInput{CrawlID: "c1", Batch: 1, Budget: 100, StoreLater: true}).
			Return(activities.ConvertPagesResult{Converted: 1}, nil).Once()
	}
	var status crawl.Status
	expectFinish(env, &status, 4)
	started := activitiesStarted(env)

	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	// Deduplication is settled once, when every page is stored, before
	// the crawl ends.
	if n := len(*started); n < 2 || (*started)[n-2] != "SettleDeduplication" || (*started)[n-1] != "FinishCrawl" {
		t.Errorf("activities started: %v, want SettleDeduplication then FinishCrawl last", *started)
	}
	if atFetch {
		checkNotStarted(t, *started, "ConvertPages", "WriteLogs")
	} else if n := strings.Count(fmt.Sprint(*started), "WriteLogs"); n != 2 {
		t.Errorf("WriteLogs ran %d times, want 2 (one a batch with pages): %v", n, *started)
	}
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var res CrawlResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if status != crawl.StatusSucceeded || res.Status != crawl.StatusSucceeded || res.TotalPages != 4 {
		t.Errorf("finished %q, result %+v; want succeeded with 4 pages", status, res)
	}
	env.AssertExpectations(t)
}

func TestCrawlStopsAtBudget(t *testing.T) {
	env := newEnv(t, 4, 1800)
	// The second batch may claim only what is left of the budget.
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 4, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 4, Fetched: 3, Converted: 3, Failed: 1}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
		Return(activities.DeduplicatePagesResult{Stored: 3, TotalPages: 3}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 1, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
		Return(activities.DeduplicatePagesResult{Stored: 1, TotalPages: 4}, nil).Once()
	var status crawl.Status
	expectFinish(env, &status, 4)

	runCrawl(t, env, &status, crawl.StatusSucceeded)
	env.AssertExpectations(t) // no third FetchPages: the budget is spent
}

func TestCrawlFailsWithoutPages(t *testing.T) {
	env := newEnv(t, 10, 1800)
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 1, Failed: 1}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{}, nil).Once()
	// Mocked so that a call of them leaves the workflow as it is: then
	// only the check below sees it.
	env.OnActivity(a.ConvertPages, mock.Anything, mock.Anything).Return(activities.ConvertPagesResult{}, nil).Maybe()
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).Return(activities.DeduplicatePagesResult{}, nil).Maybe()
	var status crawl.Status
	expectFinish(env, &status, 0)
	started := activitiesStarted(env)

	runCrawl(t, env, &status, crawl.StatusFailed)
	// A batch without fetched pages has nothing to convert or store.
	checkNotStarted(t, *started, "ConvertPages", "DeduplicatePages", "ExtractPage")
	env.AssertExpectations(t)
}

func TestCrawlTimesOut(t *testing.T) {
	env := newEnv(t, 100, 60)
	// Every batch finds more pages and takes 20 s: only the timer ends it.
	env.OnActivity(a.FetchPages, mock.Anything, mock.Anything).
		Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).After(20 * time.Second)
	stored := 0
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.DeduplicatePagesInput) (activities.DeduplicatePagesResult, error) {
			stored++
			return activities.DeduplicatePagesResult{Stored: 1, TotalPages: stored}, nil
		})
	var status crawl.Status
	expectFinish(env, &status, 3)
	start := env.Now()
	var finishedAt time.Time
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "FinishCrawl" {
			finishedAt = env.Now()
		}
	})

	runCrawl(t, env, &status, crawl.StatusTimedOut)
	if d := finishedAt.Sub(start); d < 60*time.Second || d > 61*time.Second {
		t.Errorf("finished %v after the start, want 60s", d)
	}
	if stored != 2 {
		t.Errorf("%d batches converted before the timeout, want 2 (at 20 s and 40 s)", stored)
	}
}

func TestCrawlCancelled(t *testing.T) {
	env := newEnv(t, 100, 1800)
	env.OnActivity(a.FetchPages, mock.Anything, mock.Anything).
		Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).After(time.Minute)
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
		Return(activities.DeduplicatePagesResult{Stored: 1, TotalPages: 1}, nil)
	var status crawl.Status
	expectFinish(env, &status, 1)
	env.RegisterDelayedCallback(env.CancelWorkflow, 90*time.Second)

	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	err := env.GetWorkflowError()
	var canceled *temporal.CanceledError
	if !errors.As(err, &canceled) {
		t.Fatalf("workflow error = %v, want a CanceledError", err)
	}
	if status != crawl.StatusAborted {
		t.Errorf("status = %q, want aborted", status)
	}
}

func TestCrawlInternalError(t *testing.T) {
	env := newEnv(t, 100, 1800)
	env.OnActivity(a.FetchPages, mock.Anything, mock.Anything).
		Return(activities.FetchPagesResult{}, temporal.NewNonRetryableApplicationError("database gone", "Test", nil))
	var status crawl.Status
	expectFinish(env, &status, 0)

	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	if err := env.GetWorkflowError(); err == nil {
		t.Fatal("workflow succeeded, want its error")
	}
	if status != crawl.StatusError {
		t.Errorf("status = %q, want error", status)
	}
}

func TestCrawlAlreadyEnded(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.StartCrawl, mock.Anything, mock.Anything).
		Return(activities.CrawlPlan{Status: crawl.StatusAborted}, nil).Once()
	// Mocked so that a fetch would leave the workflow as it is: then only
	// the check below sees it.
	env.OnActivity(a.FetchPages, mock.Anything, mock.Anything).Return(activities.FetchPagesResult{}, nil).Maybe()
	started := activitiesStarted(env)

	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	var res CrawlResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Status != crawl.StatusAborted {
		t.Errorf("status = %q, want the crawl's own aborted", res.Status)
	}
	// Nothing is fetched, and the crawl's status is not written again.
	if got := fmt.Sprint(*started); got != "[StartCrawl]" {
		t.Errorf("activities started: %s, want [StartCrawl] only", got)
	}
}

// TestCrawlExtractsEveryResultPage runs ExtractPage on the LLM task queue
// for each page DeduplicatePages lists, more than a window's worth, at
// most 32 at a time (README: "at most 32 of a crawl at a time") and as
// many as that, and goes on when one of them fails for good.
func TestCrawlExtractsEveryResultPage(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.StartCrawl, mock.Anything, mock.Anything).Return(activities.CrawlPlan{
		Status: crawl.StatusRunning, Budget: 100, BatchSize: 50, TimeoutSeconds: 1800, LLMTaskQueue: "llm",
	}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 50, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 45, Fetched: 45, Converted: 45}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 50, Convert: true}).
		Return(activities.FetchPagesResult{}, nil).Once()
	var ids []int64
	for i := int64(1); i <= 45; i++ {
		ids = append(ids, i)
	}
	// The log entries wait for the extractions: WriteLogs writes them.
	env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 0, Budget: 100}).
		Return(activities.DeduplicatePagesResult{Stored: 45, TotalPages: 45, Extract: ids}, nil).Once()
	// The test environment runs activities on goroutines of their own. An
	// extraction is in flight from its start (the listener, which runs
	// before the mock) until its mock returns. Each mock waits a minute of
	// the environment's clock, which moves on only once every activity
	// started waits: so all the extractions the workflow starts at once are
	// in flight together.
	const window = 32
	var inFlight, peak atomic.Int32
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "ExtractPage" {
			n := inFlight.Add(1)
			peak.Store(max(peak.Load(), n)) // the listener runs on the environment's one goroutine
		}
	})
	var mu sync.Mutex
	extracted := map[int64]bool{}
	var logsAfter int
	env.OnActivity(a.ExtractPage, mock.Anything, mock.Anything).After(time.Minute).Return(
		func(ctx context.Context, in activities.ExtractPageInput) (activities.ExtractPageResult, error) {
			defer inFlight.Add(-1)
			if q := activity.GetInfo(ctx).TaskQueue; q != "llm" {
				t.Errorf("ExtractPage ran on %q, want the LLM task queue", q)
			}
			mu.Lock()
			extracted[in.PageID] = true
			mu.Unlock()
			if in.PageID == 7 {
				return activities.ExtractPageResult{}, temporal.NewNonRetryableApplicationError("gone", "Test", nil)
			}
			return activities.ExtractPageResult{}, nil
		})
	env.OnActivity(a.WriteLogs, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.WriteLogsInput) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			logsAfter = len(extracted)
			return 1, nil
		})
	var status crawl.Status
	expectFinish(env, &status, 45)

	env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	if status != crawl.StatusSucceeded || len(extracted) != 45 {
		t.Errorf("status %q after %d extractions; want succeeded after 45", status, len(extracted))
	}
	if logsAfter != 45 {
		t.Errorf("the batch was logged after %d extractions, want all 45", logsAfter)
	}
	if got := peak.Load(); got > window {
		t.Errorf("%d extractions in flight at once, want at most %d", got, window)
	} else if got < window {
		t.Errorf("at most %d extractions in flight at once, want the whole window of %d (45 pages wait)", got, window)
	}
}

// TestCrawlLogsWhatDeduplicationDidNot: a DeduplicatePages of a worker
// older than logs-with-results ignores the request to write the log
// entries and does not say it wrote them; the workflow then runs
// WriteLogs for the batch, so that no entry is lost in a rolling deploy.
// Runs begun at version 1 trust the request, as their histories say.
func TestCrawlLogsWhatDeduplicationDidNot(t *testing.T) {
	for _, v := range []workflow.Version{1, 2} {
		t.Run(fmt.Sprintf("version %d", v), func(t *testing.T) {
			env := newEnv(t, 100, 1800)
			env.OnGetVersion(logsWithResults, workflow.DefaultVersion, 2).Return(v)
			env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: true}).
				Return(activities.FetchPagesResult{Claimed: 3, Fetched: 3, Converted: 3}, nil).Once()
			env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 0, Budget: 100, WriteLogs: true}).
				Return(activities.DeduplicatePagesResult{Stored: 3, TotalPages: 3}, nil).Once()
			env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: true}).
				Return(activities.FetchPagesResult{}, nil).Once()
			var status crawl.Status
			expectFinish(env, &status, 3)
			started := activitiesStarted(env)
			runCrawl(t, env, &status, crawl.StatusSucceeded)
			want := 0
			if v >= 2 {
				want = 1
			}
			if n := strings.Count(fmt.Sprint(*started), "WriteLogs"); n != want {
				t.Errorf("WriteLogs ran %d times, want %d: %v", n, want, *started)
			}
		})
	}
}

// TestCrawlRefillsAfterSkippedPages: fetched pages that do not become
// results (skipped when stored) leave room in the budget, which the next
// batch takes once the results stage has caught up.
func TestCrawlRefillsAfterSkippedPages(t *testing.T) {
	env := newEnv(t, 4, 1800)
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 4, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 4, Fetched: 4, Converted: 4}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 0, Budget: 4, WriteLogs: true}).
		Return(activities.DeduplicatePagesResult{Stored: 2, TotalPages: 2, Logged: true}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 2, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 2, Fetched: 2, Converted: 2}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, activities.DeduplicatePagesInput{CrawlID: "c1", Batch: 1, Budget: 4, WriteLogs: true}).
		Return(activities.DeduplicatePagesResult{Stored: 2, TotalPages: 4, Logged: true}, nil).Once()
	var status crawl.Status
	expectFinish(env, &status, 4)

	runCrawl(t, env, &status, crawl.StatusSucceeded)
	env.AssertExpectations(t)
}

// TestBrowserQueue: a browser batch that no worker starts in time waits
// for busy browser workers, and ends the crawl error when there are none.
func TestBrowserQueue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		want    crawl.Status
	}{{"busy workers are waited for", 2, crawl.StatusSucceeded}, {"no worker is an error", 0, crawl.StatusError}} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
			env.RegisterActivity(&activities.Activities{})
			env.OnActivity(a.StartCrawl, mock.Anything, mock.Anything).Return(activities.CrawlPlan{
				Status: crawl.StatusRunning, Budget: 10, BatchSize: 10, TimeoutSeconds: 1800,
				Engine: crawl.EnginePlaywright, BrowserTaskQueue: "browsers",
			}, nil).Once()
			env.OnActivity(a.RenderPages, mock.Anything, mock.Anything).
				Return(activities.FetchPagesResult{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)).Once()
			env.OnActivity(a.BrowserWorkers, mock.Anything, activities.BrowserWorkersInput{TaskQueue: "browsers"}).
				Return(tc.workers, nil).Once()
			if tc.workers > 0 {
				env.OnActivity(a.WriteLogs, mock.Anything, mock.Anything).Return(1, nil).Maybe()
				env.OnActivity(a.RenderPages, mock.Anything, mock.Anything).
					Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).Once()
				env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
					Return(activities.DeduplicatePagesResult{Stored: 1, TotalPages: 1}, nil)
				env.OnActivity(a.RenderPages, mock.Anything, mock.Anything).Return(activities.FetchPagesResult{}, nil).Once()
			}
			var status crawl.Status
			expectFinish(env, &status, 1)
			env.ExecuteWorkflow(crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: "c1"})
			if status != tc.want {
				t.Errorf("status = %q, want %q", status, tc.want)
			}
			env.AssertExpectations(t)
		})
	}
}

// TestCrawlWaitsForRetries: when nothing can be claimed but pages wait for
// a retry, the crawl sleeps and claims again instead of ending.
func TestCrawlWaitsForRetries(t *testing.T) {
	env := newEnv(t, 100, 1800)
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 2, Fetched: 1, Converted: 1, Retried: 1}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{Waiting: 1, RetryIn: 2 * time.Second}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 2, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DeduplicatePagesInput) (activities.DeduplicatePagesResult, error) {
			return activities.DeduplicatePagesResult{Stored: 1, TotalPages: in.Batch + 1}, nil
		})
	var status crawl.Status
	expectFinish(env, &status, 2)
	began := env.Now()
	runCrawl(t, env, &status, crawl.StatusSucceeded)
	env.AssertExpectations(t)
	if slept := env.Now().Sub(began); slept < 2*time.Second {
		t.Errorf("the crawl waited %v for the retry, want at least 2s", slept)
	}
}

// TestCrawlRendersPagesSentToTheBrowser: a static batch that sends pages to
// the browser is followed by a browser batch of those pages alone
// (RenderPages with RenderOnly, on the browser task queue); when nothing
// static is left, the browser's pages still get their batch; the crawl
// stays static and ends when neither kind is queued.
func TestCrawlRendersPagesSentToTheBrowser(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.StartCrawl, mock.Anything, mock.Anything).Return(activities.CrawlPlan{
		Status: crawl.StatusRunning, Budget: 100, BatchSize: 10, TimeoutSeconds: 1800,
		Engine: crawl.EngineCheerio, Detect: true, BrowserTaskQueue: "browser",
	}, nil).Once()
	env.OnActivity(a.WriteLogs, mock.Anything, mock.Anything).Return(1, nil).Maybe()
	static := func(batch int) activities.FetchPagesInput {
		return activities.FetchPagesInput{CrawlID: "c1", Batch: batch, Limit: 10, Detect: true, RenderDeep: true, Convert: true}
	}
	render := func(batch int) activities.FetchPagesInput {
		in := static(batch)
		in.RenderOnly = true
		return in
	}
	// 0 static: 3 kept, 2 sent to the browser; 1 the browser's two,
	// whose links bring one more page that needs it; 2 static finds
	// nothing static (an empty claim keeps its batch number), one page
	// waits for the browser, which takes it as batch 2; 3 static: nothing
	// of either kind.
	env.OnActivity(a.FetchPages, mock.Anything, static(0)).Return(activities.FetchPagesResult{Claimed: 5, Fetched: 3, Converted: 3, ToBrowser: 2, RenderQueued: 2}, nil).Once()
	env.OnActivity(a.RenderPages, mock.Anything, render(1)).Return(activities.FetchPagesResult{Claimed: 2, Fetched: 2, Converted: 2, RenderQueued: 1}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, static(2)).Return(activities.FetchPagesResult{Waiting: 1, RenderQueued: 1}, nil).Once()
	env.OnActivity(a.RenderPages, mock.Anything, render(2)).Return(activities.FetchPagesResult{Claimed: 1, Fetched: 1, Converted: 1}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, static(3)).Return(activities.FetchPagesResult{}, nil).Once()
	var queues []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "RenderPages" || info.ActivityType.Name == "FetchPages" {
			queues = append(queues, info.ActivityType.Name+"@"+info.TaskQueue)
		}
	})
	stored := 0
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DeduplicatePagesInput) (activities.DeduplicatePagesResult, error) {
			stored++
			return activities.DeduplicatePagesResult{Stored: 1, TotalPages: stored}, nil
		})
	var status crawl.Status
	expectFinish(env, &status, 4)
	runCrawl(t, env, &status, crawl.StatusSucceeded)
	env.AssertExpectations(t)
	want := []string{"FetchPages@default-test-taskqueue", "RenderPages@browser", "FetchPages@default-test-taskqueue",
		"RenderPages@browser", "FetchPages@default-test-taskqueue"}
	if !slices.Equal(queues, want) {
		t.Errorf("batches %v, want %v", queues, want)
	}
}

// TestCrawlConvertsWhatFetchLeft: a fetch batch that leaves pages
// unconverted (run by a worker older than convert-at-fetch, which saves
// their HTML) still has them converted by ConvertPages; runs at the
// change's first version, recorded before that, never run it.
func TestCrawlConvertsWhatFetchLeft(t *testing.T) {
	for _, version := range []workflow.Version{1, 2} {
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			env := newEnv(t, 100, 1800)
			env.OnGetVersion(convertAtFetch, workflow.DefaultVersion, 2).Return(version)
			env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: true}).
				Return(activities.FetchPagesResult{Claimed: 3, Fetched: 3, Converted: 1}, nil).Once()
			env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 1, Limit: 10, Convert: true}).
				Return(activities.FetchPagesResult{}, nil).Once()
			var converted []int
			env.OnActivity(a.ConvertPages, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.ConvertPagesInput) (activities.ConvertPagesResult, error) {
					converted = append(converted, in.Batch)
					return activities.ConvertPagesResult{Converted: 2}, nil
				}).Maybe()
			env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
				Return(activities.DeduplicatePagesResult{Stored: 3, TotalPages: 3}, nil).Once()
			var status crawl.Status
			expectFinish(env, &status, 3)

			runCrawl(t, env, &status, crawl.StatusSucceeded)
			want := []int{0}
			if version == 1 {
				want = nil
			}
			if !slices.Equal(converted, want) {
				t.Errorf("ConvertPages ran on batches %v, want %v", converted, want)
			}
			env.AssertExpectations(t)
		})
	}
}
