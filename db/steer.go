package db

import (
	"context"
	"fmt"
	"net/url"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// ApplyChange writes a change to a running crawl's options (its page
// limit, its excludePaths, its pages in flight, whether it is paused) and
// marks skipped, with reason, the queued pages that keep (a function of
// their URL) refuses under the new options, in one transaction. It returns
// the crawl as it is afterwards and the pages it skipped; a crawl that has
// ended is left as it is (ok false). Applying the same change again
// changes nothing more.
func (s *Store) ApplyChange(ctx context.Context, crawlID uuid.UUID, ch crawl.Change, keep func(u *url.URL) bool,
	reason string) (c *Crawl, skipped []Page, ok bool, err error) {
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		running, err := lockRunning(ctx, tx, crawlID, "UPDATE")
		if err != nil || !running {
			ok = false
			return err
		}
		ok = true
		q := tx.NewUpdate().Model((*Crawl)(nil)).Set("updated_at = clock_timestamp()").Where("id = ?", crawlID)
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
			// Rules already there are not added twice.
			q = q.Set("exclude_paths = exclude_paths || ARRAY(SELECT x FROM unnest(?::text[]) AS x WHERE x <> ALL(exclude_paths))",
				pgdialect.Array(ch.ExcludePaths))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("change crawl %s: %w", crawlID, err)
		}
		skipped = skipped[:0]
		if len(ch.ExcludePaths) > 0 {
			var queued []Page
			if err := tx.NewSelect().Model(&queued).Column("id", "url", "depth", "state").
				Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageQueued).Scan(ctx); err != nil {
				return fmt.Errorf("queued pages of %s: %w", crawlID, err)
			}
			var ids []int64
			for _, p := range queued {
				if u, err := url.Parse(p.URL); err == nil && !keep(u) {
					ids = append(ids, p.ID)
					p.State, p.Error = crawl.PageSkipped, &reason
					skipped = append(skipped, p)
				}
			}
			if len(ids) > 0 {
				// Their entries are written by whoever applies the change.
				if _, err := tx.NewUpdate().Model((*Page)(nil)).Set("state = ?", crawl.PageSkipped).Set("error = ?", reason).
					Where("id = ANY(?)", pgdialect.Array(ids)).Where("state = ?", crawl.PageQueued).Exec(ctx); err != nil {
					return fmt.Errorf("skip excluded pages of %s: %w", crawlID, err)
				}
			}
		}
		c, err = crawlByID(ctx, tx, crawlID)
		return err
	})
	return c, skipped, ok, err
}
