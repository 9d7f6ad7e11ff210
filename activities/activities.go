// Package activities holds the crawl workflow's activities: thin adapters
// between Temporal and the parts that do the work. Each activity loads what
// it needs from the database, hands it to the domain packages (batch, the
// crawl engine, for FetchPages and RenderPages; markdown, dedupe, extract,
// crawllog for the log entries) and stores what they decide. Each depends on a small interface
// of the database methods it uses, declared beside it.
//
// Every activity takes and returns IDs and counters only; page content
// moves between activities through Postgres, never through workflow
// history. Every activity is idempotent: a retry after a crash or a timeout
// reaches the same state as a single run.
package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/fetch/static"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/linkmemo"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/pdfdoc"
	"github.com/durablecrawl/crawler/proxypool"
)

// Store is what the activities need of the database: the union of each
// activity's own interface.
type Store interface {
	lifecycleStore
	batch.Store
	convertStore
	resultStore
	extractStore
	logStore
	sitemapStore
	settleStore
	webhookStore
	changesStore
	scheduleStore
	steerStore
}

var _ Store = (*db.Store)(nil)

// The store is what crawllog.End needs to end a crawl.
var _ crawllog.Ender = (*db.Store)(nil)

// crawlLoader reads a crawl; every activity starts with it.
type crawlLoader interface {
	CrawlByID(ctx context.Context, id uuid.UUID) (*crawl.Crawl, error)
}

// PageFetcher fetches pages: over plain HTTP (static.Fetcher) or in a
// browser (browser.Fetcher).
type PageFetcher = batch.Fetcher

var _ PageFetcher = (*static.Fetcher)(nil)

// Settings are the server-wide rules the activities apply to every crawl.
type Settings struct {
	// PDF bounds the reading of one PDF document (its size is the page
	// size cap's).
	PDF                    pdfdoc.Limits
	MaxPagesPerCrawl       int
	DefaultConcurrentPages int
	MaxConcurrentPages     int
	// ObeyRobots makes crawls follow robots.txt (Disallow, Crawl-delay).
	ObeyRobots bool
	// UserAgent is matched against robots.txt groups.
	UserAgent string
	// BrowserAvailable says that browser workers poll BrowserTaskQueue.
	BrowserAvailable bool
	BrowserTaskQueue string
	// LLMTaskQueue is where ExtractPage runs, on workers with an LLM.
	LLMTaskQueue string
	// WebhookRetryFor is how long a webhook event is tried before it is
	// given up (0: webhook.DefaultRetryFor).
	WebhookRetryFor time.Duration
	// PublicURL is the API's address as clients reach it: screenshot
	// URLs in webhook events start with it.
	PublicURL string
	// StaticIP is the egress address a useStaticIps crawl reports
	// (CRAWLER_STATIC_EGRESS_IP), for the crawls of schedules' runs.
	StaticIP string
	// Proxies are the operator's proxy pools (CRAWLER_PROXY_POOLS) crawls
	// with a proxy kind go through; nil: none.
	Proxies *proxypool.Pools
	// Server is what this deployment offers crawl requests (the browser,
	// the LLM, …): a schedule's request is read against it for each run.
	Server crawl.Server
}

// concurrency is how many pages of a crawl with options o are fetched at
// once.
func (s Settings) concurrency(o crawl.Options) int {
	return o.Concurrency(s.DefaultConcurrentPages, s.MaxConcurrentPages)
}

// batch returns how a crawl's requests are sent: at most its concurrency
// at a time, through the egress proxy when it asked for a static address.
// Actions and a screenshot's viewport were checked when the crawl was
// asked for; stored ones that no longer read are left out.
func (s Settings) batch(o crawl.Options) fetch.Batch {
	b := fetch.Batch{Parallelism: s.concurrency(o), UseEgressProxy: o.UseStaticIPs, Screenshot: pageformats.ShotOf(o.Formats),
		WaitFor: time.Duration(o.WaitForMS) * time.Millisecond, Headers: o.Headers, Mobile: o.Mobile,
		ShotQuality: o.ScreenshotQuality}
	b.Actions, _ = pageaction.Decode(o.Actions)
	switch o.ProxyKind {
	case "":
	case "auto":
		// The basic pool where there is one (else directly), and the
		// stealth pool again for a page answered as blocked.
		b.Proxy, b.Fallback = s.Proxies.Get(proxypool.Basic, o.ProxyCountry), s.Proxies.Get(proxypool.Stealth, o.ProxyCountry)
	default:
		b.Proxy = s.Proxies.Get(o.ProxyKind, o.ProxyCountry)
	}
	b.ShotViewport, _ = pageaction.ParseViewport(o.ScreenshotViewport)
	return b
}

// Activities are the crawl workflow's activities. Register a *Activities
// with the worker; its fields are its dependencies.
type Activities struct {
	Store Store
	// Static fetches pages over plain HTTP; robots.txt files and sitemaps
	// are always read with it.
	Static PageFetcher
	// Browser renders pages; nil on workers without a browser.
	Browser PageFetcher
	// LLM runs extraction instructions; nil on workers without an LLM.
	LLM llmExtractor
	// Pollers returns how many workers polled an activity task queue
	// lately (Temporal's view).
	Pollers  func(ctx context.Context, taskQueue string) (int, error)
	Settings Settings
	// Fetches is told of every page fetch (metrics); nil is no one.
	Fetches FetchObserver
	// Webhooks delivers the events of crawls with a webhook.
	Webhooks WebhookSender
	// Links remembers the links this worker enqueued, so that a batch
	// sends the database only those it may not have; nil remembers none.
	Links *linkmemo.Memo
	// Hosts is the politeness budget the fetchers draw on (see package
	// hostbudget): batches give it their sites' Crawl-delays, and a
	// crawl's log says when it waits for a host's back-off. Nil: each
	// batch keeps its own pace (a Crawl-delay spaces its requests).
	Hosts *hostbudget.Budget
	// PDF converts the PDF documents crawls fetch (nil: they are
	// skipped).
	PDF *pdfdoc.Converter
	// Styles fetches and remembers the stylesheets crawls' pages link,
	// which their conversion reads (nil: none is read).
	Styles *batch.Stylesheets
}

// FetchObserver hears of each page fetch (see batch.Observer).
type FetchObserver = batch.Observer

// loadCrawl returns a crawl and its options. A crawl ID that is not one,
// or names no crawl, fails the activity for good.
func loadCrawl(ctx context.Context, store crawlLoader, crawlID string) (*crawl.Crawl, crawl.Options, error) {
	id, err := uuid.Parse(crawlID)
	if err != nil {
		return nil, crawl.Options{}, nonRetryable(fmt.Errorf("crawl id %q: %w", crawlID, err))
	}
	c, err := store.CrawlByID(ctx, id)
	if err != nil {
		if crawl.ErrorCode(err) == crawl.ENOTFOUND {
			return nil, crawl.Options{}, nonRetryable(err)
		}
		return nil, crawl.Options{}, err
	}
	return c, c.Options, nil
}

// nonRetryable marks err as one a retry cannot fix.
func nonRetryable(err error) error {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), "CrawlInvalid", err)
}

// heartbeatEvery is how often long activities report that they live; the
// workflow's heartbeat timeout is a few times longer.
const heartbeatEvery = 5 * time.Second

// keepAlive heartbeats with progress() until the returned stop is called.
// Heartbeats also deliver the activity's cancellation. Outside an activity
// (in unit tests) it does nothing.
func keepAlive(ctx context.Context, progress func() any) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	activity.RecordHeartbeat(ctx, progress())
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, progress())
			}
		}
	}()
	return func() { close(done) }
}
