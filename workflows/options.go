package workflows

// The activities' options: timeouts, heartbeats and retries by kind.

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
)

// a is a nil *Activities whose methods name the activities in
// ExecuteActivity; Temporal resolves them by name on the worker.
var a *activities.Activities

// pageActivityOptions are those of FetchPages and ConvertPages: long, and
// heartbeating, so that a batch on a worker that died is retried on another
// within the heartbeat timeout.
var pageActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Hour,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
		MaximumAttempts:    5,
	},
}

// llmActivityOptions are those of ExtractPage (its TaskQueue is the
// crawl's LLM task queue). Rate limits and server errors are retried with
// backoff for about three minutes when the provider names no wait; the
// activity records the failure itself on its last attempt. There is no
// limit on the wait for a worker: the queue's rate limit may hold pages
// back for long, and the crawl's own timeout bounds it.
var llmActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Hour,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    2 * time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    8,
	},
}

// quickActivityOptions are those of the short bookkeeping activities.
var quickActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
		MaximumAttempts:    5,
	},
}

// settleActivityOptions are those of SettleDeduplication: it reads every
// result page twice, which takes minutes on the largest crawls, and
// heartbeats as it goes.
var settleActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Hour,
	HeartbeatTimeout:    time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    5,
	},
}

// finishActivityOptions retry longer: a crawl must not stay running
// because its last write failed.
var finishActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    20,
	},
}
