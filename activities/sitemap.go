package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/sitemap"
	"github.com/durablecrawl/crawler/urlnorm"
)

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
	c, o, err := a.loadCrawl(ctx, in.CrawlID)
	if err != nil || c.Status.Terminal() {
		return SeedSitemapResult{}, err
	}
	rl, err := rulesOf(o)
	if err != nil {
		return SeedSitemapResult{}, err
	}
	stop := keepAlive(ctx, func() any { return "reading sitemaps" })
	defer stop()
	var origins []string
	for _, s := range o.StartURLs {
		if u, err := urlnorm.Clean(nil, s); err == nil && !slices.Contains(origins, origin(u)) {
			origins = append(origins, origin(u))
		}
	}
	policies, err := a.sitePolicies(ctx, c, o, origins)
	if err != nil {
		return SeedSitemapResult{}, err
	}
	// Sitemap files are read a few at a time, in the order they are named
	// (robots.txt first), so that memory holds a few files and the crawl
	// order is stable; reading stops at the page cap.
	var queue []string
	for _, org := range origins {
		queue = append(queue, policies[org].Sitemaps()...)
		queue = append(queue, org+"/sitemap.xml")
	}
	var (
		res   SeedSitemapResult
		read  = map[string]bool{}
		pages []db.NewPage
		seen  = map[string]bool{}
		found []string
		limit = a.Settings.MaxPagesPerCrawl
	)
	batch := a.batch(o)
	for len(queue) > 0 && len(read) < maxSitemapFiles && len(pages) < limit {
		var chunk []string
		for len(queue) > 0 && len(chunk) < max(batch.Parallelism, 1) && len(read) < maxSitemapFiles {
			u := queue[0]
			queue = queue[1:]
			if !read[u] {
				read[u] = true
				chunk = append(chunk, u)
			}
		}
		var mu sync.Mutex
		files := map[string]sitemap.File{}
		room := limit - len(pages)
		err := a.Static.FetchAll(ctx, chunk, batch, func(r fetch.Result) {
			if r.Err != nil || r.StatusCode < 200 || r.StatusCode > 299 {
				return
			}
			f, err := sitemap.Parse(r.Body, room)
			if err != nil {
				return
			}
			mu.Lock()
			files[r.URL] = f
			mu.Unlock()
		})
		if err != nil {
			return res, err
		}
		for _, u := range chunk {
			f, ok := files[u]
			if !ok {
				continue
			}
			res.Sitemaps++
			found = append(found, u)
			queue = append(queue, f.Sitemaps...)
			for _, loc := range f.Pages {
				p, err := urlnorm.Clean(nil, loc)
				if err != nil || len(p.String()) > crawl.MaxURLLength || !rl.follows(p) {
					continue
				}
				key := urlnorm.Key(p)
				if seen[key] || len(pages) >= limit {
					continue
				}
				seen[key] = true
				pages = append(pages, db.NewPage{URL: p.String(), NormalizedURL: key, Depth: 1, Rank: childRank("000", len(pages))})
			}
		}
	}
	for start := 0; start < len(pages); start += 1000 {
		if _, err := a.Store.Enqueue(ctx, c.ID, pages[start:min(start+1000, len(pages))]); err != nil {
			return res, err
		}
	}
	res.Pages = len(pages)

	entry := db.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: "sitemap", Level: "info", Message: "Sitemap read",
		Data: map[string]any{"url": o.StartURLs[0], "statusCode": 0, "sitemaps": found, "pages": res.Pages}}
	switch {
	case res.Pages == 0 && res.Sitemaps == 0:
		entry.Level, entry.Message = "warn", "No sitemap found"
		entry.Description = "No sitemap was found in robots.txt or at /sitemap.xml; the crawl follows links instead."
	case res.Pages == 0:
		entry.Level, entry.Message = "warn", "Sitemap lists no page in scope"
		entry.Description = fmt.Sprintf("The sitemaps (%s) list no page within the crawl's scope and path rules; the crawl follows links instead.", strings.Join(found, ", "))
	default:
		entry.Description = fmt.Sprintf("Queued %d pages from %d sitemaps (%s).", res.Pages, res.Sitemaps, strings.Join(found, ", "))
	}
	return res, a.Store.InsertLogs(ctx, []db.CrawlLog{entry})
}
