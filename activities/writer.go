package activities

import (
	"sync"

	"github.com/durablecrawl/crawler/db"
)

// outcomeWriter saves a batch's fetch outcomes as they arrive, with one
// writer: the batch's transactions never wait on one another, and while
// one is written the outcomes that arrive meanwhile gather for the next
// (a group commit). A page is thus saved within about one transaction of
// its fetch, so a worker that dies loses little more than the pages in
// flight, without paying a commit per page.
type outcomeWriter struct {
	save func([]db.FetchOutcome) error
	// limit bounds the outcomes added and not yet saved: add waits for
	// room. Fetches wait with it, so the pages in flight (being fetched,
	// or fetched and not saved) stay within the batch's parallelism, and
	// a crash loses no more than those.
	limit int

	mu      sync.Mutex
	room    *sync.Cond
	unsaved int // added, and not saved or dropped yet
	pending []db.FetchOutcome
	err     error
	wake    chan struct{}
	closed  bool
	done    chan struct{}
	once    sync.Once
}

// Bounds of one group of outcomes saved in one transaction.
const (
	saveGroupPages = 64
	saveGroupBytes = 8 << 20
)

// newOutcomeWriter starts a writer that saves outcomes with save, at most
// limit of them unsaved at a time (0: no bound).
func newOutcomeWriter(limit int, save func([]db.FetchOutcome) error) *outcomeWriter {
	w := &outcomeWriter{save: save, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room = sync.NewCond(&w.mu)
	go w.run()
	return w
}

// add queues an outcome for saving. After the first failed save, outcomes
// are dropped: their pages stay claimed, and the retried batch fetches
// them again.
func (w *outcomeWriter) add(o db.FetchOutcome) {
	w.mu.Lock()
	for w.limit > 0 && w.unsaved >= w.limit && !w.closed {
		w.room.Wait()
	}
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
		for n < len(w.pending) && n < saveGroupPages && (n == 0 || size+len(w.pending[n].HTML) <= saveGroupBytes) {
			size += len(w.pending[n].HTML)
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
