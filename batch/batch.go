// Package batch is the crawl engine for one batch of pages: it claims
// queued pages from the crawl's frontier, applies robots.txt and the
// crawl's path rules, fetches the pages with an engine (static or
// browser), judges each result by the crawl's rules (frontier.Judge, with
// the two questions only the stored crawl answers), converts kept pages
// as they arrive (HTML and PDF, change tracking's comparisons), hands
// pages that need JavaScript to the browser, and saves the outcomes
// through a single writer that bounds the pages in flight.
//
// It knows nothing of Temporal: the FetchPages and RenderPages activities
// load the crawl, call Run, heartbeat with Judged and map its errors
// (Permanent ones fail the activity for good). Everything it needs of the
// database is Store.
package batch

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/linkmemo"
	"github.com/durablecrawl/crawler/pagestyle"
	"github.com/durablecrawl/crawler/pdfdoc"
	"github.com/durablecrawl/crawler/robots"
	"github.com/durablecrawl/crawler/urlpattern"
)

// Store is what a batch needs of the database.
type Store interface {
	RobotsStore
	ClaimBatch(ctx context.Context, crawlID uuid.UUID, batch, limit int, mode db.ClaimMode) ([]crawl.Page, error)
	RenderQueued(ctx context.Context, crawlID uuid.UUID) (int, error)
	ClaimLinkScripts(ctx context.Context, crawlID uuid.UUID, page int64, scripts string) (bool, error)
	NoteDuplicates(ctx context.Context, crawlID uuid.UUID, patterns []urlpattern.Pattern, w db.PatternWords) ([]urlpattern.Pattern, error)
	StoppedPatterns(ctx context.Context, crawlID uuid.UUID) ([]urlpattern.Pattern, error)
	RetriesWaiting(ctx context.Context, crawlID uuid.UUID) (int, time.Duration, error)
	SaveFetches(ctx context.Context, crawlID uuid.UUID, outs []db.FetchOutcome, w db.Words) ([]int64, error)
	ClaimRedirectTarget(ctx context.Context, crawlID uuid.UUID, pageID int64, target db.NewPage, note string) (bool, error)
	StateOf(ctx context.Context, crawlID uuid.UUID, key string) (crawl.PageState, bool, error)
	PreviousPages(ctx context.Context, prev uuid.UUID, keys []string) (map[string]db.PreviousPage, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
}

var _ Store = (*db.Store)(nil)

// Fetcher fetches pages: over plain HTTP (static.Fetcher) or in a browser
// (browser.Fetcher).
type Fetcher interface {
	FetchAll(ctx context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error
}

// Observer hears of each page fetch: the engine (static or browser), the
// status (0 when no answer came), the body's size and the time taken.
type Observer interface {
	PageFetched(engine string, status, bytes int, d time.Duration)
}

// Input names a batch: its number (batches of a crawl are numbered from 0
// in the order the workflow runs them) and how many queued pages it may
// claim. It is the FetchPages activity's input: its fields are in the
// workflow's history.
type Input struct {
	CrawlID string
	Batch   int
	Limit   int
	// NoLinks stops link following: the crawl's pages came from its
	// sitemaps.
	NoLinks bool `json:",omitempty"`
	// Detect checks statically fetched start pages for content that only
	// JavaScript makes (engineType auto on a deployment with browsers).
	Detect bool `json:",omitempty"`
	// RenderDeep, with Detect, checks deeper pages too: one that needs
	// JavaScript goes back to the frontier for the browser alone, and the
	// result counts the pages waiting for it (RenderQueued).
	RenderDeep bool `json:",omitempty"`
	// RenderOnly makes a browser batch claim only the pages sent to the
	// browser, on a crawl that is otherwise static.
	RenderOnly bool `json:",omitempty"`
	// Convert turns each page into markdown as soon as it is fetched: the
	// batch's pages are saved converted, their HTML never written to the
	// database, and ConvertPages has nothing left to do for them.
	Convert bool `json:",omitempty"`
}

// Result counts what a batch did. It is the FetchPages activity's
// result.
type Result struct {
	// Claimed is the batch's size; 0 means the frontier is empty.
	Claimed int
	// Fetched pages are HTML with a 2xx status, waiting for conversion
	// or (Converted of them) converted already.
	Fetched   int
	Converted int `json:",omitempty"`
	Failed    int
	Skipped   int
	// SwitchTo names the engine the crawl goes on with when a start page
	// turned out to need JavaScript; the page is queued again for it.
	SwitchTo string `json:",omitempty"`
	// Retried counts pages whose fetch failed for a passing reason and
	// that went back to the frontier for another attempt.
	Retried int `json:",omitempty"`
	// Waiting, set when nothing could be claimed, counts the pages that
	// wait for a retry; the first may be fetched after RetryIn.
	Waiting int           `json:",omitempty"`
	RetryIn time.Duration `json:",omitempty"`
	// ToBrowser counts the pages of this batch sent to the browser;
	// RenderQueued (with RenderDeep) the crawl's pages waiting for it.
	ToBrowser    int `json:",omitempty"`
	RenderQueued int `json:",omitempty"`
}

func (r *Result) count(state crawl.PageState) {
	switch state {
	case crawl.PageFetched:
		r.Fetched++
	case crawl.PageConverted, crawl.PageStored:
		r.Fetched++
		r.Converted++
	case crawl.PageFailed:
		r.Failed++
	default:
		r.Skipped++
	}
}

// Engine is what runs batches on a worker: its store, fetchers and the
// server's rules.
type Engine struct {
	Store Store
	// Static reads robots.txt files (a batch's pages are fetched by the
	// fetcher New is given).
	Static Fetcher
	// Observer is told of every page fetch (metrics); nil is no one.
	Observer Observer
	// Links remembers the links this worker enqueued, so that a batch
	// sends the database only those it may not have; nil remembers none.
	Links *linkmemo.Memo
	// Hosts is the politeness budget the fetchers draw on: batches give it
	// their sites' Crawl-delays and log when a request waits on it. Nil:
	// a Crawl-delay spaces the batch's own requests.
	Hosts *hostbudget.Budget
	// PDF converts PDF documents (nil: they are skipped), each within
	// PDFLimits.
	PDF       *pdfdoc.Converter
	PDFLimits pdfdoc.Limits
	// ObeyRobots makes crawls follow robots.txt (Disallow, Crawl-delay);
	// UserAgent is matched against its groups.
	ObeyRobots bool
	UserAgent  string
	// Styles fetches the stylesheets pages link (their structure reads
	// them: markdown.Options.Stylesheet); nil reads none.
	Styles *Stylesheets
}

// Batch is one run of a batch: claim pages, fetch them with the engine,
// judge each result by the crawl's rules (frontier.Judge) and save the
// outcomes as they come.
type Batch struct {
	in         Input
	e          *Engine
	store      Store
	engine     Fetcher
	engineName string
	request    fetch.Batch // how the pages are requested
	robots     RobotsReader
	observer   Observer // nil: none
	links      *linkmemo.Memo
	hosts      *hostbudget.Budget // nil: none
	pdf        *pdfdoc.Converter  // nil: PDFs are skipped
	// pdfLimits bound the reading of each PDF (the server's, narrowed by
	// the crawl's); skipPDFs leaves them out.
	pdfLimits pdfdoc.Limits
	skipPDFs  bool

	crawl    *crawl.Crawl
	rules    frontier.Rules
	markdown *Conversion // with in.Convert: how pages are converted
	// stopped are the crawl's address patterns that lead to duplicates
	// (db.NoteDuplicates): links to them are not enqueued. Read when the
	// batch starts; the patterns it stops itself are added (under mu).
	stopped []urlpattern.Pattern
	claimed map[string]crawl.Page // the pages to fetch, by URL
	// tracking is set on a change-tracking crawl that converts as it
	// fetches; previous then holds the claimed pages' pages in the crawl
	// it compares with, by key.
	tracking bool
	previous map[string]db.PreviousPage
	// unfetched are the pages (by URL) not asked for, their sitemap
	// lastmod being older than the previous crawl's fetch (written
	// before the batch's fetches begin, read only after).
	unfetched map[string]bool
	policies  map[string]robots.Policy
	writer    *outcomeWriter
	judged    atomic.Int64 // reported by the heartbeat

	mu        sync.Mutex
	res       Result
	switchWhy []crawllog.JavaScriptPage // start pages that need JavaScript, and why
}

// New prepares batch in of crawl c, whose pages fetcher fetches (engine
// names it: crawl.EngineCheerio or crawl.EnginePlaywright) as request
// says.
func (e *Engine) New(c *crawl.Crawl, in Input, fetcher Fetcher, engine string, request fetch.Batch) *Batch {
	return &Batch{in: in, store: e.Store, engine: fetcher, engineName: engine, request: request, e: e, observer: e.Observer,
		links: e.Links, hosts: e.Hosts, pdf: e.PDF, crawl: c,
		robots: RobotsReader{Store: e.Store, Fetcher: e.Static, UserAgent: e.UserAgent}}
}

// Judged is how many of the batch's pages have been judged so far: its
// progress, for heartbeats.
func (b *Batch) Judged() int64 { return b.judged.Load() }

// PermanentError is a batch's failure that no retry can fix: the
// crawl's rules do not compile, or it needs an egress proxy the worker
// does not have.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent reports whether err is a PermanentError.
func Permanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

func permanent(err error) error { return &PermanentError{Err: err} }

// Run runs the batch. Its errors are the database's or the fetcher's
// (worth a retry of the batch), or Permanent.
func (b *Batch) Run(ctx context.Context) (Result, error) {
	c, o := b.crawl, b.crawl.Options
	var err error
	b.skipPDFs, b.pdfLimits = o.SkipPDFs, b.e.PDFLimits
	if o.PDFMaxPages > 0 && (b.pdfLimits.MaxPages == 0 || o.PDFMaxPages < b.pdfLimits.MaxPages) {
		b.pdfLimits.MaxPages = o.PDFMaxPages
	}
	if b.rules, err = frontier.RulesOf(o); err != nil {
		return Result{}, permanent(err)
	}
	if b.in.Convert {
		mo, err := ConversionOf(o)
		if err != nil {
			return Result{}, err
		}
		if styles := b.e.Styles; styles != nil {
			req := b.request
			req.Scope = c.ID.String()
			mo.Stylesheet = func(u *url.URL) *pagestyle.Sheet { return styles.Sheet(ctx, c.ID, u, req) }
		}
		b.markdown = &mo
	}
	urls, err := b.claim(ctx)
	if err != nil || b.res.Claimed == 0 {
		return b.res, err
	}
	if b.stopped, err = b.store.StoppedPatterns(ctx, c.ID); err != nil {
		return Result{}, err
	}
	batch := b.request
	batch.Scope = c.ID.String()
	if b.tracking = c.ChangeTracking && b.markdown != nil && !o.MapOnly; b.tracking {
		if batch.Validators, err = b.loadPrevious(ctx); err != nil {
			return Result{}, err
		}
	}
	b.writer = newOutcomeWriter(inFlightPages(batch.Parallelism), b.save)
	defer b.writer.close()
	if len(o.ExcludePaths) > 0 || len(o.IncludeOnlyPaths) > 0 {
		urls = b.dropExcluded(urls) // without path rules every page is kept
	}
	if urls, batch.Delay, err = b.applyRobots(ctx, o, urls); err != nil {
		return Result{}, err
	}
	batch.Delay = max(batch.Delay, time.Duration(o.DelayMS)*time.Millisecond)
	refusal := b.refusal(ctx)
	urls = b.skipUnmodified(ctx, urls, refusal)
	batch.Admit = func(u string) bool { return b.writer.admit(ctx, b.claimed[u].ID) }
	batch.Skip = b.skipStopped
	batch.FollowRedirect = func(from, to *url.URL) bool { _, refused := refusal(from, to); return !refused }
	fetchCtx := hostbudget.WithNotice(ctx, b.noticeWait(ctx))
	fetchErr := b.engine.FetchAll(fetchCtx, urls, batch, func(r fetch.Result) { b.judge(ctx, r, refusal) })
	saveErr := b.writer.close()
	switch {
	case errors.Is(fetchErr, fetch.ErrNoEgressProxy):
		return Result{}, permanent(fetchErr)
	case fetchErr != nil:
		return Result{}, fetchErr
	case saveErr != nil:
		return Result{}, saveErr
	}
	if err := b.switchEngine(ctx); err != nil {
		return Result{}, err
	}
	return b.res, b.countRenderQueued(ctx)
}

// claimMode is which queued pages the batch takes: a static batch leaves
// those sent to the browser; a browser batch takes only those on a crawl
// that is otherwise static, and every page on a crawl that renders all.
func (b *Batch) claimMode() db.ClaimMode {
	switch {
	case b.engineName != crawl.EnginePlaywright:
		return db.ClaimStatic
	case b.in.RenderOnly:
		return db.ClaimRender
	}
	return db.ClaimAll
}

// claim claims the batch's pages and returns the URLs still to fetch:
// pages an earlier attempt of the batch saved are counted, not fetched
// again. With nothing to claim it says how many pages wait for a retry.
func (b *Batch) claim(ctx context.Context) ([]string, error) {
	pages, err := b.store.ClaimBatch(ctx, b.crawl.ID, b.in.Batch, b.in.Limit, b.claimMode())
	if err != nil {
		return nil, err
	}
	b.res.Claimed = len(pages)
	if len(pages) == 0 {
		if b.res.Waiting, b.res.RetryIn, err = b.store.RetriesWaiting(ctx, b.crawl.ID); err != nil {
			return nil, err
		}
		return nil, b.countRenderQueued(ctx)
	}
	b.claimed = make(map[string]crawl.Page, len(pages))
	var urls []string
	for _, p := range pages {
		if p.State == crawl.PageClaimed {
			b.claimed[p.URL] = p
			urls = append(urls, p.URL)
		} else {
			b.res.count(p.State)
		}
	}
	return urls, nil
}
