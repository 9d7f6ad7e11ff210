package db

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// StoredAfter returns up to limit of the crawl's result pages with an ID
// above after, by ID, with what deduplication needs of them: their place
// in the crawl's order, URL, noindex mark and raw markdown.
func (s *Store) StoredAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]Page, error) {
	var pages []Page
	err := s.db.NewSelect().Model(&pages).Column("id", "url", "depth", "rank", "noindex", "raw_markdown", "status_code").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored).Where("id > ?", after).
		Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("result pages after %d: %w", after, err)
	}
	return pages, nil
}

// Settled is what deduplication left of a result page.
type Settled struct {
	PageID             int64
	Markdown           string
	Fragments, Removed int
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
	for i, p := range pages {
		ids[i], markdowns[i], fragments[i], removed[i] = p.PageID, p.Markdown, p.Fragments, p.Removed
	}
	_, err := s.db.NewRaw(`
UPDATE pages AS p SET markdown = d.markdown, fragments = d.fragments, fragments_removed = d.removed
FROM unnest(?::bigint[], ?::text[], ?::integer[], ?::integer[]) AS d(id, markdown, fragments, removed)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
		pgdialect.Array(ids), pgdialect.Array(markdowns), pgdialect.Array(fragments), pgdialect.Array(removed),
		crawlID, crawl.PageStored).Exec(ctx)
	if err != nil {
		return fmt.Errorf("save deduplicated markdown of %d pages: %w", len(pages), err)
	}
	return nil
}
