package activities

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/fakefetch"
)

func urlset(locs ...string) string {
	s := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	for _, l := range locs {
		s += "<url><loc>" + l + "</loc></url>"
	}
	return s + "</urlset>"
}

// sitemapSite serves a robots.txt that names a sitemap, and /sitemap.xml.
func sitemapSite() *fakefetch.Fetcher {
	return &fakefetch.Fetcher{Results: map[string]fetch.Result{
		"https://example.com/robots.txt":       fakefetch.Text("User-agent: *\nDisallow:\nSitemap: https://example.com/docs-sitemap.xml\n"),
		"https://example.com/docs-sitemap.xml": fakefetch.Text(urlset("https://example.com/docs/c")),
		"https://example.com/sitemap.xml": fakefetch.Text(urlset(
			"https://example.com/docs/a", "https://example.com/blog/x", "https://other.org/docs/y", "https://example.com/docs/c")),
	}}
}

// TestSeedFromSitemap: the pages the sitemaps list within the crawl's
// scope are queued at depth 1, in the order the files are named
// (robots.txt first); the others are not.
func TestSeedFromSitemap(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/docs/"}, UseSitemap: true})
	f := &fakeStore{crawl: c}
	static := sitemapSite()
	res, err := seedFromSitemap(context.Background(), f, static, settings, SeedSitemapInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if res != (SeedSitemapResult{Sitemaps: 2, Pages: 2}) {
		t.Errorf("result %+v, want 2 sitemaps, 2 pages", res)
	}
	want := []db.NewPage{
		{URL: "https://example.com/docs/c", NormalizedURL: "//example.com/docs/c", Depth: 1, Rank: "000000"},
		{URL: "https://example.com/docs/a", NormalizedURL: "//example.com/docs/a", Depth: 1, Rank: "000001"},
	}
	if !reflect.DeepEqual(f.enqueued, want) {
		t.Errorf("enqueued %+v, want %+v", f.enqueued, want)
	}
	if got := messages(f.logs); !reflect.DeepEqual(got, []string{"Sitemap read"}) {
		t.Errorf("log entries %q, want the sitemap entry", got)
	}
	if len(f.savedRobots) != 1 || f.savedRobots[0].Origin != "https://example.com" {
		t.Errorf("saved robots.txt %+v", f.savedRobots)
	}
}

// TestSeedFromSitemapCap: no more pages are taken than the server's page
// cap.
func TestSeedFromSitemapCap(t *testing.T) {
	s := settings
	s.MaxPagesPerCrawl = 1
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/docs/"}, UseSitemap: true})
	f := &fakeStore{crawl: c}
	res, err := seedFromSitemap(context.Background(), f, sitemapSite(), s, SeedSitemapInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages != 1 || len(f.enqueued) != 1 || f.enqueued[0].URL != "https://example.com/docs/c" {
		t.Errorf("result %+v, enqueued %+v; want the first page only", res, f.enqueued)
	}
}

// TestSeedFromSitemapNone: a site without sitemaps queues nothing, and
// the entry says the crawl follows links.
func TestSeedFromSitemapNone(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/docs/"}, UseSitemap: true})
	f := &fakeStore{crawl: c}
	res, err := seedFromSitemap(context.Background(), f, &fakefetch.Fetcher{}, settings, SeedSitemapInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if res != (SeedSitemapResult{}) || len(f.enqueued) != 0 {
		t.Errorf("result %+v, enqueued %+v", res, f.enqueued)
	}
	if got := messages(f.logs); !reflect.DeepEqual(got, []string{"No sitemap found"}) {
		t.Errorf("log entries %q", got)
	}
}

// TestSeedFromSitemapErrors: a crawl that ended reads nothing; a missing
// crawl fails for good; store and fetch errors are returned.
func TestSeedFromSitemapErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/docs/"}, UseSitemap: true})
	in := SeedSitemapInput{CrawlID: c.ID.String()}
	ctx := context.Background()

	ended := *c
	ended.Status = crawl.StatusAborted
	f, static := &fakeStore{crawl: &ended}, sitemapSite()
	if res, err := seedFromSitemap(ctx, f, static, settings, in); err != nil || res != (SeedSitemapResult{}) {
		t.Errorf("ended crawl: %+v, %v", res, err)
	}
	if len(static.Asked()) != 0 || len(f.enqueued) != 0 || len(f.logs) != 0 {
		t.Errorf("ended crawl: fetched %q, queued %d, logged %d", static.Asked(), len(f.enqueued), len(f.logs))
	}

	_, err := seedFromSitemap(ctx, &fakeStore{}, sitemapSite(), settings, in)
	wantNonRetryable(t, err)

	down := errors.New("database down")
	for _, method := range []string{"Robots", "SaveRobots", "Enqueue", "InsertLogs"} {
		f := &fakeStore{crawl: c, fail: map[string]error{method: down}}
		if _, err := seedFromSitemap(ctx, f, sitemapSite(), settings, in); !errors.Is(err, down) {
			t.Errorf("%s failed: error %v, want %v", method, err, down)
		}
	}
	broken := errors.New("fetcher broke")
	if _, err := seedFromSitemap(ctx, &fakeStore{crawl: c}, &fakefetch.Fetcher{Err: broken}, settings, in); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
}
