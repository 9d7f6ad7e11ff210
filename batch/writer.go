package batch

import (
	"context"
	"sync"

	"github.com/durablecrawl/crawler/db"
)

// outcomeWriter saves a batch's fetch outcomes as they arrive, with one
// writer: the batch's transactions never wait on one another, and while
// one is written the outcomes that arrive meanwhile gather for the next
// (a group commit). Fetches are admitted only while the pages in flight
// (being fetched, or fetched and not saved) stay within a bound, so a
// worker that dies loses no more than those, without paying a commit per
// page.
type outcomeWriter struct {
	save func([]db.FetchOutcome) error
	// limit bounds the pages in flight: admitted for fetching, or fetched
	// and not saved yet. admit waits for room, so that a crash loses no
	// more than the batch's parallelism.
	limit int

	mu       sync.Mutex
	room     *sync.Cond
	admitted map[int64]bool // pages admitted and not added yet
	unsaved  int            // added, and not saved or dropped yet
	pending  []db.FetchOutcome
	err      error
	wake     chan struct{}
	closed   bool
	done     chan struct{}
	once     sync.Once
}

// Bounds of one group of outcomes saved in one transaction.
const (
	saveGroupPages = 64
	saveGroupBytes = 8 << 20
)

// newOutcomeWriter starts a writer that saves outcomes with save, with at
// most limit pages in flight (0: no bound).
func newOutcomeWriter(limit int, save func([]db.FetchOutcome) error) *outcomeWriter {
	w := &outcomeWriter{save: save, limit: limit, admitted: map[int64]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room = sync.NewCond(&w.mu)
	go w.run()
	return w
}

// admit waits until the page may be fetched: until fewer than limit pages
// are in flight. It reports false when ctx ended first.
func (w *outcomeWriter) admit(ctx context.Context, pageID int64) bool {
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.room.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.limit > 0 && len(w.admitted)+w.unsaved >= w.limit && !w.closed && ctx.Err() == nil {
		w.room.Wait()
	}
	if ctx.Err() != nil || w.err != nil {
		return false // after a failed save, a fetch would be thrown away
	}
	w.admitted[pageID] = true
	return true
}

// add queues an outcome for saving. After the first failed save, outcomes
// are dropped: their pages stay claimed, and the retried batch fetches
// them again.
func (w *outcomeWriter) add(o db.FetchOutcome) {
	w.mu.Lock()
	delete(w.admitted, o.PageID)
	w.pending = append(w.pending, o)
	w.unsaved++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close saves what is pending, stops the writer and returns the first
// save error. It may be called more than once.
func (w *outcomeWriter) close() error {
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.room.Broadcast()
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
		<-w.done
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *outcomeWriter) run() {
	defer close(w.done)
	for {
		w.mu.Lock()
		n, size := 0, 0
		for n < len(w.pending) && n < saveGroupPages && (n == 0 || size+w.pending[n].Size() <= saveGroupBytes) {
			size += w.pending[n].Size()
			n++
		}
		group := w.pending[:n:n]
		w.pending = w.pending[n:]
		closed, failed := w.closed, w.err != nil
		w.mu.Unlock()
		if len(group) > 0 {
			if !failed { // after a failure, outcomes are dropped
				if err := w.save(group); err != nil {
					w.mu.Lock()
					if w.err == nil {
						w.err = err
					}
					w.mu.Unlock()
				}
			}
			w.mu.Lock()
			w.unsaved -= len(group)
			w.room.Broadcast()
			w.mu.Unlock()
			continue
		}
		if closed {
			return
		}
		<-w.wake
	}
}
