package batch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/db"
)

// TestOutcomeWriterBound fetches from many goroutines through a writer
// whose saves are slow: every outcome is saved once, and the pages in
// flight (admitted, or added and not saved) never exceed the limit.
func TestOutcomeWriterBound(t *testing.T) {
	const limit, total = 4, 200
	var (
		mu       sync.Mutex
		saved    = map[int64]int{}
		inFlight atomic.Int64
		peak     atomic.Int64
	)
	w := newOutcomeWriter(limit, func(outs []db.FetchOutcome) error {
		time.Sleep(time.Millisecond)
		mu.Lock()
		for _, o := range outs {
			saved[o.PageID]++
		}
		mu.Unlock()
		inFlight.Add(-int64(len(outs)))
		return nil
	})
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < total; i += 8 {
				if !w.admit(ctx, int64(i)) {
					t.Error("not admitted")
					return
				}
				if n := inFlight.Add(1); n > peak.Load() {
					peak.Store(n)
				}
				time.Sleep(100 * time.Microsecond) // the fetch
				w.add(db.FetchOutcome{PageID: int64(i)})
			}
		}()
	}
	wg.Wait()
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if len(saved) != total {
		t.Fatalf("%d outcomes saved, want %d", len(saved), total)
	}
	for id, n := range saved {
		if n != 1 {
			t.Errorf("outcome %d saved %d times", id, n)
		}
	}
	if p := peak.Load(); p > limit {
		t.Errorf("%d pages in flight at once, limit %d", p, limit)
	}
}

// TestOutcomeWriterAdmitCancelled: a fetch waiting for room gives up when
// its batch is cancelled.
func TestOutcomeWriterAdmitCancelled(t *testing.T) {
	w := newOutcomeWriter(1, func([]db.FetchOutcome) error { return nil })
	defer w.close()
	ctx, cancel := context.WithCancel(context.Background())
	if !w.admit(ctx, 1) {
		t.Fatal("the first page was not admitted")
	}
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if w.admit(ctx, 2) {
		t.Error("a second page was admitted beyond the limit")
	}
}

// TestOutcomeWriterFailure: after a failed save, the writer drops what
// comes (those pages stay claimed, for the retried batch) and close
// reports the failure.
func TestOutcomeWriterFailure(t *testing.T) {
	var calls atomic.Int32
	w := newOutcomeWriter(2, func([]db.FetchOutcome) error {
		calls.Add(1)
		return errors.New("database gone")
	})
	for i := 0; i < 20; i++ {
		w.add(db.FetchOutcome{PageID: int64(i)})
	}
	if err := w.close(); err == nil || err.Error() != "database gone" {
		t.Fatalf("close = %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d saves after the first failure", n-1)
	}
	if err := w.close(); err == nil {
		t.Error("a second close forgot the failure")
	}
}

// TestOutcomeWriterAdmitsNothingAfterFailure: once a save failed, no more
// pages are fetched: their outcomes would be thrown away.
func TestOutcomeWriterAdmitsNothingAfterFailure(t *testing.T) {
	w := newOutcomeWriter(4, func([]db.FetchOutcome) error { return errors.New("database gone") })
	ctx := context.Background()
	if !w.admit(ctx, 1) {
		t.Fatal("the first page was not admitted")
	}
	w.add(db.FetchOutcome{PageID: 1})
	deadline := time.Now().Add(5 * time.Second)
	for w.admit(ctx, 2) {
		w.add(db.FetchOutcome{PageID: 2})
		if time.Now().After(deadline) {
			t.Fatal("pages are still admitted after the save failed")
		}
		time.Sleep(time.Millisecond)
	}
	if err := w.close(); err == nil {
		t.Error("close forgot the failure")
	}
}
