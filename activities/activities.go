// Package activities holds the crawl workflow's activities: thin adapters
// between Temporal and the parts that do the work (fetch, markdown, db).
//
// Every activity takes and returns IDs and counters only; page content
// moves between activities through Postgres, never through workflow
// history. Every activity is idempotent: a retry after a crash or a timeout
// reaches the same state as a single run.
package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/scope"
	"github.com/durablecrawl/crawler/urlnorm"
)

// crawlStore is what the activities need of the database.
type crawlStore interface {
	CrawlByID(ctx context.Context, id uuid.UUID) (*db.Crawl, error)
	Enqueue(ctx context.Context, crawlID uuid.UUID, pages []db.NewPage) (int, error)
	ClaimBatch(ctx context.Context, crawlID uuid.UUID, batch, limit int) ([]db.Page, error)
	RetriesWaiting(ctx context.Context, crawlID uuid.UUID) (int, time.Duration, error)
	SaveFetches(ctx context.Context, crawlID uuid.UUID, outs []db.FetchOutcome) error
	ClaimRedirectTarget(ctx context.Context, crawlID uuid.UUID, pageID int64, target db.NewPage) (bool, error)
	Known(ctx context.Context, crawlID uuid.UUID, key string) (bool, error)
	StateOf(ctx context.Context, crawlID uuid.UUID, key string) (string, bool, error)
	Robots(ctx context.Context, crawlID uuid.UUID, origins []string) (map[string]db.Robots, error)
	SaveRobots(ctx context.Context, rows []db.Robots) error
	FetchedPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error)
	PagesWithHTML(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]db.Page, error)
	SaveConverted(ctx context.Context, crawlID uuid.UUID, pages []db.Converted) error
	StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int, keep db.KeepFunc) (db.StoreResult, error)
	PendingExtractions(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error)
	ExtractionSource(ctx context.Context, crawlID uuid.UUID, pageID int64) (db.ExtractionSource, error)
	SaveChunkAnswer(ctx context.Context, pageID int64, chunk, chunks int, a db.ChunkAnswer) error
	SaveExtraction(ctx context.Context, crawlID uuid.UUID, pageID int64, value json.RawMessage, failure string, ms int) error
	SkipPage(ctx context.Context, crawlID uuid.UUID, pageID int64, reason string) error
	BatchPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]db.Page, error)
	InsertLogs(ctx context.Context, logs []db.CrawlLog) error
	Finish(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
		logs func(c *db.Crawl, unlogged []db.Page) []db.CrawlLog) (*db.Crawl, error)
	CountPages(ctx context.Context, crawlID uuid.UUID) (map[string]int, error)
}

var _ crawlStore = (*db.Store)(nil)

// staticFetcher fetches pages: over plain HTTP (fetch.Static) or in a
// browser (browser.Fetcher).
type staticFetcher interface {
	FetchAll(ctx context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error
}

var _ staticFetcher = (*fetch.Static)(nil)

// Settings are the server-wide rules the activities apply to every crawl.
type Settings struct {
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
}

// Activities are the crawl workflow's activities. Register a *Activities
// with the worker; its fields are its dependencies.
type Activities struct {
	Store  crawlStore
	Static staticFetcher
	// Browser renders pages; nil on workers without a browser.
	Browser staticFetcher
	// LLM runs extraction instructions; nil on workers without an LLM.
	LLM llmExtractor
	// Pollers returns how many workers polled an activity task queue
	// lately (Temporal's view).
	Pollers  func(ctx context.Context, taskQueue string) (int, error)
	Settings Settings
}

// loadCrawl returns a crawl and its options.
func (a *Activities) loadCrawl(ctx context.Context, crawlID string) (*db.Crawl, crawl.Options, error) {
	id, err := uuid.Parse(crawlID)
	if err != nil {
		return nil, crawl.Options{}, nonRetryable(fmt.Errorf("crawl id %q: %w", crawlID, err))
	}
	c, err := a.Store.CrawlByID(ctx, id)
	if err != nil {
		if crawl.ErrorCode(err) == crawl.ENOTFOUND {
			return nil, crawl.Options{}, nonRetryable(err)
		}
		return nil, crawl.Options{}, err
	}
	return c, c.Options, nil
}

// batch returns how a crawl's requests are sent: at most its concurrency
// at a time, through the egress proxy when it asked for a static address.
func (a *Activities) batch(o crawl.Options) fetch.Batch {
	return fetch.Batch{
		Parallelism:    o.Concurrency(a.Settings.DefaultConcurrentPages, a.Settings.MaxConcurrentPages),
		UseEgressProxy: o.UseStaticIPs,
	}
}

// rules are a crawl's decisions on URLs: which links are followed, which
// pages are stored, how deep the crawl goes.
type rules struct {
	scope *scope.Scope
	paths *scope.Paths
	// depthLimit is the deepest hop followed; -1 means no limit.
	depthLimit int
}

// rulesOf returns the rules of a crawl's options.
func rulesOf(o crawl.Options) (rules, error) {
	var starts []*url.URL
	for _, s := range o.StartURLs {
		if u, err := urlnorm.Clean(nil, s); err == nil {
			starts = append(starts, u)
		}
	}
	paths, err := scope.NewPaths(o.IncludeOnlyPaths, o.ExcludePaths)
	if err != nil {
		return rules{}, nonRetryable(fmt.Errorf("path rules: %w", err))
	}
	return rules{scope: scope.New(starts, o.EntireWebsite), paths: paths, depthLimit: o.DepthLimit()}, nil
}

// follows reports whether a link to u is crawled: in scope, and allowed by
// the path rules.
func (r rules) follows(u *url.URL) bool {
	return r.scope.Allows(u) && r.paths.Allows(u.Path)
}

// stores reports whether a fetched page at u may become a result. Start
// pages are fetched whatever the path rules say, to discover links.
func (r rules) stores(u *url.URL) bool { return r.paths.Allows(u.Path) }
