package db

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

// Screenshot is a page's screenshot, served by the API at
// /screenshots/<Token> to whoever has the token.
type Screenshot struct {
	bun.BaseModel `bun:"table:screenshots"`

	Token       string    `bun:"token,pk"`
	CrawlID     uuid.UUID `bun:"crawl_id,type:uuid,notnull"`
	PageID      int64     `bun:"page_id,notnull"`
	ContentType string    `bun:"content_type,notnull"`
	Data        []byte    `bun:"data,type:bytea,notnull"`
	CreatedAt   time.Time `bun:"created_at,nullzero,notnull,default:now()"`
}

// saveScreenshots records the screenshots and other files of the
// outcomes saved (those in saved) that hold them.
func saveScreenshots(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, saved map[int64]bool) error {
	var rows []Screenshot
	for _, o := range outs {
		if !saved[o.PageID] || o.State != crawl.PageConverted {
			continue
		}
		if o.Screenshot != nil {
			sh := *o.Screenshot
			sh.CrawlID, sh.PageID = crawlID, o.PageID
			rows = append(rows, sh)
		}
		for _, f := range o.Files {
			f.CrawlID, f.PageID = crawlID, o.PageID
			rows = append(rows, f)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&rows).Column("token", "crawl_id", "page_id", "content_type", "data").
		On("CONFLICT (token) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("save %d screenshots: %w", len(rows), err)
	}
	return nil
}

// ScreenshotByToken returns the screenshot named token, or an ENOTFOUND
// error.
func (s *Store) ScreenshotByToken(ctx context.Context, token string) (*Screenshot, error) {
	sh := new(Screenshot)
	err := s.db.NewSelect().Model(sh).Where("token = ?", token).Scan(ctx)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, crawl.Errorf(crawl.ENOTFOUND, "no such screenshot")
		}
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return sh, nil
}
