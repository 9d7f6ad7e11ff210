package activities

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/markdown"
	"github.com/durablecrawl/crawler/robots"
	"github.com/durablecrawl/crawler/urlnorm"
)

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
}

// FetchPagesResult counts what a fetch batch did.
type FetchPagesResult struct {
	// Claimed is the batch's size; 0 means the frontier is empty.
	Claimed int
	// Fetched pages are HTML with a 2xx status, waiting for conversion.
	Fetched int
	Failed  int
	Skipped int
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
}

// FetchPages claims up to Limit queued pages as batch Batch, fetches them
// in parallel with the static engine, stores each response and enqueues the
// links it finds within the crawl's scope and depth.
func (a *Activities) FetchPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	return a.fetchBatch(ctx, in, a.Static, crawl.EngineCheerio)
}

// RenderPages is FetchPages with the browser engine: pages are rendered
// in Chromium, links read from the rendered DOM. It runs on the browser
// task queue, on workers started with a browser.
func (a *Activities) RenderPages(ctx context.Context, in FetchPagesInput) (FetchPagesResult, error) {
	if a.Browser == nil {
		return FetchPagesResult{}, nonRetryable(errors.New("this worker has no browser: start it with --browser"))
	}
	return a.fetchBatch(ctx, in, a.Browser, crawl.EnginePlaywright)
}

// fetchBatch is the batch work of FetchPages and RenderPages, with engine
// fetching the pages.
func (a *Activities) fetchBatch(ctx context.Context, in FetchPagesInput, engine staticFetcher, engineName string) (FetchPagesResult, error) {
	// Heartbeats start with the activity: a claim that waits on the
	// database must not look like a dead worker, or Temporal would run a
	// retry of the batch beside this attempt.
	var done atomic.Int64
	defer keepAlive(ctx, func() any { return done.Load() })()
	c, o, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return FetchPagesResult{}, err
	}
	if c.Status.Terminal() {
		return FetchPagesResult{}, nil
	}
	pages, err := a.Store.ClaimBatch(ctx, c.ID, in.Batch, in.Limit)
	if err != nil {
		return FetchPagesResult{}, err
	}
	res := FetchPagesResult{Claimed: len(pages)}
	if len(pages) == 0 {
		res.Waiting, res.RetryIn, err = a.Store.RetriesWaiting(ctx, c.ID)
		return res, err
	}

	byURL := make(map[string]db.Page, len(pages))
	var urls []string
	for _, p := range pages {
		if p.State == db.PageClaimed {
			byURL[p.URL] = p
			urls = append(urls, p.URL)
		} else {
			res.count(p.State) // saved by an earlier attempt of this batch
		}
	}

	rl, err := rulesOf(o)
	if err != nil {
		return FetchPagesResult{}, err
	}
	var refusal func(from, to *url.URL) string // set below, once robots.txt is read
	var (
		mu        sync.Mutex
		switchWhy []string // start pages that need JavaScript, and why
	)
	batch := a.batch(o)
	w := newOutcomeWriter(inFlightPages(batch.Parallelism), func(outs []db.FetchOutcome) error {
		// Results in hand are saved even when the activity is being
		// cancelled: a retry then need not fetch them again, and a crawl
		// that ended refuses them anyway.
		saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := a.Store.SaveFetches(saveCtx, c.ID, outs); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, o := range outs {
			if o.RetryIn > 0 {
				res.Retried++
				continue
			}
			res.count(o.State)
		}
		return nil
	})
	defer w.close()
	save := func(outs []db.FetchOutcome) {
		for _, o := range outs {
			w.add(o)
		}
	}
	emit := func(r fetch.Result) {
		if r.Err != nil && ctx.Err() != nil {
			return // cut short by the cancellation: leave the page claimed
		}
		// The outcome's lookups run even if the activity is being cancelled,
		// so that a page in hand is not recorded as failed for that.
		page := byURL[r.URL]
		out := a.outcome(context.WithoutCancel(ctx), c, page, r, rl, refusal, in.NoLinks)
		out.Engine = engineName
		if out.State == db.PageFailed {
			retryLater(c, page, r, &out)
		}
		if in.Detect && page.Depth == 0 && out.State == db.PageFetched {
			if js, why := browser.NeedsJavaScript(r.Body); js {
				out.State, out.HTML = db.PageQueued, ""
				out.Error = "needs JavaScript (" + why + "); queued again for the browser engine"
				mu.Lock()
				switchWhy = append(switchWhy, r.URL+": "+why)
				mu.Unlock()
			}
		}
		done.Add(1)
		w.add(out)
	}
	urls, delay, policies, err := a.applyRobots(ctx, c, o, urls, byURL, save)
	if err != nil {
		return FetchPagesResult{}, err
	}
	// A redirect is followed only where a link would be: on the site, in
	// scope and path rules, allowed by robots.txt, and not to a page the
	// crawl already has (which would be fetched twice).
	refusal = func(from, to *url.URL) string {
		target, err := urlnorm.Clean(nil, to.String())
		switch {
		case err != nil:
			return fmt.Sprintf("redirects to an unusable URL (%v)", err)
		case !rl.scope.SameSite(target):
			return fmt.Sprintf("redirects to another site: %s", target)
		}
		if source, err := urlnorm.Clean(nil, from.String()); err == nil && urlnorm.Key(source) == urlnorm.Key(target) {
			return "" // /docs -> /docs/, http -> https and the like
		}
		if !rl.follows(target) {
			return fmt.Sprintf("redirects outside the crawl's scope or path rules: %s", target)
		}
		if policy, ok := policies[origin(target)]; ok && !policy.Allows(target.RequestURI()) {
			return fmt.Sprintf("redirects to %s, which the site's robots.txt disallows", target)
		}
		if known, err := a.Store.Known(ctx, c.ID, urlnorm.Key(target)); err == nil && known {
			return fmt.Sprintf("redirects to %s, which this crawl already has", target)
		}
		return ""
	}
	batch.Delay = delay
	batch.Admit = func(u string) bool { return w.admit(ctx, byURL[u].ID) }
	batch.FollowRedirect = func(from, to *url.URL) bool { return refusal(from, to) == "" }
	fetchErr := engine.FetchAll(ctx, urls, batch, emit)
	saveErr := w.close()
	if errors.Is(fetchErr, fetch.ErrNoEgressProxy) {
		return FetchPagesResult{}, nonRetryable(fetchErr)
	}
	if fetchErr != nil {
		return FetchPagesResult{}, fetchErr
	}
	if saveErr != nil {
		return FetchPagesResult{}, saveErr
	}
	if len(switchWhy) > 0 {
		res.SwitchTo = crawl.EnginePlaywright
		sort.Strings(switchWhy)
		entry := db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: "engine-switch", Level: "info", Message: "Engine switched",
			Description: fmt.Sprintf("The start page needs JavaScript (%s): the crawl goes on with the browser engine (playwright).",
				strings.Join(switchWhy, "; ")),
			Data: map[string]any{"url": o.StartURLs[0], "statusCode": 0, "engine": crawl.EnginePlaywright}}
		if err := a.Store.InsertLogs(ctx, []db.CrawlLog{entry}); err != nil {
			return FetchPagesResult{}, err
		}
	}
	return res, nil
}

// applyRobots drops the URLs robots.txt disallows (saving them as skipped
// through save) and returns the others with the longest Crawl-delay of
// their sites, and the sites' policies. Without ObeyRobots it changes
// nothing.
func (a *Activities) applyRobots(ctx context.Context, c *db.Crawl, o crawl.Options, urls []string, byURL map[string]db.Page, save func([]db.FetchOutcome)) ([]string, time.Duration, map[string]robots.Policy, error) {
	if !a.Settings.ObeyRobots || len(urls) == 0 {
		return urls, 0, nil, nil
	}
	parsed := make(map[string]*url.URL, len(urls))
	var origins []string
	seen := map[string]bool{}
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil {
			continue
		}
		parsed[u] = pu
		if o := origin(pu); !seen[o] {
			seen[o] = true
			origins = append(origins, o)
		}
	}
	policies, err := a.sitePolicies(ctx, c, o, origins)
	if err != nil {
		return nil, 0, nil, err
	}
	var (
		kept       []string
		disallowed []db.FetchOutcome
		delay      time.Duration
	)
	for _, u := range urls {
		pu, ok := parsed[u]
		if !ok {
			kept = append(kept, u)
			continue
		}
		policy := policies[origin(pu)]
		if !policy.Allows(pu.RequestURI()) {
			disallowed = append(disallowed, db.FetchOutcome{PageID: byURL[u].ID, State: db.PageSkipped,
				Error: "disallowed by the site's robots.txt; not fetched"})
			continue
		}
		kept = append(kept, u)
		delay = max(delay, policy.CrawlDelay())
	}
	save(disallowed)
	return kept, delay, policies, nil
}

// inFlightPages bounds a batch's pages in flight: admitted for fetching and
// not saved yet. Twice the parallelism lets one group of responses be saved
// while the next is fetched; a worker that dies loses at most these.
func inFlightPages(parallelism int) int { return 2 * parallelism }

// Retries of a page whose fetch failed for a passing reason (see
// fetch.Transient): at most fetchAttempts fetches in all (timeoutAttempts
// when it timed out, which costs a whole page timeout each time), the
// n-th retry after 2^(n-1) seconds, or after the wait the server asked
// for (up to maxFetchRetryAfter).
const (
	fetchAttempts      = 6
	timeoutAttempts    = 2
	maxFetchRetryAfter = time.Minute
)

// retryLater turns the failed fetch out of page into a retry when the
// failure may pass and the page has attempts left: the page goes back to
// the frontier, and a warn entry says so.
func retryLater(c *db.Crawl, page db.Page, r fetch.Result, out *db.FetchOutcome) {
	attempts := fetchAttempts
	if r.StatusCode == 0 && fetch.Timeout(r.Err) {
		attempts = timeoutAttempts
	}
	attempt := page.Attempts + 1 // the one that just failed
	if !fetch.Transient(r) || attempt >= attempts {
		if page.Attempts > 0 {
			out.Error = fmt.Sprintf("%s (after %d attempts)", out.Error, attempt)
		}
		return
	}
	delay := time.Duration(1<<page.Attempts) * time.Second
	if r.RetryAfter > 0 {
		delay = min(r.RetryAfter, maxFetchRetryAfter)
	}
	why := out.Error
	out.State, out.HTML, out.Links, out.RetryIn = db.PageQueued, "", nil, delay
	out.Log = &db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: fmt.Sprintf("retry:%d:%d", page.ID, attempt),
		Level: "warn", Message: "Page retried",
		Description: fmt.Sprintf("Attempt %d of %d to fetch %s failed: %s. It is tried again in %s.",
			attempt, attempts, page.URL, why, delay),
		Data: map[string]any{"url": page.URL, "statusCode": r.StatusCode, "depth": page.Depth,
			"attempt": attempt, "retryInSeconds": delay.Seconds(), "error": why}}
}

func (r *FetchPagesResult) count(state string) {
	switch state {
	case db.PageFetched, db.PageStored:
		r.Fetched++
	case db.PageFailed:
		r.Failed++
	default:
		r.Skipped++
	}
}

// outcome decides what a fetch result means for the crawl.
// With noLinks the page's links are not followed (a sitemap crawl).
func (a *Activities) outcome(ctx context.Context, c *db.Crawl, p db.Page, r fetch.Result, rl rules, refusal func(from, to *url.URL) string, noLinks bool) db.FetchOutcome {
	out := db.FetchOutcome{
		PageID: p.ID, FinalURL: r.FinalURL, StatusCode: r.StatusCode, ContentType: r.ContentType,
		Bytes: len(r.Body), FetchMS: int(r.Duration / time.Millisecond),
	}
	switch {
	case r.Err != nil && r.StatusCode == 0:
		out.State, out.Error = db.PageFailed, describeFetchError(r.Err)
		return out
	case r.Location != "":
		// A redirect FollowRedirect declined: say why.
		out.State, out.Error = db.PageSkipped, fmt.Sprintf("redirects to %s, not followed", r.Location)
		from, err1 := url.Parse(r.FinalURL)
		if err1 == nil {
			if to, err := from.Parse(r.Location); err == nil {
				if why := refusal(from, to); why != "" {
					out.Error = why
				}
			}
		}
		return out
	case r.StatusCode < 200 || r.StatusCode > 299:
		out.State, out.Error = db.PageFailed, fmt.Sprintf("the server answered %d", r.StatusCode)
		return out
	case !r.IsHTML():
		out.State, out.Error = db.PageSkipped, fmt.Sprintf("not an HTML page (%s)", r.ContentType)
		return out
	}

	final, err := urlnorm.Clean(nil, r.FinalURL)
	if err != nil {
		out.State, out.Error = db.PageFailed, fmt.Sprintf("redirected to an unusable URL: %v", err)
		return out
	}
	if key := urlnorm.Key(final); key != p.NormalizedURL {
		if !rl.scope.SameSite(final) {
			out.State, out.Error = db.PageSkipped, fmt.Sprintf("redirected to another site: %s", final)
			return out
		}
		owned, err := a.Store.ClaimRedirectTarget(ctx, c.ID, p.ID, db.NewPage{URL: final.String(), NormalizedURL: key, Depth: p.Depth})
		if err != nil {
			out.State, out.Error = db.PageFailed, err.Error()
			return out
		}
		if !owned {
			out.State, out.Error = db.PageSkipped, fmt.Sprintf("redirected to %s, which this crawl already has", final)
			return out
		}
	}

	if !noLinks && (rl.depthLimit < 0 || p.Depth+1 <= rl.depthLimit) {
		out.Links = links(final, r.Links, rl, p.Depth+1, p.Rank)
	}
	if !rl.stores(final) {
		// Only start pages get here: links to such pages are not followed.
		out.State, out.Error = db.PageSkipped, "excluded by includeOnlyPaths/excludePaths; fetched only to discover links"
		return out
	}
	if canon, ok := canonical(final, r.Canonical, rl); ok {
		// The page is crawled under its canonical address: queued there if
		// the crawl does not know it yet, skipped here. When the canonical
		// page itself was not kept (it failed, or two pages name each
		// other), this copy is stored.
		key := urlnorm.Key(canon)
		state, known, err := a.Store.StateOf(ctx, c.ID, key)
		switch {
		case err != nil:
			out.State, out.Error = db.PageFailed, err.Error()
			return out
		case !known || state == db.PageQueued:
			out.State, out.Error = db.PageSkipped, fmt.Sprintf("its canonical URL is %s; the page is crawled under that address", canon)
			out.Links = append([]db.NewPage{{URL: canon.String(), NormalizedURL: key, Depth: p.Depth, Rank: p.Rank}}, out.Links...)
			return out
		case state != db.PageSkipped && state != db.PageFailed:
			out.State, out.Error = db.PageSkipped, fmt.Sprintf("its canonical URL %s is a page this crawl already has", canon)
			return out
		}
	}

	out.State, out.HTML = db.PageFetched, string(r.Body)
	if r.Truncated {
		out.Error = fmt.Sprintf("the response was cut off at %d bytes", len(r.Body))
	}
	return out
}

// canonical returns a page's rel=canonical URL when it names another page
// of the crawl's scope: that page and this one are one, and only one of
// them is stored.
func canonical(page *url.URL, href string, rl rules) (*url.URL, bool) {
	if href == "" {
		return nil, false
	}
	u, err := urlnorm.Clean(page, href)
	if err != nil || urlnorm.Key(u) == urlnorm.Key(page) || !rl.follows(u) || len(u.String()) > crawl.MaxURLLength {
		return nil, false
	}
	return u, true
}

// links returns the URLs among hrefs that the crawl follows, cleaned and
// without repeats, ranked after the page that links to them.
func links(page *url.URL, hrefs []string, rl rules, depth int, parentRank string) []db.NewPage {
	seen := make(map[string]bool, len(hrefs))
	var out []db.NewPage
	for _, h := range hrefs {
		if len(h) > crawl.MaxURLLength {
			continue // no real page has such an address; it would not fit the index
		}
		u, err := urlnorm.Clean(page, h)
		if err != nil || !rl.follows(u) || len(u.String()) > crawl.MaxURLLength {
			continue
		}
		key := urlnorm.Key(u)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, db.NewPage{URL: u.String(), NormalizedURL: key, Depth: depth, Rank: childRank(parentRank, len(out))})
	}
	return out
}

// heartbeatEvery is how often long activities report that they live; the
// workflow's heartbeat timeout is a few times longer.
const heartbeatEvery = 5 * time.Second

// keepAlive heartbeats with progress() until the returned stop is called.
// Heartbeats also deliver the activity's cancellation.
func keepAlive(ctx context.Context, progress func() any) (stop func()) {
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

// maxRankLength bounds ranks (3 characters a level, 64 levels) so that
// they stay small in the frontier index.
const maxRankLength = 3 * 64

// childRank returns the rank of the i-th link of a page ranked parent: the
// parent's rank and i in three base-36 digits, so that ranks sort as a
// sequential breadth-first crawl would visit the pages.
func childRank(parent string, i int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	if len(parent) >= maxRankLength {
		return parent // very deep pages share their ancestor's rank; ids order them
	}
	i = min(i, 36*36*36-1)
	return parent + string([]byte{digits[i/(36*36)], digits[i/36%36], digits[i%36]})
}

func describeFetchError(err error) string {
	if fetch.Forbidden(err) {
		return "refused: the address is private, loopback, link-local or reserved (set CRAWLER_ALLOW_PRIVATE_NETWORKS=true to allow it)"
	}
	if fetch.Timeout(err) {
		return "timeout: the page did not answer within the page timeout (CRAWLER_PAGE_TIMEOUT)"
	}
	msg := err.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	return msg
}

// ConvertPagesInput names a fetch batch whose pages are to be converted.
type ConvertPagesInput struct {
	CrawlID string
	Batch   int
	// Budget is the most result pages the crawl may hold.
	Budget int
	// StoreLater leaves the converted pages to DeduplicatePages. Runs
	// begun before deduplication was an activity of its own schedule
	// ConvertPages without it: it then stores the pages itself.
	StoreLater bool `json:",omitempty"`
}

// ConvertPagesResult counts the batch's converted pages and, without
// StoreLater, its new result pages.
type ConvertPagesResult struct {
	Converted int
	Stored    int
	Skipped   int
	// TotalPages is the crawl's result count afterwards, right even when an
	// earlier attempt of this activity stored part of the batch.
	TotalPages int
}

// ConvertPages turns the batch's fetched HTML into markdown. Pages are
// loaded, converted (on every core) and saved in groups, one transaction
// a group; a page the converter fails on is skipped and says why.
func (a *Activities) ConvertPages(ctx context.Context, in ConvertPagesInput) (ConvertPagesResult, error) {
	var progress atomic.Int64
	defer keepAlive(ctx, func() any { return progress.Load() })()
	c, o, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	ids, err := a.Store.FetchedPages(ctx, c.ID, in.Batch)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	rl, err := rulesOf(o)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	mdOptions := markdown.Options{
		MainContentOnly: o.ExcludeNonMainTags,
		IncludeLinks:    o.IncludeLinks,
		IncludeOnlyTags: o.IncludeOnlyTags,
		ExcludeTags:     o.ExcludeTags,
	}
	if !o.IncludeExternalLinks {
		mdOptions.KeepLink = rl.scope.SameSite
	}
	// Three steps overlap: the next group of pages loads from the database
	// while this one converts on every core and the last one is saved.
	stop := make(chan struct{})
	defer close(stop)
	loads := a.loadGroups(ctx, c.ID, ids, stop)
	type group struct {
		ids     []int64
		results []converted
	}
	var res ConvertPagesResult
	saves := make(chan group, 1)
	saved := make(chan error, 1)
	var saveFailed atomic.Bool
	go func() {
		var err error
		for g := range saves {
			if err == nil {
				err = a.saveConverted(ctx, c.ID, g.ids, g.results, &res)
				progress.Store(int64(res.Converted + res.Skipped))
				saveFailed.Store(err != nil)
			}
		}
		saved <- err
	}()
	var loadErr error
	for l := range loads {
		if loadErr = l.err; loadErr != nil || saveFailed.Load() {
			break // a failed save fails the activity: converting on is wasted
		}
		results := convertAll(ctx, l.pages, mdOptions)
		if ctx.Err() != nil {
			break
		}
		// The saver needs the page IDs only: the HTML is let go here.
		ids := make([]int64, len(l.pages))
		for i, p := range l.pages {
			ids[i] = p.ID
		}
		saves <- group{ids, results}
	}
	close(saves)
	saveErr := <-saved
	switch {
	case loadErr != nil:
		return res, loadErr
	case ctx.Err() != nil:
		return res, ctx.Err()
	case saveErr != nil:
		return res, saveErr
	}
	if !in.StoreLater {
		// These crawls began without deduplication: they end without it.
		o.DeduplicateContent = false
		stored, err := a.storeBatch(ctx, c, o, in.Batch, in.Budget)
		if err != nil {
			return res, err
		}
		res.Stored, res.Skipped, res.TotalPages = stored.Stored, res.Skipped+stored.Skipped, stored.TotalPages
	}
	return res, nil
}

// DeduplicatePagesInput names a fetch batch whose converted pages are to
// become results.
type DeduplicatePagesInput struct {
	CrawlID string
	Batch   int
	// Budget is the most result pages the crawl may hold.
	Budget int
}

// DeduplicatePagesResult counts the batch's new result pages.
type DeduplicatePagesResult struct {
	Stored  int
	Skipped int
	// TotalPages is the crawl's result count afterwards.
	TotalPages int
	// Extract lists the batch's result pages that wait for LLM extraction
	// (a crawl with extraction instructions).
	Extract []int64 `json:",omitempty"`
}

// DeduplicatePages makes the batch's converted pages results, in crawl
// order: with deduplicateContent, each page loses the text fragments an
// earlier page of the crawl holds (its raw markdown is kept as well).
func (a *Activities) DeduplicatePages(ctx context.Context, in DeduplicatePagesInput) (DeduplicatePagesResult, error) {
	defer keepAlive(ctx, func() any { return in.Batch })()
	c, o, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	res, err := a.storeBatch(ctx, c, o, in.Batch, in.Budget)
	if err != nil || o.Extraction == "" {
		return res, err
	}
	res.Extract, err = a.Store.PendingExtractions(ctx, c.ID, in.Batch)
	return res, err
}

// storeBatch stores the converted pages of a batch as results.
func (a *Activities) storeBatch(ctx context.Context, c *db.Crawl, o crawl.Options, batch, budget int) (DeduplicatePagesResult, error) {
	stored, err := a.Store.StoreConverted(ctx, c.ID, batch, budget, o.DeduplicateContent)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	after, err := a.Store.CrawlByID(ctx, c.ID)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	return DeduplicatePagesResult{Stored: stored.Stored, Skipped: stored.Skipped, TotalPages: after.TotalPages}, nil
}

// loadedGroup is a group of fetched pages with their HTML, or why it
// could not be loaded.
type loadedGroup struct {
	pages []db.Page
	err   error
}

// loadGroups loads the pages ids with their HTML, convertGroup at a time,
// one group ahead of the reader, until stop is closed. After an error it
// sends nothing more.
func (a *Activities) loadGroups(ctx context.Context, crawlID uuid.UUID, ids []int64, stop <-chan struct{}) <-chan loadedGroup {
	loads := make(chan loadedGroup, 1)
	go func() {
		defer close(loads)
		for start := 0; start < len(ids); start += convertGroup {
			pages, err := a.Store.PagesWithHTML(ctx, crawlID, ids[start:min(start+convertGroup, len(ids))])
			select {
			case loads <- loadedGroup{pages, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return loads
}

// convertAll converts pages on every core; it stops early when ctx ends.
func convertAll(ctx context.Context, pages []db.Page, o markdown.Options) []converted {
	results := make([]converted, len(pages))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(pages)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(pages) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				results[i] = convertPage(pages[i], o)
			}
		}()
	}
	wg.Wait()
	return results
}

// saveConverted records a group's conversions: the markdown of the pages
// converted, and why the others (ids[i] for results[i]) were skipped. It
// counts them in res.
func (a *Activities) saveConverted(ctx context.Context, crawlID uuid.UUID, ids []int64, results []converted, res *ConvertPagesResult) error {
	var ready []db.Converted
	for i, r := range results {
		if r.err != nil {
			if err := a.Store.SkipPage(ctx, crawlID, ids[i], fmt.Sprintf("could not convert the page: %v", r.err)); err != nil {
				return err
			}
			res.Skipped++
			continue
		}
		ready = append(ready, r.page)
	}
	if err := a.Store.SaveConverted(ctx, crawlID, ready); err != nil {
		return err
	}
	res.Converted += len(ready)
	return nil
}

// converted is the outcome of converting one page.
type converted struct {
	page db.Converted
	err  error
}

// convertPage turns one fetched page into markdown; o is copied, so that
// pages convert concurrently.
func convertPage(p db.Page, o markdown.Options) (out converted) {
	// It runs on goroutines of its own, where a panic in the HTML libraries
	// would end the worker: it ends this page instead.
	defer func() {
		if r := recover(); r != nil {
			out = converted{err: fmt.Errorf("the converter failed: %v", r)}
		}
	}()
	base := p.URL
	if p.FinalURL != nil {
		base = *p.FinalURL
	}
	o.PageURL, _ = url.Parse(base)
	began := time.Now()
	doc, err := markdown.Convert([]byte(deref(p.HTML)), o)
	if err != nil {
		return converted{err: err}
	}
	return converted{page: db.Converted{PageID: p.ID, Title: doc.Title, Markdown: doc.Markdown,
		ConvertMS: int(time.Since(began) / time.Millisecond)}}
}

// convertGroup is how many pages ConvertPages loads and stores at once:
// with one group loading while another converts, at most twice this many
// pages' HTML is held.
const convertGroup = 16

// WriteLogsInput names a batch whose pages get their log entries.
type WriteLogsInput struct {
	CrawlID string
	Batch   int
}

// WriteLogs writes the log entries of every page of the batch that
// reached a final state: one a page, and one more for a result page whose
// extraction failed. Entries are keyed by page, so a retry adds nothing.
func (a *Activities) WriteLogs(ctx context.Context, in WriteLogsInput) (int, error) {
	c, _, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil {
		return 0, err
	}
	pages, err := a.Store.BatchPages(ctx, c.ID, in.Batch)
	if err != nil {
		return 0, err
	}
	var logs []db.CrawlLog
	for _, p := range pages {
		logs = append(logs, pageLogs(c, p)...)
	}
	return len(logs), a.Store.InsertLogs(ctx, logs)
}

// pageLogs returns the log entries of a page in a final state: the page's
// own, and for a result page whose extraction failed or never finished, an
// error entry saying why.
func pageLogs(c *db.Crawl, p db.Page) []db.CrawlLog {
	e, ok := pageLog(c, p)
	if !ok {
		return nil
	}
	logs := []db.CrawlLog{e}
	if p.State != db.PageStored || c.Extraction == "" {
		return logs
	}
	why := deref(p.ExtractionError)
	if p.ExtractedAt == nil {
		why = "the extraction did not finish (the LLM task queue did not answer, or the crawl ended first)"
	}
	if why == "" {
		return logs
	}
	return append(logs, db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: fmt.Sprintf("extraction:%d", p.ID),
		Level: "error", Message: "Extraction failed",
		Description: fmt.Sprintf("The extraction instructions could not be run on %s: %s. The page is kept without an extraction.", p.URL, why),
		Data:        map[string]any{"url": p.URL, "statusCode": derefInt(p.StatusCode), "error": why}})
}

// pageLog returns the log entry of a page in a final state.
func pageLog(c *db.Crawl, p db.Page) (db.CrawlLog, bool) {
	status := derefInt(p.StatusCode)
	data := map[string]any{"url": p.URL, "statusCode": status, "depth": p.Depth}
	if p.FinalURL != nil && *p.FinalURL != p.URL {
		data["finalUrl"] = *p.FinalURL
	}
	e := db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: fmt.Sprintf("page:%d", p.ID), Data: data}
	note := strings.TrimSpace(deref(p.Error))
	switch p.State {
	case db.PageStored:
		e.Level, e.Message = "info", "Page crawled"
		e.Description = fmt.Sprintf("Fetched %s (depth %d, status %d, %d ms) and stored its markdown.",
			p.URL, p.Depth, status, derefInt(p.FetchMS))
		if t := deref(p.Title); t != "" {
			data["title"] = t
		}
		if removed := derefInt(p.FragmentsRemoved); removed > 0 {
			total := derefInt(p.Fragments)
			data["fragments"], data["fragmentsRemoved"] = total, removed
			if removed == total {
				e.Description += fmt.Sprintf(" All of its %d text fragments already appeared on other pages of the crawl:"+
					" its deduplicated markdown is empty (the page still counts as a result, and its raw markdown is kept).", total)
			} else {
				e.Description += fmt.Sprintf(" %d of its %d text fragments already appeared on other pages of the crawl and were removed.", removed, total)
			}
		}
		if p.ExtractedAt != nil && p.ExtractionError == nil {
			data["extracted"] = true
		}
		if note != "" {
			e.Level = "warn"
			e.Description += " Note: " + note + "."
		}
	case db.PageFailed:
		e.Level, e.Message = "error", "Page failed"
		e.Description = fmt.Sprintf("Could not crawl %s: %s.", p.URL, note)
		if status >= 400 && status < 500 && status != http.StatusTooManyRequests && p.Attempts == 0 {
			e.Level = "warn" // the page is missing or refused: the site's state, not a failure
		}
		if p.Attempts > 0 {
			data["attempts"] = p.Attempts + 1
		}
		data["error"] = note
	case db.PageSkipped:
		e.Level, e.Message = "info", "Page skipped"
		e.Description = fmt.Sprintf("Skipped %s: %s.", p.URL, note)
		data["reason"] = note
	default:
		return db.CrawlLog{}, false
	}
	return e, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}
