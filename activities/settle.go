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
	"github.com/durablecrawl/crawler/markdown"
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
// on the order pages were fetched in (a dedupe.Survey and a dedupe.Tally
// say who keeps what). Its memory does not grow with the crawl: pages
// are read a chunk at a time for their fragments, which are spooled to
// a temporary file (16 bytes a fragment, in $TMPDIR) for the passes
// that decide; those that lose some are read again to rebuild and save
// what each keeps, with a log entry for each (the others keep their
// markdown as stored). It starts from the raw markdown every time, so a
// retry writes the same.
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
	spool, err := dedupe.NewSpool("")
	if err != nil {
		return SettleDeduplicationResult{}, err
	}
	defer spool.Close()
	survey := dedupe.NewSurvey()
	err = eachStored(ctx, store, c.ID, func(chunk []crawl.Page) error {
		site := make([]dedupe.SitePage, len(chunk))
		onEveryCore(len(chunk), func(i int) { site[i] = sitePage(chunk[i]) })
		for _, p := range site {
			_ = survey.Add(p)
			if err := spool.Add(p); err != nil {
				return err
			}
		}
		progress.Add(int64(len(chunk)))
		return nil
	})
	if err != nil {
		return SettleDeduplicationResult{}, err
	}
	decision, err := survey.Decide(spool.Each)
	if err != nil {
		return SettleDeduplicationResult{}, err
	}
	decision.SharedSections = o.ExcludeNonMainTags
	res := SettleDeduplicationResult{Pages: spool.Pages()}
	// A page that loses nothing keeps its markdown as stored: only its
	// count of fragments is written. The others are read again and
	// rebuilt.
	if err := saveWhole(ctx, store, c.ID, spool, decision, &progress); err != nil {
		return res, err
	}
	losing, err := spool.Read()
	if err != nil {
		return res, err
	}
	err = readAhead(func() ([]crawl.Page, error) {
		ids, err := nextLosing(losing, decision)
		if len(ids) == 0 || err != nil {
			return nil, err
		}
		return store.StoredPages(ctx, c.ID, ids)
	}, func(chunk []crawl.Page) error {
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
				words := max(0, markdown.CountWords(derefString(p.RawMarkdown))-markdown.CountWords(k.Markdown))
				logs = append(logs, crawllog.Deduplicated(c, p, k.Fragments, k.Removed, words, k.Samples))
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

// sitePage is a result page as deduplication decides on it.
func sitePage(p crawl.Page) dedupe.SitePage {
	blocks := dedupe.Split(derefString(p.RawMarkdown))
	fragments := 0
	for _, b := range blocks {
		if b.Fragment {
			fragments++
		}
	}
	return dedupe.SitePage{ID: p.ID, Depth: p.Depth, Rank: p.Rank, URL: p.URL, Fragments: fragments,
		Hashes: dedupe.Hashes(blocks), Headings: dedupe.HeadingHashes(blocks)}
}

// saveWhole writes the count of fragments of the spooled pages that lose
// nothing, settleChunk at a time.
func saveWhole(ctx context.Context, store settleStore, crawlID uuid.UUID, spool *dedupe.Spool, d *dedupe.Decision, progress *atomic.Int64) error {
	whole := make([]db.Settled, 0, settleChunk)
	save := func() error {
		err := store.SaveSettled(ctx, crawlID, whole)
		progress.Add(int64(len(whole)))
		whole = whole[:0]
		return err
	}
	err := spool.Each(func(p dedupe.SitePage) error {
		if d.Loses(p.ID, p.Hashes) {
			return nil
		}
		whole = append(whole, db.Settled{PageID: p.ID, Fragments: p.Fragments, Whole: true})
		if len(whole) < settleChunk {
			return nil
		}
		return save()
	})
	if err != nil {
		return err
	}
	return save()
}

// nextLosing returns the ids of the next settleChunk spooled pages that
// lose fragments (fewer at the end, none after it).
func nextLosing(r *dedupe.SpoolReader, d *dedupe.Decision) ([]int64, error) {
	var ids []int64
	for len(ids) < settleChunk {
		p, ok, err := r.Next()
		if err != nil || !ok {
			return ids, err
		}
		if d.Loses(p.ID, p.Hashes) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
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

// readAhead calls fn with each chunk read returns until one is empty,
// reading the next while fn works on the last. It stops at the first
// error of either, and returns once its reading has stopped too (what
// read uses may be closed then).
func readAhead(read func() ([]crawl.Page, error), fn func([]crawl.Page) error) error {
	type loaded struct {
		pages []crawl.Page
		err   error
	}
	chunks := make(chan loaded, 1)
	stop := make(chan struct{})
	defer func() {
		close(stop)
		for range chunks { // the read in flight, if any
		}
	}()
	go func() {
		defer close(chunks)
		for {
			select {
			case <-stop:
				return
			default:
			}
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
