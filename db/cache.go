package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
)

// CachedPage finds the team's newest stored copy of the page whose
// normalized URL is key, among crawls whose pages are read the way
// cacheKey names (crawl.Options.CacheKey), stored between oldest and
// newest, and not an error page. It returns the page (without its HTML
// and links) and its crawl, or nil when there is none.
func (s *Store) CachedPage(ctx context.Context, team uuid.UUID, cacheKey, key string, oldest, newest time.Time) (*crawl.Page, *crawl.Crawl, error) {
	if cacheKey == "" {
		return nil, nil, nil
	}
	var hit struct {
		ID      int64     `bun:"id"`
		CrawlID uuid.UUID `bun:"crawl_id"`
	}
	err := s.db.NewRaw(`
SELECT p.id, p.crawl_id FROM pages AS p JOIN crawls AS c ON c.id = p.crawl_id
WHERE p.normalized_url = ? AND p.state = ? AND p.stored_at >= ? AND p.stored_at <= ?
  AND c.team_id = ? AND c.cache_key = ? AND coalesce(p.status_code, 200) < 400 AND p.markdown IS NOT NULL
ORDER BY p.stored_at DESC LIMIT 1`, key, crawl.PageStored, oldest, newest, team, cacheKey).Scan(ctx, &hit)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("find a cached page: %w", err)
	}
	var page crawl.Page
	if err := s.db.NewSelect().Model(&page).ExcludeColumn("html", "links", "raw_markdown").Where("id = ?", hit.ID).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("read a cached page: %w", err)
	}
	c, err := s.GetCrawl(ctx, team, hit.CrawlID)
	if err != nil {
		return nil, nil, err
	}
	return &page, c, nil
}
