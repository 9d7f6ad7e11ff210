package activities

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/sitemap"
)

// sitemapStore is what SeedFromSitemap needs of the database.
type sitemapStore interface {
	crawlLoader
	batch.RobotsStore
	Enqueue(ctx context.Context, crawlID uuid.UUID, pages []db.NewPage) (int, error)
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
	SetSitemapLastMod(ctx context.Context, crawlID uuid.UUID, lastMod map[string]time.Time) error
}

// maxSitemapFiles bounds the sitemap files one crawl reads (indexes
// included).
const maxSitemapFiles = 100

// SeedSitemapInput names the crawl whose frontier is seeded.
type SeedSitemapInput struct {
	CrawlID string
}

// SeedSitemapResult counts what the sitemaps gave.
type SeedSitemapResult struct {
	// Sitemaps is the number of sitemap files read.
	Sitemaps int
	// Pages is the number of pages queued from them; 0 means the crawl
	// follows links instead.
	Pages int
}

// SeedFromSitemap queues the pages of the start site's sitemaps: those
// named by robots.txt `Sitemap:` lines and /sitemap.xml, following sitemap
// indexes, plain or gzipped. Pages outside the crawl's scope or path rules
// are left out; the server's page cap bounds the rest. It logs what it
// found, or that it found nothing and the crawl follows links instead.
func (a *Activities) SeedFromSitemap(ctx context.Context, in SeedSitemapInput) (SeedSitemapResult, error) {
	return seedFromSitemap(ctx, a.Store, a.Static, a.Settings, in)
}

func seedFromSitemap(ctx context.Context, store sitemapStore, static PageFetcher, s Settings, in SeedSitemapInput) (SeedSitemapResult, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil || c.Status.Terminal() {
		return SeedSitemapResult{}, err
	}
	rules, err := frontier.RulesOf(o)
	if err != nil {
		return SeedSitemapResult{}, nonRetryable(err)
	}
	defer keepAlive(ctx, func() any { return "reading sitemaps" })()
	origins := frontier.Origins(o.StartURLs)
	policies, err := batch.RobotsReader{Store: store, Fetcher: static, UserAgent: s.UserAgent}.Policies(ctx, c.ID, s.batch(o), origins)
	if err != nil {
		return SeedSitemapResult{}, err
	}
	// Sitemap files are read a few at a time, in the order they are named
	// (robots.txt first), so that memory holds a few files and the crawl
	// order is stable; reading stops at the page cap.
	r := sitemapReader{rules: rules, fetcher: static, batch: s.batch(o), limit: s.MaxPagesPerCrawl, seen: map[string]bool{}, read: map[string]bool{},
		lastMod: map[string]time.Time{}}
	for _, org := range origins {
		r.queue = append(r.queue, policies[org].Sitemaps()...)
		r.queue = append(r.queue, org+"/sitemap.xml")
	}
	for r.more() {
		if err := r.next(ctx); err != nil {
			return SeedSitemapResult{}, err
		}
	}
	for start := 0; start < len(r.pages); start += 1000 {
		if _, err := store.Enqueue(ctx, c.ID, batch.NewPages(r.pages[start:min(start+1000, len(r.pages))])); err != nil {
			return SeedSitemapResult{}, err
		}
	}
	if o.ChangeTracking {
		// A page not changed since the previous crawl fetched it is not
		// asked for again (see batch.Batch.skipUnmodified).
		if err := store.SetSitemapLastMod(ctx, c.ID, r.lastMod); err != nil {
			return SeedSitemapResult{}, err
		}
	}
	res := SeedSitemapResult{Sitemaps: len(r.found), Pages: len(r.pages)}
	return res, store.InsertLogs(ctx, []crawl.CrawlLog{crawllog.SitemapRead(c, r.found, res.Pages)})
}

// sitemapReader reads a crawl's sitemap files, a chunk at a time, and
// collects the pages they list that the crawl follows.
type sitemapReader struct {
	rules   frontier.Rules
	fetcher PageFetcher
	batch   fetch.Batch
	limit   int // the most pages taken

	queue []string        // sitemap files to read, in order
	read  map[string]bool // sitemap files asked for
	found []string        // sitemap files read
	pages []frontier.Link
	seen  map[string]bool // keys of pages
	// lastMod is when the sitemaps say each page (by key) last changed.
	lastMod map[string]time.Time
}

// more reports whether files remain to read and room for their pages.
func (r *sitemapReader) more() bool {
	return len(r.queue) > 0 && len(r.read) < maxSitemapFiles && len(r.pages) < r.limit
}

// next reads the next chunk of files, as many as the batch's parallelism.
func (r *sitemapReader) next(ctx context.Context) error {
	var chunk []string
	for len(r.queue) > 0 && len(chunk) < max(r.batch.Parallelism, 1) && len(r.read) < maxSitemapFiles {
		u := r.queue[0]
		r.queue = r.queue[1:]
		if !r.read[u] {
			r.read[u] = true
			chunk = append(chunk, u)
		}
	}
	var mu sync.Mutex
	files := map[string]sitemap.File{}
	room := r.limit - len(r.pages)
	err := r.fetcher.FetchAll(ctx, chunk, r.batch, func(res fetch.Result) {
		if res.Err != nil || res.StatusCode < 200 || res.StatusCode > 299 {
			return
		}
		f, err := sitemap.Parse(res.Body, room)
		if err != nil {
			return
		}
		mu.Lock()
		files[res.URL] = f
		mu.Unlock()
	})
	if err != nil {
		return err
	}
	for _, u := range chunk {
		if f, ok := files[u]; ok {
			r.take(u, f)
		}
	}
	return nil
}

// take records the sitemap file at u: the sitemaps it names are read
// later, the pages it lists are taken while there is room.
func (r *sitemapReader) take(u string, f sitemap.File) {
	r.found = append(r.found, u)
	r.queue = append(r.queue, f.Sitemaps...)
	for _, loc := range f.Pages {
		if len(r.pages) >= r.limit {
			return
		}
		p, ok := r.rules.Listed(loc, len(r.pages))
		if !ok || r.seen[p.Key] {
			continue
		}
		r.seen[p.Key] = true
		r.pages = append(r.pages, p)
		if at, ok := f.LastMod[loc]; ok {
			r.lastMod[p.Key] = at
		}
	}
}
