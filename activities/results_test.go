package activities

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
)

// TestDeduplicatePages: the batch is stored with the crawl's
// deduplicateContent, and the pages to extract are asked for only when
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
			if want := []storeCall{{batch: 5, budget: 20, deduplicate: tt.deduplicate}}; !reflect.DeepEqual(f.storeCalls, want) {
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
