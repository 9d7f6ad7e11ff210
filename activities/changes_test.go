package activities

import (
	"context"
	"fmt"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// TestSettleChangesLogsEveryRemovedPage: a crawl that removed 450 pages
// of the previous one logs each, read a chunk at a time (three chunks,
// then an empty read), then the counts.
func TestSettleChangesLogsEveryRemovedPage(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, ChangeTracking: true})
	f := &fakeStore{crawl: c, changeCounts: crawl.ChangeCounts{New: 1, Removed: 450}}
	for id := int64(1); id <= 450; id++ {
		status := 404
		f.removed = append(f.removed, crawl.Page{ID: id * 2, URL: fmt.Sprintf("https://example.com/%d", id),
			State: crawl.PageFailed, StatusCode: &status})
	}
	res, err := settleChanges(context.Background(), f, SettleChangesInput{CrawlID: c.ID.String(), Complete: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 450 || res.New != 1 {
		t.Errorf("result %+v", res)
	}
	seen := map[string]bool{}
	for _, l := range f.logs[:len(f.logs)-1] {
		if l.Message != "Page removed" || seen[l.Key] {
			t.Fatalf("entry %q (%s) among the removed pages'", l.Message, l.Key)
		}
		seen[l.Key] = true
	}
	if len(seen) != 450 || f.logs[len(f.logs)-1].Message != "Changes found" {
		t.Errorf("%d removed pages logged, last entry %q; want 450, then the counts", len(seen), f.logs[len(f.logs)-1].Message)
	}
	if n := f.called("RemovedAfter"); n != 4 {
		t.Errorf("RemovedAfter called %d times, want 4 (chunks of %d)", n, settleChunk)
	}
}
