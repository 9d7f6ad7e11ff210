package db

// The crawl_logs table.

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
)

// InsertLogs writes log entries; an entry whose key the crawl already has
// is skipped, so rewriting the same entries is harmless.
func (s *Store) InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error {
	return insertLogs(ctx, s.db, logs)
}

func insertLogs(ctx context.Context, db bun.IDB, logs []crawl.CrawlLog) error {
	if len(logs) == 0 {
		return nil
	}
	for i := range logs {
		if logs[i].Data == nil {
			logs[i].Data = map[string]any{}
		}
	}
	_, err := db.NewInsert().Model(&logs).
		Column("crawl_id", "team_id", "key", "level", "message", "description", "data").
		On("CONFLICT (crawl_id, key) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("insert %d logs: %w", len(logs), err)
	}
	return nil
}

// LogsQuery narrows a listing of a crawl's log.
type LogsQuery struct {
	// Level keeps the entries of this level ("" for every level).
	Level string
	// URL keeps the entries about this page (their data's url).
	URL string
}

// ListLogs returns one page of a crawl's log entries that q keeps, oldest
// first, and how many it keeps in all.
func (s *Store) ListLogs(ctx context.Context, crawlID uuid.UUID, page, limit int, q LogsQuery) ([]crawl.CrawlLog, int, error) {
	logs := []crawl.CrawlLog{}
	sel := s.db.NewSelect().Model(&logs).Where("crawl_id = ?", crawlID)
	if q.Level != "" {
		sel = sel.Where("level = ?", q.Level)
	}
	if q.URL != "" {
		sel = sel.Where("data->>'url' = ?", q.URL)
	}
	total, err := sel.Order("created_at", "id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list logs: %w", err)
	}
	return logs, int(total), nil
}
