package activities

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
)

// The fake store's webhook events: f.hooks, with f.results as the crawl's
// result pages.

func (f *fakeStore) AddWebhookEvent(_ context.Context, crawlID uuid.UUID, event string, ord int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "AddWebhookEvent")
	for _, ev := range f.hooks {
		if ev.Ord == ord {
			return nil
		}
	}
	now := time.Now()
	f.hooks = append(f.hooks, db.WebhookEvent{ID: uuid.New(), CrawlID: crawlID, Event: event, Ord: ord, NextAttemptAt: now, CreatedAt: now})
	return nil
}

func (f *fakeStore) AddPageWebhookEvents(_ context.Context, crawlID uuid.UUID, extractedOnly, changedOnly bool) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.results {
		if extractedOnly && p.ExtractedAt == nil {
			continue
		}
		if changedOnly && (p.ChangeStatus == nil || *p.ChangeStatus == "same") {
			continue
		}
		if !slices.ContainsFunc(f.hooks, func(ev db.WebhookEvent) bool { return ev.PageID != nil && *ev.PageID == p.ID }) {
			now := time.Now()
			f.hooks = append(f.hooks, db.WebhookEvent{ID: uuid.New(), CrawlID: crawlID, Event: "page", Ord: db.WebhookPage,
				PageID: &p.ID, NextAttemptAt: now, CreatedAt: now})
			n++
		}
	}
	return n, nil
}

func pendingEvent(ev db.WebhookEvent) bool { return ev.DeliveredAt == nil && ev.GivenUpAt == nil }

func (f *fakeStore) DueWebhookEvents(_ context.Context, _ uuid.UUID, now time.Time, limit int) ([]db.WebhookEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var due []db.WebhookEvent
	for _, ev := range f.hooks {
		earlier := slices.ContainsFunc(f.hooks, func(o db.WebhookEvent) bool { return o.Ord < ev.Ord && pendingEvent(o) })
		if pendingEvent(ev) && !ev.NextAttemptAt.After(now) && !earlier {
			due = append(due, ev)
		}
	}
	slices.SortStableFunc(due, func(a, b db.WebhookEvent) int { return a.Ord - b.Ord })
	return due[:min(len(due), limit)], nil
}

func (f *fakeStore) WebhookBacklog(context.Context, uuid.UUID) (db.WebhookBacklog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b db.WebhookBacklog
	first := db.WebhookLast + 1 // the earliest place still pending
	for _, ev := range f.hooks {
		b.Ended = b.Ended || ev.Ord == db.WebhookLast
		if pendingEvent(ev) {
			b.Pending++
			if ev.Ord < db.WebhookLast {
				b.PendingPages++
			}
			first = min(first, ev.Ord)
		}
	}
	for _, ev := range f.hooks {
		if pendingEvent(ev) && ev.Ord == first && (b.Next.IsZero() || ev.NextAttemptAt.Before(b.Next)) {
			b.Next = ev.NextAttemptAt
		}
	}
	return b, nil
}

func (f *fakeStore) SaveWebhookAttempt(_ context.Context, ev *db.WebhookEvent, entry crawl.CrawlLog) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.hooks {
		if f.hooks[i].ID == ev.ID {
			f.hooks[i] = *ev
		}
	}
	f.logs = append(f.logs, entry)
	return nil
}

func (f *fakeStore) ResultPages(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error) {
	return f.StoredPages(ctx, crawlID, ids) // the same pages, as the webhook reads them
}
