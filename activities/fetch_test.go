package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/fakefetch"
)

// The batch itself is tested in package batch; these tests check what the
// activities add: loading the crawl, and which failures are final.

// TestFetchPagesOfAnEndedCrawl: a batch of a crawl that ended claims
// nothing (the fake store panics on any of the batch's methods).
func TestFetchPagesOfAnEndedCrawl(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	c.Status = crawl.StatusTimedOut
	engine := &fakefetch.Fetcher{}
	a := &Activities{Store: &fakeStore{crawl: c}, Static: engine, Settings: settings}
	res, err := a.FetchPages(context.Background(), FetchPagesInput{CrawlID: c.ID.String(), Batch: 1, Limit: 10})
	if err != nil || res != (FetchPagesResult{}) {
		t.Errorf("result %+v, %v; want nothing", res, err)
	}
	if len(engine.Asked()) != 0 {
		t.Errorf("fetched %q", engine.Asked())
	}
}

// TestBatchErrors: a batch's permanent errors fail the activity for good,
// the others are retried.
func TestBatchErrors(t *testing.T) {
	broken := errors.New("fetcher broke")
	if err := batchError(broken); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	} else {
		wantRetryable(t, err)
	}
	wantNonRetryable(t, batchError(&batch.PermanentError{Err: fetch.ErrNoEgressProxy}))
}

// TestFetchPagesErrors: a crawl that does not exist, path rules that do
// not compile and a browser batch on a worker without one fail the
// activity for good.
func TestFetchPagesErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	a := &Activities{Store: &fakeStore{}, Static: &fakefetch.Fetcher{}, Settings: settings}
	_, err := a.FetchPages(context.Background(), FetchPagesInput{CrawlID: c.ID.String(), Batch: 1, Limit: 10})
	wantNonRetryable(t, err)
	_, err = a.FetchPages(context.Background(), FetchPagesInput{CrawlID: "not-an-id", Batch: 1, Limit: 10})
	wantNonRetryable(t, err)

	bad := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, Shape: crawl.ShapeFirecrawl, IncludeOnlyPaths: []string{"("}})
	a = &Activities{Store: &fakeStore{crawl: bad}, Static: &fakefetch.Fetcher{}, Settings: settings}
	_, err = a.FetchPages(context.Background(), FetchPagesInput{CrawlID: bad.ID.String(), Batch: 1, Limit: 10})
	wantNonRetryable(t, err)
	if err == nil || !strings.Contains(err.Error(), "path rules") {
		t.Errorf("bad path rules: %v", err)
	}

	_, err = a.RenderPages(context.Background(), FetchPagesInput{CrawlID: bad.ID.String(), Batch: 1, Limit: 10})
	wantNonRetryable(t, err)
}
