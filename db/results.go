package db

import (
	"context"
	"database/sql"
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
	// NoIndex is set when the page asks search engines not to index it.
	NoIndex bool
	// Formats are the page's other forms the crawl asked for (nil: none).
	Formats json.RawMessage
	// DocumentPages is a PDF's page count; 0 for an HTML page.
	DocumentPages int
	// Words says where an HTML page's words went (markdown.Words as
	// JSON); nil for a document.
	Words json.RawMessage
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
		noindex := make([]bool, len(pages))
		formats := make([]string, len(pages)) // "" for none
		words := make([]string, len(pages))   // "" for none
		for i, p := range pages {
			ids[i], titles[i], markdowns[i], ms[i], noindex[i] = p.PageID, p.Title, p.Markdown, p.ConvertMS, p.NoIndex
			formats[i], words[i] = string(p.Formats), string(p.Words)
		}
		_, err = tx.NewRaw(`
UPDATE pages AS p SET state = ?, html = NULL, title = d.title, raw_markdown = d.markdown, convert_ms = d.ms, noindex = d.noindex,
	formats = NULLIF(d.formats, '')::jsonb, words = NULLIF(d.words, '')::jsonb
FROM unnest(?::bigint[], ?::text[], ?::text[], ?::integer[], ?::boolean[], ?::text[], ?::text[]) AS d(id, title, markdown, ms, noindex, formats, words)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?`,
			crawl.PageConverted, pgdialect.Array(ids), pgdialect.Array(titles), pgdialect.Array(markdowns), pgdialect.Array(ms),
			pgdialect.Array(noindex), pgdialect.Array(formats), pgdialect.Array(words), crawlID, crawl.PageFetched).Exec(ctx)
		if err != nil {
			return fmt.Errorf("save markdown of %d pages: %w", len(pages), err)
		}
		return nil
	})
}

// StoreResult counts what StoreConverted did.
type StoreResult struct {
	Stored, Skipped int
}

// StoreConverted turns the converted pages of a batch into results, whole
// (SettleDeduplication deduplicates them when the crawl ends), in crawl
// order (depth, rank): no page is stored or counted once the crawl has
// ended or reached budget results (those pages are skipped). The markdown
// is copied inside the database, in one statement for the batch, without
// passing through the worker; a page an earlier attempt stored is not
// stored or counted again.
func (s *Store) StoreConverted(ctx context.Context, crawlID uuid.UUID, batch, budget int) (StoreResult, error) {
	return s.storeWhole(ctx, crawlID, batch, budget)
}

// storeWhole is StoreConverted.
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
		skipped, err := tx.NewUpdate().Model((*crawl.Page)(nil)).
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
	var c crawl.Crawl
	if err := tx.NewSelect().Model(&c).Column("status", "total_pages").
		Where("id = ?", crawlID).For("UPDATE").Scan(ctx); err != nil {
		return 0, fmt.Errorf("lock crawl %s: %w", crawlID, err)
	}
	if c.Status != crawl.StatusRunning {
		return 0, nil
	}
	return max(budget-c.TotalPages, 0), nil
}

// countStored adds n new results to the crawl's count, and to its
// team's usage.
func countStored(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, n int) error {
	if n == 0 {
		return nil
	}
	_, err := tx.NewUpdate().Model((*crawl.Crawl)(nil)).
		Set("total_pages = total_pages + ?", n).
		Set("updated_at = clock_timestamp()").
		Where("id = ?", crawlID).Exec(ctx)
	if err != nil {
		return err
	}
	return countUsage(ctx, tx, crawlID, int64(n), 0, 0)
}

// PendingExtractions returns the result pages of a batch whose
// extraction is not done, in crawl order.
func (s *Store) PendingExtractions(ctx context.Context, crawlID uuid.UUID, batch int) ([]int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*crawl.Page)(nil)).Column("id").
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
	// TokensIn and TokensOut are what asking cost, counted in the team's
	// usage as the answer is saved (not kept with it).
	TokensIn, TokensOut int64
}

// ExtractionSource returns a result page's URL, its markdown before
// deduplication, and the chunk answers an earlier attempt saved.
func (s *Store) ExtractionSource(ctx context.Context, crawlID uuid.UUID, pageID int64) (ExtractionSource, error) {
	var p crawl.Page
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
		if a.TokensIn == 0 && a.TokensOut == 0 {
			return nil
		}
		var crawlID uuid.UUID
		if err := tx.NewSelect().Model((*crawl.Page)(nil)).Column("crawl_id").Where("id = ?", pageID).Scan(ctx, &crawlID); err != nil {
			return fmt.Errorf("the crawl of page %d: %w", pageID, err)
		}
		return countUsage(ctx, tx, crawlID, 0, a.TokensIn, a.TokensOut)
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
		q := tx.NewUpdate().Model((*crawl.Page)(nil)).
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

// ResultsQuery narrows and shapes a listing of a crawl's stored pages.
type ResultsQuery struct {
	// Raw gives each page's markdown as it was before deduplication.
	Raw bool
	// Search keeps the pages whose URL or title holds it, case aside.
	Search string
	// NoMarkdown leaves the markdown out (a listing of titles and URLs).
	NoMarkdown bool
}

// ListResults returns a page of a crawl's stored pages, in the order they
// were stored, without their HTML and links, with the markdown q asks
// for, and how many pages q selects in all.
func (s *Store) ListResults(ctx context.Context, crawlID uuid.UUID, page, limit int, q ResultsQuery) ([]crawl.Page, int, error) {
	pages := []crawl.Page{}
	skip := []string{"html", "links", "raw_markdown"}
	if q.Raw {
		skip[2] = "markdown"
	}
	if q.NoMarkdown {
		skip = []string{"html", "links", "markdown", "raw_markdown"}
	}
	sel := s.db.NewSelect().Model(&pages).ExcludeColumn(skip...).
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored)
	if q.Search != "" {
		pattern := "%" + likeEscaper.Replace(q.Search) + "%"
		sel = sel.Where(`(url ILIKE ? ESCAPE '\' OR title ILIKE ? ESCAPE '\')`, pattern, pattern)
	}
	total, err := sel.Order("stored_at", "id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list results: %w", err)
	}
	return pages, int(total), nil
}

// likeEscaper escapes what LIKE reads as wildcards, and its escape.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// ListResultsFrom returns up to limit of a crawl's stored pages from the
// offset-th on, in the order ListResults gives them, without their HTML
// or raw markdown, and how many there are in all.
func (s *Store) ListResultsFrom(ctx context.Context, crawlID uuid.UUID, offset, limit int) ([]crawl.Page, int, error) {
	pages := []crawl.Page{}
	total, err := s.db.NewSelect().Model(&pages).ExcludeColumn("html", "links", "raw_markdown").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored).
		Order("stored_at", "id").Offset(int64(offset)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list results: %w", err)
	}
	return pages, int(total), nil
}

// ListPageErrors returns up to limit of a crawl's pages that failed or
// were skipped with a reason (robots.txt, a redirect out of scope), in
// the order they were found, with their URL, state and error only.
func (s *Store) ListPageErrors(ctx context.Context, crawlID uuid.UUID, limit int) ([]crawl.Page, error) {
	pages := []crawl.Page{}
	err := s.db.NewSelect().Model(&pages).Column("id", "url", "state", "error", "cause", "fetched_at", "discovered_at").
		Where("crawl_id = ?", crawlID).Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageFailed, crawl.PageSkipped})).
		Where("error IS NOT NULL").Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list page errors: %w", err)
	}
	return pages, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// StoredPageIDs returns the IDs of a crawl's stored pages, in the order
// ListResults gives them.
func (s *Store) StoredPageIDs(ctx context.Context, crawlID uuid.UUID) ([]int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*crawl.Page)(nil)).Column("id").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored).
		Order("stored_at", "id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("list stored pages: %w", err)
	}
	return ids, nil
}

// StoredPagesByID returns the crawl's stored pages among ids, without
// their HTML or raw markdown, in the order ListResults gives them.
func (s *Store) StoredPagesByID(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error) {
	pages := []crawl.Page{}
	if len(ids) == 0 {
		return pages, nil
	}
	err := s.db.NewSelect().Model(&pages).ExcludeColumn("html", "links", "raw_markdown").
		Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageStored).Where("id IN (?)", bun.In(ids)).
		Order("stored_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read stored pages: %w", err)
	}
	return pages, nil
}
