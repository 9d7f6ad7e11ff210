package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
)

// describer is what the reconciler needs of Temporal.
type describer interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// reconcileStore is what the reconciler needs of the database: the running
// crawls, a page at a time, and End's compare-and-set ending.
type reconcileStore interface {
	// RunningCrawls returns up to limit crawls still running that were
	// created before createdBefore, oldest first, starting after the crawl
	// after (uuid.Nil for the first page).
	RunningCrawls(ctx context.Context, createdBefore time.Time, after uuid.UUID, limit int) ([]crawl.Crawl, error)
	crawllog.Ender
}

var _ reconcileStore = (*db.Store)(nil)

// Reconciler settles crawls that Postgres still calls running although
// their workflow has closed without running workflow code: terminated
// (aborted), past its execution timeout (timed_out), or gone (error).
type Reconciler struct {
	Store    reconcileStore
	Temporal describer
	Logger   *slog.Logger
	// Grace spares crawls younger than this: their workflow may not have
	// been started yet. Default one minute.
	Grace time.Duration
}

// scheduledGrace spares the crawl of a schedule's run whose workflow does
// not exist yet for this long: the run (ScheduledCrawlWorkflow) records the
// crawl before it starts the crawl's workflow, and starts it once a worker
// takes the run's next task, however long workers were away.
const scheduledGrace = 6 * time.Hour

// Run reconciles every interval until ctx is done.
func (r *Reconciler) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := r.Once(ctx); err != nil && ctx.Err() == nil {
			r.logger().Warn("reconcile crawls", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once reconciles every running crawl once and returns how many it
// settled. A crawl it cannot settle is logged and retried on the next
// pass; the others are not held up.
func (r *Reconciler) Once(ctx context.Context) (int, error) {
	grace := r.Grace
	if grace == 0 {
		grace = time.Minute
	}
	before := time.Now().Add(-grace)
	settled := 0
	for after := uuid.Nil; ; {
		running, err := r.Store.RunningCrawls(ctx, before, after, 200)
		if err != nil {
			return settled, err
		}
		for _, c := range running {
			status, reason, ok := r.verdict(ctx, c.WorkflowID)
			if !ok || reason.Kind == crawllog.EndWorkflowMissing && c.ScheduleID != nil && c.CreatedAt.After(time.Now().Add(-scheduledGrace)) {
				// A schedule's run records its crawl, then starts its
				// workflow: a worker lost in between leaves the run to
				// start it when workers are back.
				continue
			}
			done, err := crawllog.End(ctx, r.Store, c.ID, status, reason)
			if err != nil {
				r.logger().Warn("settle crawl", "crawlId", c.ID, "error", err)
				continue
			}
			if done.Status == status {
				settled++
				r.logger().Info("reconciled crawl", "crawlId", c.ID, "status", status, "reason", reason.Sentence())
			}
		}
		if len(running) < 200 || ctx.Err() != nil {
			return settled, ctx.Err()
		}
		after = running[len(running)-1].ID
	}
}

// verdict returns the status a crawl should have from its workflow's state,
// and false while the workflow runs (or Temporal cannot tell).
func (r *Reconciler) verdict(ctx context.Context, workflowID string) (crawl.Status, crawllog.EndCause, bool) {
	resp, err := r.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return crawl.StatusError, crawllog.Because(crawllog.EndWorkflowMissing), true
	}
	if err != nil {
		return "", crawllog.EndCause{}, false
	}
	switch resp.GetWorkflowExecutionInfo().GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return crawl.StatusAborted, crawllog.Because(crawllog.EndWorkflowTerminate), true
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return crawl.StatusTimedOut, crawllog.Because(crawllog.EndWorkflowTimedOut), true
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return crawl.StatusAborted, crawllog.Because(crawllog.EndWorkflowCancelled), true
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return crawl.StatusError, crawllog.Because(crawllog.EndWorkflowFailed), true
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return crawl.StatusError, crawllog.Because(crawllog.EndWorkflowNoStatus), true
	default:
		return "", crawllog.EndCause{}, false
	}
}

// logger is the reconciler's Logger, or slog's default without one.
func (r *Reconciler) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}
