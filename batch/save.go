package batch

// Saving a batch's outcomes (through the writer of writer.go) and what
// the batch reports.

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/urlpattern"
)

// save records a group of outcomes and counts them. Results in hand are
// saved even when the activity is being cancelled: a retry then need not
// fetch them again, and a crawl that ended refuses them anyway.
func (b *Batch) save(outs []db.FetchOutcome) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.mu.Lock()
	stopped := b.stopped
	b.mu.Unlock()
	for i := range outs {
		outs[i].Links = b.disallowed(b.links.Unknown(b.crawl.ID, outs[i].Links))
		if len(stopped) > 0 {
			outs[i].Links = slices.DeleteFunc(outs[i].Links, func(l db.NewPage) bool {
				return slices.ContainsFunc(stopped, func(p urlpattern.Pattern) bool { return p.MatchesURL(l.URL) })
			})
		}
	}
	words := saveWords
	words.Skipped = func(p crawl.Page) []crawl.CrawlLog { return crawllog.Pages(b.crawl, p) }
	saved, err := b.store.SaveFetches(ctx, b.crawl.ID, outs, words)
	if err != nil {
		return err
	}
	if err := b.notePatterns(ctx, outs); err != nil {
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

// notePatterns counts the patterns of addresses (urlpattern) under which
// pages of outs turned out to repeat pages the crawl has; a pattern that
// keeps leading to duplicates is no longer crawled (db.NoteDuplicates).
func (b *Batch) notePatterns(ctx context.Context, outs []db.FetchOutcome) error {
	var patterns []urlpattern.Pattern
	for _, o := range outs {
		if o.State != crawl.PageDuplicate {
			continue
		}
		if p, ok := urlpattern.Of(o.URL, o.DuplicateOfURL); ok {
			patterns = append(patterns, p)
		}
	}
	stopped, err := b.store.NoteDuplicates(ctx, b.crawl.ID, patterns, db.PatternWords{
		Skipped: func(p urlpattern.Pattern) string {
			return crawllog.Reason(crawl.PageCause{Kind: crawl.PageRepeatingPattern, Detail: p.String()})
		},
		Stopped: func(p urlpattern.Pattern, duplicates, skipped int) crawl.CrawlLog {
			return crawllog.PatternStopped(b.crawl, string(p), p.String(), duplicates, skipped)
		},
	})
	b.mu.Lock()
	b.stopped = append(b.stopped, stopped...)
	b.mu.Unlock()
	return err
}

// saveWords word what saving decides.
var saveWords = db.Words{NotRecorded: crawllog.NotRecorded, SameContent: crawllog.SameContent}

// switchEngine, when start pages turned out to need JavaScript, logs that
// the crawl goes on with the browser engine and says so in the result.
func (b *Batch) switchEngine(ctx context.Context) error {
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

// countRenderQueued, for a crawl that sends pages to the browser, says how
// many wait for it.
func (b *Batch) countRenderQueued(ctx context.Context) error {
	if !b.in.RenderDeep {
		return nil
	}
	n, err := b.store.RenderQueued(ctx, b.crawl.ID)
	b.res.RenderQueued = n
	return err
}

// disallowed marks the links robots.txt disallows, on the sites whose
// robots.txt the batch read, as skipped for it: they are recorded as the
// crawl finds them (Firecrawl's robotsBlocked lists them), never fetched,
// whether or not the crawl would have come to them.
func (b *Batch) disallowed(links []db.NewPage) []db.NewPage {
	if !b.e.ObeyRobots || len(b.policies) == 0 {
		return links
	}
	for i, l := range links {
		u, err := url.Parse(l.URL)
		if err != nil {
			continue
		}
		if policy, read := b.policies[frontier.Origin(u)]; read && !policy.Allows(u.RequestURI()) {
			links[i].Skipped, links[i].Error = crawl.PageRobotsDisallowed, crawllog.Reason(crawl.Because(crawl.PageRobotsDisallowed))
		}
	}
	return links
}
