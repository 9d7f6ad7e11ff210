package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
)

// MapURLs returns up to limit URLs the crawl found (every page of its
// frontier but those it failed or skipped and those repeating another's
// content), shallowest first in crawl
// order; only those holding every one of words (lower case) in their
// lower-cased URL; one per URL without its query when ignoreQuery.
func (s *Store) MapURLs(ctx context.Context, crawlID uuid.UUID, limit int, words []string, ignoreQuery bool) ([]string, error) {
	var where []string
	args := []any{crawlID, crawl.PageFailed, crawl.PageSkipped, crawl.PageDuplicate}
	for _, w := range words {
		where = append(where, "strpos(lower(url), ?) > 0")
		args = append(args, w)
	}
	filter := ""
	if len(where) > 0 {
		filter = " AND " + strings.Join(where, " AND ")
	}
	key := "url"
	if ignoreQuery {
		key = "split_part(url, chr(63), 1)" // chr(63) is '?', which bun would read as a placeholder
	}
	args = append(args, limit)
	urls := []string{}
	err := s.db.NewRaw(`SELECT u FROM (
			SELECT DISTINCT ON (`+key+`) `+key+` AS u, depth, rank, id FROM pages
			WHERE crawl_id = ? AND state NOT IN (?, ?, ?)`+filter+`
			ORDER BY `+key+`, depth, rank, id) m
		ORDER BY depth, rank, id LIMIT ?`, args...).Scan(ctx, &urls)
	if err != nil {
		return nil, fmt.Errorf("map of crawl %s: %w", crawlID, err)
	}
	return urls, nil
}
