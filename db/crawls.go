package db

// The crawls table: a crawl's record, from its start to its end.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
)

// InsertCrawl stores a new crawl.
func (s *Store) InsertCrawl(ctx context.Context, c *crawl.Crawl) error {
	if _, err := s.db.NewInsert().Model(c).Exec(ctx); err != nil {
		return fmt.Errorf("insert crawl: %w", err)
	}
	return nil
}

// GetCrawl returns the team's crawl id, or ENOTFOUND, also when the crawl
// belongs to another team.
func (s *Store) GetCrawl(ctx context.Context, teamID, id uuid.UUID) (*crawl.Crawl, error) {
	c := new(crawl.Crawl)
	err := s.db.NewSelect().Model(c).Where("id = ?", id).Where("team_id = ?", teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get crawl %s: %w", id, err)
	}
	return c, nil
}

// ListCrawls returns one page of a team's crawls, newest first, and how
// many there are; status "" lists every status.
func (s *Store) ListCrawls(ctx context.Context, teamID uuid.UUID, status crawl.Status, page, limit int) ([]crawl.Crawl, int, error) {
	crawls := []crawl.Crawl{}
	q := s.db.NewSelect().Model(&crawls).Where("team_id = ?", teamID)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	total, err := q.Order("created_at DESC", "id DESC").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list crawls: %w", err)
	}
	return crawls, int(total), nil
}

// CountCrawls returns how many crawls there are in each status, all
// teams together (for metrics).
func (s *Store) CountCrawls(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	if err := s.db.NewSelect().Model((*crawl.Crawl)(nil)).Column("status").ColumnExpr("count(*) AS n").
		Group("status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("count crawls: %w", err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}

// CrawlByID returns a crawl whatever its team, for the worker.
func (s *Store) CrawlByID(ctx context.Context, id uuid.UUID) (*crawl.Crawl, error) {
	return crawlByID(ctx, s.db, id)
}

func crawlByID(ctx context.Context, db bun.IDB, id uuid.UUID) (*crawl.Crawl, error) {
	c := new(crawl.Crawl)
	err := db.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get crawl %s: %w", id, err)
	}
	return c, nil
}

// SetEndStatus moves a running crawl to a terminal status, without log
// entries, and returns the crawl as it is afterwards and whether it
// changed. A crawl that is no longer running is left as it is
// (compare-and-set), so concurrent or repeated endings agree. EndCrawl is
// the ending with its log entries.
func (s *Store) SetEndStatus(ctx context.Context, id uuid.UUID, status crawl.Status, message string) (*crawl.Crawl, bool, error) {
	return setEndStatus(ctx, s.db, id, status, message)
}

func setEndStatus(ctx context.Context, db bun.IDB, id uuid.UUID, status crawl.Status, message string) (*crawl.Crawl, bool, error) {
	res, err := db.NewUpdate().Model((*crawl.Crawl)(nil)).
		Set("status = ?", status).
		Set("error_message = ?", message).
		Set("completed_at = clock_timestamp()").
		Set("updated_at = clock_timestamp()").
		Where("id = ?", id).Where("status = ?", crawl.StatusRunning).
		Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("finish crawl %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	c, err := crawlByID(ctx, db, id)
	return c, n == 1, err
}

// EndCrawl ends a running crawl with status (compare-and-set: a crawl that
// already ended keeps its own), closes the pages it left half-done and
// writes the log entries that logs returns for the crawl as it ended and
// its pages without an entry: all in one transaction, so that a reader who
// sees the crawl ended also sees its last entries.
func (s *Store) EndCrawl(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	var out *crawl.Crawl
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c, _, err := setEndStatus(ctx, tx, id, status, message)
		if err != nil {
			return err
		}
		if err := closeLeftovers(ctx, tx, id); err != nil {
			return err
		}
		unlogged, err := unloggedPages(ctx, tx, id)
		if err != nil {
			return err
		}
		out = c
		return insertLogs(ctx, tx, logs(c, unlogged))
	})
	return out, err
}

// RunningCrawls returns up to limit crawls that are running and were
// created before createdBefore, oldest first, starting after the crawl
// after (uuid.Nil for the first page), with what the reconciler decides
// on: their ID, workflow, creation time and schedule.
func (s *Store) RunningCrawls(ctx context.Context, createdBefore time.Time, after uuid.UUID, limit int) ([]crawl.Crawl, error) {
	var cs []crawl.Crawl
	q := s.db.NewSelect().Model(&cs).Column("id", "workflow_id", "created_at", "schedule_id").
		Where("status = ?", crawl.StatusRunning).Where("created_at < ?", createdBefore)
	if after != uuid.Nil {
		q = q.Where("(created_at, id) > (SELECT created_at, id FROM crawls WHERE id = ?)", after)
	}
	if err := q.Order("created_at", "id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list running crawls: %w", err)
	}
	return cs, nil
}

// closeLeftovers ends the pages a crawl left half-done when it stopped
// (claimed but not saved, fetched but not converted): they are skipped and
// their HTML is dropped.
func closeLeftovers(ctx context.Context, db bun.IDB, crawlID uuid.UUID) error {
	_, err := db.NewUpdate().Model((*crawl.Page)(nil)).
		Set("state = ?", crawl.PageSkipped).
		Set("html = NULL").
		Set("error = ?", "the crawl ended before this page was finished").
		Where("crawl_id = ?", crawlID).Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageClaimed, crawl.PageFetched, crawl.PageConverted})).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("close leftover pages: %w", err)
	}
	return nil
}

// unloggedPages returns the crawl's pages that were fetched (or decided
// on) but have no log entry, in crawl order.
func unloggedPages(ctx context.Context, db bun.IDB, crawlID uuid.UUID) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := db.NewSelect().Model(&pages).ExcludeColumn("html", "markdown", "raw_markdown", "links").
		Where("crawl_id = ?", crawlID).
		// Pages of a batch, and pages recorded skipped as they were found
		// (robots.txt), which carry their cause.
		Where("batch IS NOT NULL OR cause IS NOT NULL").
		Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageStored, crawl.PageFailed, crawl.PageSkipped, crawl.PageDuplicate})).
		Where("NOT EXISTS (SELECT 1 FROM crawl_logs l WHERE l.crawl_id = page.crawl_id AND l.key = 'page:' || page.id)").
		Order("batch", "depth", "rank", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("unlogged pages: %w", err)
	}
	return pages, nil
}
