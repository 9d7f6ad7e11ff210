package db_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/hostbudget"
)

// TestHostBudgetAcrossHolders: three budgets leasing one host from
// Postgres, as three worker processes would, never have more than its
// limit in flight; a 429 one of them sees backs the others off; the
// leases are given back on Close.
func TestHostBudgetAcrossHolders(t *testing.T) {
	ctx := context.Background()
	limits := hostbudget.Limits{MaxInFlight: 5, Rate: 200}
	var budgets []*hostbudget.Budget
	for _, holder := range []string{"worker-a", "worker-b", "worker-c"} {
		budgets = append(budgets, hostbudget.New(store, limits, holder, nil))
	}
	const host = "shared.example:443"
	var inFlight, peak, done atomic.Int64
	run, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, b := range budgets {
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for run.Err() == nil {
					s, err := b.Acquire(run, host)
					if err != nil {
						return
					}
					n := inFlight.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(10 * time.Millisecond)
					inFlight.Add(-1)
					done.Add(1)
					s.Release()
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d requests in 2 s, peak %d in flight", done.Load(), peak.Load())
	if p := peak.Load(); p > int64(limits.MaxInFlight) || p < 2 {
		t.Errorf("peak %d in flight, want at most (and near) %d", p, limits.MaxInFlight)
	}
	if done.Load() < 100 {
		t.Errorf("only %d requests: the holders starve", done.Load())
	}
	var slots int
	if err := store.DB().NewRaw(`SELECT coalesce(sum(slots), 0) FROM host_leases WHERE host = ? AND expires_at > now()`, host).Scan(ctx, &slots); err != nil {
		t.Fatal(err)
	}
	if slots > limits.MaxInFlight {
		t.Errorf("leases hold %d slots of %d", slots, limits.MaxInFlight)
	}

	// worker-a sees a 429: every holder waits for its Retry-After, the
	// others once told of it (LISTEN/NOTIFY), within milliseconds.
	s, err := budgets[0].Acquire(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	s.Report(429, 3*time.Second)
	s.Release()
	time.Sleep(100 * time.Millisecond) // the notice, not the next renewal
	for i, b := range budgets {
		s, err := b.Acquire(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(at); waited < 3*time.Second-50*time.Millisecond {
			t.Errorf("budget %d started a request %v after the 429 with Retry-After 3", i, waited)
		}
		s.Release()
	}
	var status int
	var retryAfterMS int64
	if err := store.DB().NewRaw(`SELECT throttle_status, throttle_retry_after_ms FROM host_budgets WHERE host = ?`, host).
		Scan(ctx, &status, &retryAfterMS); err != nil || status != 429 || retryAfterMS != 3000 {
		t.Errorf("host_budgets keeps what the host answered as %d, %d ms (%v), want 429, 3000 ms", status, retryAfterMS, err)
	}
	for _, b := range budgets {
		b.Close()
	}
	var leases int
	if err := store.DB().NewRaw(`SELECT count(*) FROM host_leases WHERE host = ?`, host).Scan(ctx, &leases); err != nil || leases != 0 {
		t.Errorf("%d leases left after Close (%v)", leases, err)
	}
}
