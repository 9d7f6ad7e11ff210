package activities

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/db"
)

// TestOutcomeWriterBound adds outcomes from many goroutines to a writer
// whose saves are slow: every outcome is saved once, and never more than
// the limit wait unsaved.
func TestOutcomeWriterBound(t *testing.T) {
	const limit, total = 4, 200
	var (
		mu    sync.Mutex
		saved = map[int64]int{}
		added atomic.Int64
		peak  atomic.Int64
	)
	w := newOutcomeWriter(limit, func(outs []db.FetchOutcome) error {
		mu.Lock()
		n := 0
		for _, s := range saved {
			n += s
		}
		if unsaved := added.Load() - int64(n); unsaved > peak.Load() {
			peak.Store(unsaved)
		}
		for _, o := range outs {
			saved[o.PageID]++
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return nil
	})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < total; i += 8 {
				added.Add(1)
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
	// added counts an outcome just before add takes it, so a goroutine
	// waiting in add may be counted too: at most one each.
	if p := peak.Load(); p > limit+8 {
		t.Errorf("%d outcomes unsaved at once, limit %d", p, limit)
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
