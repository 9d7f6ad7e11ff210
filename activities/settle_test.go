package activities

import (
	"context"
	"errors"
	"fmt"
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

// TestSettleDeduplicationInChunks: a crawl of many times settleChunk
// pages, some whole and some losing the shared menu, spread over every
// chunk: each page is settled exactly once, with what it should keep,
// and no save holds more than settleChunk pages.
func TestSettleDeduplicationInChunks(t *testing.T) {
	const pages = 5*settleChunk + 37
	menu := "- [Home](/)\n- [Guide](/guide)\n- [Reference](/reference)\n- [Blog](/blog)\n\n"
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, DeduplicateContent: true})
	f := &fakeStore{crawl: c}
	want := map[int64]string{}
	for id := int64(1); id <= pages; id++ {
		own := fmt.Sprintf("# Page %d\n\nPage %d's own text.", id, id)
		md := own
		if id == 1 || id%3 != 0 { // every third page has no menu: it loses nothing
			md = menu + own
		}
		want[id] = own
		if id == 1 {
			want[id] = md // the start page keeps the menu
		}
		f.results = append(f.results, crawl.Page{ID: id, URL: fmt.Sprintf("https://example.com/%d", id), Depth: 1,
			Rank: fmt.Sprintf("%05d", id), RawMarkdown: &md, Markdown: &md})
	}
	if _, err := settleDeduplication(context.Background(), f, SettleDeduplicationInput{CrawlID: c.ID.String()}); err != nil {
		t.Fatal(err)
	}
	whole := 0
	for id, w := range want {
		if n := f.settledTimes[id]; n != 1 {
			t.Fatalf("page %d settled %d times", id, n)
		}
		s := f.settled[id]
		if s.Markdown != w {
			t.Fatalf("page %d keeps %q, want %q", id, s.Markdown, w)
		}
		if s.Whole {
			whole++
		}
	}
	if wantWhole := pages/3 + 1; whole != wantWhole {
		t.Errorf("%d pages saved whole, want %d", whole, wantWhole)
	}
	if f.largestSettle > settleChunk {
		t.Errorf("a save of %d pages; want at most %d", f.largestSettle, settleChunk)
	}
}
