package activities

import (
	"context"
	"errors"
)

// BrowserWorkersInput names the browser task queue.
type BrowserWorkersInput struct {
	TaskQueue string
}

// BrowserWorkers returns how many workers polled the browser task queue
// lately: more than none means the browser workers are busy, none means
// the deployment has no browser worker running.
func (a *Activities) BrowserWorkers(ctx context.Context, in BrowserWorkersInput) (int, error) {
	if a.Pollers == nil {
		return 0, nonRetryable(errors.New("this worker cannot ask Temporal for the browser task queue's workers"))
	}
	return a.Pollers(ctx, in.TaskQueue)
}
