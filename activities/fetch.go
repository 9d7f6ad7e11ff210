package activities

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
)

// FetchPagesInput names a fetch batch (see batch.Input); FetchPagesResult
// counts what it did. Both are in the workflow's history.
type (
	FetchPagesInput  = batch.Input
	FetchPagesResult = batch.Result
)

// FetchPages claims up to Limit queued pages as batch Batch, fetches them
// in parallel with the static engine, stores each response and enqueues the
// links it finds within the crawl's scope and depth (package batch).
func (a *Activities) FetchPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	return a.runBatch(ctx, in, a.Static, crawl.EngineCheerio)
}

// RenderPages is FetchPages with the browser engine: pages are rendered
// in Chromium, links read from the rendered DOM. It runs on the browser
// task queue, on workers started with a browser.
func (a *Activities) RenderPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	if a.Browser == nil {
		return FetchPagesResult{}, nonRetryable(errors.New("this worker has no browser: start it with --browser"))
	}
	return a.runBatch(ctx, in, a.Browser, crawl.EnginePlaywright)
}

// runBatch loads the crawl and runs batch in with fetcher (engine names
// it). A batch of a crawl that has ended does nothing.
func (a *Activities) runBatch(ctx context.Context, in FetchPagesInput, fetcher PageFetcher, engine string) (FetchPagesResult, error) {
	// Heartbeats start with the activity: a claim that waits on the
	// database must not look like a dead worker, or Temporal would run a
	// retry of the batch beside this attempt.
	var running atomic.Pointer[batch.Batch] // read by the heartbeat's goroutine
	defer keepAlive(ctx, func() any {
		if b := running.Load(); b != nil {
			return b.Judged()
		}
		return int64(0)
	})()
	c, o, err := loadCrawl(ctx, a.Store, in.CrawlID)
	if err != nil || c.Status.Terminal() {
		return FetchPagesResult{}, err
	}
	b := a.engine().New(c, in, fetcher, engine, a.Settings.batch(o))
	running.Store(b)
	res, err := b.Run(ctx)
	if err != nil {
		return FetchPagesResult{}, batchError(err)
	}
	return res, nil
}

// batchError is the activity's error for a batch's: final when the batch
// says no retry can fix it, retried otherwise.
func batchError(err error) error {
	if batch.Permanent(err) {
		return nonRetryable(err)
	}
	return err
}

// engine is the batch engine over the activities' dependencies.
func (a *Activities) engine() *batch.Engine {
	return &batch.Engine{Store: a.Store, Static: a.Static, Observer: a.Fetches, Links: a.Links, Hosts: a.Hosts,
		PDF: a.PDF, PDFLimits: a.Settings.PDF, ObeyRobots: a.Settings.ObeyRobots, UserAgent: a.Settings.UserAgent, Styles: a.Styles}
}
