package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// ApplyChange writes a change to a running crawl's options (its page
// limit, its excludePaths, its pages in flight, whether it is paused),
// marks skipped, with reason, the queued pages below the start pages that
// keep (a function of their URL) refuses under the new options, and writes
// the log entries logs makes of the crawl afterwards and the pages it
// skipped, in one transaction. It returns the crawl as it is afterwards
// and the pages it skipped; a crawl that has ended is left as it is (ok
// false). Applying the same change again changes nothing more.
func (s *Store) ApplyChange(ctx context.Context, crawlID uuid.UUID, ch crawl.Change, keep func(u *url.URL) bool,
	reason string, logs func(c *crawl.Crawl, skipped []crawl.Page) []crawl.CrawlLog) (c *crawl.Crawl, skipped []crawl.Page, ok bool, err error) {
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		running, err := lockRunning(ctx, tx, crawlID, "UPDATE")
		if err != nil || !running {
			ok = false
			return err
		}
		ok = true
		q := tx.NewUpdate().Model((*crawl.Crawl)(nil)).Set("updated_at = clock_timestamp()").Where("id = ?", crawlID)
		if ch.MaxResults != nil {
			q = q.Set("max_results = ?", *ch.MaxResults)
		}
		if ch.MaxConcurrentPages != nil {
			q = q.Set("max_concurrent_pages = ?", *ch.MaxConcurrentPages)
		}
		if ch.Paused != nil {
			q = q.Set("paused = ?", *ch.Paused)
		}
		if len(ch.ExcludePaths) > 0 {
			// Rules already there, or given twice, are not added twice.
			var fresh []string
			for _, p := range ch.ExcludePaths {
				if !slices.Contains(fresh, p) {
					fresh = append(fresh, p)
				}
			}
			q = q.Set("exclude_paths = exclude_paths || ARRAY(SELECT x FROM unnest(?::text[]) WITH ORDINALITY AS t(x, i) WHERE x <> ALL(exclude_paths) ORDER BY i)",
				pgdialect.Array(fresh))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("change crawl %s: %w", crawlID, err)
		}
		skipped = skipped[:0]
		if len(ch.ExcludePaths) > 0 {
			var queued []crawl.Page
			if err := tx.NewSelect().Model(&queued).Column("id", "url").
				Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageQueued).Where("depth > 0").Scan(ctx); err != nil {
				return fmt.Errorf("queued pages of %s: %w", crawlID, err)
			}
			var ids []int64
			for _, p := range queued {
				if u, err := url.Parse(p.URL); err == nil && !keep(u) {
					ids = append(ids, p.ID)
				}
			}
			if len(ids) > 0 {
				// Only the pages still queued (a batch may have claimed
				// some meanwhile: it checks them itself).
				err := tx.NewRaw(`UPDATE pages SET state = ?, error = ? WHERE id = ANY(?) AND crawl_id = ? AND state = ?
RETURNING id, url, depth, state, error, status_code`,
					crawl.PageSkipped, reason, pgdialect.Array(ids), crawlID, crawl.PageQueued).Scan(ctx, &skipped)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("skip excluded pages of %s: %w", crawlID, err)
				}
			}
		}
		if c, err = crawlByID(ctx, tx, crawlID); err != nil {
			return err
		}
		return insertLogs(ctx, tx, logs(c, skipped))
	})
	return c, skipped, ok, err
}
