package db

// The robots table: the robots.txt files a crawl read.

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Robots is a robots.txt file as a crawl read it.
type Robots struct {
	bun.BaseModel `bun:"table:robots"`

	CrawlID    uuid.UUID `bun:"crawl_id,pk,type:uuid"`
	Origin     string    `bun:"origin,pk"`
	StatusCode int       `bun:"status_code,notnull"`
	Body       string    `bun:"body,notnull"`
	FetchedAt  time.Time `bun:"fetched_at,nullzero,notnull,default:now()"`
}

// Robots returns the robots.txt files the crawl has read for origins.
func (s *Store) Robots(ctx context.Context, crawlID uuid.UUID, origins []string) (map[string]Robots, error) {
	out := make(map[string]Robots, len(origins))
	if len(origins) == 0 {
		return out, nil
	}
	var rows []Robots
	err := s.db.NewSelect().Model(&rows).Where("crawl_id = ?", crawlID).Where("origin IN (?)", bun.In(origins)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read robots.txt records: %w", err)
	}
	for _, r := range rows {
		out[r.Origin] = r
	}
	return out, nil
}

// SaveRobots records robots.txt files; a file the crawl already has is
// kept, so that the whole crawl applies the first one it read.
func (s *Store) SaveRobots(ctx context.Context, rows []Robots) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := s.db.NewInsert().Model(&rows).Column("crawl_id", "origin", "status_code", "body").
		On("CONFLICT (crawl_id, origin) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("save robots.txt records: %w", err)
	}
	return nil
}
