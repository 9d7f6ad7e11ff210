package hostbudget

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGrantSplitsTheHost(t *testing.T) {
	now := time.Now()
	limits := Limits{MaxInFlight: 10, Rate: 100}
	// Alone, a holder gets all it wants, and the whole rate.
	_, a, l := Grant(State{}, nil, Request{Host: "h", Holder: "a", Want: 10, Limits: limits}, now)
	if l.Slots != 10 || l.Rate != 100 || l.Limit != 10 {
		t.Fatalf("alone: %+v, want 10 slots at 100/s", l)
	}
	// A second holder gets nothing while the first holds all...
	_, b, l := Grant(State{}, []Holding{a}, Request{Host: "h", Holder: "b", Want: 10, Limits: limits}, now)
	if l.Slots != 0 || b.Slots != 0 {
		t.Fatalf("second: %+v, want none while a holds all", l)
	}
	// ...the first gives back down to its share (keeping what is in
	// flight)...
	_, a, l = Grant(State{}, []Holding{b}, Request{Host: "h", Holder: "a", Want: 10, InUse: 7, Limits: limits}, now)
	if l.Slots != 5 || a.Slots != 7 || l.Rate != 50 {
		t.Fatalf("first at its share: %+v (held %d), want 5 slots at 50/s, 7 held", l, a.Slots)
	}
	// ...and the second gets what is free, then its share.
	_, b, l = Grant(State{}, []Holding{a}, Request{Host: "h", Holder: "b", Want: 10, Limits: limits}, now)
	if l.Slots != 3 || l.Rate != 50 {
		t.Fatalf("second: %+v, want the 3 free slots", l)
	}
	a.Slots = 5
	_, b, l = Grant(State{}, []Holding{a}, Request{Host: "h", Holder: "b", Want: 10, Limits: limits}, now)
	if l.Slots != 5 || a.Slots+b.Slots > limits.MaxInFlight || a.Rate+b.Rate > limits.Rate {
		t.Fatalf("second: %+v; %d+%d slots, %.0f+%.0f/s", l, a.Slots, b.Slots, a.Rate, b.Rate)
	}
	// No rate bound: an infinite rate.
	_, _, l = Grant(State{}, nil, Request{Host: "h", Holder: "a", Want: 3, Limits: Limits{MaxInFlight: 4}}, now)
	if !math.IsInf(l.Rate, 1) || l.Slots != 3 {
		t.Fatalf("no rate: %+v", l)
	}
}

func TestGrantCrawlDelay(t *testing.T) {
	now := time.Now()
	other := Holding{Holder: "a", CrawlDelay: 2 * time.Second}
	_, _, l := Grant(State{}, []Holding{other}, Request{Host: "h", Holder: "b", Want: 8, Limits: Limits{MaxInFlight: 32}}, now)
	if l.Limit != 1 || l.Slots != 1 || l.Rate != 0.5 {
		t.Fatalf("%+v, want one request at a time, one every 2 s", l)
	}
}

func TestGrantThrottle(t *testing.T) {
	now := time.Now()
	limits := Limits{MaxInFlight: 32, Rate: 100}
	req := Request{Host: "h", Holder: "a", Want: 32, Limits: limits, Throttle: &Throttle{Status: 429, RetryAfter: 30 * time.Second}}
	st, _, l := Grant(State{}, nil, req, now)
	if l.Backoff != 30*time.Second || l.Limit != 16 || l.Rate != 50 || l.Cause != (Throttle{Status: 429, RetryAfter: 30 * time.Second}) {
		t.Fatalf("after a 429 with Retry-After 30: %+v", l)
	}
	// In flight when the first came: the same episode, not halved again.
	req.Throttle = &Throttle{Status: 429, RetryAfter: 30 * time.Second}
	st, _, l = Grant(st, nil, req, now.Add(time.Second))
	if l.Limit != 16 || l.Backoff != 30*time.Second {
		t.Fatalf("a second 429 of the same episode: %+v", l)
	}
	// Without Retry-After, after the pause: no pause, halved again.
	later := now.Add(31 * time.Second) // the second 429 moved the end to 31 s
	req.Throttle = &Throttle{Status: 503}
	st, _, l = Grant(st, nil, req, later)
	if l.Backoff != 0 || l.Limit != 8 || l.Cause != (Throttle{Status: 503}) {
		t.Fatalf("503 without Retry-After after the pause: %+v", l)
	}
	// Within SlowEvery: the same overload, not halved again.
	st, _, l = Grant(st, nil, req, later.Add(SlowEvery/2))
	if l.Limit != 8 {
		t.Fatalf("a second 503 at once: %+v", l)
	}
	// Recovery: doubling every RecoverEvery.
	req.Throttle = nil
	_, _, l = Grant(st, nil, req, later.Add(RecoverEvery))
	if l.Limit != 16 || l.Backoff != 0 {
		t.Fatalf("one RecoverEvery later: %+v, want 16", l)
	}
	_, _, l = Grant(st, nil, req, later.Add(2*RecoverEvery))
	if l.Limit != 32 || l.Rate != 100 || l.Cause != (Throttle{}) {
		t.Fatalf("recovered: %+v", l)
	}
	if !st.Recovered(later.Add(2 * time.Minute)) {
		t.Error("not recovered two minutes later")
	}
}

// TestBudgetsShareAHost: three processes' budgets with many requests each
// never have more than the host's limit in flight, nor start more than
// its rate in any second.
func TestBudgetsShareAHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a few seconds")
	}
	for _, limits := range []Limits{{MaxInFlight: 6, Rate: 40}, {MaxInFlight: 6}} {
		shareAHost(t, limits)
	}
}

func shareAHost(t *testing.T, limits Limits) {
	store := NewMemory()
	var inFlight, peak atomic.Int64
	var mu sync.Mutex
	perSecond := map[int64]int{}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := range 3 {
		b := New(store, limits, string(rune('a'+i)), nil)
		defer b.Close()
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					s, err := b.Acquire(ctx, "Site.example:80")
					if err != nil {
						return
					}
					now := time.Now()
					mu.Lock()
					perSecond[now.UnixMilli()/1000]++
					mu.Unlock()
					n := inFlight.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(5 * time.Millisecond)
					inFlight.Add(-1)
					done.Add(1)
					s.Release()
				}
			}()
		}
	}
	wg.Wait()
	if p := peak.Load(); p > int64(limits.MaxInFlight) {
		t.Errorf("%d requests in flight at once, over the limit of %d", p, limits.MaxInFlight)
	}
	busiest := 0
	for _, n := range perSecond {
		busiest = max(busiest, n)
	}
	t.Logf("%d requests, peak %d in flight, busiest second %d", done.Load(), peak.Load(), busiest)
	for sec, n := range perSecond {
		// One more per holder: each starts its share's first second with
		// a token.
		if limits.Rate > 0 && n > int(limits.Rate)+3 {
			t.Errorf("%d requests in second %d, over %v/s", n, sec, limits.Rate)
		}
	}
	if limits.Rate == 0 && peak.Load() < int64(limits.MaxInFlight) {
		t.Errorf("peak %d in flight: the holders never used the host's %d", peak.Load(), limits.MaxInFlight)
	}
	if d := done.Load(); d < 40 {
		t.Errorf("only %d requests in 3 s: the budget starves its holders", d)
	}
	for _, h := range store.Holdings("site.example:80") {
		if h.Slots > limits.MaxInFlight {
			t.Errorf("holding %+v", h)
		}
	}
}

// TestThrottleStopsEveryHolder: after a 429 with Retry-After, no holder
// starts a request until it has passed; the holder that saw it stops at
// once, the others after their next renewal.
func TestThrottleStopsEveryHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a few seconds")
	}
	store := NewMemory()
	limits := Limits{MaxInFlight: 4}
	a, b := New(store, limits, "a", nil), New(store, limits, "b", nil)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	s, err := a.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	// b holds a lease too, so it renews on its own clock.
	sb, err := b.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	sb.Release()
	throttledAt := time.Now()
	s.Report(429, 2*time.Second)
	s.Release()
	// The other holder is told at once (Listen) and renews its lease:
	// well before its next renewal is due.
	var until time.Time
	for deadline := time.Now().Add(renewEvery / 2); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b.mu.Lock()
		until = b.hosts["h"].backoffUntil
		b.mu.Unlock()
		if !until.IsZero() {
			break
		}
	}
	if until.Before(throttledAt.Add(2*time.Second - 50*time.Millisecond)) {
		t.Errorf("the other holder backs off until %v, want about %v", until, throttledAt.Add(2*time.Second))
	}
	var waits []Wait
	var mu sync.Mutex
	notice := WithNotice(ctx, func(w Wait) { mu.Lock(); waits = append(waits, w); mu.Unlock() })
	for _, budget := range []*Budget{a, b} {
		sa, err := budget.Acquire(notice, "h")
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(throttledAt); waited < 2*time.Second-10*time.Millisecond {
			t.Errorf("a holder started again %v after the 429", waited)
		}
		sa.Release()
	}
	mu.Lock()
	// The pause, then perhaps the slowed pace (half the slots).
	if len(waits) == 0 || waits[0].Host != "h" || waits[0].Until.IsZero() || waits[0].Cause.Status == 0 {
		t.Errorf("notices %+v, want the pause first, naming the host and why", waits)
	}
	for _, w := range waits[1:] {
		if !w.Until.IsZero() || w.Limit != 2 {
			t.Errorf("notice %+v, want the host slowed to 2 at once", w)
		}
	}
	mu.Unlock()
}

func TestFairShares(t *testing.T) {
	now := time.Unix(1000, 0)
	// What one does not want goes to the others.
	got := fairShares(map[string]int{"a": 2, "b": 64, "c": 64}, 32, now)
	if got["a"] != 2 || got["b"]+got["c"] != 30 || got["b"] < 15 || got["c"] < 15 {
		t.Errorf("max-min shares %v", got)
	}
	// One slot, two holders: each has it in turn.
	holders := map[string]bool{}
	for i := range 4 {
		for h, n := range fairShares(map[string]int{"a": 1, "b": 1}, 1, now.Add(time.Duration(i)*rotateEvery)) {
			if n == 1 {
				holders[h] = true
			}
		}
	}
	if len(holders) != 2 {
		t.Errorf("one slot went to %v only over four turns", holders)
	}
}
