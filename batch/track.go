package batch

// Change tracking within a batch: the previous crawl's pages, conditional
// requests, and how each page compares.

import (
	"context"
	"net/http"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
)

// loadPrevious reads, for a change-tracking crawl with a crawl to compare
// with, the claimed pages' pages in that crawl, and returns the
// validators that make their requests conditional.
func (b *Batch) loadPrevious(ctx context.Context) (map[string]fetch.Validators, error) {
	if b.crawl.PreviousCrawlID == nil {
		return nil, nil
	}
	keys := make([]string, 0, len(b.claimed))
	for _, p := range b.claimed {
		keys = append(keys, p.NormalizedURL)
	}
	var err error
	if b.previous, err = b.store.PreviousPages(ctx, *b.crawl.PreviousCrawlID, keys); err != nil {
		return nil, err
	}
	validators := map[string]fetch.Validators{}
	for u, p := range b.claimed {
		if prev, ok := b.previous[p.NormalizedURL]; ok && prev.Conditional() {
			validators[u] = fetch.Validators{ETag: orEmpty(prev.ETag), LastModified: orEmpty(prev.LastModified)}
		}
	}
	return validators, nil
}

// skipUnmodified takes out of urls, and judges as unchanged without a
// request, the pages of a change-tracking crawl whose sitemap lastmod is
// not newer than the previous crawl's fetch of them (and whose previous
// fetch can stand for one: see db.PreviousPage.Reusable). They read as
// 304s.
func (b *Batch) skipUnmodified(ctx context.Context, urls []string, refusal frontier.Refusal) []string {
	if len(b.previous) == 0 {
		return urls
	}
	kept := urls[:0:0]
	for _, u := range urls {
		p := b.claimed[u]
		prev, ok := b.previous[p.NormalizedURL]
		if !ok || p.SitemapLastMod == nil || prev.FetchedAt == nil || !prev.Reusable() || p.SitemapLastMod.After(*prev.FetchedAt) {
			kept = append(kept, u)
			continue
		}
		if b.unfetched == nil {
			b.unfetched = map[string]bool{}
		}
		b.unfetched[u] = true
		b.decide(ctx, fetch.Result{URL: u, FinalURL: u, StatusCode: http.StatusNotModified}, refusal)
	}
	return kept
}

// unchanged is the result a 304 stands for: the previous fetch of the
// page, with its type and links, as far as judging it needs.
func unchanged(r fetch.Result, prev db.PreviousPage) fetch.Result {
	r.StatusCode, r.ContentType, r.Body, r.Links, r.Canonical = http.StatusOK, "text/html", nil, prev.Links, ""
	if prev.ContentType != nil {
		r.ContentType = *prev.ContentType
	}
	// A document served as bytes was known by its first bytes, which a
	// 304 does not have.
	r.KnownPDF = prev.DocumentPages != nil
	if r.ETag == "" {
		r.ETag = orEmpty(prev.ETag)
	}
	if r.LastModified == "" {
		r.LastModified = orEmpty(prev.LastModified)
	}
	return r
}

// track converts a fetched page of a change-tracking crawl, unless it is
// the same as its previous page, and records how it compares: the same
// when the server answered 304 (notModified) or sent the same body (its
// previous markdown is reused), or when its markdown comes out the same;
// changed otherwise; new without a previous page.
func (b *Batch) track(ctx context.Context, rec *db.FetchOutcome, pageURL string, r fetch.Result,
	prev db.PreviousPage, hasPrev, notModified bool) {
	ch := &db.PageChange{Status: changes.New, ETag: r.ETag, LastModified: r.LastModified, Links: r.Links}
	if ch.Links == nil {
		ch.Links = []string{}
	}
	if !notModified {
		ch.BodyHash = changes.Hash(r.Body)
	}
	if hasPrev {
		ch.PreviousID = prev.ID
	}
	if hasPrev && prev.MarkdownHash != nil && (notModified || orEmpty(prev.BodyHash) == ch.BodyHash) {
		ch.Status, ch.Reuse, ch.MarkdownHash = changes.Same, true, *prev.MarkdownHash
		// A page not asked for keeps the time it was last fetched.
		ch.Unfetched = b.unfetched[pageURL]
		ch.BodyHash = orEmpty(prev.BodyHash)
		rec.State, rec.Change = crawl.PageConverted, ch
		return
	}
	b.convert(ctx, rec, pageURL, r)
	if rec.State != crawl.PageConverted {
		return
	}
	ch.MarkdownHash = changes.Hash([]byte(rec.Converted.Markdown))
	switch {
	case !hasPrev:
	case orEmpty(prev.MarkdownHash) == ch.MarkdownHash:
		ch.Status = changes.Same
	default:
		ch.Status = changes.Changed
	}
	rec.Change = ch
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
