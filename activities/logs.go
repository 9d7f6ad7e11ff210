package activities

import (
	"context"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
)

// logStore is what WriteLogs needs of the database.
type logStore interface {
	crawlLoader
	BatchPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]crawl.Page, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
}

// WriteLogsInput names a batch whose pages get their log entries.
type WriteLogsInput struct {
	CrawlID string
	Batch   int
}

// WriteLogs writes the log entries of every page of the batch that
// reached a final state (crawllog.Pages): one a page, and one more for a
// result page whose extraction failed. Entries are keyed by page, so a
// retry adds nothing.
func (a *Activities) WriteLogs(ctx context.Context, in WriteLogsInput) (int, error) {
	return writeLogs(ctx, a.Store, in)
}

func writeLogs(ctx context.Context, store logStore, in WriteLogsInput) (int, error) {
	c, _, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return 0, err
	}
	return writeBatchLogs(ctx, store, c, in.Batch)
}

// writeBatchLogs writes the log entries of crawl c's pages of batch.
func writeBatchLogs(ctx context.Context, store logStore, c *crawl.Crawl, batch int) (int, error) {
	pages, err := store.BatchPages(ctx, c.ID, batch)
	if err != nil {
		return 0, err
	}
	var logs []crawl.CrawlLog
	for _, p := range pages {
		logs = append(logs, crawllog.Pages(c, p)...)
	}
	return len(logs), store.InsertLogs(ctx, logs)
}
