package db

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/durablecrawl/crawler/crawl"
)

// Store is the service's data access. Its methods are safe for concurrent
// use; the ones activities call are idempotent.
type Store struct {
	db *bun.DB
}

// NewStore returns a Store over db.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

// DB returns the underlying database handle.
func (s *Store) DB() *bun.DB { return s.db }

// Principal is the caller an API key stands for.
type Principal struct {
	// KeyID identifies the API key the caller used (not the key itself).
	KeyID   uuid.UUID
	TeamID  uuid.UUID
	BrandID *string
}

// APIKeyPrefix starts every API key, so that leaked keys are easy to spot.
const APIKeyPrefix = "ck_"

// HashAPIKey returns the stored form of an API key. Keys carry 190 bits of
// randomness, so a fast hash is enough: there is nothing to brute-force.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey creates the team named teamName when it does not exist yet,
// adds a key to it and returns the key. The key is not stored.
func (s *Store) CreateAPIKey(ctx context.Context, teamName string, brandID *string) (string, error) {
	key, err := newAPIKey()
	if err != nil {
		return "", err
	}
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		team := &Team{Name: teamName}
		if _, err := tx.NewInsert().Model(team).On("CONFLICT (name) DO UPDATE SET name = EXCLUDED.name").
			Returning("id").Exec(ctx); err != nil {
			return fmt.Errorf("create team %q: %w", teamName, err)
		}
		k := &APIKey{TeamID: team.ID, BrandID: brandID, KeyHash: HashAPIKey(key), KeyPrefix: key[:len(APIKeyPrefix)+6]}
		if _, err := tx.NewInsert().Model(k).Exec(ctx); err != nil {
			return fmt.Errorf("store api key: %w", err)
		}
		return nil
	})
	return key, err
}

// KeyInfo describes an API key without the key: its ID, team, brand, the
// first characters of the key (enough to recognise it) and when it was
// created and revoked.
type KeyInfo struct {
	ID        uuid.UUID  `bun:"id"`
	Team      string     `bun:"team"`
	BrandID   *string    `bun:"brand_id"`
	Prefix    string     `bun:"key_prefix"`
	CreatedAt time.Time  `bun:"created_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
}

// keyInfos selects KeyInfo rows.
func (s *Store) keyInfos() *bun.SelectQuery {
	return s.db.NewSelect().TableExpr("api_keys AS k").Join("JOIN teams AS t ON t.id = k.team_id").
		ColumnExpr("k.id, t.name AS team, k.brand_id, k.key_prefix, k.created_at, k.revoked_at")
}

// ListAPIKeys returns the keys of the team named teamName, or of every team
// when teamName is "", oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, teamName string) ([]KeyInfo, error) {
	keys := []KeyInfo{}
	q := s.keyInfos()
	if teamName != "" {
		q = q.Where("t.name = ?", teamName)
	}
	if err := q.OrderExpr("k.created_at, k.id").Scan(ctx, &keys); err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return keys, nil
}

// RevokeAPIKey revokes the key whose ID, or whose whole key, is idOrKey; a
// revoked key authenticates no more. Revoking a revoked key changes
// nothing; an unknown one is ENOTFOUND.
func (s *Store) RevokeAPIKey(ctx context.Context, idOrKey string) (KeyInfo, error) {
	q := s.db.NewUpdate().Table("api_keys").Set("revoked_at = coalesce(revoked_at, now())")
	if id, err := uuid.Parse(idOrKey); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("key_hash = ?", HashAPIKey(idOrKey))
	}
	var ids []uuid.UUID
	if err := q.Returning("id").Scan(ctx, &ids); err != nil {
		return KeyInfo{}, fmt.Errorf("revoke api key: %w", err)
	}
	if len(ids) == 0 {
		return KeyInfo{}, crawl.Errorf(crawl.ENOTFOUND, "no API key %s", redactKey(idOrKey))
	}
	var k KeyInfo
	err := s.keyInfos().Where("k.id = ?", ids[0]).Scan(ctx, &k)
	if err != nil {
		return KeyInfo{}, fmt.Errorf("read revoked api key: %w", err)
	}
	return k, nil
}

// redactKey keeps an API key out of messages: a key shows only its first
// characters; an ID shows whole.
func redactKey(s string) string {
	if strings.HasPrefix(s, APIKeyPrefix) && len(s) > len(APIKeyPrefix)+6 {
		return s[:len(APIKeyPrefix)+6] + "…"
	}
	return s
}

func newAPIKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", err
		}
		b[i] = alphabet[n.Int64()]
	}
	return APIKeyPrefix + string(b), nil
}

// Authenticate returns the principal of an API key, or an EUNAUTHORIZED
// error when the key is unknown or revoked.
func (s *Store) Authenticate(ctx context.Context, key string) (Principal, error) {
	var k APIKey
	err := s.db.NewSelect().Model(&k).Where("key_hash = ?", HashAPIKey(key)).Where("revoked_at IS NULL").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, crawl.Errorf(crawl.EUNAUTHORIZED, "invalid API key")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("look up api key: %w", err)
	}
	return Principal{KeyID: k.ID, TeamID: k.TeamID, BrandID: k.BrandID}, nil
}

// InsertCrawl stores a new crawl.
func (s *Store) InsertCrawl(ctx context.Context, c *crawl.Crawl) error {
	if _, err := s.db.NewInsert().Model(c).Exec(ctx); err != nil {
		return fmt.Errorf("insert crawl: %w", err)
	}
	return nil
}

// GetCrawl returns the team's crawl id, or ENOTFOUND, also when the crawl
// belongs to another team.
func (s *Store) GetCrawl(ctx context.Context, teamID, id uuid.UUID) (*crawl.Crawl, error) {
	c := new(crawl.Crawl)
	err := s.db.NewSelect().Model(c).Where("id = ?", id).Where("team_id = ?", teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get crawl %s: %w", id, err)
	}
	return c, nil
}

// ListCrawls returns one page of a team's crawls, newest first, and how
// many there are; status "" lists every status.
func (s *Store) ListCrawls(ctx context.Context, teamID uuid.UUID, status crawl.Status, page, limit int) ([]crawl.Crawl, int, error) {
	crawls := []crawl.Crawl{}
	q := s.db.NewSelect().Model(&crawls).Where("team_id = ?", teamID)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	total, err := q.Order("created_at DESC", "id DESC").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list crawls: %w", err)
	}
	return crawls, int(total), nil
}

// CountCrawls returns how many crawls there are in each status, all
// teams together (for metrics).
func (s *Store) CountCrawls(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	if err := s.db.NewSelect().Model((*crawl.Crawl)(nil)).Column("status").ColumnExpr("count(*) AS n").
		Group("status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("count crawls: %w", err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}

// CrawlByID returns a crawl whatever its team, for the worker.
func (s *Store) CrawlByID(ctx context.Context, id uuid.UUID) (*crawl.Crawl, error) {
	return crawlByID(ctx, s.db, id)
}

func crawlByID(ctx context.Context, db bun.IDB, id uuid.UUID) (*crawl.Crawl, error) {
	c := new(crawl.Crawl)
	err := db.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get crawl %s: %w", id, err)
	}
	return c, nil
}

// SetEndStatus moves a running crawl to a terminal status, without log
// entries, and returns the crawl as it is afterwards and whether it
// changed. A crawl that is no longer running is left as it is
// (compare-and-set), so concurrent or repeated endings agree. EndCrawl is
// the ending with its log entries.
func (s *Store) SetEndStatus(ctx context.Context, id uuid.UUID, status crawl.Status, message string) (*crawl.Crawl, bool, error) {
	return setEndStatus(ctx, s.db, id, status, message)
}

func setEndStatus(ctx context.Context, db bun.IDB, id uuid.UUID, status crawl.Status, message string) (*crawl.Crawl, bool, error) {
	res, err := db.NewUpdate().Model((*crawl.Crawl)(nil)).
		Set("status = ?", status).
		Set("error_message = ?", message).
		Set("completed_at = clock_timestamp()").
		Set("updated_at = clock_timestamp()").
		Where("id = ?", id).Where("status = ?", crawl.StatusRunning).
		Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("finish crawl %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	c, err := crawlByID(ctx, db, id)
	return c, n == 1, err
}

// EndCrawl ends a running crawl with status (compare-and-set: a crawl that
// already ended keeps its own), closes the pages it left half-done and
// writes the log entries that logs returns for the crawl as it ended and
// its pages without an entry: all in one transaction, so that a reader who
// sees the crawl ended also sees its last entries.
func (s *Store) EndCrawl(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	var out *crawl.Crawl
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c, _, err := setEndStatus(ctx, tx, id, status, message)
		if err != nil {
			return err
		}
		if err := closeLeftovers(ctx, tx, id); err != nil {
			return err
		}
		unlogged, err := unloggedPages(ctx, tx, id)
		if err != nil {
			return err
		}
		out = c
		return insertLogs(ctx, tx, logs(c, unlogged))
	})
	return out, err
}

// RunningCrawls returns up to limit crawls that are running and were
// created before createdBefore, oldest first, starting after the crawl
// after (uuid.Nil for the first page).
func (s *Store) RunningCrawls(ctx context.Context, createdBefore time.Time, after uuid.UUID, limit int) ([]crawl.Crawl, error) {
	var cs []crawl.Crawl
	q := s.db.NewSelect().Model(&cs).Column("id", "workflow_id", "created_at").
		Where("status = ?", crawl.StatusRunning).Where("created_at < ?", createdBefore)
	if after != uuid.Nil {
		q = q.Where("(created_at, id) > (SELECT created_at, id FROM crawls WHERE id = ?)", after)
	}
	if err := q.Order("created_at", "id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list running crawls: %w", err)
	}
	return cs, nil
}

// NewPage is a URL discovered by a crawl.
type NewPage struct {
	URL           string
	NormalizedURL string
	Depth         int
	// Rank orders pages of one depth (see the pages table).
	Rank string
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
	res, err := db.NewInsert().Model(&rows).
		Column("crawl_id", "url", "normalized_url", "depth", "rank", "state").
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

// Known reports whether the crawl already has the URL with key in its
// frontier or results.
func (s *Store) Known(ctx context.Context, crawlID uuid.UUID, key string) (bool, error) {
	ok, err := s.db.NewSelect().Model((*crawl.Page)(nil)).
		Where("crawl_id = ?", crawlID).Where("normalized_url = ?", key).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", key, err)
	}
	return ok, nil
}

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
	Bytes       int
	FetchMS     int
	// Links are the in-scope pages the page links to, enqueued with it.
	Links []NewPage
	// RetryIn, with State crawl.PageQueued, puts the page back in the frontier
	// for another attempt after this long; Log is written with it.
	RetryIn time.Duration
	Log     *crawl.CrawlLog
	// Render, with State crawl.PageQueued, leaves the page to the browser
	// engine (it needs JavaScript).
	Render bool
	// Converted, with State crawl.PageConverted, is the page's markdown,
	// made as it was fetched: its HTML is never written to the database.
	Converted *Converted
	// Screenshot, with Converted, is the page's screenshot.
	Screenshot *Screenshot
	// Change, on a page of a change-tracking crawl that is converted (or
	// reuses its previous markdown), is how it compares with the previous
	// crawl.
	Change *PageChange
}

// Size is about how many bytes the outcome writes: its HTML or markdown,
// and its screenshot.
func (o FetchOutcome) Size() int {
	n := 0
	if o.Screenshot != nil {
		n = len(o.Screenshot.Data)
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
// links. A page whose record the database refuses is marked failed rather
// than failing the others, for the reason notRecorded words. It returns
// the pages it saved, whose links are now in the frontier.
func (s *Store) SaveFetches(ctx context.Context, crawlID uuid.UUID, outs []FetchOutcome, notRecorded func(error) string) ([]int64, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	var saved []int64
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		saved = saved[:0]
		running, err := lockRunning(ctx, tx, crawlID, "SHARE")
		if err != nil || !running {
			return err
		}
		// One statement for the group; when the database refuses it (a
		// page it cannot store), page by page, so that only that page fails.
		savedIDs, err := savepoint(ctx, tx, func() (map[int64]bool, error) { return saveFetchGroup(ctx, tx, crawlID, outs) })
		if Transient(err) {
			return err // the whole transaction is tried again
		}
		if err == nil {
			var links []NewPage
			var logs []crawl.CrawlLog
			for _, o := range outs {
				if savedIDs[o.PageID] {
					saved = append(saved, o.PageID)
					links = append(links, o.Links...)
					if o.Log != nil {
						logs = append(logs, *o.Log)
					}
				}
			}
			if err := insertLogs(ctx, tx, logs); err != nil {
				return err
			}
			if err := saveScreenshots(ctx, tx, crawlID, outs, savedIDs); err != nil {
				return err
			}
			if err := saveDocumentPages(ctx, tx, crawlID, outs, savedIDs); err != nil {
				return err
			}
			if err := saveChanges(ctx, tx, crawlID, outs, savedIDs); err != nil {
				return err
			}
			_, err = enqueue(ctx, tx, crawlID, links)
			return err
		}
		var links []NewPage
		for _, o := range outs {
			ok, err := savepoint(ctx, tx, func() (bool, error) { return saveFetch(ctx, tx, crawlID, o) })
			if Transient(err) {
				return err
			}
			if err != nil {
				// Recorded as failed instead; its links are not followed.
				if _, err := saveFetch(ctx, tx, crawlID, FetchOutcome{PageID: o.PageID, State: crawl.PageFailed,
					FinalURL: o.FinalURL, StatusCode: o.StatusCode, Engine: o.Engine,
					Error: notRecorded(err)}); err != nil {
					return err
				}
				continue
			}
			if ok {
				saved = append(saved, o.PageID)
				links = append(links, o.Links...)
				if o.Log != nil {
					if err := insertLogs(ctx, tx, []crawl.CrawlLog{*o.Log}); err != nil {
						return err
					}
				}
				if err := saveScreenshots(ctx, tx, crawlID, []FetchOutcome{o}, map[int64]bool{o.PageID: true}); err != nil {
					return err
				}
				if err := saveChanges(ctx, tx, crawlID, []FetchOutcome{o}, map[int64]bool{o.PageID: true}); err != nil {
					return err
				}
			}
		}
		_, err = enqueue(ctx, tx, crawlID, links)
		return err
	})
	if err != nil {
		return nil, err
	}
	return saved, nil
}

// saveFetchGroup records the fetches of claimed pages in one statement and
// returns the pages it saved (those still claimed), as saveFetch does one.
func saveFetchGroup(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, outs []FetchOutcome) (map[int64]bool, error) {
	n := len(outs)
	ids, retryMS := make([]int64, n), make([]int64, n)
	states, finals, types, engines, errs, htmls := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	statuses, bytes, ms := make([]int, n), make([]int, n), make([]int, n)
	render := make([]bool, n)
	titles, markdowns, convertMS, noindex := make([]string, n), make([]string, n), make([]int, n), make([]bool, n)
	formats := make([]string, n) // "" for none
	for i, o := range outs {
		if c := o.Converted; o.State == crawl.PageConverted && c != nil {
			titles[i], markdowns[i], convertMS[i], noindex[i] = c.Title, c.Markdown, c.ConvertMS, c.NoIndex
			formats[i] = string(c.Formats)
		}
		render[i] = o.State == crawl.PageQueued && o.Render
		ids[i], states[i], finals[i], statuses[i], types[i] = o.PageID, string(o.State), o.FinalURL, o.StatusCode, o.ContentType
		engines[i], errs[i], bytes[i], ms[i] = o.Engine, o.Error, o.Bytes, o.FetchMS
		if o.State == crawl.PageFetched {
			htmls[i] = o.HTML
		}
		if o.State == crawl.PageQueued {
			retryMS[i] = o.RetryIn.Milliseconds()
		}
	}
	var saved []int64
	err := tx.NewRaw(`
UPDATE pages AS p SET
    state = d.state, final_url = nullif(d.final_url, ''), status_code = nullif(d.status, 0),
    content_type = nullif(d.content_type, ''), engine = nullif(d.engine, ''),
    error = nullif(d.error, ''),
    bytes = d.bytes, fetch_ms = d.ms, fetched_at = clock_timestamp(),
    html = CASE WHEN d.state = ? THEN d.html ELSE p.html END,
    title = CASE WHEN d.state = ? THEN d.title ELSE p.title END,
    raw_markdown = CASE WHEN d.state = ? THEN d.markdown ELSE p.raw_markdown END,
    convert_ms = CASE WHEN d.state = ? THEN d.convert_ms ELSE p.convert_ms END,
    formats = CASE WHEN d.state = ? THEN nullif(d.formats, '')::jsonb ELSE p.formats END,
    noindex = p.noindex OR d.noindex,
    batch = CASE WHEN d.state = ? THEN NULL ELSE p.batch END,
    attempts = p.attempts + CASE WHEN d.retry_ms > 0 THEN 1 ELSE 0 END,
    not_before = CASE WHEN d.retry_ms > 0 THEN clock_timestamp() + d.retry_ms * interval '1 millisecond' ELSE p.not_before END,
    render = p.render OR d.render
FROM unnest(?::bigint[], ?::text[], ?::text[], ?::integer[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::integer[], ?::text[], ?::bigint[], ?::boolean[],
        ?::text[], ?::text[], ?::integer[], ?::boolean[], ?::text[])
    AS d(id, state, final_url, status, content_type, engine, error, bytes, ms, html, retry_ms, render,
        title, markdown, convert_ms, noindex, formats)
WHERE p.id = d.id AND p.crawl_id = ? AND p.state = ?
RETURNING p.id`,
		crawl.PageFetched, crawl.PageConverted, crawl.PageConverted, crawl.PageConverted, crawl.PageConverted, crawl.PageQueued,
		pgdialect.Array(ids), pgdialect.Array(states), pgdialect.Array(finals), pgdialect.Array(statuses), pgdialect.Array(types),
		pgdialect.Array(engines), pgdialect.Array(errs), pgdialect.Array(bytes), pgdialect.Array(ms), pgdialect.Array(htmls),
		pgdialect.Array(retryMS), pgdialect.Array(render),
		pgdialect.Array(titles), pgdialect.Array(markdowns), pgdialect.Array(convertMS), pgdialect.Array(noindex), pgdialect.Array(formats),
		crawlID, crawl.PageClaimed).Scan(ctx, &saved)
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
		Set("bytes = ?", o.Bytes).
		Set("fetch_ms = ?", o.FetchMS).
		Set("fetched_at = clock_timestamp()").
		Where("id = ?", o.PageID).Where("crawl_id = ?", crawlID).Where("state = ?", crawl.PageClaimed)
	if o.State == crawl.PageFetched {
		q = q.Set("html = ?", o.HTML)
	}
	if c := o.Converted; o.State == crawl.PageConverted && c != nil {
		q = q.Set("title = ?", c.Title).Set("raw_markdown = ?", c.Markdown).Set("convert_ms = ?", c.ConvertMS)
		if c.DocumentPages > 0 {
			q = q.Set("document_pages = ?", c.DocumentPages)
		}
		if len(c.Formats) > 0 {
			q = q.Set("formats = ?::jsonb", string(c.Formats))
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

// savepoint runs fn inside a savepoint of tx and rolls back to it when fn
// fails, so that the transaction can go on.
func savepoint[T any](ctx context.Context, tx bun.Tx, fn func() (T, error)) (T, error) {
	var zero T
	if _, err := tx.ExecContext(ctx, "SAVEPOINT page"); err != nil {
		return zero, err
	}
	v, err := fn()
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT page"); rerr != nil {
			return zero, rerr
		}
		return zero, err
	}
	_, err = tx.ExecContext(ctx, "RELEASE SAVEPOINT page")
	return v, err
}

// lockRunning locks the crawl's row (FOR SHARE or FOR UPDATE) and reports
// whether the crawl is running. The lock orders page writes with the
// crawl's end (setEndStatus): nothing changes a crawl's pages after it
// ended.
func lockRunning(ctx context.Context, tx bun.Tx, crawlID uuid.UUID, mode string) (bool, error) {
	var status crawl.Status
	err := tx.NewSelect().Model((*crawl.Crawl)(nil)).Column("status").
		Where("id = ?", crawlID).For(mode).Scan(ctx, &status)
	if err != nil {
		return false, fmt.Errorf("lock crawl %s: %w", crawlID, err)
	}
	return status == crawl.StatusRunning, nil
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

// InsertLogs writes log entries; an entry whose key the crawl already has
// is skipped, so rewriting the same entries is harmless.
func (s *Store) InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error {
	return insertLogs(ctx, s.db, logs)
}

func insertLogs(ctx context.Context, db bun.IDB, logs []crawl.CrawlLog) error {
	if len(logs) == 0 {
		return nil
	}
	for i := range logs {
		if logs[i].Data == nil {
			logs[i].Data = map[string]any{}
		}
	}
	_, err := db.NewInsert().Model(&logs).
		Column("crawl_id", "team_id", "key", "level", "message", "description", "data").
		On("CONFLICT (crawl_id, key) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("insert %d logs: %w", len(logs), err)
	}
	return nil
}

// ListLogs returns one page of a crawl's log, oldest first, and the total
// number of entries.
func (s *Store) ListLogs(ctx context.Context, crawlID uuid.UUID, page, limit int) ([]crawl.CrawlLog, int, error) {
	logs := []crawl.CrawlLog{}
	total, err := s.db.NewSelect().Model(&logs).Where("crawl_id = ?", crawlID).
		Order("created_at", "id").Offset(int64((page - 1) * limit)).Limit(int64(limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("list logs: %w", err)
	}
	return logs, int(total), nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// Robots returns the robots.txt files the crawl has read for origins.
func (s *Store) Robots(ctx context.Context, crawlID uuid.UUID, origins []string) (map[string]Robots, error) {
	out := make(map[string]Robots, len(origins))
	if len(origins) == 0 {
		return out, nil
	}
	var rows []Robots
	err := s.db.NewSelect().Model(&rows).Where("crawl_id = ?", crawlID).Where("origin IN (?)", bun.In(origins)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read robots.txt records: %w", err)
	}
	for _, r := range rows {
		out[r.Origin] = r
	}
	return out, nil
}

// SaveRobots records robots.txt files; a file the crawl already has is
// kept, so that the whole crawl applies the first one it read.
func (s *Store) SaveRobots(ctx context.Context, rows []Robots) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := s.db.NewInsert().Model(&rows).Column("crawl_id", "origin", "status_code", "body").
		On("CONFLICT (crawl_id, origin) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("save robots.txt records: %w", err)
	}
	return nil
}

// closeLeftovers ends the pages a crawl left half-done when it stopped
// (claimed but not saved, fetched but not converted): they are skipped and
// their HTML is dropped.
func closeLeftovers(ctx context.Context, db bun.IDB, crawlID uuid.UUID) error {
	_, err := db.NewUpdate().Model((*crawl.Page)(nil)).
		Set("state = ?", crawl.PageSkipped).
		Set("html = NULL").
		Set("error = ?", "the crawl ended before this page was finished").
		Where("crawl_id = ?", crawlID).Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageClaimed, crawl.PageFetched, crawl.PageConverted})).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("close leftover pages: %w", err)
	}
	return nil
}

// unloggedPages returns the crawl's pages that were fetched (or decided
// on) but have no log entry, in crawl order.
func unloggedPages(ctx context.Context, db bun.IDB, crawlID uuid.UUID) ([]crawl.Page, error) {
	var pages []crawl.Page
	err := db.NewSelect().Model(&pages).ExcludeColumn("html", "markdown", "raw_markdown", "links").
		Where("crawl_id = ?", crawlID).Where("batch IS NOT NULL").
		Where("state IN (?)", bun.In([]crawl.PageState{crawl.PageStored, crawl.PageFailed, crawl.PageSkipped})).
		Where("NOT EXISTS (SELECT 1 FROM crawl_logs l WHERE l.crawl_id = page.crawl_id AND l.key = 'page:' || page.id)").
		Order("batch", "depth", "rank", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("unlogged pages: %w", err)
	}
	return pages, nil
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
