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

// ListLogs returns one page of a crawl's log, oldest first, and the total
// number of entries.
func (s *Store) ListLogs(ctx context.Context, crawlID uuid.UUID, page, limit int) ([]crawl.CrawlLog, int, error) {
	logs := []crawl.CrawlLog{}
	total, err := s.db.NewSelect().Model(&logs).Where("crawl_id = ?", crawlID).
		Order("created_at", "id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list logs: %w", err)
	}
	return logs, int(total), nil
}
