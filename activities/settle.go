package activities

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/dedupe"
)

// settleStore is what SettleDeduplication needs of the database.
type settleStore interface {
	crawlLoader
	StoredAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]crawl.Page, error)
	StoredPages(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error)
	SaveSettled(ctx context.Context, crawlID uuid.UUID, pages []db.Settled) error
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
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
// Pages are read a chunk at a time for their fragments; those that lose
// some are read again to rebuild and save what each keeps, with a log
// entry for each (the others keep their markdown as stored). It starts from the raw markdown every time, so a retry
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
	var fragments []int // of each page, its fragments (repeats counted)
	err = eachStored(ctx, store, c.ID, func(chunk []crawl.Page) error {
		site := make([]dedupe.SitePage, len(chunk))
		counts := make([]int, len(chunk))
		onEveryCore(len(chunk), func(i int) {
			p := chunk[i]
			blocks := dedupe.Split(derefString(p.RawMarkdown))
			for _, b := range blocks {
				if b.Fragment {
					counts[i]++
				}
			}
			site[i] = dedupe.SitePage{ID: p.ID, Depth: p.Depth, Rank: p.Rank, URL: p.URL, Hashes: dedupe.Hashes(blocks),
				Headings: dedupe.HeadingHashes(blocks)}
		})
		pages, fragments = append(pages, site...), append(fragments, counts...)
		progress.Add(int64(len(chunk)))
		return nil
	})
	if err != nil {
		return SettleDeduplicationResult{}, err
	}
	decision := dedupe.Decide(pages)
	decision.SharedSections = o.ExcludeNonMainTags
	res := SettleDeduplicationResult{Pages: len(pages)}
	// A page that loses nothing keeps its markdown as stored: only its
	// count of fragments is written. The others are read again and
	// rebuilt.
	var losing []int64
	var whole []db.Settled
	for i, p := range pages {
		if decision.Loses(p.ID, p.Hashes) {
			losing = append(losing, p.ID)
		} else {
			whole = append(whole, db.Settled{PageID: p.ID, Fragments: fragments[i], Whole: true})
		}
	}
	pages, fragments = nil, nil
	for start := 0; start < len(whole); start += settleChunk {
		if err := store.SaveSettled(ctx, c.ID, whole[start:min(start+settleChunk, len(whole))]); err != nil {
			return res, err
		}
		progress.Add(int64(min(settleChunk, len(whole)-start)))
	}
	err = eachOf(ctx, store, c.ID, losing, func(chunk []crawl.Page) error {
		settled := make([]db.Settled, len(chunk))
		keeps := make([]dedupe.Keep, len(chunk))
		onEveryCore(len(chunk), func(i int) {
			raw := derefString(chunk[i].RawMarkdown)
			keeps[i] = decision.Assemble(chunk[i].ID, raw, dedupe.Split(raw))
		})
		var logs []crawl.CrawlLog
		for i, p := range chunk {
			k := keeps[i]
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
	return res, store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.DeduplicationSettled(c, res.Pages, res.Changed, res.Removed)})
}

// eachStored calls fn with the crawl's result pages, settleChunk at a
// time, in ID order; the next chunk is read while fn works on this one.
func eachStored(ctx context.Context, store settleStore, crawlID uuid.UUID, fn func([]crawl.Page) error) error {
	var after int64
	return readAhead(func() ([]crawl.Page, error) {
		chunk, err := store.StoredAfter(ctx, crawlID, after, settleChunk)
		if len(chunk) > 0 {
			after = chunk[len(chunk)-1].ID
		}
		return chunk, err
	}, fn)
}

// eachOf calls fn with the crawl's result pages ids, settleChunk at a
// time, in ID order; the next chunk is read while fn works on this one.
func eachOf(ctx context.Context, store settleStore, crawlID uuid.UUID, ids []int64, fn func([]crawl.Page) error) error {
	return readAhead(func() ([]crawl.Page, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		chunk := ids[:min(settleChunk, len(ids))]
		ids = ids[len(chunk):]
		return store.StoredPages(ctx, crawlID, chunk)
	}, fn)
}

// readAhead calls fn with each chunk read returns until one is empty,
// reading the next while fn works on the last. It stops at the first
// error of either.
func readAhead(read func() ([]crawl.Page, error), fn func([]crawl.Page) error) error {
	type loaded struct {
		pages []crawl.Page
		err   error
	}
	chunks := make(chan loaded, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(chunks)
		for {
			chunk, err := read()
			select {
			case chunks <- loaded{chunk, err}:
			case <-stop:
				return
			}
			if err != nil || len(chunk) == 0 {
				return
			}
		}
	}()
	for c := range chunks {
		if c.err != nil || len(c.pages) == 0 {
			return c.err
		}
		if err := fn(c.pages); err != nil {
			return err
		}
	}
	return nil
}

// onEveryCore calls fn(i) for i from 0 to n-1, on as many goroutines as
// there are cores, and returns when all are done.
func onEveryCore(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
