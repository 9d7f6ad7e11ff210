package db

// The pages table as a crawl's frontier: pages queued, claimed by a
// batch, and what the batch needs to know of them.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
)

// NewPage is a URL discovered by a crawl.
type NewPage struct {
	URL           string
	NormalizedURL string
	Depth         int
	// Rank orders pages of one depth (see the pages table).
	Rank string
	// Skipped, when set, is why the page is known but never fetched (its
	// site's robots.txt disallows it): it is recorded skipped, with Error
	// wording it.
	Skipped crawl.PageCauseKind
	Error   string
}

// Enqueue adds URLs to a crawl's frontier. URLs the crawl already knows are
// ignored, which makes the frontier its visited set and the call
// idempotent; a queued URL found again closer to the start (smaller depth,
// then rank) moves up, so the crawl order does not depend on which page
// happened to be fetched first.
func (s *Store) Enqueue(ctx context.Context, crawlID uuid.UUID, pages []NewPage) (int, error) {
	return enqueue(ctx, s.db, crawlID, pages)
}

func enqueue(ctx context.Context, db bun.IDB, crawlID uuid.UUID, pages []NewPage) (int, error) {
	if len(pages) == 0 {
		return 0, nil
	}
	// One row per URL, the closest discovery winning, as across calls.
	rows := make([]crawl.Page, 0, len(pages))
	at := make(map[string]int, len(pages))
	for _, p := range pages {
		row := crawl.Page{CrawlID: crawlID, URL: p.URL, NormalizedURL: p.NormalizedURL, Depth: p.Depth, Rank: p.Rank, State: crawl.PageQueued}
		if p.Skipped != "" {
			cause := string(p.Skipped)
			row.State, row.Cause, row.Error = crawl.PageSkipped, &cause, &p.Error
		}
		i, dup := at[p.NormalizedURL]
		switch {
		case !dup:
			at[p.NormalizedURL] = len(rows)
			rows = append(rows, row)
		case p.Depth < rows[i].Depth || (p.Depth == rows[i].Depth && p.Rank < rows[i].Rank):
			rows[i] = row
		}
	}
	// Rows are written in key order: two writers enqueueing overlapping
	// links lock them in the same order, so they wait, never deadlock.
	sort.Slice(rows, func(i, j int) bool { return rows[i].NormalizedURL < rows[j].NormalizedURL })
	columns := []string{"crawl_id", "url", "normalized_url", "depth", "rank", "state"}
	if slices.ContainsFunc(pages, func(p NewPage) bool { return p.Skipped != "" }) {
		columns = append(columns, "error", "cause") // written only when a page has them
	}
	res, err := db.NewInsert().Model(&rows).
		Column(columns...).
		On("CONFLICT (crawl_id, normalized_url) DO UPDATE").
		Set("depth = EXCLUDED.depth").Set("rank = EXCLUDED.rank").Set("url = EXCLUDED.url").
		Where("page.state = ?", crawl.PageQueued).
		Where("(EXCLUDED.depth, EXCLUDED.rank) < (page.depth, page.rank)").
		Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("enqueue %d urls: %w", len(rows), err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ClaimBatch returns the pages of fetch batch number batch, claiming up to
// limit queued pages (shallowest first, then by rank) when the batch has
// none yet. A retried claim returns the same pages.
func (s *Store) ClaimBatch(ctx context.Context, crawlID uuid.UUID, batch, limit int, mode ClaimMode) ([]crawl.Page, error) {
	pages, err := s.BatchPages(ctx, crawlID, batch)
	if err != nil || len(pages) > 0 {
		return pages, err
	}
	err = s.db.NewRaw(`
		UPDATE pages SET state = ?, batch = ?
		WHERE id IN (
			SELECT id FROM pages
			WHERE crawl_id = ? AND state = ? AND (not_before IS NULL OR not_before <= clock_timestamp())
			  AND (? OR render = ?)
			ORDER BY depth, rank, id
			LIMIT ?
			FOR UPDATE SKIP LOCKED)
		RETURNING id, crawl_id, url, normalized_url, depth, rank, state, batch, attempts, discovered_at, sitemap_lastmod`,
		crawl.PageClaimed, batch, crawlID, crawl.PageQueued, mode == ClaimAll, mode == ClaimRender, limit).Scan(ctx, &pages)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("claim batch %d: %w", batch, err)
	}
	sortPages(pages)
	return pages, nil
}

// ClaimMode says which queued pages a batch claims.
type ClaimMode int

const (
	// ClaimAll claims every queued page (a crawl on one engine).
	ClaimAll ClaimMode = iota
	// ClaimStatic leaves the pages marked for the browser.
	ClaimStatic
	// ClaimRender claims only the pages marked for the browser.
	ClaimRender
)

// RenderQueued counts the crawl's queued pages marked for the browser.
func (s *Store) RenderQueued(ctx context.Context, crawlID uuid.UUID) (int, error) {
	n, err := s.db.NewSelect().Model((*crawl.Page)(nil)).Where("crawl_id = ?", crawlID).
		Where("state = ?", crawl.PageQueued).Where("render").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("pages queued for the browser: %w", err)
	}
	return int(n), nil
}

// RetriesWaiting returns how many of the crawl's pages are still queued
// after a claim found none ready (they wait for a retry), and how long
// until the first of them may be fetched (0: now; one may have come due
// since the claim).
func (s *Store) RetriesWaiting(ctx context.Context, crawlID uuid.UUID) (int, time.Duration, error) {
	var row struct {
		N      int     `bun:"n"`
		WaitMS float64 `bun:"wait_ms"`
	}
	err := retry(ctx, func(ctx context.Context) error {
		return s.db.NewRaw(`
			SELECT count(*) AS n,
			       coalesce(extract(epoch FROM min(coalesce(not_before, clock_timestamp())) - clock_timestamp()) * 1000, 0) AS wait_ms
			FROM pages WHERE crawl_id = ? AND state = ?`,
			crawlID, crawl.PageQueued).Scan(ctx, &row)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("pages waiting for a retry: %w", err)
	}
	return row.N, max(time.Duration(row.WaitMS)*time.Millisecond, 0), nil
}

// BatchPages returns the pages of a batch in claim order, without their HTML
// and markdown.
func (s *Store) BatchPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.db.NewSelect().Model(&pages).ExcludeColumn("html", "markdown", "raw_markdown", "links").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).
		Order("depth", "rank", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("pages of batch %d: %w", batch, err)
	}
	return pages, nil
}

// FetchedPages returns the IDs of a batch's pages that wait for
// conversion, in claim order.
func (s *Store) FetchedPages(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*crawl.Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", crawl.PageFetched).
		Order("depth", "rank", "id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("fetched pages of batch %d: %w", batch, err)
	}
	return ids, nil
}

// PagesWithHTML returns the pages ids that still hold their HTML.
func (s *Store) PagesWithHTML(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := s.db.NewSelect().Model(&pages).
		Where("crawl_id = ?", crawlID).Where("id IN (?)", bun.In(ids)).Where("state = ?", crawl.PageFetched).
		Order("depth", "rank", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("load fetched pages: %w", err)
	}
	return pages, nil
}

func sortPages(p []crawl.Page) {
	sort.Slice(p, func(i, j int) bool {
		if p[i].Depth != p[j].Depth {
			return p[i].Depth < p[j].Depth
		}
		if p[i].Rank != p[j].Rank {
			return p[i].Rank < p[j].Rank
		}
		return p[i].ID < p[j].ID
	})
}

// ClaimRedirectTarget makes sure that a page reached through a redirect is
// kept once. It records target in the crawl's visited set on behalf of page
// pageID and reports whether pageID may keep the content: false when
// another page of the crawl already has, or is fetching, that URL. A target
// that is only queued is taken over (and will not be fetched); note, the
// target's reason, names pageID and marks the claim as pageID's. Retries
// give the same answer.
func (s *Store) ClaimRedirectTarget(ctx context.Context, crawlID uuid.UUID, pageID int64, target NewPage, note string) (bool, error) {
	var owned bool
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw(`
			INSERT INTO pages (crawl_id, url, normalized_url, depth, state, error)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (crawl_id, normalized_url) DO UPDATE
			SET state = EXCLUDED.state, error = EXCLUDED.error
			WHERE pages.state = ?`,
			crawlID, target.URL, target.NormalizedURL, target.Depth, crawl.PageSkipped, note, crawl.PageQueued).Exec(ctx); err != nil {
			return err
		}
		var row crawl.Page
		if err := tx.NewSelect().Model(&row).Column("state", "error").
			Where("crawl_id = ?", crawlID).Where("normalized_url = ?", target.NormalizedURL).Scan(ctx); err != nil {
			return err
		}
		owned = row.State == crawl.PageSkipped && row.Error != nil && *row.Error == note
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("claim redirect target %s: %w", target.NormalizedURL, err)
	}
	return owned, nil
}

// SkipPage marks a fetched page as skipped, with the reason.
func (s *Store) SkipPage(ctx context.Context, crawlID uuid.UUID, pageID int64, reason string) error {
	_, err := s.db.NewUpdate().Model((*crawl.Page)(nil)).
		Set("state = ?", crawl.PageSkipped).Set("error = ?", reason).Set("html = NULL").
		Where("id = ?", pageID).Where("crawl_id = ?", crawlID).Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageFetched, crawl.PageClaimed})).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("skip page %d: %w", pageID, err)
	}
	return nil
}

// CountPages returns how many of a crawl's pages are in each state.
func (s *Store) CountPages(ctx context.Context, crawlID uuid.UUID) (map[crawl.PageState]int, error) {
	var rows []struct {
		State crawl.PageState `bun:"state"`
		N     int             `bun:"n"`
	}
	// The previous crawl's pages a change-tracking crawl found unlinked
	// are rows of it (for /changes), not pages it discovered.
	err := s.db.NewSelect().Model((*crawl.Page)(nil)).Column("state").ColumnExpr("count(*) AS n").
		Where("crawl_id = ?", crawlID).Where("NOT (change_status IS NOT NULL AND change_status = 'removed' AND batch IS NULL)").
		Group("state").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("count pages: %w", err)
	}
	out := make(map[crawl.PageState]int, len(rows))
	for _, r := range rows {
		out[r.State] = r.N
	}
	return out, nil
}

// StateOf returns the state of the crawl's page with key, and whether the
// crawl knows it at all.
func (s *Store) StateOf(ctx context.Context, crawlID uuid.UUID, key string) (crawl.PageState, bool, error) {
	var state crawl.PageState
	err := s.db.NewSelect().Model((*crawl.Page)(nil)).Column("state").
		Where("crawl_id = ?", crawlID).Where("normalized_url = ?", key).Scan(ctx, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up %s: %w", key, err)
	}
	return state, true, nil
}

// ClaimLinkScripts records that page is rendered to find the links its
// scripts draw (scripts names them): it reports true when no other page
// of the crawl was, so that pages running the same scripts, which draw the
// same navigation, are rendered once. Asking again for the same page
// answers true again.
func (s *Store) ClaimLinkScripts(ctx context.Context, crawlID uuid.UUID, page int64, scripts string) (bool, error) {
	var owner int64
	err := retry(ctx, func(ctx context.Context) error {
		return s.db.NewRaw(`
WITH claimed AS (
    INSERT INTO link_scripts (crawl_id, scripts, page_id) VALUES (?, ?, ?)
    ON CONFLICT DO NOTHING RETURNING page_id)
SELECT page_id FROM claimed UNION ALL
SELECT page_id FROM link_scripts WHERE crawl_id = ? AND scripts = ?
LIMIT 1`, crawlID, scripts, page, crawlID, scripts).Scan(ctx, &owner)
	})
	if err != nil {
		return false, fmt.Errorf("claim the link scripts of page %d: %w", page, err)
	}
	return owner == page, nil
}
