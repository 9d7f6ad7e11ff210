package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
)

// webhookActivityOptions are those of DeliverWebhooks. Its attempts at
// the receiver are recorded in the database, not retried by Temporal: a
// failed activity (the database away, the worker gone) is tried again,
// and the events it left are tried on the next call.
var webhookActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 5 * time.Minute,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    10,
	},
}

// hookWaitAfterError is how long the delivery waits after DeliverWebhooks
// failed all its attempts before it calls it again.
const hookWaitAfterError = 5 * time.Minute

// hookErrorsToEnd is how many DeliverWebhooks in a row may fail, once the
// crawl has ended, before the workflow stops delivering (its events stay
// recorded as they were).
const hookErrorsToEnd = 12

// hooks delivers a crawl's webhook events from a workflow goroutine while
// the crawl runs; the crawl's stages tell it of new results.
type hooks struct {
	crawlID string
	// dirty is set when results were stored since the last delivery.
	dirty bool
	// busy is set while DeliverWebhooks runs; stop ends the goroutine.
	busy, stop bool
}

// startHooks starts the delivery of a crawl's webhook events; it returns
// nil for a crawl without a webhook, or a run begun before the change.
func startHooks(ctx workflow.Context, in *RunState) *hooks {
	if in.Plan == nil || !in.Plan.Webhooks {
		return nil
	}
	if workflow.GetVersion(ctx, webhookEvents, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	h := &hooks{crawlID: in.CrawlID, dirty: true}
	workflow.Go(ctx, h.run)
	return h
}

// notify tells the delivery that results were stored.
func (h *hooks) notify() {
	if h != nil {
		h.dirty = true
	}
}

// run delivers the due events whenever results were stored or the first
// failed event's retry is due, until stopped.
func (h *hooks) run(ctx workflow.Context) {
	ctx = workflow.WithActivityOptions(ctx, webhookActivityOptions)
	var wait time.Duration
	for {
		ready := func() bool { return h.dirty || h.stop }
		var err error
		if wait > 0 {
			_, err = workflow.AwaitWithTimeout(ctx, wait, ready)
		} else {
			err = workflow.Await(ctx, ready)
		}
		if err != nil || h.stop {
			return
		}
		h.dirty, h.busy = false, true
		var res activities.DeliverWebhooksResult
		err = workflow.ExecuteActivity(ctx, a.DeliverWebhooks, activities.DeliverWebhooksInput{CrawlID: h.crawlID}).Get(ctx, &res)
		h.busy = false
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			wait = hookWaitAfterError
		case res.Pending > 0:
			wait = max(res.RetryIn, minRetryWait)
		default:
			wait = 0
		}
	}
}

// end stops the delivery goroutine once its DeliverWebhooks returns. When
// the crawl ended (runErr is not a continue-as-new), it then delivers what
// is left, the end event last, on a context that a cancellation of the
// workflow does not stop: every event is delivered or given up (after the
// worker's retry window) before the run ends.
func (h *hooks) end(ctx workflow.Context, in *RunState, runErr error) {
	if h == nil {
		return
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	h.stop = true
	_ = workflow.Await(dctx, func() bool { return !h.busy })
	var can *workflow.ContinueAsNewError
	if errors.As(runErr, &can) {
		return
	}
	showProgress(ctx, in, "Delivering webhooks")
	dctx = workflow.WithActivityOptions(dctx, webhookActivityOptions)
	failures := 0
	for {
		var res activities.DeliverWebhooksResult
		err := workflow.ExecuteActivity(dctx, a.DeliverWebhooks,
			activities.DeliverWebhooksInput{CrawlID: h.crawlID, Final: true}).Get(dctx, &res)
		wait := max(res.RetryIn, minRetryWait)
		switch {
		case err != nil:
			if failures++; failures >= hookErrorsToEnd {
				workflow.GetLogger(ctx).Error("webhook delivery stopped", "CrawlID", h.crawlID, "Error", err)
				return
			}
			wait = hookWaitAfterError
		case res.Pending == 0:
			return
		default:
			failures = 0
		}
		if workflow.Sleep(dctx, wait) != nil {
			return
		}
	}
}
