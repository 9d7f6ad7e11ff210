package activities

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// TestWriteLogs: the pages of the batch in a final state get their
// entries, the others none.
func TestWriteLogs(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	page := func(id int64, state crawl.PageState) crawl.Page {
		return crawl.Page{ID: id, URL: "https://example.com/p", State: state, StatusCode: ptr(200)}
	}
	f := &fakeStore{crawl: c, batchPages: []crawl.Page{
		page(1, crawl.PageStored), page(2, crawl.PageQueued), page(3, crawl.PageFailed), page(4, crawl.PageClaimed),
		page(5, crawl.PageFetched), page(6, crawl.PageConverted), page(7, crawl.PageSkipped),
	}}
	n, err := writeLogs(context.Background(), f, WriteLogsInput{CrawlID: c.ID.String(), Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("%d entries, want 3", n)
	}
	var keys []string
	for _, l := range f.logs {
		keys = append(keys, l.Key)
	}
	if want := []string{"page:1", "page:3", "page:7"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("entries %q, want %q", keys, want)
	}
	if got, want := messages(f.logs), []string{"Page crawled", "Page failed", "Page skipped"}; !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}

// TestWriteLogsErrors: a missing crawl fails for good; a store error is
// returned.
func TestWriteLogsErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	_, err := writeLogs(context.Background(), &fakeStore{}, WriteLogsInput{CrawlID: c.ID.String()})
	wantNonRetryable(t, err)
	down := errors.New("database down")
	for _, method := range []string{"BatchPages", "InsertLogs"} {
		f := &fakeStore{crawl: c, batchPages: []crawl.Page{{ID: 1, State: crawl.PageSkipped}}, fail: map[string]error{method: down}}
		if _, err := writeLogs(context.Background(), f, WriteLogsInput{CrawlID: c.ID.String()}); !errors.Is(err, down) {
			t.Errorf("%s failed: error %v, want %v", method, err, down)
		}
	}
}
