package db

// Saving what a batch's fetches made of its claimed pages.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/urlpattern"
)

// FetchOutcome is what fetching a claimed page produced.
type FetchOutcome struct {
	PageID      int64
	State       crawl.PageState // PageFetched, PageFailed, PageSkipped, or PageQueued for a retry
	FinalURL    string
	StatusCode  int
	ContentType string
	HTML        string
	Engine      string
	Error       string
	// Cause is the kind of the cause Error words, on a failed or skipped
	// page.
	Cause   crawl.PageCauseKind
	Bytes   int
	FetchMS int
	// Links are the in-scope pages the page links to, enqueued with it.
	Links []NewPage
	// RetryIn, with State crawl.PageQueued, puts the page back in the frontier
	// for another attempt after this long.
	RetryIn time.Duration
	// Logs are written with the outcome: the page's retries, or why it
	// went to the browser.
	Logs []crawl.CrawlLog
	// Render, with State crawl.PageQueued, leaves the page to the browser
	// engine (it needs JavaScript).
	Render bool
	// Converted, with State crawl.PageConverted, is the page's markdown,
	// made as it was fetched: its HTML is never written to the database.
	Converted *Converted
	// Screenshot, with Converted, is the page's screenshot; Files are
	// the other files of its, served the same way (its actions'
	// screenshots and PDFs).
	Screenshot *Screenshot
	Files      []Screenshot
	// Change, on a page of a change-tracking crawl that is converted (or
	// reuses its previous markdown), is how it compares with the previous
	// crawl.
	Change *PageChange
	// ContentKey, on a converted page, names its content: a hash of its
	// markdown before deduplication ("" for a page with none, or a crawl
	// that keeps every page). A page saved with the key of a page the
	// crawl already holds at an address of the same page (see sameContent)
	// is saved as a duplicate of that page (DuplicateOf), without its
	// markdown, links, screenshot or change.
	ContentKey  string
	DuplicateOf int64
	// URL is the page's address (as claimed); DuplicateOfURL, on a
	// duplicate, its original's.
	URL, DuplicateOfURL string
}

// Words are the sentences SaveFetches records as a page's error column:
// why the database refused a page's record (the page is failed instead),
// and that a page's content is the same as page's, at url.
type Words struct {
	NotRecorded func(err error) string
	SameContent func(page int64, url string) string
	// Skipped gives the log entries of a page recorded skipped as it was
	// found (NewPage.Skipped); nil writes none.
	Skipped func(p crawl.Page) []crawl.CrawlLog
}

// Size is about how many bytes the outcome writes: its HTML or markdown,
// and its screenshot.
func (o FetchOutcome) Size() int {
	n := 0
	if o.Screenshot != nil {
		n = len(o.Screenshot.Data)
	}
	for _, f := range o.Files {
		n += len(f.Data)
	}
	if o.Converted != nil {
		return n + len(o.Converted.Markdown)
	}
	return n + len(o.HTML)
}

// SaveFetches records the fetches of claimed pages and enqueues their
// links, in one transaction, while the crawl runs; a crawl that has ended
// keeps its pages as they are. A page that is no longer claimed (saved by
// an earlier attempt of the same batch) is left alone, and so are its
// links. A converted page whose content another page of the crawl has
// (ContentKey) is saved as its duplicate, and its outcome in outs says so
// (see sameContent). A page whose record the database refuses is marked
// failed rather than failing the others, for the reason w.NotRecorded
// words. It returns the pages it saved, whose links are now in the
// frontier.
func (s *Store) SaveFetches(ctx context.Context, crawlID uuid.UUID, outs []FetchOutcome, w Words) ([]int64, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	var saved []int64
	var final []FetchOutcome // outs as saved: duplicates marked
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		final = slices.Clone(outs)
		running, err := lockRunning(ctx, tx, crawlID, "SHARE")
		if err != nil || !running {
			saved = nil
			return err
		}
		// One statement for the group; when the database refuses it (a
		// page it cannot store), page by page, so that only that page fails.
		savedIDs, err := savepoint(ctx, tx, func() (map[int64]bool, error) {
			if err := sameContent(ctx, tx, crawlID, final, w.SameContent); err != nil {
				return nil, err
			}
			return saveFetchGroup(ctx, tx, crawlID, final)
		})
		switch {
		case Transient(err):
			return err // the whole transaction is tried again
		case err == nil:
			saved, err = saveGroupRest(ctx, tx, crawlID, final, savedIDs)
		default:
			final, saved, err = saveOneByOne(ctx, tx, crawlID, outs, w)
		}
		if err != nil {
			return err
		}
		return logSkippedLinks(ctx, tx, crawlID, final, w)
	})
	if err != nil {
		return nil, err
	}
	for i, o := range final {
		if o.State == crawl.PageDuplicate {
			outs[i] = o
		}
	}
	return saved, nil
}

// saveGroupRest records what goes with the group's saved pages (savedIDs):
// their log entries, screenshots, document page counts, changes and
// links. It returns the pages saved, in the group's order.
func saveGroupRest(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, savedIDs map[int64]bool) ([]int64, error) {
	var saved []int64
	var links []NewPage
	var logs []crawl.CrawlLog
	for _, o := range outs {
		if savedIDs[o.PageID] {
			saved = append(saved, o.PageID)
			links = append(links, o.Links...)
			logs = append(logs, o.Logs...)
		}
	}
	if err := insertLogs(ctx, tx, logs); err != nil {
		return nil, err
	}
	if err := saveScreenshots(ctx, tx, crawlID, outs, savedIDs); err != nil {
		return nil, err
	}
	if err := saveDocumentPages(ctx, tx, crawlID, outs, savedIDs); err != nil {
		return nil, err
	}
	if err := saveChanges(ctx, tx, crawlID, outs, savedIDs); err != nil {
		return nil, err
	}
	_, err := enqueue(ctx, tx, crawlID, links)
	return saved, err
}

// saveOneByOne saves outs page by page, after the database refused them
// as a group: a page it refuses alone is recorded as failed, for the
// reason w.NotRecorded words, and its links are not followed. It returns
// the outcomes as saved (duplicates marked) and the pages saved.
func saveOneByOne(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, w Words) ([]FetchOutcome, []int64, error) {
	final := slices.Clone(outs) // the group's duplicates were rolled back with it
	var saved []int64
	var links []NewPage
	for i := range final {
		ok, err := savepoint(ctx, tx, func() (bool, error) {
			if err := sameContent(ctx, tx, crawlID, final[i:i+1], w.SameContent); err != nil {
				return false, err
			}
			return saveFetch(ctx, tx, crawlID, final[i])
		})
		if Transient(err) {
			return nil, nil, err
		}
		o := final[i]
		if err != nil {
			final[i] = outs[i]
			if _, err := saveFetch(ctx, tx, crawlID, FetchOutcome{PageID: o.PageID, State: crawl.PageFailed,
				FinalURL: o.FinalURL, StatusCode: o.StatusCode, Engine: o.Engine,
				Error: w.NotRecorded(err), Cause: crawl.PageNotRecorded}); err != nil {
				return nil, nil, err
			}
			continue
		}
		if !ok {
			continue
		}
		saved = append(saved, o.PageID)
		links = append(links, o.Links...)
		one := map[int64]bool{o.PageID: true}
		if len(o.Logs) > 0 {
			if err := insertLogs(ctx, tx, o.Logs); err != nil {
				return nil, nil, err
			}
		}
		if err := saveScreenshots(ctx, tx, crawlID, []FetchOutcome{o}, one); err != nil {
			return nil, nil, err
		}
		if err := saveChanges(ctx, tx, crawlID, []FetchOutcome{o}, one); err != nil {
			return nil, nil, err
		}
	}
	_, err := enqueue(ctx, tx, crawlID, links)
	return final, saved, err
}

// sameContent decides which of the converted pages among outs repeat a
// page the crawl already holds, and makes their outcomes duplicates of
// it: no markdown, links, screenshot or change of their own, and the
// error column says which page they repeat (words). A page repeats
// another when their contents are the same (ContentKey) and their
// addresses are of one page (urlpattern.PageKey: the same path under
// another query, a print view): two pages of a site that happen to say
// the same at unrelated addresses stay two pages. page_contents holds the
// page that holds each content at each page key (samePageKey); the first
// saved holds it (pages of one group in crawl order), and a page that is no longer
// claimed (an earlier attempt of its batch saved it) claims nothing. Two
// transactions saving the same page at once agree through the table's
// key: the second waits for the first.
func sameContent(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, words func(int64, string) string) error {
	var ids []int64
	var keys []string
	for _, o := range outs {
		if o.State == crawl.PageConverted && o.ContentKey != "" {
			ids, keys = append(ids, o.PageID), append(keys, samePageKey(o))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var held []int64
	if err := tx.NewRaw(`
INSERT INTO page_contents (crawl_id, key, page_id)
SELECT p.crawl_id, d.key, p.id FROM unnest(?::bigint[], ?::text[]) AS d(id, key)
JOIN pages p ON p.id = d.id AND p.crawl_id = ? AND p.state = ?
ORDER BY p.depth, p.rank, p.id
ON CONFLICT DO NOTHING RETURNING page_id`, pgdialect.Array(ids), pgdialect.Array(keys),
		crawlID, crawl.PageClaimed).Scan(ctx, &held); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("claim the contents of %d pages: %w", len(ids), err)
	}
	if len(held) == len(ids) {
		return nil // every page holds its own content: the common case
	}
	var owners []struct {
		Key     string `bun:"key"`
		Page    int64  `bun:"page_id"`
		URL     string `bun:"url"`
		Claimed string `bun:"claimed_url"`
	}
	if err := tx.NewRaw(`
SELECT c.key, c.page_id, coalesce(p.final_url, p.url) AS url, p.url AS claimed_url
FROM page_contents c JOIN pages p ON p.id = c.page_id
WHERE c.crawl_id = ? AND c.key = ANY(?::text[])`, crawlID, pgdialect.Array(keys)).Scan(ctx, &owners); err != nil {
		return fmt.Errorf("owners of the contents of %d pages: %w", len(ids), err)
	}
	keyOf := make(map[int64]string, len(ids))
	for i, id := range ids {
		keyOf[id] = keys[i]
	}
	for _, owner := range owners {
		for i, o := range outs {
			if o.State != crawl.PageConverted || o.ContentKey == "" || o.PageID == owner.Page || keyOf[o.PageID] != owner.Key {
				continue
			}
			if urlpattern.Cleaner(o.URL, owner.Claimed) {
				took, err := takeOver(ctx, tx, crawlID, owner.Key, owner.Page, o, words)
				if err != nil {
					return err
				}
				if took {
					owner.Page, owner.URL, owner.Claimed = o.PageID, cmp.Or(o.FinalURL, o.URL), o.URL
					continue
				}
			}
			outs[i] = FetchOutcome{PageID: o.PageID, State: crawl.PageDuplicate, FinalURL: o.FinalURL,
				StatusCode: o.StatusCode, ContentType: o.ContentType, Engine: o.Engine, Bytes: o.Bytes, FetchMS: o.FetchMS,
				Error: words(owner.Page, owner.URL), Logs: o.Logs, ContentKey: o.ContentKey, DuplicateOf: owner.Page,
				URL: o.URL, DuplicateOfURL: owner.Claimed}
		}
	}
	return nil
}

// takeOver makes page o, the cleaner address of a page another page of
// the crawl holds (holder, under key), its holder, when the holder is not
// a result yet: the holder becomes o's duplicate (its markdown, title,
// forms and change dropped), and so do the pages that repeated it. A
// holder already stored stays: it reports false.
func takeOver(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, key string, holder int64, o FetchOutcome, words func(int64, string) string) (bool, error) {
	why := words(o.PageID, cmp.Or(o.FinalURL, o.URL))
	res, err := tx.NewRaw(`
UPDATE pages SET state = ?, duplicate_of = ?, error = ?, raw_markdown = NULL, markdown = NULL, title = NULL, formats = NULL,
    change_status = NULL, previous_page_id = NULL
WHERE id = ? AND crawl_id = ? AND state = ?`, crawl.PageDuplicate, o.PageID, why, holder, crawlID, crawl.PageConverted).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("page %d takes over page %d: %w", o.PageID, holder, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := tx.NewRaw(`UPDATE pages SET duplicate_of = ?, error = ? WHERE crawl_id = ? AND state = ? AND duplicate_of = ?`,
		o.PageID, why, crawlID, crawl.PageDuplicate, holder).Exec(ctx); err != nil {
		return false, fmt.Errorf("the duplicates of page %d: %w", holder, err)
	}
	if _, err := tx.NewRaw(`UPDATE page_contents SET page_id = ? WHERE crawl_id = ? AND key = ?`, o.PageID, crawlID, key).Exec(ctx); err != nil {
		return false, fmt.Errorf("page %d holds the content of page %d: %w", o.PageID, holder, err)
	}
	return true, nil
}

// samePageKey names a converted page's content at its page (its content
// key and urlpattern.PageKey), in the 32 hex digits page_contents keys.
func samePageKey(o FetchOutcome) string {
	sum := sha256.Sum256([]byte(o.ContentKey + "\n" + urlpattern.PageKey(o.URL)))
	return hex.EncodeToString(sum[:16])
}

// saveFetchGroup records the fetches of claimed pages in one statement and
// returns the pages it saved (those still claimed), as saveFetch does one.
func saveFetchGroup(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome) (map[int64]bool, error) {
	n := len(outs)
	ids, retryMS, dups := make([]int64, n), make([]int64, n), make([]int64, n)
	states, finals, types, engines, errs, htmls := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	statuses, bytes, ms := make([]int, n), make([]int, n), make([]int, n)
	render := make([]bool, n)
	titles, markdowns, convertMS, noindex := make([]string, n), make([]string, n), make([]int, n), make([]bool, n)
	formats := make([]string, n) // "" for none
	words := make([]string, n)   // "" for none
	causes := make([]string, n)  // "" for none
	for i, o := range outs {
		if c := o.Converted; o.State == crawl.PageConverted && c != nil {
			titles[i], markdowns[i], convertMS[i], noindex[i] = c.Title, c.Markdown, c.ConvertMS, c.NoIndex
			formats[i], words[i] = string(c.Formats), string(c.Words)
		}
		render[i] = o.State == crawl.PageQueued && o.Render
		ids[i], states[i], finals[i], statuses[i], types[i] = o.PageID, string(o.State), o.FinalURL, o.StatusCode, o.ContentType
		engines[i], errs[i], bytes[i], ms[i] = o.Engine, o.Error, o.Bytes, o.FetchMS
		causes[i] = string(o.Cause)
		if o.State == crawl.PageFetched {
			htmls[i] = o.HTML
		}
		if o.State == crawl.PageQueued {
			retryMS[i] = o.RetryIn.Milliseconds()
		}
		dups[i] = o.DuplicateOf
	}
	var saved []int64
	err := tx.NewRaw(`
UPDATE pages AS p SET
    state = d.state, final_url = nullif(d.final_url, ''), status_code = nullif(d.status, 0),
    content_type = nullif(d.content_type, ''), engine = nullif(d.engine, ''),
    error = nullif(d.error, ''), cause = nullif(d.cause, ''),
    bytes = d.bytes, fetch_ms = d.ms, fetched_at = clock_timestamp(),
    html = CASE WHEN d.state = ? THEN d.html ELSE p.html END,
    title = CASE WHEN d.state = ? THEN d.title ELSE p.title END,
    raw_markdown = CASE WHEN d.state = ? THEN d.markdown ELSE p.raw_markdown END,
    convert_ms = CASE WHEN d.state = ? THEN d.convert_ms ELSE p.convert_ms END,
    formats = CASE WHEN d.state = ? THEN nullif(d.formats, '')::jsonb ELSE p.formats END,
    words = CASE WHEN d.state = ? THEN nullif(d.words, '')::jsonb ELSE p.words END,
    noindex = p.noindex OR d.noindex,
    batch = CASE WHEN d.state = ? THEN NULL ELSE p.batch END,
    attempts = p.attempts + CASE WHEN d.retry_ms > 0 THEN 1 ELSE 0 END,
    not_before = CASE WHEN d.retry_ms > 0 THEN clock_timestamp() + d.retry_ms * interval '1 millisecond' ELSE p.not_before END,
    render = p.render OR d.render,
    duplicate_of = nullif(d.duplicate_of, 0)
FROM unnest(?::bigint[], ?::text[], ?::text[], ?::integer[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::integer[], ?::text[], ?::bigint[], ?::boolean[],
        ?::text[], ?::text[], ?::integer[], ?::boolean[], ?::text[], ?::text[], ?::bigint[], ?::text[])
    AS d(id, state, final_url, status, content_type, engine, error, bytes, ms, html, retry_ms, render,
        title, markdown, convert_ms, noindex, formats, words, duplicate_of, cause)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?
RETURNING p.id`,
		crawl.PageFetched, crawl.PageConverted, crawl.PageConverted, crawl.PageConverted, crawl.PageConverted, crawl.PageConverted, crawl.PageQueued,
		pgdialect.Array(ids), pgdialect.Array(states), pgdialect.Array(finals), pgdialect.Array(statuses), pgdialect.Array(types),
		pgdialect.Array(engines), pgdialect.Array(errs), pgdialect.Array(bytes), pgdialect.Array(ms), pgdialect.Array(htmls),
		pgdialect.Array(retryMS), pgdialect.Array(render),
		pgdialect.Array(titles), pgdialect.Array(markdowns), pgdialect.Array(convertMS), pgdialect.Array(noindex), pgdialect.Array(formats),
		pgdialect.Array(words), pgdialect.Array(dups), pgdialect.Array(causes), crawlID, crawl.PageClaimed).Scan(ctx, &saved)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("save fetches of %d pages: %w", n, err)
	}
	out := make(map[int64]bool, len(saved))
	for _, id := range saved {
		out[id] = true
	}
	return out, nil
}

// saveDocumentPages records the page counts of the documents (PDFs)
// among the saved outcomes.
func saveDocumentPages(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, saved map[int64]bool) error {
	for _, o := range outs {
		if c := o.Converted; c != nil && c.DocumentPages > 0 && saved[o.PageID] {
			if _, err := tx.NewRaw(`UPDATE pages SET document_pages = ? WHERE id = ? AND crawl_id = ?`,
				c.DocumentPages, o.PageID, crawlID).Exec(ctx); err != nil {
				return fmt.Errorf("page count of document %d: %w", o.PageID, err)
			}
		}
	}
	return nil
}

func saveFetch(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, o FetchOutcome) (bool, error) {
	q := tx.NewUpdate().Model((*crawl.Page)(nil)).
		Set("state = ?", o.State).
		Set("final_url = ?", nullString(o.FinalURL)).
		Set("status_code = ?", nullInt(o.StatusCode)).
		Set("content_type = ?", nullString(o.ContentType)).
		Set("engine = ?", nullString(o.Engine)).
		Set("error = ?", nullString(o.Error)).
		Set("cause = ?", nullString(string(o.Cause))).
		Set("bytes = ?", o.Bytes).
		Set("fetch_ms = ?", o.FetchMS).
		Set("fetched_at = clock_timestamp()").
		Where("id = ?", o.PageID).Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageClaimed)
	if o.State == crawl.PageFetched {
		q = q.Set("html = ?", o.HTML)
	}
	if o.DuplicateOf != 0 {
		q = q.Set("duplicate_of = ?", o.DuplicateOf)
	}
	if c := o.Converted; o.State == crawl.PageConverted && c != nil {
		q = q.Set("title = ?", c.Title).Set("raw_markdown = ?", c.Markdown).Set("convert_ms = ?", c.ConvertMS)
		if c.DocumentPages > 0 {
			q = q.Set("document_pages = ?", c.DocumentPages)
		}
		if len(c.Formats) > 0 {
			q = q.Set("formats = ?::jsonb", string(c.Formats))
		}
		if len(c.Words) > 0 {
			q = q.Set("words = ?::jsonb", string(c.Words))
		}
		if c.NoIndex {
			q = q.Set("noindex = true")
		}
	}
	if o.State == crawl.PageQueued {
		q = q.Set("batch = NULL") // back in the frontier, for another engine or a retry
		if o.Render {
			q = q.Set("render = true")
		}
	}
	if o.State == crawl.PageQueued && o.RetryIn > 0 {
		q = q.Set("attempts = attempts + 1").
			Set("not_before = clock_timestamp() + ? * interval '1 millisecond'", o.RetryIn.Milliseconds())
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("save fetch of page %d: %w", o.PageID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// logSkippedLinks writes the log entries (w.Skipped) of the links among
// outs that were recorded skipped as they were found (NewPage.Skipped) and
// have none yet: they belong to no batch, whose pages get theirs when it
// is stored.
func logSkippedLinks(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome, w Words) error {
	if w.Skipped == nil {
		return nil
	}
	var keys []string
	for _, o := range outs {
		for _, l := range o.Links {
			if l.Skipped != "" {
				keys = append(keys, l.NormalizedURL)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	var pages []crawl.Page
	err := tx.NewSelect().Model(&pages).ExcludeColumn("html", "markdown", "raw_markdown", "links").
		Where("crawl_id = ?", crawlID).Where("normalized_url IN (?)", bun.In(keys)).
		Where("state = ?", crawl.PageSkipped).Where("batch IS NULL").
		Where("NOT EXISTS (SELECT 1 FROM crawl_logs l WHERE l.crawl_id = page.crawl_id AND l.key = 'page:' || page.id)").
		Order("depth", "rank", "id").Scan(ctx)
	if err != nil {
		return fmt.Errorf("pages skipped as found: %w", err)
	}
	var logs []crawl.CrawlLog
	for _, p := range pages {
		logs = append(logs, w.Skipped(p)...)
	}
	return insertLogs(ctx, tx, logs)
}
