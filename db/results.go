package db

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// Converted is a fetched page turned into markdown.
type Converted struct {
	PageID    int64
	Title     string
	Markdown  string
	ConvertMS int
}

// SaveConverted records the markdown of fetched pages (they become
// PageConverted, their HTML dropped), in one transaction, while the crawl
// runs. Pages already past conversion are left alone.
func (s *Store) SaveConverted(ctx context.Context, crawlID uuid.UUID, pages []Converted) error {
	if len(pages) == 0 {
		return nil
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		running, err := lockRunning(ctx, tx, crawlID, "SHARE")
		if err != nil || !running {
			return err
		}
		ids := make([]int64, len(pages))
		titles, markdowns := make([]string, len(pages)), make([]string, len(pages))
		ms := make([]int, len(pages))
		for i, p := range pages {
			ids[i], titles[i], markdowns[i], ms[i] = p.PageID, p.Title, p.Markdown, p.ConvertMS
		}
		_, err = tx.NewRaw(`
UPDATE pages AS p SET state = ?, html = NULL, title = d.title, raw_markdown = d.markdown, convert_ms = d.ms
FROM unnest(?::bigint[], ?::text[], ?::text[], ?::integer[]) AS d(id, title, markdown, ms)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
			PageConverted, pgdialect.Array(ids), pgdialect.Array(titles), pgdialect.Array(markdowns), pgdialect.Array(ms),
			crawlID, PageFetched).Exec(ctx)
		if err != nil {
			return fmt.Errorf("save markdown of %d pages: %w", len(pages), err)
		}
		return nil
	})
}

// Kept is what a converted page keeps as a result.
type Kept struct {
	Markdown string
	// Fragments counts the page's text fragments, Removed those that other
	// pages of the crawl hold.
	Fragments, Removed int
}

// Fragments claims text fragments of a crawl for one page. It works inside
// the transaction that stores the page, so that a page's claims and its
// result are committed together or not at all.
type Fragments struct {
	ctx     context.Context
	db      bun.IDB
	crawlID uuid.UUID
	pageID  int64
}

// Claim makes the page the owner of every fragment among hashes that no
// other page of the crawl owns, and returns the ones the page owns: one
// round trip, whatever the number of fragments. Two pages claiming a
// fragment at once cannot both get it, nor both miss it: the primary key
// of fragments decides, and the later claim waits for the earlier one to
// commit or roll back. Claims are made in hash order, so that concurrent
// claims do not deadlock.
func (f Fragments) Claim(hashes [][16]byte) (map[[16]byte]bool, error) {
	owned := make(map[[16]byte]bool, len(hashes))
	if len(hashes) == 0 {
		return owned, nil
	}
	hexes := hexHashes(hashes)
	var got []string
	err := f.db.NewRaw(`
WITH claimed AS (
    INSERT INTO fragments (crawl_id, hash, page_id)
    SELECT ?, decode(h, 'hex'), ? FROM unnest(?::text[]) AS h ORDER BY h
    ON CONFLICT DO NOTHING
    RETURNING hash)
SELECT encode(hash, 'hex') FROM claimed
UNION ALL
SELECT encode(hash, 'hex') FROM fragments
WHERE crawl_id = ? AND page_id = ? AND hash IN (SELECT decode(h, 'hex') FROM unnest(?::text[]) AS h)`,
		f.crawlID, f.pageID, pgdialect.Array(hexes), f.crawlID, f.pageID, pgdialect.Array(hexes)).
		Scan(f.ctx, &got)
	if err != nil {
		return nil, fmt.Errorf("claim fragments of page %d: %w", f.pageID, err)
	}
	for _, g := range got {
		var h [16]byte
		if _, err := hex.Decode(h[:], []byte(g)); err != nil {
			return nil, fmt.Errorf("claim fragments of page %d: hash %q: %w", f.pageID, g, err)
		}
		owned[h] = true
	}
	return owned, nil
}

// Release gives up fragments the page owns, so that a later page may
// claim them.
func (f Fragments) Release(hashes [][16]byte) error {
	if len(hashes) == 0 {
		return nil
	}
	_, err := f.db.NewRaw(`
DELETE FROM fragments WHERE crawl_id = ? AND page_id = ?
AND hash IN (SELECT decode(h, 'hex') FROM unnest(?::text[]) AS h)`,
		f.crawlID, f.pageID, pgdialect.Array(hexHashes(hashes))).Exec(f.ctx)
	if err != nil {
		return fmt.Errorf("release fragments of page %d: %w", f.pageID, err)
	}
	return nil
}

func hexHashes(hashes [][16]byte) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = hex.EncodeToString(h[:])
	}
	return out
}

// ClaimFragments is Fragments.Claim outside a transaction of the Store's.
func (s *Store) ClaimFragments(ctx context.Context, crawlID uuid.UUID, pageID int64, hashes [][16]byte) (map[[16]byte]bool, error) {
	return Fragments{ctx: ctx, db: s.db, crawlID: crawlID, pageID: pageID}.Claim(hashes)
}

// KeepFunc decides what a converted page keeps of its markdown (raw),
// claiming the crawl's fragments through f.
type KeepFunc func(raw string, f Fragments) (Kept, error)

// StoreResult counts what StoreConverted did.
type StoreResult struct {
	Stored, Skipped int
}

// storeGroup is how many pages StoreConverted stores in one transaction.
const storeGroup = 32

// StoreConverted turns the converted pages of a batch into results, one
// at a time in crawl order (depth, rank), so that the first page of the
// crawl to hold a fragment is the one that keeps it, whatever the
// concurrency. keep decides each page's markdown. Pages are stored in
// groups, one transaction each, with the crawl row locked: no page is
// stored or counted once the crawl has ended or reached budget results
// (those pages are skipped). A page an earlier attempt stored is not
// stored or counted again.
func (s *Store) StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int, keep KeepFunc) (StoreResult, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", PageConverted).
		Order("depth", "rank", "id").Scan(ctx, &ids)
	if err != nil {
		return StoreResult{}, fmt.Errorf("converted pages of batch %d: %w", batch, err)
	}
	var res StoreResult
	for start := 0; start < len(ids); start += storeGroup {
		var got StoreResult
		err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			got = StoreResult{}
			var c Crawl
			if err := tx.NewSelect().Model(&c).Column("status", "total_pages").
				Where("id = ?", crawlID).For("UPDATE").Scan(ctx); err != nil {
				return fmt.Errorf("lock crawl %s: %w", crawlID, err)
			}
			room := budget - c.TotalPages
			if c.Status != crawl.StatusRunning {
				room = 0
			}
			var pages []Page
			err := tx.NewSelect().Model(&pages).Column("id", "raw_markdown").
				Where("crawl_id = ?", crawlID).Where("id IN (?)", bun.In(ids[start:min(start+storeGroup, len(ids))])).
				Where("state = ?", PageConverted).Order("depth", "rank", "id").Scan(ctx)
			if err != nil {
				return fmt.Errorf("load converted pages: %w", err)
			}
			// The group's results and skips are written in one statement
			// each: the claims are the only round trip a page costs.
			var (
				ids, skipped           []int64
				markdowns              []string
				fragments, removedFrag []int
			)
			for _, p := range pages {
				if len(ids) >= room {
					skipped = append(skipped, p.ID)
					continue
				}
				k, err := keep(deref(p.RawMarkdown), Fragments{ctx: ctx, db: tx, crawlID: crawlID, pageID: p.ID})
				if err != nil {
					return err
				}
				ids, markdowns = append(ids, p.ID), append(markdowns, k.Markdown)
				fragments, removedFrag = append(fragments, k.Fragments), append(removedFrag, k.Removed)
			}
			if len(skipped) > 0 {
				if _, err := tx.NewUpdate().Model((*Page)(nil)).
					Set("state = ?", PageSkipped).
					Set("error = ?", "not stored: the crawl had ended or reached its page limit").
					Where("id IN (?)", bun.In(skipped)).Where("state = ?", PageConverted).Exec(ctx); err != nil {
					return fmt.Errorf("skip pages over the budget: %w", err)
				}
			}
			got.Skipped = len(skipped)
			if len(ids) > 0 {
				// stored_at follows crawl order within the group (results
				// are listed by it): the transaction's time plus the page's
				// position in microseconds.
				res, err := tx.NewRaw(`
UPDATE pages AS p SET state = ?, markdown = d.markdown, fragments = d.fragments,
    fragments_removed = d.removed, stored_at = now() + d.ord * interval '1 microsecond'
FROM unnest(?::bigint[], ?::text[], ?::integer[], ?::integer[]) WITH ORDINALITY AS d(id, markdown, fragments, removed, ord)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
					PageStored, pgdialect.Array(ids), pgdialect.Array(markdowns), pgdialect.Array(fragments),
					pgdialect.Array(removedFrag), crawlID, PageConverted).Exec(ctx)
				if err != nil {
					return fmt.Errorf("store pages: %w", err)
				}
				n, _ := res.RowsAffected()
				got.Stored = int(n)
			}
			if got.Stored == 0 {
				return nil
			}
			_, err = tx.NewUpdate().Model((*Crawl)(nil)).
				Set("total_pages = total_pages + ?", got.Stored).
				Set("updated_at = clock_timestamp()").
				Where("id = ?", crawlID).Exec(ctx)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Stored += got.Stored
		res.Skipped += got.Skipped
	}
	return res, nil
}

// PendingExtractions returns the result pages of a batch whose
// extraction is not done, in crawl order.
func (s *Store) PendingExtractions(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", PageStored).
		Where("extracted_at IS NULL").Order("depth", "rank", "id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("pages of batch %d to extract: %w", batch, err)
	}
	return ids, nil
}

// ExtractionSource is what extraction reads of a result page.
type ExtractionSource struct {
	URL      string
	Markdown string
	// Done is set once the page's extraction is recorded.
	Done bool
	// Answers holds the answers already paid for, by chunk.
	Answers map[int]ChunkAnswer
}

// ChunkAnswer is the LLM's answer for one chunk of a page; Digest
// identifies the question (instructions and chunk).
type ChunkAnswer struct {
	Digest, Answer string
}

// ExtractionSource returns a result page's URL, its markdown before
// deduplication, and the chunk answers an earlier attempt saved.
func (s *Store) ExtractionSource(ctx context.Context, crawlID uuid.UUID, pageID int64) (ExtractionSource, error) {
	var p Page
	err := s.db.NewSelect().Model(&p).Column("url", "final_url", "raw_markdown", "extracted_at", "state").
		Where("id = ?", pageID).Where("crawl_id = ?", crawlID).Scan(ctx)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ExtractionSource{}, crawl.Errorf(crawl.ENOTFOUND, "page %d of crawl %s not found", pageID, crawlID)
		}
		return ExtractionSource{}, fmt.Errorf("load page %d: %w", pageID, err)
	}
	src := ExtractionSource{URL: p.URL, Markdown: deref(p.RawMarkdown), Done: p.ExtractedAt != nil || p.State != PageStored}
	if p.FinalURL != nil {
		src.URL = *p.FinalURL
	}
	var rows []struct {
		Chunk  int    `bun:"chunk"`
		Digest string `bun:"digest"`
		Answer string `bun:"answer"`
	}
	err = s.db.NewSelect().Table("extraction_chunks").Column("chunk", "digest", "answer").
		Where("page_id = ?", pageID).Order("chunk").Scan(ctx, &rows)
	if err != nil {
		return ExtractionSource{}, fmt.Errorf("load chunk answers of page %d: %w", pageID, err)
	}
	src.Answers = make(map[int]ChunkAnswer, len(rows))
	for _, r := range rows {
		src.Answers[r.Chunk] = ChunkAnswer{Digest: r.Digest, Answer: r.Answer}
	}
	return src, nil
}

// SaveChunkAnswer keeps the answer for one chunk of a page, so that a
// retry does not ask for it again. Answers for another split of the page
// (the model's context changed) are dropped; the answer of a chunk that
// was asked differently is replaced.
func (s *Store) SaveChunkAnswer(ctx context.Context, pageID int64, chunk, chunks int, a ChunkAnswer) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Table("extraction_chunks").
			Where("page_id = ?", pageID).Where("chunks <> ?", chunks).Exec(ctx); err != nil {
			return fmt.Errorf("drop stale chunk answers of page %d: %w", pageID, err)
		}
		_, err := tx.NewRaw(`INSERT INTO extraction_chunks (page_id, chunk, chunks, digest, answer) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (page_id, chunk) DO UPDATE SET digest = excluded.digest, answer = excluded.answer`,
			pageID, chunk, chunks, a.Digest, a.Answer).Exec(ctx)
		if err != nil {
			return fmt.Errorf("save chunk answer of page %d: %w", pageID, err)
		}
		return nil
	})
}

// SaveExtraction records a page's extraction (value, as JSON) or why it
// failed (failure), once: a page already extracted keeps its first
// record. Nothing is recorded on a crawl that has ended.
func (s *Store) SaveExtraction(ctx context.Context, crawlID uuid.UUID, pageID int64, value json.RawMessage, failure string, ms int) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		running, err := lockRunning(ctx, tx, crawlID, "SHARE")
		if err != nil || !running {
			return err
		}
		q := tx.NewUpdate().Model((*Page)(nil)).
			Set("extraction_error = ?", nullString(strings.ReplaceAll(failure, "\x00", ""))).
			Set("extraction_ms = ?", ms).
			Set("extracted_at = clock_timestamp()").
			Where("id = ?", pageID).Where("crawl_id = ?", crawlID).Where("extracted_at IS NULL")
		if value != nil {
			q = q.Set("extraction = ?::jsonb", string(value))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("save extraction of page %d: %w", pageID, err)
		}
		_, err = tx.NewDelete().Table("extraction_chunks").Where("page_id = ?", pageID).Exec(ctx)
		return err
	})
}

// ListResults returns one page of a crawl's result pages in crawl order,
// and the total number of results. Pages come with their markdown, or with
// raw their markdown before deduplication (in RawMarkdown).
func (s *Store) ListResults(ctx context.Context, crawlID uuid.UUID, page, limit int, raw bool) ([]Page, int, error) {
	pages := []Page{}
	skip := "raw_markdown"
	if raw {
		skip = "markdown"
	}
	total, err := s.db.NewSelect().Model(&pages).ExcludeColumn("html", skip).
		Where("crawl_id = ?", crawlID).Where("state = ?", PageStored).
		Order("stored_at", "id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list results: %w", err)
	}
	return pages, int(total), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
