package batch

// Judging a fetched page: robots.txt and path rules before the fetch,
// frontier.Judge and its questions to the store after, and the hand-off
// of pages that need JavaScript to the browser.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/hostbudget"
)

// applyRobots drops the URLs robots.txt disallows (saving them as
// skipped) and returns the others with the longest Crawl-delay of their
// sites. Without ObeyRobots it changes nothing.
func (b *Batch) applyRobots(ctx context.Context, o crawl.Options, urls []string) ([]string, time.Duration, error) {
	if !b.e.ObeyRobots || len(urls) == 0 {
		return urls, 0, nil
	}
	var err error
	if b.policies, err = b.robots.Policies(ctx, b.crawl.ID, b.request, frontier.Origins(urls)); err != nil {
		return nil, 0, err
	}
	allowed, disallowed, delay := frontier.ApplyRobots(urls, b.policies)
	for _, u := range disallowed {
		b.writer.add(db.FetchOutcome{PageID: b.claimed[u].ID, State: crawl.PageSkipped, Error: crawllog.Reason(crawl.Because(crawl.PageRobotsDisallowed)),
			Cause: crawl.PageRobotsDisallowed})
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
func (b *Batch) noticeWait(ctx context.Context) func(hostbudget.Wait) {
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
func (b *Batch) dropExcluded(urls []string) []string {
	kept := urls[:0:0]
	for _, u := range urls {
		p := b.claimed[u]
		if parsed, err := url.Parse(u); err == nil && p.Depth > 0 && !b.rules.Keeps(parsed) {
			b.writer.add(db.FetchOutcome{PageID: p.ID, State: crawl.PageSkipped, Error: crawllog.Reason(crawl.Because(crawl.PageExcludedByChange)),
				Cause: crawl.PageExcludedByChange})
			continue
		}
		kept = append(kept, u)
	}
	return kept
}

// refusal returns the crawl's frontier.Refusal: why a redirect is not
// followed.
func (b *Batch) refusal(ctx context.Context) frontier.Refusal {
	known := func(key string) bool {
		_, known, err := b.store.StateOf(ctx, b.crawl.ID, key)
		return err == nil && known
	}
	return func(from, to *url.URL) (crawl.PageCause, bool) {
		return b.rules.RedirectRefusal(from, to, b.policies, known)
	}
}

// judge decides what a fetch result means for its page, asking the
// database what the rules need, and hands the outcome to the writer.
func (b *Batch) judge(ctx context.Context, r fetch.Result, refusal frontier.Refusal) {
	if r.Err != nil && ctx.Err() != nil {
		return // cut short by the cancellation: leave the page claimed
	}
	if r.Skipped != "" {
		// Claimed before the batch learnt not to fetch it.
		page := b.claimed[r.URL]
		b.judged.Add(1)
		b.writer.add(db.FetchOutcome{PageID: page.ID, URL: page.URL, State: crawl.PageSkipped, Error: r.Skipped, Cause: crawl.PageRepeatingPattern})
		return
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
func (b *Batch) decide(ctx context.Context, r fetch.Result, refusal frontier.Refusal) {
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
		owned, err := b.store.ClaimRedirectTarget(ctx, b.crawl.ID, page.ID, NewPages([]frontier.Link{target})[0], note)
		out = out.Redirected(owned, err)
	}
	if canon, ok := out.CanonicalTarget(); ok {
		out = out.Canonicalized(b.store.StateOf(ctx, b.crawl.ID, canon.Key))
	}
	var toBrowser *crawl.JavaScriptSign // why the page goes to the browser alone
	// Only a static fetch is judged: a rendered page has had its scripts.
	if static && b.in.Detect && !notModified && out.State == crawl.PageFetched && !r.IsPDF() && (page.Depth == 0 || b.in.RenderDeep) {
		out, toBrowser = b.detect(ctx, page, out, r)
	}
	rec := db.FetchOutcome{PageID: page.ID, URL: page.URL, FinalURL: r.FinalURL, StatusCode: status, ContentType: r.ContentType,
		Bytes: len(r.Body), FetchMS: int(r.Duration / time.Millisecond), Engine: b.engineName,
		State: out.State, Error: crawllog.Reason(out.Cause), Links: NewPages(out.Links), Render: toBrowser != nil}
	if out.State == crawl.PageFailed || out.State == crawl.PageSkipped {
		rec.Cause = out.Cause.Kind
	}
	switch {
	case rec.State != crawl.PageFetched:
	case r.IsPDF() && b.markdown == nil:
		// Kept for ConvertPages, which reads HTML only: an older run's.
		rec.State, rec.Error, rec.Cause = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFHTMLOnly)), crawl.PagePDFHTMLOnly
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
	if !b.crawl.KeepSimilarURLs {
		rec.ContentKey = contentKey(rec)
	}
	if toBrowser != nil {
		rec.Logs = append(rec.Logs, crawllog.SentToBrowser(b.crawl, page, *toBrowser))
	}
	if r.Replayed > 0 {
		rec.Logs = append(rec.Logs, crawllog.Replayed(b.crawl, page, r.Replayed))
	}
	if out.Retry != nil {
		rec.RetryIn = out.Retry.In
		rec.Logs = append(rec.Logs, crawllog.Retried(b.crawl, page, r.StatusCode, out.Cause, *out.Retry))
	}
	b.judged.Add(1)
	b.writer.add(rec)
}

// detect sends page, fetched statically, to the browser when it needs
// JavaScript: a start page switches the crawl (switchWhy), a deeper one
// goes alone and toBrowser says why; so does a page whose links its
// scripts draw (scriptedLinks), whatever its depth: its content is in its
// HTML, its links are not, and the crawl stays static.
func (b *Batch) detect(ctx context.Context, page crawl.Page, out frontier.Outcome, r fetch.Result) (frontier.Outcome, *crawl.JavaScriptSign) {
	why, js := browser.NeedsJavaScript(r.Body)
	if !js {
		if why, js = b.scriptedLinks(ctx, page, out, r.Body); !js {
			return out, nil
		}
	} else if page.Depth == 0 {
		b.mu.Lock()
		b.switchWhy = append(b.switchWhy, crawllog.JavaScriptPage{URL: r.URL, Sign: why})
		b.mu.Unlock()
		return out.ToBrowser(why), nil
	}
	b.mu.Lock()
	b.res.ToBrowser++
	b.mu.Unlock()
	return out.ToBrowser(why), &why
}

// skipStopped is the batch's fetch.Batch.Skip: a claimed page under an
// address pattern the crawl stopped while the batch ran (it leads to
// duplicates) is not fetched.
func (b *Batch) skipStopped(u string) string {
	b.mu.Lock()
	stopped := b.stopped
	b.mu.Unlock()
	for _, p := range stopped {
		if p.MatchesURL(u) {
			return crawllog.Reason(crawl.PageCause{Kind: crawl.PageRepeatingPattern, Detail: p.String()})
		}
	}
	return ""
}

// scriptedLinks reports whether a page fetched statically offers
// (almost) no links to follow in its HTML while its scripts may draw them
// (a menu bar or a side tree built from a script's data), and why: such a
// page is rendered once to find its links (in browser batches: only with
// RenderDeep), unless a page running the same scripts was (their
// navigation is known). A page whose links are not followed (its depth is
// the crawl's limit, the crawl follows its sitemaps) is not.
func (b *Batch) scriptedLinks(ctx context.Context, page crawl.Page, out frontier.Outcome, body []byte) (crawl.JavaScriptSign, bool) {
	if !b.in.RenderDeep || b.in.NoLinks && !b.crawl.SitemapAndLinks || !b.rules.FollowsLinksOf(page.Depth) {
		return crawl.JavaScriptSign{}, false
	}
	links := 0
	for _, l := range out.Links {
		if l.Key != page.NormalizedURL {
			links++
		}
	}
	why, scripts, ok := browser.ScriptedLinks(body, page.URL, links)
	if !ok {
		return why, false
	}
	// Pages running the same scripts draw the same links: the first
	// page rendered found them. A claim that cannot be read renders
	// nothing.
	first, err := b.store.ClaimLinkScripts(ctx, b.crawl.ID, page.ID, scripts)
	return why, err == nil && first
}

// contentKey names a converted page's content for finding pages of the
// crawl with the same (db.FetchOutcome.ContentKey): the hash of its
// markdown, which change tracking keeps too. A page without text has no
// key: pages that came out empty are not one page.
func contentKey(rec db.FetchOutcome) string {
	switch {
	case rec.State != crawl.PageConverted:
		return ""
	case rec.Converted != nil && strings.TrimSpace(rec.Converted.Markdown) != "":
		return changes.Hash([]byte(rec.Converted.Markdown))
	case rec.Converted == nil && rec.Change != nil && rec.Change.Reuse && rec.Change.MarkdownHash != emptyMarkdown:
		return rec.Change.MarkdownHash // the previous crawl's markdown, reused
	}
	return ""
}

// emptyMarkdown is the hash of no markdown.
var emptyMarkdown = changes.Hash(nil)

// NewPages turns frontier links into the rows that enqueue them.
func NewPages(links []frontier.Link) []db.NewPage {
	out := make([]db.NewPage, len(links))
	for i, l := range links {
		out[i] = db.NewPage{URL: l.URL, NormalizedURL: l.Key, Depth: l.Depth, Rank: l.Rank}
	}
	return out
}
