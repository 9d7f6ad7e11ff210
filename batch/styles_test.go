package batch

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/fetch"
)

// sheetSite answers stylesheets by address, counting requests.
type sheetSite struct {
	asked atomic.Int32
	pages map[string]fetch.Result
}

func (s *sheetSite) FetchAll(_ context.Context, urls []string, _ fetch.Batch, emit func(fetch.Result)) error {
	for _, u := range urls {
		s.asked.Add(1)
		r, ok := s.pages[u]
		if !ok {
			r = fetch.Result{StatusCode: 404, ContentType: "text/html"}
		}
		r.URL = u
		emit(r)
	}
	return nil
}

// TestStylesheetsOncePerCrawl: pages of a crawl asking at once for a sheet
// get it from one request; another crawl asks again; an error page, an
// HTML answer and an address that is not http are no sheet.
func TestStylesheetsOncePerCrawl(t *testing.T) {
	site := &sheetSite{pages: map[string]fetch.Result{
		"http://docs.example/site.css": {StatusCode: 200, ContentType: "text/css", Body: []byte(".line { white-space: pre-wrap }")},
		"http://docs.example/page.css": {StatusCode: 200, ContentType: "text/html", Body: []byte("<html>not a sheet</html>")},
	}}
	s := NewStylesheets(site)
	crawl, other := uuid.New(), uuid.New()
	u, _ := url.Parse("http://docs.example/site.css")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sh := s.Sheet(context.Background(), crawl, u, fetch.Batch{}); sh.Rules() != 1 {
				t.Errorf("the sheet holds %d rules, want 1", sh.Rules())
			}
		}()
	}
	wg.Wait()
	if n := site.asked.Load(); n != 1 {
		t.Errorf("8 pages of one crawl asked the site %d times, want once", n)
	}
	s.Sheet(context.Background(), other, u, fetch.Batch{})
	if n := site.asked.Load(); n != 2 {
		t.Errorf("another crawl: %d requests in all, want 2", n)
	}
	for _, addr := range []string{"http://docs.example/missing.css", "http://docs.example/page.css", "file:///etc/site.css"} {
		v, _ := url.Parse(addr)
		if sh := s.Sheet(context.Background(), crawl, v, fetch.Batch{}); sh != nil {
			t.Errorf("%s gave a sheet", addr)
		}
	}
}
