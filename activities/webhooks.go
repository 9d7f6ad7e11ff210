package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/webhook"
)

// webhookStore is what DeliverWebhooks needs of the database.
type webhookStore interface {
	crawlLoader
	AddWebhookEvent(ctx context.Context, crawlID uuid.UUID, event string, ord int) error
	AddPageWebhookEvents(ctx context.Context, crawlID uuid.UUID, extractedOnly, changedOnly bool) (int, error)
	DueWebhookEvents(ctx context.Context, crawlID uuid.UUID, now time.Time, limit int) ([]db.WebhookEvent, error)
	WebhookBacklog(ctx context.Context, crawlID uuid.UUID) (db.WebhookBacklog, error)
	SaveWebhookAttempt(ctx context.Context, ev *db.WebhookEvent, entry crawl.CrawlLog) error
	ResultPages(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error)
	PreviousOf(ctx context.Context, pages []crawl.Page) (map[int64]changes.Previous, error)
}

// WebhookSender makes one attempt to deliver an event (webhook.Sender).
type WebhookSender interface {
	Send(ctx context.Context, c *webhook.Config, eventID string, body []byte) (int, error)
}

var _ WebhookSender = (*webhook.Sender)(nil)

// DeliverWebhooksInput names the crawl whose events are due. Final is
// set once the crawl has ended: its end event is then added, after every
// page event is delivered or given up.
type DeliverWebhooksInput struct {
	CrawlID string
	Final   bool `json:",omitempty"`
}

// DeliverWebhooksResult says what is left: Pending events not delivered
// nor given up, the first of them due in RetryIn.
type DeliverWebhooksResult struct {
	Pending int           `json:",omitempty"`
	RetryIn time.Duration `json:",omitempty"`
}

// Limits of one DeliverWebhooks: events sent at once, events read per
// round, and the time it spends before it hands back to the workflow
// (which calls it again at once when events are due).
const (
	webhookParallelism = 8
	webhookRound       = 64
	webhookSlice       = 2 * time.Minute
)

// DeliverWebhooks records the crawl's new events (started, one per result
// page stored since, and with Final the end) and makes one attempt at
// each event that is due, recording every outcome with its log entry.
// Events are retried on later calls until delivered or, after
// Settings.WebhookRetryFor, given up; the event's ID stays the same.
func (a *Activities) DeliverWebhooks(ctx context.Context, in DeliverWebhooksInput) (DeliverWebhooksResult, error) {
	return deliverWebhooks(ctx, a.Store, a.Webhooks, a.Settings, in)
}

func deliverWebhooks(ctx context.Context, store webhookStore, sender WebhookSender, s Settings, in DeliverWebhooksInput) (DeliverWebhooksResult, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil || o.Webhook == nil {
		return DeliverWebhooksResult{}, err
	}
	if sender == nil {
		return DeliverWebhooksResult{}, nonRetryable(fmt.Errorf("this worker cannot send webhooks"))
	}
	hook := o.Webhook
	if hook.Wants(webhook.Started) {
		if err := store.AddWebhookEvent(ctx, c.ID, webhook.Started, db.WebhookFirst); err != nil {
			return DeliverWebhooksResult{}, err
		}
	}
	if hook.Wants(webhook.Page) {
		// While the crawl runs, a page with extraction waits for it; once
		// the crawl has ended, every result page gets its event.
		extractedOnly := o.Extraction != "" && !in.Final
		changedOnly := hook.ChangedOnly && o.ChangeTracking
		if _, err := store.AddPageWebhookEvents(ctx, c.ID, extractedOnly, changedOnly); err != nil {
			return DeliverWebhooksResult{}, err
		}
	}
	d := delivery{store: store, sender: sender, crawl: c, hook: hook, retryFor: s.webhookRetryFor(), base: s.PublicURL}
	var sent atomic.Int64 // events attempted, reported by the heartbeat
	stop := keepAlive(ctx, func() any { return sent.Load() })
	defer stop()
	began := time.Now()
	for time.Since(began) < webhookSlice && ctx.Err() == nil {
		if in.Final && c.Status.Terminal() {
			if err := d.addEnd(ctx); err != nil {
				return DeliverWebhooksResult{}, err
			}
		}
		due, err := store.DueWebhookEvents(ctx, c.ID, time.Now(), webhookRound)
		if err != nil {
			return DeliverWebhooksResult{}, err
		}
		if len(due) == 0 {
			break
		}
		if err := d.sendAll(ctx, due); err != nil {
			return DeliverWebhooksResult{}, err
		}
		sent.Add(int64(len(due)))
	}
	backlog, err := store.WebhookBacklog(ctx, c.ID)
	if err != nil {
		return DeliverWebhooksResult{}, err
	}
	res := DeliverWebhooksResult{Pending: backlog.Pending}
	if backlog.Pending > 0 {
		res.RetryIn = max(time.Until(backlog.Next), 0)
	}
	if in.Final && c.Status.Terminal() && backlog.PendingPages == 0 && !backlog.Ended && hook.Wants(endEvent(c.Status)) {
		res.Pending++ // the end event, added on the next call
	}
	return res, nil
}

// webhookRetryFor is how long an event is tried before it is given up.
func (s Settings) webhookRetryFor() time.Duration {
	if s.WebhookRetryFor > 0 {
		return s.WebhookRetryFor
	}
	return webhook.DefaultRetryFor
}

// endEvent is the event that tells a crawl ended with status.
func endEvent(status crawl.Status) string {
	if status == crawl.StatusSucceeded {
		return webhook.Completed
	}
	return webhook.Failed
}

// delivery is one DeliverWebhooks call's state.
type delivery struct {
	store    webhookStore
	sender   WebhookSender
	crawl    *crawl.Crawl
	hook     *webhook.Config
	retryFor time.Duration
	base     string // the API's address, for screenshot URLs
}

// addEnd adds the crawl's end event once no started or page event is
// left to try.
func (d *delivery) addEnd(ctx context.Context) error {
	end := endEvent(d.crawl.Status)
	if !d.hook.Wants(end) {
		return nil
	}
	backlog, err := d.store.WebhookBacklog(ctx, d.crawl.ID)
	if err != nil || backlog.PendingPages > 0 || backlog.Ended {
		return err
	}
	return d.store.AddWebhookEvent(ctx, d.crawl.ID, end, db.WebhookLast)
}

// sendAll makes one attempt at each event (in the crawl's order: those of
// one ord, webhookParallelism at once, before the next ord's), and
// records each outcome.
func (d *delivery) sendAll(ctx context.Context, events []db.WebhookEvent) error {
	bodies, err := d.bodies(ctx, events)
	if err != nil {
		return err
	}
	for len(events) > 0 {
		n := 1
		for n < len(events) && events[n].Ord == events[0].Ord {
			n++
		}
		if err := d.sendGroup(ctx, events[:n], bodies); err != nil {
			return err
		}
		events = events[n:]
	}
	return nil
}

// sendGroup makes one attempt at each event, webhookParallelism at once.
func (d *delivery) sendGroup(ctx context.Context, events []db.WebhookEvent, bodies map[uuid.UUID]sentBody) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	slots := make(chan struct{}, webhookParallelism)
	for i := range events {
		wg.Add(1)
		slots <- struct{}{}
		go func(ev *db.WebhookEvent) {
			defer func() { <-slots; wg.Done() }()
			if err := d.attempt(ctx, ev, bodies[ev.ID]); err != nil {
				mu.Lock()
				first = cmpErr(first, err)
				mu.Unlock()
			}
		}(&events[i])
	}
	wg.Wait()
	return first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// sentBody is an event's body and, for a page event, the page's URL.
type sentBody struct {
	json    []byte
	pageURL string
}

// bodies builds the body of each event; a page event's document is the
// page as it is stored now.
func (d *delivery) bodies(ctx context.Context, events []db.WebhookEvent) (map[uuid.UUID]sentBody, error) {
	var ids []int64
	for _, ev := range events {
		if ev.PageID != nil {
			ids = append(ids, *ev.PageID)
		}
	}
	pages := map[int64]crawl.Page{}
	var prev map[int64]changes.Previous
	if len(ids) > 0 {
		rows, err := d.store.ResultPages(ctx, d.crawl.ID, ids)
		if err != nil {
			return nil, err
		}
		for _, p := range rows {
			pages[p.ID] = p
		}
		if d.crawl.ChangeTracking {
			if prev, err = d.store.PreviousOf(ctx, rows); err != nil {
				return nil, err
			}
		}
	}
	out := make(map[uuid.UUID]sentBody, len(events))
	for _, ev := range events {
		b := webhook.Body{Success: true, Type: d.hook.Type(ev.Event), ID: d.crawl.ID.String(),
			Data: []json.RawMessage{}, Metadata: d.hook.Metadata, EventID: ev.ID.String(),
			Timestamp: ev.CreatedAt.UTC().Format(time.RFC3339Nano)}
		if b.Metadata == nil {
			b.Metadata = map[string]any{}
		}
		var pageURL string
		if ev.PageID != nil {
			p, ok := pages[*ev.PageID]
			if !ok {
				p = crawl.Page{URL: "", Error: ptrTo("the page is no longer a result of the crawl")}
			}
			doc, err := json.Marshal(firecrawl.StoredDocument(p, d.crawl, prev, d.base))
			if err != nil {
				return nil, err
			}
			b.Data, pageURL = []json.RawMessage{doc}, p.URL
		}
		if ev.Event == webhook.Failed {
			b.Success = false
			msg := d.crawl.ErrorMessage
			if msg == "" {
				msg = "the crawl ended " + string(d.crawl.Status)
			}
			b.Error = &msg
		}
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		out[ev.ID] = sentBody{json: raw, pageURL: pageURL}
	}
	return out, nil
}

func ptrTo[T any](v T) *T { return &v }

// attempt sends ev once and records the outcome: delivered, to be tried
// again, or given up once it has been tried for retryFor.
func (d *delivery) attempt(ctx context.Context, ev *db.WebhookEvent, body sentBody) error {
	status, sendErr := d.sender.Send(ctx, d.hook, ev.ID.String(), body.json)
	if ctx.Err() != nil {
		return ctx.Err() // cancelled or timed out here: not the receiver's doing
	}
	now := time.Now()
	ev.Attempts++
	ev.LastStatus = status
	ev.LastError = ""
	a := crawllog.Attempt{Type: d.hook.Type(ev.Event), PageURL: body.pageURL, Receiver: d.hook.URL, Status: status, Err: sendErr,
		Event: ev.ID, Number: ev.Attempts}
	switch {
	case sendErr == nil:
		ev.DeliveredAt = &now
	case now.Sub(ev.CreatedAt) >= d.retryFor:
		ev.LastError = sendErr.Error()
		ev.GivenUpAt = &now
		a.GivenUp = true
	default:
		ev.LastError = sendErr.Error()
		ev.NextAttemptAt = webhook.NextAttempt(ev.Attempts, now)
		a.Retry = ev.NextAttemptAt.Sub(now).Round(time.Second).String()
	}
	return d.store.SaveWebhookAttempt(ctx, ev, crawllog.WebhookAttempt(d.crawl, a))
}
