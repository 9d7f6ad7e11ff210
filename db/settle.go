package db

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// StoredAfter returns up to limit of the crawl's result pages with an ID
// above after, by ID, with what deduplication needs of them: their place
// in the crawl's order, URL, noindex mark and raw markdown.
func (s *Store) StoredAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.selectStored(&pages, crawlID).Where("id > ?", after).Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("result pages after %d: %w", after, err)
	}
	return pages, nil
}

// StoredPages returns the crawl's result pages ids (those that are
// results), by ID, with what StoredAfter reads of them.
func (s *Store) StoredPages(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.selectStored(&pages, crawlID).Where("id = ANY(?)", pgdialect.Array(ids)).Order("id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("%d result pages: %w", len(ids), err)
	}
	return pages, nil
}

// selectStored selects into pages the crawl's result pages, with the
// columns deduplication reads.
func (s *Store) selectStored(pages *[]crawl.Page, crawlID uuid.UUID) *bun.SelectQuery {
	return s.db.NewSelect().Model(pages).Column("id", "url", "depth", "rank", "noindex", "raw_markdown", "status_code").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored)
}

// Settled is what deduplication left of a result page.
type Settled struct {
	PageID             int64
	Markdown           string
	Fragments, Removed int
	// Whole marks a page that lost nothing: its markdown, stored whole,
	// stays as it is (Markdown is not sent).
	Whole bool
}

// SaveSettled writes the deduplicated markdown of result pages, in one
// statement. Writing the same again changes nothing.
func (s *Store) SaveSettled(ctx context.Context, crawlID uuid.UUID, pages []Settled) error {
	if len(pages) == 0 {
		return nil
	}
	ids := make([]int64, len(pages))
	markdowns := make([]string, len(pages))
	fragments, removed := make([]int, len(pages)), make([]int, len(pages))
	whole := make([]bool, len(pages))
	for i, p := range pages {
		ids[i], fragments[i], removed[i], whole[i] = p.PageID, p.Fragments, p.Removed, p.Whole
		if !p.Whole {
			markdowns[i] = p.Markdown
		}
	}
	_, err := s.db.NewRaw(`
UPDATE pages AS p SET markdown = CASE WHEN d.whole THEN p.markdown ELSE d.markdown END,
    fragments = d.fragments, fragments_removed = d.removed
FROM unnest(?::bigint[], ?::text[], ?::integer[], ?::integer[], ?::boolean[]) AS d(id, markdown, fragments, removed, whole)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
		pgdialect.Array(ids), pgdialect.Array(markdowns), pgdialect.Array(fragments), pgdialect.Array(removed), pgdialect.Array(whole),
		crawlID, crawl.PageStored).Exec(ctx)
	if err != nil {
		return fmt.Errorf("save deduplicated markdown of %d pages: %w", len(pages), err)
	}
	return nil
}
