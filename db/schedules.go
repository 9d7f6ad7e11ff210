package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
)

// Schedule is a crawl schedule's row: its owner and its runs' request
// (Timing is what it was given; its Temporal Schedule holds the rest).
type Schedule struct {
	bun.BaseModel `bun:"table:schedules"`

	ID        uuid.UUID       `bun:"id,pk,type:uuid"`
	TeamID    uuid.UUID       `bun:"team_id,type:uuid,notnull"`
	BrandID   *string         `bun:"brand_id"`
	Name      string          `bun:"name,notnull"`
	Shape     string          `bun:"shape,notnull"`
	Request   json.RawMessage `bun:"request,type:jsonb,notnull"`
	Timing    json.RawMessage `bun:"timing,type:jsonb,notnull"`
	CreatedAt time.Time       `bun:"created_at,notnull"`
	UpdatedAt time.Time       `bun:"updated_at,notnull"`
	DeletedAt *time.Time      `bun:"deleted_at"`
}

// InsertSchedule stores a new schedule.
func (s *Store) InsertSchedule(ctx context.Context, sc *Schedule) error {
	if _, err := s.db.NewInsert().Model(sc).Exec(ctx); err != nil {
		return fmt.Errorf("insert schedule: %w", err)
	}
	return nil
}

// GetSchedule returns the team's schedule id, or ENOTFOUND (also for
// another team's, or a deleted one).
func (s *Store) GetSchedule(ctx context.Context, teamID, id uuid.UUID) (*Schedule, error) {
	sc := new(Schedule)
	err := s.db.NewSelect().Model(sc).Where("id = ?", id).Where("team_id = ?", teamID).Where("deleted_at IS NULL").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "schedule %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get schedule %s: %w", id, err)
	}
	return sc, nil
}

// ScheduleByID returns a schedule whatever its team, deleted or not, for
// the worker.
func (s *Store) ScheduleByID(ctx context.Context, id uuid.UUID) (*Schedule, error) {
	sc := new(Schedule)
	err := s.db.NewSelect().Model(sc).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "schedule %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get schedule %s: %w", id, err)
	}
	return sc, nil
}

// ListSchedules returns one page of a team's schedules, newest first, and
// how many there are.
func (s *Store) ListSchedules(ctx context.Context, teamID uuid.UUID, page, limit int) ([]Schedule, int, error) {
	out := []Schedule{}
	total, err := s.db.NewSelect().Model(&out).Where("team_id = ?", teamID).Where("deleted_at IS NULL").
		Order("created_at DESC", "id DESC").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list schedules: %w", err)
	}
	return out, int(total), nil
}

// SchedulesOf returns up to limit of a team's schedules whose request is
// in shape, from the offset-th newest on, newest first.
func (s *Store) SchedulesOf(ctx context.Context, teamID uuid.UUID, shape string, offset, limit int) ([]Schedule, error) {
	out := []Schedule{}
	err := s.db.NewSelect().Model(&out).Where("team_id = ?", teamID).Where("shape = ?", shape).Where("deleted_at IS NULL").
		Order("created_at DESC", "id DESC").Offset(int64(offset)).Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	return out, nil
}

// UpdateSchedule saves a schedule's name, request and timing.
func (s *Store) UpdateSchedule(ctx context.Context, sc *Schedule) error {
	_, err := s.db.NewUpdate().Model(sc).Column("name", "shape", "request", "timing").
		Set("updated_at = clock_timestamp()").WherePK().Where("deleted_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("update schedule %s: %w", sc.ID, err)
	}
	return nil
}

// DeleteSchedule marks the team's schedule deleted; its crawls stay.
func (s *Store) DeleteSchedule(ctx context.Context, teamID, id uuid.UUID) error {
	_, err := s.db.NewUpdate().Model((*Schedule)(nil)).Set("deleted_at = clock_timestamp()").
		Where("id = ?", id).Where("team_id = ?", teamID).Where("deleted_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete schedule %s: %w", id, err)
	}
	return nil
}

// ScheduleCrawls returns the latest limit crawls of a schedule, newest
// first.
func (s *Store) ScheduleCrawls(ctx context.Context, scheduleID uuid.UUID, limit int) ([]crawl.Crawl, error) {
	return s.ScheduleCrawlsFrom(ctx, scheduleID, 0, limit)
}

// ScheduleCrawlsFrom returns up to limit crawls of a schedule from the
// offset-th newest on, newest first.
func (s *Store) ScheduleCrawlsFrom(ctx context.Context, scheduleID uuid.UUID, offset, limit int) ([]crawl.Crawl, error) {
	out := []crawl.Crawl{}
	err := s.db.NewSelect().Model(&out).Where("schedule_id = ?", scheduleID).
		Order("created_at DESC", "id DESC").Offset(int64(offset)).Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("crawls of schedule %s: %w", scheduleID, err)
	}
	return out, nil
}

// InsertScheduledCrawl stores the crawl of a schedule's run, once: a
// retry finds the crawl already there and changes nothing.
func (s *Store) InsertScheduledCrawl(ctx context.Context, c *crawl.Crawl) error {
	if _, err := s.db.NewInsert().Model(c).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("insert crawl %s: %w", c.ID, err)
	}
	return nil
}

// TeamHasKey reports whether a team has an API key that is not revoked:
// a schedule of a team without one does not run.
func (s *Store) TeamHasKey(ctx context.Context, teamID uuid.UUID) (bool, error) {
	ok, err := s.db.NewSelect().Model((*APIKey)(nil)).Where("team_id = ?", teamID).Where("revoked_at IS NULL").Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("keys of team %s: %w", teamID, err)
	}
	return ok, nil
}

// CheckPages returns up to limit of a crawl's pages as a check of its
// changes lists them, from the skip-th on, in ID order, and how many
// there are: its result pages (with their change status), the previous
// crawl's pages it removed, and the pages that failed. status narrows them
// to one change status ("error": the failed ones; "" all).
func (s *Store) CheckPages(ctx context.Context, crawlID uuid.UUID, status string, skip, limit int) ([]crawl.Page, int, error) {
	pages := []crawl.Page{}
	q := s.db.NewSelect().Model(&pages).
		Column("id", "url", "state", "status_code", "error", "change_status", "previous_page_id", "raw_markdown",
			"extraction", "fetched_at", "discovered_at").
		Where("crawl_id = ?", crawlID)
	switch status {
	case "":
		q = q.Where("(state = ? OR change_status = ? OR state = ?)", crawl.PageStored, changes.Removed, crawl.PageFailed)
	case "error":
		q = q.Where("state = ?", crawl.PageFailed).Where("change_status IS NULL")
	case string(changes.Removed):
		q = q.Where("change_status = ?", changes.Removed)
	default:
		q = q.Where("state = ?", crawl.PageStored).Where("change_status = ?", status)
	}
	total, err := q.Order("id").Offset(int64(skip)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("pages of check %s: %w", crawlID, err)
	}
	return pages, int(total), nil
}

// FailedPages counts a crawl's failed pages that no change status
// explains (a 404 of a page the previous crawl had is removed instead).
func (s *Store) FailedPages(ctx context.Context, crawlID uuid.UUID) (int, error) {
	n, err := s.db.NewSelect().Model((*crawl.Page)(nil)).Where("crawl_id = ?", crawlID).
		Where("state = ?", crawl.PageFailed).Where("change_status IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("failed pages of %s: %w", crawlID, err)
	}
	return int(n), nil
}
