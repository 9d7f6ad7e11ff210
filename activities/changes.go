package activities

import (
	"context"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
)

// changesStore is what SettleChanges needs of the database.
type changesStore interface {
	crawlLoader
	SettleChanges(ctx context.Context, crawlID uuid.UUID, prev *uuid.UUID, complete bool, noLongerLinked string) (crawl.ChangeCounts, error)
	RemovedAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]crawl.Page, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
}

// SettleChangesInput names a change-tracking crawl that has crawled.
type SettleChangesInput struct {
	CrawlID string
	// Complete is set when the crawl's frontier ran out (it succeeded,
	// and neither its page limit nor its timeout stopped it): a page of
	// the previous crawl it never reached is then no longer linked.
	Complete bool `json:",omitempty"`
}

// SettleChangesResult counts the crawl's result pages by how they compare
// with the previous crawl, and the previous crawl's pages it removed.
type SettleChangesResult struct {
	New, Changed, Same, Removed int
}

// SettleChanges ends the comparison of a change-tracking crawl with the
// previous one (the pages' own statuses were set as they were fetched):
// it marks the previous crawl's pages this one no longer has as removed,
// saves the counts on the crawl and logs them, with an entry for each
// removed page (read a chunk at a time). It does nothing for a crawl
// without change tracking; run again, it writes the same.
func (a *Activities) SettleChanges(ctx context.Context, in SettleChangesInput) (SettleChangesResult, error) {
	return settleChanges(ctx, a.Store, in)
}

func settleChanges(ctx context.Context, store changesStore, in SettleChangesInput) (SettleChangesResult, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil || !o.ChangeTracking {
		return SettleChangesResult{}, err
	}
	counts, err := store.SettleChanges(ctx, c.ID, c.PreviousCrawlID, in.Complete, crawllog.Reason(crawl.Because(crawl.PageNoLongerLinked)))
	if err != nil {
		return SettleChangesResult{}, err
	}
	// The removed pages' entries, settleChunk at a time: a site that
	// shrank may have removed most of a large crawl.
	for after := int64(0); ; {
		removed, err := store.RemovedAfter(ctx, c.ID, after, settleChunk)
		if err != nil {
			return SettleChangesResult{}, err
		}
		if len(removed) == 0 {
			break
		}
		logs := make([]crawl.CrawlLog, len(removed))
		for i, p := range removed {
			logs[i] = crawllog.Removed(c, p)
		}
		if err := store.InsertLogs(ctx, logs); err != nil {
			return SettleChangesResult{}, err
		}
		after = removed[len(removed)-1].ID
	}
	if err := store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.ChangesSettled(c, counts)}); err != nil {
		return SettleChangesResult{}, err
	}
	return SettleChangesResult{New: counts.New, Changed: counts.Changed, Same: counts.Same, Removed: counts.Removed}, nil
}
