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
	"github.com/durablecrawl/crawler/dedupe"
)

// Converted is a fetched page turned into markdown.
type Converted struct {
	PageID    int64
	Title     string
	Markdown  string
	ConvertMS int
}

// SaveConverted records the markdown of fetched pages (they become
// crawl.PageConverted, their HTML dropped), in one transaction, while the crawl
// runs. Pages already past conversion are left alone.
func (s *Store) SaveConverted(ctx context.Context, crawlID uuid.UUID, pages []Converted) error {
	if len(pages) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
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
			crawl.PageConverted, pgdialect.Array(ids), pgdialect.Array(titles), pgdialect.Array(markdowns), pgdialect.Array(ms),
			crawlID, crawl.PageFetched).Exec(ctx)
		if err != nil {
			return fmt.Errorf("save markdown of %d pages: %w", len(pages), err)
		}
		return nil
	})
}

// Claim asks for a page's fragments.
type Claim struct {
	PageID int64
	Hashes [][16]byte
}

// ClaimFragments claims fragments for pages, the earlier in claims first:
// every fragment no page of the crawl owns yet goes to the first of the
// pages that holds it. It returns the owner of each fragment asked for
// (a page of claims, or the earlier page that held it already) as far as
// the statement sees: one that another transaction claimed at the same
// moment has no owner in the answer, and is not the pages'.
//
// It is one statement however many pages and fragments: the first page
// holding each fragment is chosen in it, then inserted with ON CONFLICT DO
// NOTHING. Fragments are inserted in hash order, so that concurrent claims
// do not deadlock; two claims of one fragment at once cannot both get it,
// nor both miss it: the primary key of fragments decides, and the later
// claim waits for the earlier one to commit or roll back.
func (s *Store) ClaimFragments(ctx context.Context, crawlID uuid.UUID, claims []Claim) (map[[16]byte]int64, error) {
	return claimFragments(ctx, s.db, crawlID, claims)
}

func claimFragments(ctx context.Context, db bun.IDB, crawlID uuid.UUID, claims []Claim) (map[[16]byte]int64, error) {
	var (
		hashes []string
		pages  []int64
		orders []int
	)
	for i, c := range claims {
		for _, h := range c.Hashes {
			hashes, pages, orders = append(hashes, hex.EncodeToString(h[:])), append(pages, c.PageID), append(orders, i)
		}
	}
	owners := make(map[[16]byte]int64, len(hashes))
	if len(hashes) == 0 {
		return owners, nil
	}
	var rows []struct {
		Hash   string `bun:"hash"`
		PageID int64  `bun:"page_id"`
	}
	err := db.NewRaw(`
WITH asked AS (
    SELECT decode(h, 'hex') AS hash, p AS page_id, o AS ord
    FROM unnest(?::text[], ?::bigint[], ?::integer[]) AS a(h, p, o)),
first AS (
    SELECT DISTINCT ON (hash) hash, page_id FROM asked ORDER BY hash, ord),
claimed AS (
    INSERT INTO fragments (crawl_id, hash, page_id)
    SELECT ?, hash, page_id FROM first ORDER BY hash
    ON CONFLICT DO NOTHING
    RETURNING hash, page_id)
SELECT encode(hash, 'hex') AS hash, page_id FROM claimed
UNION ALL
SELECT encode(f.hash, 'hex'), f.page_id FROM fragments f
WHERE f.crawl_id = ? AND f.hash IN (SELECT hash FROM first)`,
		pgdialect.Array(hashes), pgdialect.Array(pages), pgdialect.Array(orders), crawlID, crawlID).
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("claim fragments of %d pages: %w", len(claims), err)
	}
	for _, r := range rows {
		var h [16]byte
		if _, err := hex.Decode(h[:], []byte(r.Hash)); err != nil {
			return nil, fmt.Errorf("claim fragments: hash %q: %w", r.Hash, err)
		}
		owners[h] = r.PageID
	}
	return owners, nil
}

// giveBack records where the fragments the pages of a group gave back
// went: to the page of the group that owns them now (handedOn), or to
// nobody (freed).
func giveBack(ctx context.Context, db bun.IDB, crawlID uuid.UUID, handedOn map[[16]byte]int64, freed [][16]byte) error {
	if len(freed) > 0 {
		hashes := make([]string, len(freed))
		for i, h := range freed {
			hashes[i] = hex.EncodeToString(h[:])
		}
		if _, err := db.NewRaw(`DELETE FROM fragments WHERE crawl_id = ? AND hash IN (SELECT decode(h, 'hex') FROM unnest(?::text[]) AS h)`,
			crawlID, pgdialect.Array(hashes)).Exec(ctx); err != nil {
			return fmt.Errorf("free fragments: %w", err)
		}
	}
	if len(handedOn) > 0 {
		var hashes []string
		var to []int64
		for h, id := range handedOn {
			hashes, to = append(hashes, hex.EncodeToString(h[:])), append(to, id)
		}
		if _, err := db.NewRaw(`UPDATE fragments AS f SET page_id = m.p FROM unnest(?::text[], ?::bigint[]) AS m(h, p)
WHERE f.crawl_id = ? AND f.hash = decode(m.h, 'hex')`, pgdialect.Array(hashes), pgdialect.Array(to), crawlID).Exec(ctx); err != nil {
			return fmt.Errorf("hand fragments on: %w", err)
		}
	}
	return nil
}

// StoreResult counts what StoreConverted did.
type StoreResult struct {
	Stored, Skipped int
}

// storeGroup is how many pages StoreConverted stores in one transaction.
const storeGroup = 32

// StoreConverted turns the converted pages of a batch into results in
// crawl order (depth, rank), so that the first page of the crawl to hold a
// fragment is the one that keeps it, whatever the concurrency, when
// deduplicate is set (dedupe.Settle decides what each page keeps). Pages
// are stored in groups, one transaction each, with the crawl row locked: a
// group's fragments are claimed in one statement, and no page is stored or
// counted once the crawl has ended or reached budget results (those pages
// are skipped). A page an earlier attempt stored is not stored or counted
// again, and a retried group claims what it claimed before: its claims and
// its results commit together.
//
// Without deduplicate every page is stored whole: the markdown is copied
// inside the database, in one statement for the batch, without passing
// through the worker.
func (s *Store) StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int, deduplicate bool) (StoreResult, error) {
	if !deduplicate {
		return s.storeWhole(ctx, crawlID, batch, budget)
	}
	var ids []int64
	err := s.db.NewSelect().Model((*Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", crawl.PageConverted).
		Order("depth", "rank", "id").Scan(ctx, &ids)
	if err != nil {
		return StoreResult{}, fmt.Errorf("converted pages of batch %d: %w", batch, err)
	}
	var res StoreResult
	for start := 0; start < len(ids); start += storeGroup {
		var got StoreResult
		err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			var err error
			got, err = storeGroupDeduplicated(ctx, tx, crawlID, ids[start:min(start+storeGroup, len(ids))], budget)
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

// storeGroupDeduplicated stores a group of converted pages (ids) as
// results, within tx. The group's pages are split, their fragments claimed
// in one statement in crawl order, what each keeps settled by
// dedupe.Settle, and their results and skips written in one statement
// each.
func storeGroupDeduplicated(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, ids []int64, budget int) (StoreResult, error) {
	room, err := roomFor(ctx, tx, crawlID, budget)
	if err != nil {
		return StoreResult{}, err
	}
	var pages []Page
	err = tx.NewSelect().Model(&pages).Column("id", "raw_markdown").
		Where("crawl_id = ?", crawlID).Where("id IN (?)", bun.In(ids)).
		Where("state = ?", crawl.PageConverted).Order("depth", "rank", "id").Scan(ctx)
	if err != nil {
		return StoreResult{}, fmt.Errorf("load converted pages: %w", err)
	}
	var (
		keptIDs, skipped []int64
		group            []dedupe.Page
		claims           []Claim
	)
	for _, p := range pages {
		if len(keptIDs) >= room {
			skipped = append(skipped, p.ID)
			continue
		}
		page := dedupe.NewPage(p.ID, deref(p.RawMarkdown))
		keptIDs, group = append(keptIDs, p.ID), append(group, page)
		claims = append(claims, Claim{PageID: p.ID, Hashes: page.Hashes})
	}
	owners, err := claimFragments(ctx, tx, crawlID, claims)
	if err != nil {
		return StoreResult{}, err
	}
	settled := dedupe.Settle(group, owners)
	if err := giveBack(ctx, tx, crawlID, settled.HandedOn, settled.Freed); err != nil {
		return StoreResult{}, err
	}
	if err := skipOverBudget(ctx, tx, skipped); err != nil {
		return StoreResult{}, err
	}
	stored, err := writeResults(ctx, tx, crawlID, keptIDs, settled.Results)
	if err != nil {
		return StoreResult{}, err
	}
	return StoreResult{Stored: stored, Skipped: len(skipped)}, countStored(ctx, tx, crawlID, stored)
}

// skipOverBudget skips converted pages that do not fit the crawl's budget
// (or whose crawl ended).
func skipOverBudget(ctx context.Context, tx bun.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.NewUpdate().Model((*Page)(nil)).
		Set("state = ?", crawl.PageSkipped).
		Set("error = ?", "not stored: the crawl had ended or reached its page limit").
		Where("id IN (?)", bun.In(ids)).Where("state = ?", crawl.PageConverted).Exec(ctx); err != nil {
		return fmt.Errorf("skip pages over the budget: %w", err)
	}
	return nil
}

// writeResults stores the converted pages ids with what deduplication
// left of each (results[i] for ids[i]) and returns how many it stored.
// stored_at follows crawl order within the group (results are listed by
// it): the transaction's time plus the page's position in microseconds.
func writeResults(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, ids []int64, results []dedupe.Result) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	markdowns := make([]string, len(results))
	fragments, removed := make([]int, len(results)), make([]int, len(results))
	for i, k := range results {
		markdowns[i], fragments[i], removed[i] = k.Markdown, k.Fragments, k.Removed
	}
	stored, err := tx.NewRaw(`
UPDATE pages AS p SET state = ?, markdown = d.markdown, fragments = d.fragments,
    fragments_removed = d.removed, stored_at = now() + d.ord * interval '1 microsecond'
FROM unnest(?::bigint[], ?::text[], ?::integer[], ?::integer[]) WITH ORDINALITY AS d(id, markdown, fragments, removed, ord)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
		crawl.PageStored, pgdialect.Array(ids), pgdialect.Array(markdowns), pgdialect.Array(fragments),
		pgdialect.Array(removed), crawlID, crawl.PageConverted).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store pages: %w", err)
	}
	n, _ := stored.RowsAffected()
	return int(n), nil
}

// storeWhole is StoreConverted for pages kept whole.
func (s *Store) storeWhole(ctx context.Context, crawlID uuid.UUID, batch, budget int) (StoreResult, error) {
	var res StoreResult
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res = StoreResult{}
		room, err := roomFor(ctx, tx, crawlID, budget)
		if err != nil {
			return err
		}
		// The batch's first pages in crawl order, up to the room left, are
		// stored; stored_at follows that order (results are listed by it).
		stored, err := tx.NewRaw(`
WITH chosen AS (
    SELECT id, row_number() OVER (ORDER BY depth, rank, id) AS ord FROM pages
    WHERE crawl_id = ? AND batch = ? AND state = ?
    ORDER BY depth, rank, id LIMIT ?)
UPDATE pages AS p SET state = ?, markdown = p.raw_markdown, fragments = 0, fragments_removed = 0,
    stored_at = now() + chosen.ord * interval '1 microsecond'
FROM chosen WHERE p.id = chosen.id`,
			crawlID, batch, crawl.PageConverted, room, crawl.PageStored).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store pages of batch %d: %w", batch, err)
		}
		n, _ := stored.RowsAffected()
		res.Stored = int(n)
		skipped, err := tx.NewUpdate().Model((*Page)(nil)).
			Set("state = ?", crawl.PageSkipped).
			Set("error = ?", "not stored: the crawl had ended or reached its page limit").
			Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", crawl.PageConverted).Exec(ctx)
		if err != nil {
			return fmt.Errorf("skip pages over the budget: %w", err)
		}
		n, _ = skipped.RowsAffected()
		res.Skipped = int(n)
		return countStored(ctx, tx, crawlID, res.Stored)
	})
	return res, err
}

// roomFor locks the crawl's row (results are stored one transaction at a
// time) and returns how many more results its budget takes: none once the
// crawl has ended.
func roomFor(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, budget int) (int, error) {
	var c Crawl
	if err := tx.NewSelect().Model(&c).Column("status", "total_pages").
		Where("id = ?", crawlID).For("UPDATE").Scan(ctx); err != nil {
		return 0, fmt.Errorf("lock crawl %s: %w", crawlID, err)
	}
	if c.Status != crawl.StatusRunning {
		return 0, nil
	}
	return max(budget-c.TotalPages, 0), nil
}

// countStored adds n new results to the crawl's count.
func countStored(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, n int) error {
	if n == 0 {
		return nil
	}
	_, err := tx.NewUpdate().Model((*Crawl)(nil)).
		Set("total_pages = total_pages + ?", n).
		Set("updated_at = clock_timestamp()").
		Where("id = ?", crawlID).Exec(ctx)
	return err
}

// PendingExtractions returns the result pages of a batch whose
// extraction is not done, in crawl order.
func (s *Store) PendingExtractions(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("batch = ?", batch).Where("state = ?", crawl.PageStored).
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
	src := ExtractionSource{URL: p.URL, Markdown: deref(p.RawMarkdown), Done: p.ExtractedAt != nil || p.State != crawl.PageStored}
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
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
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
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
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
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored).
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
