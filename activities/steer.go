package activities

import (
	"context"
	"net/url"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/frontier"
)

// steerStore is what ApplyCrawlChange needs of the database.
type steerStore interface {
	crawlLoader
	ApplyChange(ctx context.Context, crawlID uuid.UUID, ch crawl.Change, keep func(u *url.URL) bool, reason string,
		logs func(c *crawl.Crawl, skipped []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, []crawl.Page, bool, error)
}

// ApplyCrawlChangeInput is a change to a running crawl, already checked
// by the workflow's update validator.
type ApplyCrawlChangeInput struct {
	CrawlID string
	Change  crawl.Change
	// ChangeID names the change (its Temporal update's ID): its log entry
	// is written once however often the activity runs.
	ChangeID string
}

// ApplyCrawlChangeResult is what the workflow goes on with: the crawl's
// page budget and batch size after the change, and whether it is paused.
// Applied is false when the crawl had ended.
type ApplyCrawlChangeResult struct {
	Applied   bool
	Budget    int
	BatchSize int
	Paused    bool
	Dropped   int
}

// ApplyCrawlChange writes a change to a running crawl (see
// db.ApplyChange): the queued pages its new excludePaths refuse are
// skipped and logged, and the change is logged with who asked for it.
func (a *Activities) ApplyCrawlChange(ctx context.Context, in ApplyCrawlChangeInput) (ApplyCrawlChangeResult, error) {
	return applyCrawlChange(ctx, a.Store, a.Settings, in)
}

func applyCrawlChange(ctx context.Context, store steerStore, s Settings, in ApplyCrawlChangeInput) (ApplyCrawlChangeResult, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return ApplyCrawlChangeResult{}, err
	}
	next := o
	next.ExcludePaths = append(append([]string(nil), o.ExcludePaths...), in.Change.ExcludePaths...)
	rules, err := frontier.RulesOf(next)
	if err != nil {
		return ApplyCrawlChangeResult{}, nonRetryable(err)
	}
	// The entries are written with the change: a retry finds nothing left
	// to skip, and must not lose them.
	entries := func(after *crawl.Crawl, skipped []crawl.Page) []crawl.CrawlLog {
		logs := make([]crawl.CrawlLog, 0, len(skipped)+1)
		for _, p := range skipped {
			logs = append(logs, crawllog.Pages(after, p)...)
		}
		return append(logs, crawllog.Changed(after, in.Change, len(skipped), in.ChangeID))
	}
	after, skipped, ok, err := store.ApplyChange(ctx, c.ID, in.Change, rules.Keeps, crawllog.Reason(crawl.Because(crawl.PageExcludedByChange)), entries)
	if err != nil || !ok {
		return ApplyCrawlChangeResult{}, err
	}
	plan := planOf(after, after.Options, s)
	return ApplyCrawlChangeResult{Applied: true, Budget: plan.Budget, BatchSize: plan.BatchSize, Paused: after.Paused,
		Dropped: len(skipped)}, nil
}
