package db

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
)

// Store is the service's data access. Its methods are safe for concurrent
// use; the ones activities call are idempotent.
type Store struct {
	db *bun.DB
}

// NewStore returns a Store over db.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

// DB returns the underlying database handle.
func (s *Store) DB() *bun.DB { return s.db }

// savepoint runs fn inside a savepoint of tx and rolls back to it when fn
// fails, so that the transaction can go on.
func savepoint[T any](ctx context.Context, tx bun.Tx, fn func() (T, error)) (T, error) {
	var zero T
	if _, err := tx.ExecContext(ctx, "SAVEPOINT page"); err != nil {
		return zero, err
	}
	v, err := fn()
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT page"); rerr != nil {
			return zero, rerr
		}
		return zero, err
	}
	_, err = tx.ExecContext(ctx, "RELEASE SAVEPOINT page")
	return v, err
}

// lockRunning locks the crawl's row (FOR SHARE or FOR UPDATE) and reports
// whether the crawl is running. The lock orders page writes with the
// crawl's end (setEndStatus): nothing changes a crawl's pages after it
// ended.
func lockRunning(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, mode string) (bool, error) {
	var status crawl.Status
	err := tx.NewSelect().Model((*crawl.Crawl)(nil)).Column("status").
		Where("id = ?", crawlID).For(mode).Scan(ctx, &status)
	if err != nil {
		return false, fmt.Errorf("lock crawl %s: %w", crawlID, err)
	}
	return status == crawl.StatusRunning, nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
