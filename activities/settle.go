package activities

import (
	"context"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/dedupe"
)

// settleStore is what SettleDeduplication needs of the database.
type settleStore interface {
	crawlLoader
	StoredAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]db.Page, error)
	SaveSettled(ctx context.Context, crawlID uuid.UUID, pages []db.Settled) error
	InsertLogs(ctx context.Context, logs []db.CrawlLog) error
}

// SettleDeduplicationInput names the crawl to deduplicate.
type SettleDeduplicationInput struct {
	CrawlID string
}

// SettleDeduplicationResult counts the result pages, those that lost
// text repeated elsewhere, and the fragments removed.
type SettleDeduplicationResult struct {
	Pages, Changed, Removed int
}

// settleChunk is how many result pages SettleDeduplication reads at once.
const settleChunk = 200

// SettleDeduplication deduplicates a crawl's result pages as a whole,
// when the crawl ends (with deduplicateContent; otherwise it does
// nothing): every page is known then, so what each keeps does not depend
// on the order pages were fetched in (dedupe.Decide says who keeps what).
// Pages are read twice, a chunk at a time: once for their fragments, once
// to rebuild and save what each keeps, with a log entry for each page that
// lost some. It starts from the raw markdown every time, so a retry
// writes the same.
func (a *Activities) SettleDeduplication(ctx context.Context, in SettleDeduplicationInput) (SettleDeduplicationResult, error) {
	return settleDeduplication(ctx, a.Store, in)
}

func settleDeduplication(ctx context.Context, store settleStore, in SettleDeduplicationInput) (SettleDeduplicationResult, error) {
	var progress atomic.Int64
	defer keepAlive(ctx, func() any { return progress.Load() })()
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil || !o.DeduplicateContent {
		return SettleDeduplicationResult{}, err
	}
	var pages []dedupe.SitePage
	err = eachStored(ctx, store, c.ID, func(chunk []db.Page) error {
		for _, p := range chunk {
			blocks := dedupe.Split(derefString(p.RawMarkdown))
			pages = append(pages, dedupe.SitePage{ID: p.ID, Depth: p.Depth, Rank: p.Rank, URL: p.URL, NoIndex: p.NoIndex,
				Hashes: dedupe.Hashes(blocks)})
		}
		progress.Add(int64(len(chunk)))
		return nil
	})
	if err != nil {
		return SettleDeduplicationResult{}, err
	}
	decision := dedupe.Decide(pages)
	res := SettleDeduplicationResult{Pages: len(pages)}
	err = eachStored(ctx, store, c.ID, func(chunk []db.Page) error {
		settled := make([]db.Settled, len(chunk))
		var logs []db.CrawlLog
		for i, p := range chunk {
			raw := derefString(p.RawMarkdown)
			k := decision.Assemble(p.ID, raw, dedupe.Split(raw))
			settled[i] = db.Settled{PageID: p.ID, Markdown: k.Markdown, Fragments: k.Fragments, Removed: k.Removed}
			if k.Removed > 0 {
				res.Changed++
				res.Removed += k.Removed
				logs = append(logs, crawllog.Deduplicated(c, p, k.Fragments, k.Removed, k.Samples))
			}
		}
		if err := store.SaveSettled(ctx, c.ID, settled); err != nil {
			return err
		}
		progress.Add(int64(len(chunk)))
		return store.InsertLogs(ctx, logs)
	})
	if err != nil || res.Pages == 0 {
		return res, err
	}
	return res, store.InsertLogs(ctx, []db.CrawlLog{crawllog.DeduplicationSettled(c, res.Pages, res.Changed, res.Removed)})
}

// eachStored calls fn with the crawl's result pages, settleChunk at a
// time, in ID order.
func eachStored(ctx context.Context, store settleStore, crawlID uuid.UUID, fn func([]db.Page) error) error {
	var after int64
	for {
		chunk, err := store.StoredAfter(ctx, crawlID, after, settleChunk)
		if err != nil || len(chunk) == 0 {
			return err
		}
		if err := fn(chunk); err != nil {
			return err
		}
		after = chunk[len(chunk)-1].ID
	}
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
