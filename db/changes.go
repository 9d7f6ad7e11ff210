package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
)

// ChooseBaseline sets, once, the crawl a change-tracking crawl compares
// with: the team's latest succeeded change-tracking crawl with the same
// baseline key and the same schedule (none for a crawl of no schedule),
// created before it. It returns the crawl's baseline (nil: none; every
// page is new). A retry returns the same one.
func (s *Store) ChooseBaseline(ctx context.Context, c *crawl.Crawl) (*uuid.UUID, error) {
	if !c.ChangeTracking {
		return nil, nil
	}
	var prev []uuid.UUID
	err := s.db.NewRaw(`
UPDATE crawls AS c SET baseline_key = ?, previous_crawl_id = coalesce(c.previous_crawl_id, (
    SELECT q.id FROM crawls AS q
    WHERE q.team_id = c.team_id AND q.baseline_key = ? AND q.change_tracking AND q.status = ?
      AND q.schedule_id IS NOT DISTINCT FROM c.schedule_id AND q.created_at < c.created_at AND q.id <> c.id
    ORDER BY q.created_at DESC LIMIT 1))
WHERE c.id = ?
RETURNING c.previous_crawl_id`, c.BaselineKey, c.BaselineKey, crawl.StatusSucceeded, c.ID).Scan(ctx, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("choose the baseline of crawl %s: %w", c.ID, err)
	}
	if len(prev) == 0 || prev[0] == uuid.Nil {
		return nil, nil
	}
	return &prev[0], nil
}

// PreviousPage is what a change-tracking crawl knows of a page from the
// crawl it compares with.
type PreviousPage struct {
	ID            int64   `bun:"id"`
	URL           string  `bun:"url"`
	NormalizedURL string  `bun:"normalized_url"`
	FinalURL      *string `bun:"final_url"`
	ETag          *string `bun:"etag"`
	LastModified  *string `bun:"last_modified"`
	BodyHash      *string `bun:"body_hash"`
	MarkdownHash  *string `bun:"markdown_hash"`
	// ContentType is what the previous fetch was typed (a 304 stands for
	// a PDF as well as a page).
	ContentType *string `bun:"content_type"`
	// DocumentPages is set when the previous page was a document (PDF).
	DocumentPages *int `bun:"document_pages"`
	// FetchedAt is when the previous crawl fetched it.
	FetchedAt *time.Time `bun:"fetched_at"`
	// Links are the page's links as its fetch found them (absolute URLs);
	// nil when they were not kept.
	Links []string `bun:"links,type:jsonb"`
}

// Conditional reports whether the page may be asked for conditionally:
// it was answered where it was asked for (a 304 then says that this very
// page is unchanged), with validators, and its links and markdown hash
// were kept (a 304 carries neither links nor text).
func (p PreviousPage) Conditional() bool {
	return (p.ETag != nil || p.LastModified != nil) && p.Reusable()
}

// Reusable reports whether the page's previous fetch can stand for one
// not made (a 304, or a sitemap lastmod not newer than that fetch): it
// was answered where it was asked for, and its links and markdown hash
// were kept.
func (p PreviousPage) Reusable() bool {
	return p.Links != nil && p.MarkdownHash != nil && (p.FinalURL == nil || *p.FinalURL == p.URL)
}

// PreviousPages returns the result pages of crawl prev under the given
// keys (normalized URLs), by key.
func (s *Store) PreviousPages(ctx context.Context, prev uuid.UUID, keys []string) (map[string]PreviousPage, error) {
	var rows []PreviousPage
	err := s.db.NewSelect().Table("pages").
		Column("id", "url", "normalized_url", "final_url", "etag", "last_modified", "body_hash", "markdown_hash", "content_type", "document_pages", "links", "fetched_at").
		Where("crawl_id = ?", prev).Where("state = ?", crawl.PageStored).
		Where("normalized_url = ANY(?)", pgdialect.Array(keys)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pages of the previous crawl %s: %w", prev, err)
	}
	out := make(map[string]PreviousPage, len(rows))
	for _, r := range rows {
		out[r.NormalizedURL] = r
	}
	return out, nil
}

// SetSitemapLastMod records, for the crawl's pages by key, when its
// sitemaps say each last changed.
func (s *Store) SetSitemapLastMod(ctx context.Context, crawlID uuid.UUID, lastMod map[string]time.Time) error {
	if len(lastMod) == 0 {
		return nil
	}
	keys, times := make([]string, 0, len(lastMod)), make([]time.Time, 0, len(lastMod))
	for k, t := range lastMod {
		keys, times = append(keys, k), append(times, t)
	}
	_, err := s.db.NewRaw(`
UPDATE pages AS p SET sitemap_lastmod = d.at
FROM unnest(?::text[], ?::timestamptz[]) AS d(key, at)
WHERE p.crawl_id = ? AND p.normalized_url = d.key`, pgdialect.Array(keys), pgdialect.Array(times), crawlID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the sitemaps' lastmod of %d pages: %w", len(keys), err)
	}
	return nil
}

// PageChange is what a change-tracking crawl records of a fetched page:
// what the next crawl needs of it, and how it compares with the previous
// one.
type PageChange struct {
	Status changes.Status
	// PreviousID is the page in the previous crawl (0: none, a new page).
	PreviousID int64
	// Reuse, with Status changes.Same, takes the previous page's
	// markdown, title and formats (the page was not converted: the server
	// answered 304, or the same body); its extraction is taken in any case
	// of Same.
	Reuse bool
	// Unfetched marks a page not asked for (its sitemap lastmod): it keeps
	// its previous page's fetch time.
	Unfetched                    bool
	ETag, LastModified, BodyHash string
	MarkdownHash                 string
	Links                        []string
}

// saveChanges records the changes of the saved outcomes, in one
// statement, copying from each page's previous page what it reuses.
func saveChanges(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, saved map[int64]bool) error {
	var ids, prevs []int64
	var statuses, etags, modified, bodies, hashes, links []string
	var reuse, unfetched []bool
	for _, o := range outs {
		ch := o.Change
		if ch == nil || !saved[o.PageID] || o.State != crawl.PageConverted {
			continue
		}
		l, err := json.Marshal(ch.Links)
		if err != nil {
			return err
		}
		if ch.Links == nil {
			l = nil
		}
		ids, prevs, statuses = append(ids, o.PageID), append(prevs, ch.PreviousID), append(statuses, string(ch.Status))
		etags, modified, bodies = append(etags, ch.ETag), append(modified, ch.LastModified), append(bodies, ch.BodyHash)
		hashes, links, reuse = append(hashes, ch.MarkdownHash), append(links, string(l)), append(reuse, ch.Reuse)
		unfetched = append(unfetched, ch.Unfetched)
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.NewRaw(`
UPDATE pages AS p SET
    change_status = d.status, previous_page_id = nullif(d.prev, 0),
    etag = nullif(d.etag, ''), last_modified = nullif(d.modified, ''), body_hash = nullif(d.body, ''),
    markdown_hash = nullif(d.hash, ''), links = nullif(d.links, '')::jsonb,
    title = CASE WHEN d.reuse THEN q.title ELSE p.title END,
    raw_markdown = CASE WHEN d.reuse THEN q.raw_markdown ELSE p.raw_markdown END,
    formats = CASE WHEN d.reuse THEN q.formats ELSE p.formats END,
    noindex = CASE WHEN d.reuse THEN q.noindex ELSE p.noindex END,
    document_pages = CASE WHEN d.reuse THEN q.document_pages ELSE p.document_pages END,
    extraction = CASE WHEN d.status = ? AND q.extraction IS NOT NULL THEN q.extraction ELSE p.extraction END,
    extraction_ms = CASE WHEN d.status = ? AND q.extraction IS NOT NULL THEN 0 ELSE p.extraction_ms END,
    extracted_at = CASE WHEN d.status = ? AND q.extraction IS NOT NULL THEN q.extracted_at ELSE p.extracted_at END,
    fetched_at = CASE WHEN d.unfetched THEN q.fetched_at ELSE p.fetched_at END
FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::boolean[])
    AS d(id, prev, status, etag, modified, body, hash, links, reuse, unfetched)
LEFT JOIN pages AS q ON q.id = d.prev
WHERE p.id = d.id AND p.crawl_id = ?`,
		changes.Same, changes.Same, changes.Same,
		pgdialect.Array(ids), pgdialect.Array(prevs), pgdialect.Array(statuses), pgdialect.Array(etags), pgdialect.Array(modified),
		pgdialect.Array(bodies), pgdialect.Array(hashes), pgdialect.Array(links), pgdialect.Array(reuse), pgdialect.Array(unfetched),
		crawlID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("save the changes of %d pages: %w", len(ids), err)
	}
	return nil
}

// SettleChanges finds, once a change-tracking crawl has crawled, the
// pages of the previous crawl it no longer has: those this crawl found
// gone (404, 410), and, when complete (its frontier ran out: neither its
// limit nor its timeout stopped it), those it did not keep (skipped) and
// those no page links to any more, which are added to the crawl as skipped
// pages, for the reason noLongerLinked words — unless a page of the crawl
// failed for a reason that may pass, which may have hidden the pages below
// it. Every one is marked removed; the counts are saved on the crawl and
// returned. Running it again changes nothing.
func (s *Store) SettleChanges(ctx context.Context, crawlID uuid.UUID, prev *uuid.UUID, complete bool, noLongerLinked string) (crawl.ChangeCounts, error) {
	var counts crawl.ChangeCounts
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if prev != nil {
			if err := settleRemoved(ctx, tx, crawlID, *prev, complete, noLongerLinked); err != nil {
				return err
			}
		}
		return countChanges(ctx, tx, crawlID, &counts)
	})
	return counts, err
}

// settleRemoved marks the pages of crawl prev that crawlID removed (see
// SettleChanges).
func settleRemoved(ctx context.Context, tx bun.Tx, crawlID, prev uuid.UUID, complete bool, noLongerLinked string) error {
	_, err := tx.NewRaw(`
UPDATE pages AS p SET change_status = ?, previous_page_id = q.id
FROM pages AS q
WHERE p.crawl_id = ? AND q.crawl_id = ? AND q.state = ? AND q.normalized_url = p.normalized_url
  AND p.change_status IS NULL
  AND ((p.state = ? AND p.status_code IN (404, 410)) OR (? AND p.state = ?))`,
		changes.Removed, crawlID, prev, crawl.PageStored, crawl.PageFailed, complete, crawl.PageSkipped).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark the removed pages of crawl %s: %w", crawlID, err)
	}
	if complete {
		// Unless a page failed for a reason that may pass (a 5xx, a
		// timeout): the pages below it were not reached, not unlinked.
		_, err = tx.NewRaw(`
INSERT INTO pages (crawl_id, url, normalized_url, depth, rank, state, error, change_status, previous_page_id)
SELECT ?, q.url, q.normalized_url, q.depth, q.rank, ?, ?, ?, q.id
FROM pages AS q
WHERE q.crawl_id = ? AND q.state = ?
  AND NOT EXISTS (SELECT 1 FROM pages AS p WHERE p.crawl_id = ? AND p.normalized_url = q.normalized_url)
  AND NOT EXISTS (SELECT 1 FROM pages AS f WHERE f.crawl_id = ? AND f.state = ?
                  AND coalesce(f.status_code, 0) NOT IN (404, 410))
ON CONFLICT DO NOTHING`,
			crawlID, crawl.PageSkipped, noLongerLinked, changes.Removed, prev, crawl.PageStored, crawlID,
			crawlID, crawl.PageFailed).Exec(ctx)
		if err != nil {
			return fmt.Errorf("add the pages no longer linked to crawl %s: %w", crawlID, err)
		}
	}
	return nil
}

// countChanges counts the changes of a crawl into counts and saves them
// on the crawl.
func countChanges(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, counts *crawl.ChangeCounts) error {
	var rows []struct {
		Status string `bun:"change_status"`
		N      int    `bun:"n"`
	}
	err := tx.NewSelect().Table("pages").Column("change_status").ColumnExpr("count(*) AS n").
		Where("crawl_id = ?", crawlID).Where("change_status IS NOT NULL").
		Where("(state = ? OR change_status = ?)", crawl.PageStored, changes.Removed).
		Group("change_status").Scan(ctx, &rows)
	if err != nil {
		return fmt.Errorf("count the changes of crawl %s: %w", crawlID, err)
	}
	*counts = crawl.ChangeCounts{}
	for _, r := range rows {
		switch changes.Status(r.Status) {
		case changes.New:
			counts.New = r.N
		case changes.Changed:
			counts.Changed = r.N
		case changes.Same:
			counts.Same = r.N
		case changes.Removed:
			counts.Removed = r.N
		}
	}
	_, err = tx.NewUpdate().Model((*crawl.Crawl)(nil)).
		Set("pages_new = ?", counts.New).Set("pages_changed = ?", counts.Changed).
		Set("pages_same = ?", counts.Same).Set("pages_removed = ?", counts.Removed).
		Where("id = ?", crawlID).Exec(ctx)
	return err
}

// RemovedAfter returns up to limit of the crawl's removed pages (those
// of the previous crawl it no longer has), after ID after, in ID order,
// with what their log entries say: URL, and the state, status and error
// the crawl recorded for them.
func (s *Store) RemovedAfter(ctx context.Context, crawlID uuid.UUID, after int64, limit int) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.db.NewSelect().Model(&pages).Column("id", "url", "state", "status_code", "error", "depth").
		Where("crawl_id = ?", crawlID).Where("change_status = ?", changes.Removed).Where("id > ?", after).
		Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("removed pages of crawl %s after %d: %w", crawlID, after, err)
	}
	return pages, nil
}

// ListChanges returns one page of a crawl's changes (result pages new or
// changed, and pages removed), in ID order, and how many there are.
func (s *Store) ListChanges(ctx context.Context, crawlID uuid.UUID, page, limit int) ([]crawl.Page, int, error) {
	pages := []crawl.Page{}
	total, err := s.db.NewSelect().Model(&pages).ExcludeColumn("html", "links", "raw_markdown").
		Where("crawl_id = ?", crawlID).
		Where("(state = ? AND change_status IN (?, ?)) OR change_status = ?", crawl.PageStored, changes.New, changes.Changed, changes.Removed).
		Order("id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("changes of crawl %s: %w", crawlID, err)
	}
	return pages, int(total), nil
}

// PreviousOf returns the previous pages of pages, by ID; only those of
// changed pages carry their markdown and extraction.
func (s *Store) PreviousOf(ctx context.Context, pages []crawl.Page) (map[int64]changes.Previous, error) {
	var all, changed, currentIDs []int64
	for _, p := range pages {
		if p.PreviousPageID == nil {
			continue
		}
		currentIDs = append(currentIDs, p.ID)
		all = append(all, *p.PreviousPageID)
		if p.ChangeStatus != nil && changes.Status(*p.ChangeStatus) == changes.Changed {
			changed = append(changed, *p.PreviousPageID)
		}
	}
	out := map[int64]changes.Previous{}
	if len(all) == 0 {
		return out, nil
	}
	var rows []changes.Previous
	err := s.db.NewSelect().TableExpr("pages AS q").ColumnExpr("q.id, q.fetched_at").
		ColumnExpr("CASE WHEN q.id = ANY(?) THEN q.raw_markdown END AS raw_markdown", pgdialect.Array(changed)).
		ColumnExpr("CASE WHEN q.id = ANY(?) THEN q.extraction END AS extraction", pgdialect.Array(changed)).
		ColumnExpr(`CASE WHEN q.id = ANY(?) THEN (SELECT p.raw_markdown FROM pages AS p WHERE p.id = ANY(?) AND p.previous_page_id = q.id LIMIT 1)
			END AS current`, pgdialect.Array(changed), pgdialect.Array(currentIDs)).
		Where("q.id = ANY(?)", pgdialect.Array(all)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("previous pages: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}
