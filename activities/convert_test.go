package activities

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
)

// docPage is a fetched page with a heading, a paragraph, a link on the
// site and one off it, inside navigation the main content leaves out.
func docPage(id int64, heading string) crawl.Page {
	body := fmt.Sprintf(`<html><head><title>Guide, page %d</title></head><body><nav><a href="/">Home</a> | Menu</nav><main><h1>%s</h1>
<p>Install the tool with the package manager, then read <a href="/docs/next">the next page</a> or <a href="https://other.org/">another site</a>. %s</p>
</main><footer>Footer text</footer></body></html>`, id, heading, strings.Repeat("The tool converts pages to markdown. ", 4))
	return crawl.Page{ID: id, URL: fmt.Sprintf("https://example.com/docs/%d", id), State: crawl.PageFetched, HTML: &body}
}

// convertFixture returns a store holding n fetched pages of a crawl.
func convertFixture(n int, o crawl.Options) *fakeStore {
	o.StartURLs = []string{"https://example.com/docs/"}
	f := &fakeStore{crawl: newCrawl(o), pages: map[int64]crawl.Page{}}
	f.crawl.TotalPages = 5
	for id := int64(1); id <= int64(n); id++ {
		f.fetched = append(f.fetched, id)
		f.pages[id] = docPage(id, fmt.Sprintf("Chapter %d", id))
	}
	return f
}

// TestConvertPages: each fetched page's HTML becomes its markdown, with
// the crawl's options; with StoreLater the pages are left to
// DeduplicatePages.
func TestConvertPages(t *testing.T) {
	f := convertFixture(2, crawl.Options{ExcludeNonMainTags: true, IncludeLinks: true})
	res, err := convertPages(context.Background(), f, ConvertPagesInput{CrawlID: f.crawl.ID.String(), Batch: 3, Budget: 10, StoreLater: true})
	if err != nil {
		t.Fatal(err)
	}
	if res != (ConvertPagesResult{Converted: 2}) {
		t.Errorf("result %+v, want 2 converted", res)
	}
	if len(f.converted) != 2 {
		t.Fatalf("%d pages saved, want 2", len(f.converted))
	}
	for _, p := range f.converted {
		md := p.Markdown
		heading := fmt.Sprintf("Chapter %d", p.PageID)
		if p.Title != fmt.Sprintf("Guide, page %d", p.PageID) || !strings.Contains(md, "# "+heading) || !strings.Contains(md, "Install the tool with the package manager") {
			t.Errorf("page %d: title %q, markdown %q; want its heading and paragraph", p.PageID, p.Title, md)
		}
		if strings.Contains(md, "Menu") {
			t.Errorf("page %d: the navigation is kept (excludeNonMainTags): %q", p.PageID, md)
		}
		if !strings.Contains(md, "[the next page](https://example.com/docs/next)") || strings.Contains(md, "(https://other.org/)") {
			t.Errorf("page %d: want the link on the site kept and the external one as text: %q", p.PageID, md)
		}
	}
	if n := f.called("StoreConverted"); n != 0 {
		t.Errorf("StoreConverted called %d times with StoreLater", n)
	}
}

// TestConvertPagesGroups: pages are loaded and saved convertGroup at a
// time, every one once.
func TestConvertPagesGroups(t *testing.T) {
	f := convertFixture(convertGroup+4, crawl.Options{})
	res, err := convertPages(context.Background(), f, ConvertPagesInput{CrawlID: f.crawl.ID.String(), Batch: 3, StoreLater: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converted != convertGroup+4 || len(f.converted) != convertGroup+4 {
		t.Errorf("%d pages converted, %d saved; want %d", res.Converted, len(f.converted), convertGroup+4)
	}
	if len(f.htmlLoads) != 2 || len(f.htmlLoads[0]) != convertGroup || len(f.htmlLoads[1]) != 4 {
		t.Errorf("loads %v, want a group of %d then 4", f.htmlLoads, convertGroup)
	}
	seen := map[int64]bool{}
	for _, p := range f.converted {
		if seen[p.PageID] || !strings.Contains(p.Markdown, fmt.Sprintf("Chapter %d", p.PageID)) {
			t.Errorf("page %d saved twice or with another page's markdown", p.PageID)
		}
		seen[p.PageID] = true
	}
}

// TestConvertPagesStores: a run begun before DeduplicatePages stores the
// batch itself, whole, and reports the crawl's total as re-read.
func TestConvertPagesStores(t *testing.T) {
	f := convertFixture(2, crawl.Options{DeduplicateContent: true})
	f.stored = db.StoreResult{Stored: 1, Skipped: 1}
	res, err := convertPages(context.Background(), f, ConvertPagesInput{CrawlID: f.crawl.ID.String(), Batch: 3, Budget: 6})
	if err != nil {
		t.Fatal(err)
	}
	if want := []storeCall{{batch: 3, budget: 6}}; !reflect.DeepEqual(f.storeCalls, want) {
		t.Errorf("StoreConverted calls %+v, want %+v", f.storeCalls, want)
	}
	if want := (ConvertPagesResult{Converted: 2, Stored: 1, Skipped: 1, TotalPages: 6}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
}

// TestConvertPagesErrors: a missing crawl fails for good; a store error
// is returned.
func TestConvertPagesErrors(t *testing.T) {
	f := convertFixture(1, crawl.Options{})
	_, err := convertPages(context.Background(), &fakeStore{}, ConvertPagesInput{CrawlID: f.crawl.ID.String()})
	wantNonRetryable(t, err)

	down := errors.New("database down")
	for _, method := range []string{"FetchedPages", "PagesWithHTML", "SaveConverted", "StoreConverted"} {
		t.Run(method, func(t *testing.T) {
			f := convertFixture(20, crawl.Options{})
			f.fail = map[string]error{method: down}
			_, err := convertPages(context.Background(), f, ConvertPagesInput{CrawlID: f.crawl.ID.String(), Budget: 10})
			if !errors.Is(err, down) {
				t.Errorf("error %v, want %v", err, down)
			}
			if method != "StoreConverted" && f.called("StoreConverted") != 0 {
				t.Error("the batch was stored after a failed conversion")
			}
		})
	}
}
