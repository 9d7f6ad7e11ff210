package activities

import (
	"context"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/db"
)

// resultStore is what DeduplicatePages needs of the database.
type resultStore interface {
	crawlLoader
	logStore
	StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int) (db.StoreResult, error)
	PendingExtractions(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error)
}

// DeduplicatePagesInput names a fetch batch whose converted pages are to
// become results.
type DeduplicatePagesInput struct {
	CrawlID string
	Batch   int
	// Budget is the most result pages the crawl may hold.
	Budget int
	// WriteLogs writes the batch's log entries once its pages are stored,
	// as WriteLogs would: for a crawl without extraction, whose entries
	// wait for nothing more.
	WriteLogs bool `json:",omitempty"`
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
	// Logged says the batch's log entries were written (WriteLogs was
	// asked for). A worker older than that field neither writes them nor
	// says so, and the workflow then runs WriteLogs itself.
	Logged bool `json:",omitempty"`
}

// DeduplicatePages makes the batch's converted pages results, in crawl
// order, stored whole: with deduplicateContent, SettleDeduplication
// decides what each keeps when the crawl ends, when every page is known
// (its raw markdown is kept as well).
func (a *Activities) DeduplicatePages(ctx context.Context, in DeduplicatePagesInput) (DeduplicatePagesResult, error) {
	return deduplicatePages(ctx, a.Store, in)
}

func deduplicatePages(ctx context.Context, store resultStore, in DeduplicatePagesInput) (DeduplicatePagesResult, error) {
	defer keepAlive(ctx, func() any { return in.Batch })()
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	stored, err := store.StoreConverted(ctx, c.ID, in.Batch, in.Budget)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	after, err := store.CrawlByID(ctx, c.ID)
	if err != nil {
		return DeduplicatePagesResult{}, err
	}
	res := DeduplicatePagesResult{Stored: stored.Stored, Skipped: stored.Skipped, TotalPages: after.TotalPages}
	if o.Extraction != "" {
		if res.Extract, err = store.PendingExtractions(ctx, c.ID, in.Batch); err != nil {
			return res, err
		}
	}
	if in.WriteLogs {
		_, err = writeBatchLogs(ctx, store, after, in.Batch)
		res.Logged = err == nil
	}
	return res, err
}
