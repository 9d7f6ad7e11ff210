package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
)

// WebhookEvent is one event of a crawl's webhook: started, one per result
// page, then completed or failed. It is tried until delivered or given up;
// its ID is the same on every attempt.
type WebhookEvent struct {
	bun.BaseModel `bun:"table:webhook_events"`

	ID      uuid.UUID `bun:"id,pk,type:uuid"`
	CrawlID uuid.UUID `bun:"crawl_id,type:uuid,notnull"`
	Event   string    `bun:"event,notnull"`
	// Ord sends started (0) before the pages (1) before the end (2).
	Ord           int        `bun:"ord,notnull"`
	PageID        *int64     `bun:"page_id"`
	Attempts      int        `bun:"attempts,notnull"`
	NextAttemptAt time.Time  `bun:"next_attempt_at,notnull"`
	DeliveredAt   *time.Time `bun:"delivered_at"`
	GivenUpAt     *time.Time `bun:"given_up_at"`
	LastStatus    int        `bun:"last_status,notnull"`
	LastError     string     `bun:"last_error,notnull"`
	CreatedAt     time.Time  `bun:"created_at,nullzero,notnull,default:now()"`
}

// The places of events in a crawl's order.
const (
	WebhookFirst = 0 // started
	WebhookPage  = 1
	WebhookLast  = 2 // completed or failed
)

// AddWebhookEvent records the crawl's started (ord WebhookFirst) or end
// (WebhookLast) event, due now; a crawl has one of each, so adding it
// again changes nothing.
func (s *Store) AddWebhookEvent(ctx context.Context, crawlID uuid.UUID, event string, ord int) error {
	ev := &WebhookEvent{ID: uuid.New(), CrawlID: crawlID, Event: event, Ord: ord, NextAttemptAt: time.Now()}
	_, err := s.db.NewInsert().Model(ev).Column("id", "crawl_id", "event", "ord", "next_attempt_at").
		On("CONFLICT (crawl_id, ord) WHERE ord <> 1 DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("add %s event: %w", event, err)
	}
	return nil
}

// AddPageWebhookEvents records a page event, due now, for each of the
// crawl's result pages that has none (with extractedOnly, only those whose
// extraction is done with: their document then holds it; with
// changedOnly, only those new or changed since the previous crawl, and the
// pages it removed), and returns how many it added.
func (s *Store) AddPageWebhookEvents(ctx context.Context, crawlID uuid.UUID, extractedOnly, changedOnly bool) (int, error) {
	res, err := s.db.NewRaw(`INSERT INTO webhook_events (id, crawl_id, event, ord, page_id, next_attempt_at, created_at)
		SELECT gen_random_uuid(), p.crawl_id, 'page', 1, p.id, now(), coalesce(p.stored_at, now())
		FROM pages p
		WHERE p.crawl_id = ?
		  AND ((p.state = ? AND (NOT ? OR p.extracted_at IS NOT NULL) AND (NOT ? OR p.change_status IN (?, ?)))
		       OR (? AND p.change_status = ?))
		  AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.crawl_id = p.crawl_id AND e.page_id = p.id)
		ORDER BY p.id
		ON CONFLICT DO NOTHING`, crawlID, crawl.PageStored, extractedOnly, changedOnly, changes.New, changes.Changed,
		changedOnly, changes.Removed).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("add page events: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// DueWebhookEvents returns up to limit of the crawl's events that wait
// for an attempt due by now, in the crawl's order. The page events wait
// until the started event is delivered or given up, and the end event
// until the started and page events are.
func (s *Store) DueWebhookEvents(ctx context.Context, crawlID uuid.UUID, now time.Time, limit int) ([]WebhookEvent, error) {
	events := []WebhookEvent{}
	err := s.db.NewSelect().Model(&events).
		Where("crawl_id = ?", crawlID).Where("delivered_at IS NULL AND given_up_at IS NULL").
		Where("next_attempt_at <= ?", now).
		Where(`NOT EXISTS (SELECT 1 FROM webhook_events o WHERE o.crawl_id = webhook_event.crawl_id
			AND o.ord < webhook_event.ord AND o.delivered_at IS NULL AND o.given_up_at IS NULL)`).
		Order("ord", "created_at", "id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("due events: %w", err)
	}
	return events, nil
}

// WebhookBacklog is where a crawl's events stand.
type WebhookBacklog struct {
	// Pending counts the events not delivered nor given up; PendingPages
	// those of them that are page events (or the started event).
	Pending, PendingPages int
	// Ended reports whether the crawl's end event exists.
	Ended bool
	// Next is when the first event that may be tried is due (zero: none).
	Next time.Time
}

// WebhookBacklog returns where the crawl's events stand. Next counts only
// the events of the earliest place still pending: the later ones wait for
// those.
func (s *Store) WebhookBacklog(ctx context.Context, crawlID uuid.UUID) (WebhookBacklog, error) {
	var b WebhookBacklog
	var next *time.Time
	err := s.db.NewRaw(`WITH p AS (SELECT ord, next_attempt_at FROM webhook_events
			WHERE crawl_id = ? AND delivered_at IS NULL AND given_up_at IS NULL)
		SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM p WHERE ord < 2),
			EXISTS (SELECT 1 FROM webhook_events WHERE crawl_id = ? AND ord = 2),
			(SELECT min(next_attempt_at) FROM p WHERE ord = (SELECT min(ord) FROM p))`,
		crawlID, crawlID).Scan(ctx, &b.Pending, &b.PendingPages, &b.Ended, &next)
	if err != nil {
		return b, fmt.Errorf("webhook backlog: %w", err)
	}
	if next != nil {
		b.Next = *next
	}
	return b, nil
}

// SaveWebhookAttempt records the outcome of an attempt (the event's
// attempts, status, error, and delivered_at, given_up_at or
// next_attempt_at) with its log entry, in one transaction.
func (s *Store) SaveWebhookAttempt(ctx context.Context, ev *WebhookEvent, entry crawl.CrawlLog) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model(ev).
			Column("attempts", "next_attempt_at", "delivered_at", "given_up_at", "last_status", "last_error").
			WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("save attempt of event %s: %w", ev.ID, err)
		}
		return insertLogs(ctx, tx, []crawl.CrawlLog{entry})
	})
}

// ResultPages returns the crawl's pages ids that are results (or pages
// of the previous crawl it removed), with what a document of each shows.
func (s *Store) ResultPages(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.db.NewSelect().Model(&pages).
		Column("id", "url", "final_url", "status_code", "content_type", "title", "markdown", "formats", "error",
			"extraction", "extraction_error", "change_status", "previous_page_id").
		Where("crawl_id = ?", crawlID).Where("(state = ? OR change_status = ?)", crawl.PageStored, changes.Removed).
		Where("id = ANY(?)", pgdialect.Array(ids)).Order("id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("%d result pages: %w", len(ids), err)
	}
	return pages, nil
}
