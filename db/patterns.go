package db

// Patterns of addresses that lead to pages the crawl already has.

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/urlpattern"
)

// MinPatternDuplicates is how many pages found under one pattern to repeat
// a page of the crawl stop the pattern: a handful is chance (two
// addresses of one page), this many is the site's way (a heading's link
// on every heading of every page).
const MinPatternDuplicates = 5

// PatternWords word what NoteDuplicates records when it stops a pattern:
// the error column of the queued pages it skips, and the crawl's log
// entry (duplicates pages found under the pattern, skipped pages left).
type PatternWords struct {
	Skipped func(p urlpattern.Pattern) string
	Stopped func(p urlpattern.Pattern, duplicates, skipped int) crawl.CrawlLog
}

// NoteDuplicates counts, for each of patterns, one more page of the crawl
// found under it to repeat a page the crawl has (a pattern may come
// several times). A pattern with MinPatternDuplicates of them, or twice
// as many as when it was last weighed, is stopped when at most a tenth as
// many of the crawl's result pages have it (a parameter that names pages
// of their own is not one): its queued pages are skipped and the crawl's
// log says so once, in one transaction, and batches no longer enqueue
// links to its addresses (StoppedPatterns). It returns the patterns it
// stopped.
func (s *Store) NoteDuplicates(ctx context.Context, crawlID uuid.UUID, patterns []urlpattern.Pattern, w PatternWords) ([]urlpattern.Pattern, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	var stopped []urlpattern.Pattern
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stopped = stopped[:0]
		for _, p := range patterns {
			var row struct {
				Duplicates int  `bun:"duplicates"`
				Stopped    bool `bun:"stopped"`
			}
			if err := tx.NewRaw(`
INSERT INTO url_patterns (crawl_id, pattern, duplicates) VALUES (?, ?, 1)
ON CONFLICT (crawl_id, pattern) DO UPDATE SET duplicates = url_patterns.duplicates + 1
RETURNING duplicates, stopped`, crawlID, string(p)).Scan(ctx, &row); err != nil {
				return fmt.Errorf("count the duplicates of %s: %w", p, err)
			}
			n := row.Duplicates
			if row.Stopped || n < MinPatternDuplicates || n != MinPatternDuplicates && n&(n-1) != 0 {
				continue
			}
			ok, err := stopPattern(ctx, tx, crawlID, p, n, w)
			if err != nil {
				return err
			}
			if ok {
				stopped = append(stopped, p)
			}
		}
		return nil
	})
	return stopped, err
}

// stopPattern stops pattern p of the crawl, found n times to lead to a
// duplicate, unless more than a tenth as many result pages have it.
func stopPattern(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, p urlpattern.Pattern, n int, w PatternWords) (bool, error) {
	results, err := tx.NewSelect().Model((*crawl.Page)(nil)).Where("crawl_id = ?", crawlID).
		Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageConverted, crawl.PageStored})).
		Where("url ~ ?", p.Regexp()).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("results under %s: %w", p, err)
	}
	if 10*int(results) > n {
		return false, nil
	}
	res, err := tx.NewRaw(`UPDATE url_patterns SET stopped = true WHERE crawl_id = ? AND pattern = ? AND NOT stopped`,
		crawlID, string(p)).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("stop %s: %w", p, err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return false, nil
	}
	skipped, err := tx.NewUpdate().Model((*crawl.Page)(nil)).
		Set("state = ?", crawl.PageSkipped).Set("error = ?", w.Skipped(p)).Set("batch = NULL").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageQueued).Where("url ~ ?", p.Regexp()).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("skip the queued pages under %s: %w", p, err)
	}
	k, _ := skipped.RowsAffected()
	return true, insertLogs(ctx, tx, []crawl.CrawlLog{w.Stopped(p, n, int(k))})
}

// StoppedPatterns returns the crawl's stopped patterns: links to their
// addresses are not enqueued.
func (s *Store) StoppedPatterns(ctx context.Context, crawlID uuid.UUID) ([]urlpattern.Pattern, error) {
	var ps []urlpattern.Pattern
	err := s.db.NewSelect().Table("url_patterns").Column("pattern").
		Where("crawl_id = ?", crawlID).Where("stopped").Scan(ctx, &ps)
	if err != nil {
		return nil, fmt.Errorf("stopped url patterns: %w", err)
	}
	return ps, nil
}
