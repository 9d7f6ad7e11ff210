package activities

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/linkmemo"
	"github.com/durablecrawl/crawler/pdfdoc"
	"github.com/durablecrawl/crawler/robots"
)

// fetchStore is what FetchPages and RenderPages need of the database.
type fetchStore interface {
	crawlLoader
	robotsStore
	ClaimBatch(ctx context.Context, crawlID uuid.UUID, batch, limit int, mode db.ClaimMode) ([]crawl.Page, error)
	RenderQueued(ctx context.Context, crawlID uuid.UUID) (int, error)
	RetriesWaiting(ctx context.Context, crawlID uuid.UUID) (int, time.Duration, error)
	SaveFetches(ctx context.Context, crawlID uuid.UUID, outs []db.FetchOutcome, notRecorded func(error) string) ([]int64, error)
	ClaimRedirectTarget(ctx context.Context, crawlID uuid.UUID, pageID int64, target db.NewPage, note string) (bool, error)
	Known(ctx context.Context, crawlID uuid.UUID, key string) (bool, error)
	PreviousPages(ctx context.Context, prev uuid.UUID, keys []string) (map[string]db.PreviousPage, error)
	StateOf(ctx context.Context, crawlID uuid.UUID, key string) (crawl.PageState, bool, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
}

// FetchPagesInput names a fetch batch: its number (batches of a crawl are
// numbered from 0 in the order the workflow runs them) and how many queued
// pages it may claim.
type FetchPagesInput struct {
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
	// RenderOnly makes RenderPages claim only the pages sent to the
	// browser, on a crawl that is otherwise static.
	RenderOnly bool `json:",omitempty"`
	// Convert turns each page into markdown as soon as it is fetched: the
	// batch's pages are saved converted, their HTML never written to the
	// database, and ConvertPages has nothing left to do for them.
	Convert bool `json:",omitempty"`
}

// FetchPagesResult counts what a fetch batch did.
type FetchPagesResult struct {
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

func (r *FetchPagesResult) count(state crawl.PageState) {
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

// FetchPages claims up to Limit queued pages as batch Batch, fetches them
// in parallel with the static engine, stores each response and enqueues the
// links it finds within the crawl's scope and depth.
func (a *Activities) FetchPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	return a.fetchBatch(in, a.Static, crawl.EngineCheerio).run(ctx)
}

// RenderPages is FetchPages with the browser engine: pages are rendered
// in Chromium, links read from the rendered DOM. It runs on the browser
// task queue, on workers started with a browser.
func (a *Activities) RenderPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	if a.Browser == nil {
		return FetchPagesResult{}, nonRetryable(errors.New("this worker has no browser: start it with --browser"))
	}
	return a.fetchBatch(in, a.Browser, crawl.EnginePlaywright).run(ctx)
}

func (a *Activities) fetchBatch(in FetchPagesInput, engine PageFetcher, engineName string) *fetchBatch {
	return &fetchBatch{in: in, store: a.Store, engine: engine, engineName: engineName, settings: a.Settings, observer: a.Fetches,
		links: a.Links, hosts: a.Hosts, pdf: a.PDF, robots: robotsReader{store: a.Store, fetcher: a.Static, settings: a.Settings}}
}

// fetchBatch is one run of FetchPages or RenderPages: claim a batch of
// pages, fetch them with engine, judge each result by the crawl's rules
// (frontier.Judge) and save the outcomes as they come.
type fetchBatch struct {
	in         FetchPagesInput
	store      fetchStore
	engine     PageFetcher
	engineName string
	robots     robotsReader
	settings   Settings
	observer   FetchObserver // nil: none
	links      *linkmemo.Memo
	hosts      *hostbudget.Budget // nil: none
	pdf        *pdfdoc.Converter  // nil: PDFs are skipped
	// pdfLimits bound the reading of each PDF (the server's, narrowed by
	// the crawl's); skipPDFs leaves them out.
	pdfLimits pdfdoc.Limits
	skipPDFs  bool

	crawl    *crawl.Crawl
	rules    frontier.Rules
	markdown *conversion           // with in.Convert: how pages are converted
	claimed  map[string]crawl.Page // the pages to fetch, by URL
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
	res       FetchPagesResult
	switchWhy []crawllog.JavaScriptPage // start pages that need JavaScript, and why
}

func (b *fetchBatch) run(ctx context.Context) (FetchPagesResult, error) {
	// Heartbeats start with the activity: a claim that waits on the
	// database must not look like a dead worker, or Temporal would run a
	// retry of the batch beside this attempt.
	defer keepAlive(ctx, func() any { return b.judged.Load() })()
	c, o, err := loadCrawl(ctx, b.store, b.in.CrawlID)
	if err != nil || c.Status.Terminal() {
		return FetchPagesResult{}, err
	}
	b.crawl = c
	b.skipPDFs, b.pdfLimits = o.SkipPDFs, b.settings.PDF
	if o.PDFMaxPages > 0 && (b.pdfLimits.MaxPages == 0 || o.PDFMaxPages < b.pdfLimits.MaxPages) {
		b.pdfLimits.MaxPages = o.PDFMaxPages
	}
	if b.rules, err = frontier.RulesOf(o); err != nil {
		return FetchPagesResult{}, nonRetryable(err)
	}
	if b.in.Convert {
		mo, err := markdownOptions(o)
		if err != nil {
			return FetchPagesResult{}, err
		}
		b.markdown = &mo
	}
	urls, err := b.claim(ctx)
	if err != nil || b.res.Claimed == 0 {
		return b.res, err
	}
	batch := b.settings.batch(o)
	batch.Scope = c.ID.String()
	if b.tracking = c.ChangeTracking && b.markdown != nil && !o.MapOnly; b.tracking {
		if batch.Validators, err = b.loadPrevious(ctx); err != nil {
			return FetchPagesResult{}, err
		}
	}
	b.writer = newOutcomeWriter(inFlightPages(batch.Parallelism), b.save)
	defer b.writer.close()
	if len(o.ExcludePaths) > 0 || len(o.IncludeOnlyPaths) > 0 {
		urls = b.dropExcluded(urls) // without path rules every page is kept
	}
	if urls, batch.Delay, err = b.applyRobots(ctx, o, urls); err != nil {
		return FetchPagesResult{}, err
	}
	batch.Delay = max(batch.Delay, time.Duration(o.DelayMS)*time.Millisecond)
	refusal := b.refusal(ctx)
	urls = b.skipUnmodified(ctx, urls, refusal)
	batch.Admit = func(u string) bool { return b.writer.admit(ctx, b.claimed[u].ID) }
	batch.FollowRedirect = func(from, to *url.URL) bool { _, refused := refusal(from, to); return !refused }
	fetchCtx := hostbudget.WithNotice(ctx, b.noticeWait(ctx))
	fetchErr := b.engine.FetchAll(fetchCtx, urls, batch, func(r fetch.Result) { b.judge(ctx, r, refusal) })
	saveErr := b.writer.close()
	switch {
	case errors.Is(fetchErr, fetch.ErrNoEgressProxy):
		return FetchPagesResult{}, nonRetryable(fetchErr)
	case fetchErr != nil:
		return FetchPagesResult{}, fetchErr
	case saveErr != nil:
		return FetchPagesResult{}, saveErr
	}
	if err := b.switchEngine(ctx); err != nil {
		return FetchPagesResult{}, err
	}
	return b.res, b.countRenderQueued(ctx)
}

// countRenderQueued, for a crawl that sends pages to the browser, says how
// many wait for it.
func (b *fetchBatch) countRenderQueued(ctx context.Context) error {
	if !b.in.RenderDeep {
		return nil
	}
	n, err := b.store.RenderQueued(ctx, b.crawl.ID)
	b.res.RenderQueued = n
	return err
}

// claimMode is which queued pages the batch takes: a static batch leaves
// those sent to the browser; a browser batch takes only those on a crawl
// that is otherwise static, and every page on a crawl that renders all.
func (b *fetchBatch) claimMode() db.ClaimMode {
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
func (b *fetchBatch) claim(ctx context.Context) ([]string, error) {
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

// applyRobots drops the URLs robots.txt disallows (saving them as
// skipped) and returns the others with the longest Crawl-delay of their
// sites. Without ObeyRobots it changes nothing.
func (b *fetchBatch) applyRobots(ctx context.Context, o crawl.Options, urls []string) ([]string, time.Duration, error) {
	if !b.settings.ObeyRobots || len(urls) == 0 {
		return urls, 0, nil
	}
	var err error
	if b.policies, err = b.robots.policies(ctx, b.crawl.ID, o, frontier.Origins(urls)); err != nil {
		return nil, 0, err
	}
	allowed, disallowed, delay := frontier.ApplyRobots(urls, b.policies)
	for _, u := range disallowed {
		b.writer.add(db.FetchOutcome{PageID: b.claimed[u].ID, State: crawl.PageSkipped, Error: crawllog.Reason(crawl.Because(crawl.PageRobotsDisallowed))})
	}
	if b.hosts == nil {
		return allowed, delay, nil
	}
	// A Crawl-delay is the host's, for every crawl of it: the longest of
	// its origins' (http and https).
	delays := map[string]time.Duration{}
	for origin, p := range b.policies {
		if u, err := url.Parse(origin); err == nil {
			delays[u.Host] = max(delays[u.Host], p.CrawlDelay())
		}
	}
	for host, d := range delays {
		b.hosts.SetCrawlDelay(host, d)
	}
	return allowed, 0, nil
}

// noticeWait returns what the batch does when a request waits for a host
// a throttle paused or slowed: one log entry for each, saying why.
func (b *fetchBatch) noticeWait(ctx context.Context) func(hostbudget.Wait) {
	var mu sync.Mutex
	seen := map[hostbudget.Wait]bool{}
	return func(w hostbudget.Wait) {
		mu.Lock()
		first := !seen[w]
		seen[w] = true
		mu.Unlock()
		if first {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = b.store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.HostThrottled(b.crawl, w)})
		}
	}
}

// dropExcluded saves as skipped the claimed pages (below the start pages)
// that the crawl's path rules refuse now: rules a change of the running
// crawl added after they were queued. It returns the others.
func (b *fetchBatch) dropExcluded(urls []string) []string {
	kept := urls[:0:0]
	for _, u := range urls {
		p := b.claimed[u]
		if parsed, err := url.Parse(u); err == nil && p.Depth > 0 && !b.rules.Keeps(parsed) {
			b.writer.add(db.FetchOutcome{PageID: p.ID, State: crawl.PageSkipped, Error: crawllog.Reason(crawl.Because(crawl.PageExcludedByChange))})
			continue
		}
		kept = append(kept, u)
	}
	return kept
}

// refusal returns the crawl's frontier.Refusal: why a redirect is not
// followed.
func (b *fetchBatch) refusal(ctx context.Context) frontier.Refusal {
	known := func(key string) bool {
		known, err := b.store.Known(ctx, b.crawl.ID, key)
		return err == nil && known
	}
	return func(from, to *url.URL) (crawl.PageCause, bool) {
		return b.rules.RedirectRefusal(from, to, b.policies, known)
	}
}

// judge decides what a fetch result means for its page, asking the
// database what the rules need, and hands the outcome to the writer.
func (b *fetchBatch) judge(ctx context.Context, r fetch.Result, refusal frontier.Refusal) {
	if r.Err != nil && ctx.Err() != nil {
		return // cut short by the cancellation: leave the page claimed
	}
	if b.observer != nil {
		engine := "browser"
		if b.engineName != crawl.EnginePlaywright {
			engine = "static"
		}
		b.observer.PageFetched(engine, r.StatusCode, len(r.Body), r.Duration)
	}
	b.decide(ctx, r, refusal)
}

// decide is judge past the fetch's own accounting: what r makes of its
// page, saved through the writer.
func (b *fetchBatch) decide(ctx context.Context, r fetch.Result, refusal frontier.Refusal) {
	static := b.engineName != crawl.EnginePlaywright
	// The lookups run even if the activity is being cancelled, so that a
	// page in hand is not recorded as failed for that; reading a
	// document (seconds) stops with it (live).
	live := ctx
	ctx = context.WithoutCancel(ctx)
	page := b.claimed[r.URL]
	prev, hasPrev := b.previous[page.NormalizedURL]
	status := r.StatusCode
	// A 304 stands for the previous fetch when the request asked for one
	// (or was not made at all).
	notModified := status == http.StatusNotModified && hasPrev && (prev.Conditional() || b.unfetched[r.URL] && prev.Reusable())
	if notModified {
		r = unchanged(r, prev)
	}
	out := frontier.Judge(frontier.Page{URL: page.URL, Key: page.NormalizedURL, Depth: page.Depth, Rank: page.Rank, Attempts: page.Attempts},
		r, b.rules, !b.in.NoLinks || b.crawl.SitemapAndLinks, refusal)
	if target, ok := out.RedirectTarget(); ok {
		note := crawllog.Reason(crawl.PageCause{Kind: crawl.PageRedirectTarget, Page: page.ID})
		owned, err := b.store.ClaimRedirectTarget(ctx, b.crawl.ID, page.ID, newPages([]frontier.Link{target})[0], note)
		out = out.Redirected(owned, err)
	}
	if canon, ok := out.CanonicalTarget(); ok {
		out = out.Canonicalized(b.store.StateOf(ctx, b.crawl.ID, canon.Key))
	}
	var toBrowser *crawl.JavaScriptSign // why the page goes to the browser alone
	// Only a static fetch is judged: a rendered page has had its scripts.
	if static && b.in.Detect && !notModified && out.State == crawl.PageFetched && !r.IsPDF() && (page.Depth == 0 || b.in.RenderDeep) {
		if why, js := browser.NeedsJavaScript(r.Body); js {
			out = out.ToBrowser(why)
			b.mu.Lock()
			if page.Depth == 0 {
				b.switchWhy = append(b.switchWhy, crawllog.JavaScriptPage{URL: r.URL, Sign: why})
			} else {
				toBrowser = &why
				b.res.ToBrowser++
			}
			b.mu.Unlock()
		}
	}
	rec := db.FetchOutcome{PageID: page.ID, FinalURL: r.FinalURL, StatusCode: status, ContentType: r.ContentType,
		Bytes: len(r.Body), FetchMS: int(r.Duration / time.Millisecond), Engine: b.engineName,
		State: out.State, Error: crawllog.Reason(out.Cause), Links: newPages(out.Links), Render: toBrowser != nil}
	switch {
	case rec.State != crawl.PageFetched:
	case r.IsPDF() && b.markdown == nil:
		// Kept for ConvertPages, which reads HTML only: an older run's.
		rec.State, rec.Error = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFHTMLOnly))
	case b.tracking:
		b.track(live, &rec, page.URL, r, prev, hasPrev, notModified)
	case b.markdown != nil:
		b.convert(live, &rec, page.URL, r)
	default:
		rec.HTML = string(out.Body) // saved for ConvertPages
	}
	if rec.State == crawl.PageClaimed {
		return // a document's reading cut short by the cancellation: left claimed
	}
	if toBrowser != nil {
		entry := crawllog.SentToBrowser(b.crawl, page, *toBrowser)
		rec.Log = &entry
	}
	if out.Retry != nil {
		rec.RetryIn = out.Retry.In
		entry := crawllog.Retried(b.crawl, page, r.StatusCode, out.Cause, *out.Retry)
		rec.Log = &entry
	}
	b.judged.Add(1)
	b.writer.add(rec)
}

// convert turns a fetched page into markdown in the outcome rec (its
// HTML is never saved); a page the converter fails on is skipped and
// says why.
func (b *fetchBatch) convert(ctx context.Context, rec *db.FetchOutcome, pageURL string, r fetch.Result) {
	if r.FinalURL != "" {
		pageURL = r.FinalURL
	}
	shot := ""
	if len(r.Screenshot) > 0 {
		rec.Screenshot = &db.Screenshot{Token: newScreenshotToken(), ContentType: "image/jpeg", Data: r.Screenshot}
		shot = screenshotPath + rec.Screenshot.Token
	}
	if r.IsPDF() {
		b.convertPDF(ctx, rec, r)
		return
	}
	converters <- struct{}{}
	c, err := convertHTML(pageURL, r.Body, *b.markdown, shot)
	<-converters
	if err != nil {
		rec.State, rec.Error = crawl.PageSkipped, convertFailed(err)
		return
	}
	c.PageID = rec.PageID
	rec.State, rec.Converted = crawl.PageConverted, &c
}

// convertPDF turns a fetched PDF into markdown in the outcome rec. A
// document cut at the size cap, encrypted, broken or too slow to read
// fails its page, and only its page; one without text is skipped. When
// ctx ends first the page is left claimed (rec's state PageClaimed), for
// the batch's retry.
func (b *fetchBatch) convertPDF(ctx context.Context, rec *db.FetchOutcome, r fetch.Result) {
	switch {
	case b.skipPDFs:
		rec.State, rec.Error = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFLeftOut))
		return
	case b.pdf == nil:
		rec.State, rec.Error = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFNoReader))
		return
	case r.Truncated:
		rec.State, rec.Error = crawl.PageFailed, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFTooLarge, Bytes: len(r.Body)})
		return
	}
	doc, err := b.pdf.Convert(ctx, r.Body, b.pdfLimits)
	switch {
	case err != nil && ctx.Err() != nil:
		rec.State = crawl.PageClaimed
		return
	case errors.Is(err, pdfdoc.ErrNoText):
		rec.State, rec.Error = crawl.PageSkipped, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFNoText, Detail: err.Error()})
		return
	case err != nil:
		rec.State, rec.Error = crawl.PageFailed, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFUnreadable, Detail: err.Error()})
		return
	}
	title := doc.Title
	if title == "" {
		for _, l := range strings.Split(doc.Markdown, "\n") {
			if t, ok := strings.CutPrefix(l, "# "); ok {
				title = t
				break
			}
		}
	}
	rec.State = crawl.PageConverted
	rec.Converted = &db.Converted{PageID: rec.PageID, Title: title, Markdown: doc.Markdown,
		ConvertMS: int(doc.Took / time.Millisecond), DocumentPages: doc.Pages}
}

// loadPrevious reads, for a change-tracking crawl with a crawl to compare
// with, the claimed pages' pages in that crawl, and returns the
// validators that make their requests conditional.
func (b *fetchBatch) loadPrevious(ctx context.Context) (map[string]fetch.Validators, error) {
	if b.crawl.PreviousCrawlID == nil {
		return nil, nil
	}
	keys := make([]string, 0, len(b.claimed))
	for _, p := range b.claimed {
		keys = append(keys, p.NormalizedURL)
	}
	var err error
	if b.previous, err = b.store.PreviousPages(ctx, *b.crawl.PreviousCrawlID, keys); err != nil {
		return nil, err
	}
	validators := map[string]fetch.Validators{}
	for u, p := range b.claimed {
		if prev, ok := b.previous[p.NormalizedURL]; ok && prev.Conditional() {
			validators[u] = fetch.Validators{ETag: derefString(prev.ETag), LastModified: derefString(prev.LastModified)}
		}
	}
	return validators, nil
}

// skipUnmodified takes out of urls, and judges as unchanged without a
// request, the pages of a change-tracking crawl whose sitemap lastmod is
// not newer than the previous crawl's fetch of them (and whose previous
// fetch can stand for one: see db.PreviousPage.Reusable). They read as
// 304s.
func (b *fetchBatch) skipUnmodified(ctx context.Context, urls []string, refusal frontier.Refusal) []string {
	if len(b.previous) == 0 {
		return urls
	}
	kept := urls[:0:0]
	for _, u := range urls {
		p := b.claimed[u]
		prev, ok := b.previous[p.NormalizedURL]
		if !ok || p.SitemapLastMod == nil || prev.FetchedAt == nil || !prev.Reusable() || p.SitemapLastMod.After(*prev.FetchedAt) {
			kept = append(kept, u)
			continue
		}
		if b.unfetched == nil {
			b.unfetched = map[string]bool{}
		}
		b.unfetched[u] = true
		b.decide(ctx, fetch.Result{URL: u, FinalURL: u, StatusCode: http.StatusNotModified}, refusal)
	}
	return kept
}

// unchanged is the result a 304 stands for: the previous fetch of the
// page, with its type and links, as far as judging it needs.
func unchanged(r fetch.Result, prev db.PreviousPage) fetch.Result {
	r.StatusCode, r.ContentType, r.Body, r.Links, r.Canonical = http.StatusOK, "text/html", nil, prev.Links, ""
	if prev.ContentType != nil {
		r.ContentType = *prev.ContentType
	}
	// A document served as bytes was known by its first bytes, which a
	// 304 does not have.
	r.KnownPDF = prev.DocumentPages != nil
	if r.ETag == "" {
		r.ETag = derefString(prev.ETag)
	}
	if r.LastModified == "" {
		r.LastModified = derefString(prev.LastModified)
	}
	return r
}

// track converts a fetched page of a change-tracking crawl, unless it is
// the same as its previous page, and records how it compares: the same
// when the server answered 304 (notModified) or sent the same body (its
// previous markdown is reused), or when its markdown comes out the same;
// changed otherwise; new without a previous page.
func (b *fetchBatch) track(ctx context.Context, rec *db.FetchOutcome, pageURL string, r fetch.Result,
	prev db.PreviousPage, hasPrev, notModified bool) {
	ch := &db.PageChange{Status: changes.New, ETag: r.ETag, LastModified: r.LastModified, Links: r.Links}
	if ch.Links == nil {
		ch.Links = []string{}
	}
	if !notModified {
		ch.BodyHash = changes.Hash(r.Body)
	}
	if hasPrev {
		ch.PreviousID = prev.ID
	}
	if hasPrev && prev.MarkdownHash != nil && (notModified || derefString(prev.BodyHash) == ch.BodyHash) {
		ch.Status, ch.Reuse, ch.MarkdownHash = changes.Same, true, *prev.MarkdownHash
		// A page not asked for keeps the time it was last fetched.
		ch.Unfetched = b.unfetched[pageURL]
		ch.BodyHash = derefString(prev.BodyHash)
		rec.State, rec.Change = crawl.PageConverted, ch
		return
	}
	b.convert(ctx, rec, pageURL, r)
	if rec.State != crawl.PageConverted {
		return
	}
	ch.MarkdownHash = changes.Hash([]byte(rec.Converted.Markdown))
	switch {
	case !hasPrev:
	case derefString(prev.MarkdownHash) == ch.MarkdownHash:
		ch.Status = changes.Same
	default:
		ch.Status = changes.Changed
	}
	rec.Change = ch
}

// screenshotPath is where the API serves a screenshot, by its token.
const screenshotPath = "/screenshots/"

// newScreenshotToken names a screenshot: 128 random bits, so that its URL
// can be given out without a key.
func newScreenshotToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// converters bounds the HTML pages a worker converts at once, in fetch
// activities and ConvertPages together, to its cores: a conversion is
// CPU work and holds the page's tree, so converting more at once (a batch
// has up to its parallelism of pages in hand) would only hold more
// memory. Documents (PDFs) are bounded apart, by the PDF converter's
// instances.
var converters = make(chan struct{}, runtime.GOMAXPROCS(0))

// save records a group of outcomes and counts them. Results in hand are
// saved even when the activity is being cancelled: a retry then need not
// fetch them again, and a crawl that ended refuses them anyway.
func (b *fetchBatch) save(outs []db.FetchOutcome) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range outs {
		outs[i].Links = b.links.Unknown(b.crawl.ID, outs[i].Links)
	}
	saved, err := b.store.SaveFetches(ctx, b.crawl.ID, outs, crawllog.NotRecorded)
	if err != nil {
		return err
	}
	if len(saved) > 0 {
		linked := make(map[int64]bool, len(saved))
		for _, id := range saved {
			linked[id] = true
		}
		for _, o := range outs {
			if linked[o.PageID] {
				b.links.Enqueued(b.crawl.ID, o.Links)
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, o := range outs {
		if o.RetryIn > 0 {
			b.res.Retried++
			continue
		}
		b.res.count(o.State)
	}
	return nil
}

// switchEngine, when start pages turned out to need JavaScript, logs that
// the crawl goes on with the browser engine and says so in the result.
func (b *fetchBatch) switchEngine(ctx context.Context) error {
	if len(b.switchWhy) == 0 {
		return nil
	}
	b.res.SwitchTo = crawl.EnginePlaywright
	return b.store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.EngineSwitched(b.crawl, b.switchWhy)})
}

// inFlightPages bounds a batch's pages in flight: admitted for fetching and
// not saved yet. Twice the parallelism lets one group of responses be saved
// while the next is fetched; a worker that dies loses at most these.
func inFlightPages(parallelism int) int { return 2 * parallelism }
