package activities

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/pageformats"
)

// convertStore is what ConvertPages needs of the database.
type convertStore interface {
	crawlLoader
	FetchedPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error)
	PagesWithHTML(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error)
	SaveConverted(ctx context.Context, crawlID uuid.UUID, pages []db.Converted) error
	SkipPage(ctx context.Context, crawlID uuid.UUID, pageID int64, reason string) error
	// StoreConverted is for runs begun before DeduplicatePages (StoreLater
	// unset), which are below the workflow's version floor now: kept for a
	// task such a run scheduled before the floor was deployed.
	StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int) (db.StoreResult, error)
}

// ConvertPagesInput names a fetch batch whose pages are to be converted.
type ConvertPagesInput struct {
	CrawlID string
	Batch   int
	// Budget is the most result pages the crawl may hold.
	Budget int
	// StoreLater leaves the converted pages to DeduplicatePages. Runs
	// begun before deduplication was an activity of its own scheduled
	// ConvertPages without it (it then stores the pages itself); they are
	// below the workflow's version floor now (workflows/versions.go).
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

// convertGroup is how many pages ConvertPages loads and stores at once:
// with one group loading while another converts, at most twice this many
// pages' HTML is held.
const convertGroup = 16

// ConvertPages turns the batch's fetched HTML into markdown. Pages are
// loaded, converted (on every core) and saved in groups, one transaction
// a group; a page the converter fails on is skipped and says why.
func (a *Activities) ConvertPages(ctx context.Context, in ConvertPagesInput) (ConvertPagesResult, error) {
	return convertPages(ctx, a.Store, in)
}

func convertPages(ctx context.Context, store convertStore, in ConvertPagesInput) (ConvertPagesResult, error) {
	var progress atomic.Int64
	defer keepAlive(ctx, func() any { return progress.Load() })()
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	ids, err := store.FetchedPages(ctx, c.ID, in.Batch)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	mdOptions, err := conversionOf(o)
	if err != nil {
		return ConvertPagesResult{}, err
	}
	res, err := convertGroups(ctx, store, c.ID, ids, mdOptions, &progress)
	if err != nil || in.StoreLater {
		return res, err
	}
	// These crawls began without deduplication: they end without it.
	stored, err := store.StoreConverted(ctx, c.ID, in.Batch, in.Budget)
	if err != nil {
		return res, err
	}
	after, err := store.CrawlByID(ctx, c.ID)
	if err != nil {
		return res, err
	}
	res.Stored, res.Skipped, res.TotalPages = stored.Stored, res.Skipped+stored.Skipped, after.TotalPages
	return res, nil
}

// convertGroups converts the pages ids, convertGroup at a time, in three
// overlapping steps: the next group loads from the database while this one
// converts on every core and the last one is saved. A failed load or save
// ends it (converting on would be wasted).
func convertGroups(ctx context.Context, store convertStore, crawlID uuid.UUID, ids []int64, o batch.Conversion, progress *atomic.Int64) (ConvertPagesResult, error) {
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
				err = saveConverted(ctx, store, crawlID, g.ids, g.results, &res)
				progress.Store(int64(res.Converted + res.Skipped))
				saveFailed.Store(err != nil)
			}
		}
		saved <- err
	}()
	next := 0
	// The next group of pages with their HTML; none when every group is
	// read (a group whose pages are gone is passed over).
	read := func() ([]crawl.Page, error) {
		for next < len(ids) {
			group := ids[next:min(next+convertGroup, len(ids))]
			next += len(group)
			if pages, err := store.PagesWithHTML(ctx, crawlID, group); err != nil || len(pages) > 0 {
				return pages, err
			}
		}
		return nil, nil
	}
	loadErr := readAhead(read, func(pages []crawl.Page) error {
		if saveFailed.Load() {
			return errStopped
		}
		results := convertAll(ctx, pages, o)
		if ctx.Err() != nil {
			return errStopped
		}
		// The saver needs the page IDs only: the HTML is let go here.
		ids := make([]int64, len(pages))
		for i, p := range pages {
			ids[i] = p.ID
		}
		saves <- group{ids, results}
		return nil
	})
	close(saves)
	saveErr := <-saved
	switch {
	case loadErr != nil && loadErr != errStopped:
		return res, loadErr
	case ctx.Err() != nil:
		return res, ctx.Err()
	}
	return res, saveErr
}

// errStopped ends reading ahead when converting on would be wasted (a
// save failed, or the activity is cancelled); it is never returned.
var errStopped = errors.New("stopped")

// convertAll converts pages on every core; it stops early when ctx ends.
func convertAll(ctx context.Context, pages []crawl.Page, o batch.Conversion) []converted {
	results := make([]converted, len(pages))
	onEveryCore(len(pages), func(i int) {
		if ctx.Err() == nil {
			results[i] = convertPage(pages[i], o)
		}
	})
	return results
}

// saveConverted records a group's conversions: the markdown of the pages
// converted, and why the others (ids[i] for results[i]) were skipped. It
// counts them in res.
func saveConverted(ctx context.Context, store convertStore, crawlID uuid.UUID, ids []int64, results []converted, res *ConvertPagesResult) error {
	var ready []db.Converted
	for i, r := range results {
		if r.err != nil {
			if err := store.SkipPage(ctx, crawlID, ids[i], crawllog.ConvertFailed(r.err)); err != nil {
				return err
			}
			res.Skipped++
			continue
		}
		ready = append(ready, r.page)
	}
	if err := store.SaveConverted(ctx, crawlID, ready); err != nil {
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
func convertPage(p crawl.Page, o batch.Conversion) converted {
	base := p.URL
	if p.FinalURL != nil {
		base = *p.FinalURL
	}
	html := ""
	if p.HTML != nil {
		html = *p.HTML
	}
	c, err := batch.Convert(base, []byte(html), o, pageformats.Media{})
	c.PageID = p.ID
	return converted{page: c, err: err}
}

// conversionOf is batch.ConversionOf, failing for good on the crawl's
// rules.
func conversionOf(o crawl.Options) (batch.Conversion, error) {
	c, err := batch.ConversionOf(o)
	if batch.Permanent(err) {
		return c, nonRetryable(err)
	}
	return c, err
}
