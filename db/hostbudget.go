package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/durablecrawl/crawler/hostbudget"
)

// hostRow is a host's back-off (host_budgets).
type hostRow struct {
	Factor       float64
	ThrottledAt  *time.Time
	BackoffUntil *time.Time
	// ThrottleStatus and ThrottleRetryAfterMS are what the host answered.
	ThrottleStatus       int
	ThrottleRetryAfterMS int64
	Now                  time.Time
}

// leaseRow is one holder's lease of a host (host_leases).
type leaseRow struct {
	Holder       string
	Slots        int
	Wanted       int
	Rate         float64
	CrawlDelayMS int
}

// Lease renews a worker's lease of a host's politeness budget: under the
// lock of the host's row (every worker's renewals of a host take turns),
// it reads the host's back-off and the other live leases, lets
// hostbudget.Grant decide, and records the lease until ttl from now (the
// database's clock). See package hostbudget.
func (s *Store) Lease(ctx context.Context, req hostbudget.Request, ttl time.Duration) (hostbudget.Lease, error) {
	var lease hostbudget.Lease
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var h hostRow
		if err := tx.NewRaw(`INSERT INTO host_budgets (host) VALUES (?) ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host
RETURNING factor, throttled_at, backoff_until, throttle_status, throttle_retry_after_ms, clock_timestamp() AS now`, req.Host).Scan(ctx, &h); err != nil {
			return fmt.Errorf("lock host %s: %w", req.Host, err)
		}
		var rows []leaseRow
		if err := tx.NewRaw(`SELECT holder, slots, wanted, rate, crawl_delay_ms FROM host_leases WHERE host = ? AND holder <> ? AND expires_at > ?`,
			req.Host, req.Holder, h.Now).Scan(ctx, &rows); err != nil {
			return fmt.Errorf("leases of host %s: %w", req.Host, err)
		}
		others := make([]hostbudget.Holding, len(rows))
		for i, r := range rows {
			others[i] = hostbudget.Holding{Holder: r.Holder, Slots: r.Slots, Wanted: r.Wanted, Rate: r.Rate,
				CrawlDelay: time.Duration(r.CrawlDelayMS) * time.Millisecond}
		}
		before := h.state()
		after, mine, l := hostbudget.Grant(before, others, req, h.Now)
		lease = l
		if _, err := tx.NewRaw(`INSERT INTO host_leases (host, holder, slots, wanted, rate, crawl_delay_ms, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (host, holder) DO UPDATE SET slots = EXCLUDED.slots, wanted = EXCLUDED.wanted, rate = EXCLUDED.rate,
	crawl_delay_ms = EXCLUDED.crawl_delay_ms, expires_at = EXCLUDED.expires_at`,
			req.Host, req.Holder, mine.Slots, mine.Wanted, mine.Rate, mine.CrawlDelay.Milliseconds(), h.Now.Add(ttl)).Exec(ctx); err != nil {
			return fmt.Errorf("lease host %s: %w", req.Host, err)
		}
		if after == before {
			return nil
		}
		if !after.BackoffUntil.Equal(before.BackoffUntil) {
			// Delivered on commit to every worker's Listen.
			if _, err := tx.NewRaw(`SELECT pg_notify(?, ?)`, backoffChannel, req.Host).Exec(ctx); err != nil {
				return fmt.Errorf("announce the back-off of host %s: %w", req.Host, err)
			}
		}
		if _, err := tx.NewRaw(`UPDATE host_budgets SET factor = ?, throttled_at = ?, backoff_until = ?, throttle_status = ?, throttle_retry_after_ms = ?
WHERE host = ?`,
			after.Factor, nullTime(after.ThrottledAt), nullTime(after.BackoffUntil), after.Cause.Status, ceilMS(after.Cause.RetryAfter), req.Host).Exec(ctx); err != nil {
			return fmt.Errorf("back off host %s: %w", req.Host, err)
		}
		return nil
	})
	return lease, err
}

func (h hostRow) state() hostbudget.State {
	st := hostbudget.State{Factor: h.Factor, Cause: hostbudget.Throttle{Status: h.ThrottleStatus,
		RetryAfter: time.Duration(h.ThrottleRetryAfterMS) * time.Millisecond}}
	if h.ThrottledAt != nil {
		st.ThrottledAt = *h.ThrottledAt
	}
	if h.BackoffUntil != nil {
		st.BackoffUntil = *h.BackoffUntil
	}
	return st
}

// ceilMS is d in whole milliseconds, rounded up: a wait, however short,
// stays one.
func ceilMS(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// backoffChannel is where Lease announces a host's back-off.
const backoffChannel = "host_backoff"

// Listen calls backoff with each host a worker's Lease backs off, until
// ctx is done (see hostbudget.Store).
func (s *Store) Listen(ctx context.Context, backoff func(host string)) error {
	ln := pgdriver.NewListener(s.db)
	defer ln.Close()
	if err := ln.Listen(ctx, backoffChannel); err != nil {
		return fmt.Errorf("listen for host back-offs: %w", err)
	}
	ch := ln.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n, ok := <-ch:
			if !ok {
				return errors.New("the back-off listener closed")
			}
			backoff(n.Payload)
		}
	}
}

// Release gives back a worker's leases of hosts, and forgets the leases
// long expired (of workers gone) and the hosts that no worker leases and
// that have long recovered from their last back-off. Each statement runs
// on its own, so that none holds a lease row while it waits for a host's
// (Lease takes them the other way round).
func (s *Store) Release(ctx context.Context, holder string, hosts []string) error {
	if _, err := s.db.NewRaw(`DELETE FROM host_leases WHERE holder = ? AND host = ANY(?)`, holder, pgdialect.Array(hosts)).Exec(ctx); err != nil {
		return fmt.Errorf("release host leases: %w", err)
	}
	if _, err := s.db.NewRaw(`DELETE FROM host_leases WHERE expires_at < clock_timestamp() - interval '1 minute'`).Exec(ctx); err != nil {
		return fmt.Errorf("forget expired host leases: %w", err)
	}
	_, err := s.db.NewRaw(`DELETE FROM host_budgets b WHERE b.host = ANY(?)
AND NOT EXISTS (SELECT 1 FROM host_leases l WHERE l.host = b.host AND l.expires_at > clock_timestamp())
AND (b.throttled_at IS NULL OR b.throttled_at < clock_timestamp() - interval '10 minutes')
AND (b.backoff_until IS NULL OR b.backoff_until < clock_timestamp() - interval '5 minutes')`, pgdialect.Array(hosts)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("forget hosts: %w", err)
	}
	return nil
}
