package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/dedupe"
)

// TestDeduplicatePages: the batch is stored (whole: deduplication is
// settled when the crawl ends), and the pages to extract are asked for only when
// the crawl has extraction instructions.
func TestDeduplicatePages(t *testing.T) {
	tests := []struct {
		name        string
		deduplicate bool
		extraction  string
		wantExtract []int64
	}{
		{name: "deduplicated", deduplicate: true},
		{name: "whole", deduplicate: false},
		{name: "with extraction", deduplicate: true, extraction: "the prices", wantExtract: []int64{4, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, DeduplicateContent: tt.deduplicate, Extraction: tt.extraction})
			c.TotalPages = 10
			f := &fakeStore{crawl: c, stored: db.StoreResult{Stored: 3, Skipped: 2}, pending: []int64{4, 9}}
			res, err := deduplicatePages(context.Background(), f, DeduplicatePagesInput{CrawlID: c.ID.String(), Batch: 5, Budget: 20})
			if err != nil {
				t.Fatal(err)
			}
			if want := []storeCall{{batch: 5, budget: 20}}; !reflect.DeepEqual(f.storeCalls, want) {
				t.Errorf("StoreConverted calls %+v, want %+v", f.storeCalls, want)
			}
			want := DeduplicatePagesResult{Stored: 3, Skipped: 2, TotalPages: 13, Extract: tt.wantExtract}
			if !reflect.DeepEqual(res, want) {
				t.Errorf("result %+v, want %+v", res, want)
			}
			if asked := f.called("PendingExtractions"); (asked > 0) != (tt.extraction != "") {
				t.Errorf("pending extractions asked %d times", asked)
			}
		})
	}
}

// TestDeduplicatePagesWritesLogs: asked to, DeduplicatePages writes the
// batch's log entries once its pages are stored and says so (Logged), and
// fails when they cannot be written; not asked, it writes none.
func TestDeduplicatePagesWritesLogs(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	stored, failed := "hi", "could not fetch"
	pages := []crawl.Page{
		{ID: 1, URL: "https://example.com/", State: crawl.PageStored, Markdown: &stored, RawMarkdown: &stored},
		{ID: 2, URL: "https://example.com/gone", State: crawl.PageFailed, Error: &failed},
	}
	for _, write := range []bool{false, true} {
		f := &fakeStore{crawl: c, stored: db.StoreResult{Stored: 1}, batchPages: pages}
		res, err := deduplicatePages(context.Background(), f, DeduplicatePagesInput{CrawlID: c.ID.String(), Batch: 2, Budget: 20, WriteLogs: write})
		if err != nil {
			t.Fatal(err)
		}
		if write && len(f.logs) != 2 || !write && len(f.logs) != 0 || res.Logged != write {
			t.Errorf("WriteLogs %v: %d entries written, Logged %v", write, len(f.logs), res.Logged)
		}
	}
	down := errors.New("database down")
	f := &fakeStore{crawl: c, batchPages: pages, fail: map[string]error{"InsertLogs": down}}
	if _, err := deduplicatePages(context.Background(), f, DeduplicatePagesInput{CrawlID: c.ID.String(), WriteLogs: true}); !errors.Is(err, down) {
		t.Errorf("logs not written: error %v, want %v", err, down)
	}
}

// TestDeduplicatePagesErrors: a missing crawl fails for good; a store
// error is returned.
func TestDeduplicatePagesErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, Extraction: "the prices"})
	_, err := deduplicatePages(context.Background(), &fakeStore{}, DeduplicatePagesInput{CrawlID: c.ID.String()})
	wantNonRetryable(t, err)
	down := errors.New("database down")
	for _, method := range []string{"StoreConverted", "PendingExtractions"} {
		f := &fakeStore{crawl: c, fail: map[string]error{method: down}}
		if _, err := deduplicatePages(context.Background(), f, DeduplicatePagesInput{CrawlID: c.ID.String()}); !errors.Is(err, down) {
			t.Errorf("%s failed: error %v, want %v", method, err, down)
		}
	}
}

// TestSettleDeduplication: when the crawl ends, the menu every page
// repeats is kept by the start page alone; each chapter keeps its own
// text, and so does the print page that gathers two of them (text two of
// seven pages share is content, not furniture); each page that lost text
// has a log entry naming it.
func TestSettleDeduplication(t *testing.T) {
	menu := "- [Home](/)\n- [One](/one)\n- [Two](/two)\n- [Print](/print)\n\n"
	chapter := func(i int64) string { return fmt.Sprintf("# Chapter %d\n\nChapter %d's own text.", i, i) }
	raw := map[int64]string{1: menu + "# Home\n\nWelcome.", 7: menu + chapter(2) + "\n\n" + chapter(3)}
	want := map[int64]string{1: raw[1], 7: chapter(2) + "\n\n" + chapter(3)}
	for id := int64(2); id <= 6; id++ {
		raw[id], want[id] = menu+chapter(id), chapter(id)
	}
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, DeduplicateContent: true})
	f := &fakeStore{crawl: c}
	for id := int64(1); id <= 7; id++ {
		md := raw[id]
		f.results = append(f.results, crawl.Page{ID: id, URL: fmt.Sprintf("https://example.com/%d", id), Depth: min(int(id)-1, 1),
			Rank: fmt.Sprintf("%03d", id), NoIndex: id == 7, RawMarkdown: &md, Markdown: &md}) // stored whole until settled
	}
	spoolDir := t.TempDir()
	t.Setenv("TMPDIR", spoolDir)
	res, err := settleDeduplication(context.Background(), f, SettleDeduplicationInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if left, err := os.ReadDir(spoolDir); err != nil || len(left) != 0 {
		t.Errorf("the settling left %d files in $TMPDIR (%v)", len(left), err)
	}
	for id, w := range want {
		if got := f.settled[id].Markdown; got != w {
			t.Errorf("page %d keeps %q, want %q", id, got, w)
		}
	}
	if res.Pages != 7 || res.Changed != 6 || res.Removed != 24 {
		t.Errorf("result %+v, want 7 pages, 6 changed, 24 fragments removed", res)
	}
	// The start page loses nothing: its markdown stays as stored, and
	// only its count of fragments is written.
	fragments := 0
	for _, b := range dedupe.Split(raw[1]) {
		if b.Fragment {
			fragments++
		}
	}
	if s := f.settled[1]; !s.Whole || s.Fragments != fragments || s.Removed != 0 {
		t.Errorf("start page settled %+v, want whole with %d fragments", s, fragments)
	}
	for id := int64(2); id <= 7; id++ {
		if f.settled[id].Whole {
			t.Errorf("page %d, which loses text, is saved whole", id)
		}
	}
	var entries []string
	for _, l := range f.logs {
		entries = append(entries, l.Message)
	}
	if got := strings.Join(entries, ","); got != strings.Repeat("Page deduplicated,", 6)+"Deduplication settled" {
		t.Errorf("log entries %s", got)
	}
	// Without deduplicateContent nothing is read.
	g := &fakeStore{crawl: newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})}
	if _, err := settleDeduplication(context.Background(), g, SettleDeduplicationInput{CrawlID: g.crawl.ID.String()}); err != nil || g.called("StoredAfter") != 0 {
		t.Errorf("without deduplication: %v, %d reads", err, g.called("StoredAfter"))
	}
}
