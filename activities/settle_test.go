package activities

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
)

// TestReadAheadStopsReadingBeforeItReturns: when fn fails, readAhead
// returns only once the read it started ahead has ended, and starts no
// other: what read uses (the settle step's spool) is closed right after.
func TestReadAheadStopsReadingBeforeItReturns(t *testing.T) {
	var reads, reading atomic.Int32
	read := func() ([]crawl.Page, error) {
		reading.Add(1)
		defer reading.Add(-1)
		if reads.Add(1) > 1 {
			time.Sleep(200 * time.Millisecond) // the read ahead, still going when fn fails
		}
		return []crawl.Page{{ID: int64(reads.Load())}}, nil
	}
	failed := errors.New("fn failed")
	err := readAhead(read, func([]crawl.Page) error { return failed })
	if !errors.Is(err, failed) {
		t.Fatalf("err = %v, want fn's", err)
	}
	if n := reading.Load(); n != 0 {
		t.Fatalf("readAhead returned with %d reads still going", n)
	}
	time.Sleep(300 * time.Millisecond)
	if n := reads.Load(); n > 2 {
		t.Errorf("%d reads; want at most the one ahead of the failing chunk", n)
	}
}
