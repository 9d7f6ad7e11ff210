package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/pageformats"
)

// Page size bounds of the paginated reads (GET /crawl-logs and /crawls/{id}/pages).
const (
	defaultLimit = 100
	maxLimit     = 1200
	// maxPagesLimit bounds a page of results: each carries a page's whole
	// markdown.
	maxPagesLimit = 100
	// A page of GET /crawls.
	defaultCrawlsLimit = 20
	maxCrawlsLimit     = 100
)

// pageParams reads ?page= and ?limit=; out-of-range or non-integer values
// are a 400 naming the parameter.
func pageParams(c *fiber.Ctx, limitDefault, limitMax int) (page, limit int, err error) {
	var details []crawl.FieldError
	read := func(name string, def, lo, hi int) int {
		raw := strings.TrimSpace(c.Query(name))
		if raw == "" {
			return def
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < lo || n > hi {
			msg := "must be an integer of at least 1"
			if hi < int(^uint(0)>>1) {
				msg = "must be an integer from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
			}
			details = append(details, crawl.FieldError{Field: name, Message: msg})
		}
		return n
	}
	page = read("page", 1, 1, int(^uint(0)>>1))
	limit = read("limit", limitDefault, 1, limitMax)
	if len(details) > 0 {
		return 0, 0, &crawl.Error{Code: crawl.EINVALID, Message: "invalid pagination parameters", Details: details}
	}
	if page > 1_000_000_000/limit {
		return 0, 0, &crawl.Error{Code: crawl.EINVALID, Message: "invalid pagination parameters",
			Details: []crawl.FieldError{{Field: "page", Message: "too large"}}}
	}
	return page, limit, nil
}

// pageOf is the answer of every paginated read. Next is the absolute URL
// of the following page, null on the last one.
type pageOf[T any] struct {
	Results      []T     `json:"results"`
	Page         int     `json:"page"`
	Limit        int     `json:"limit"`
	TotalPages   int     `json:"totalPages"`
	TotalResults int     `json:"totalResults"`
	Next         *string `json:"next"`
}

func newPage[T any](c *fiber.Ctx, results []T, page, limit, total int) pageOf[T] {
	if results == nil {
		results = []T{}
	}
	p := pageOf[T]{Results: results, Page: page, Limit: limit,
		TotalPages: (total + limit - 1) / limit, TotalResults: total}
	if page < p.TotalPages {
		next := nextPageURL(c, page+1, limit)
		p.Next = &next
	}
	return p
}

// nextPageURL is the request's own URL with page and limit set: the other
// query parameters (a status filter, raw) carry over.
func nextPageURL(c *fiber.Ctx, page, limit int) string {
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		q.Add(string(k), string(v))
	})
	q.Set("page", strconv.Itoa(page))
	q.Set("limit", strconv.Itoa(limit))
	return c.BaseURL() + c.Path() + "?" + q.Encode()
}

// logJSON is a crawl log entry as GET /crawl-logs lists it.
type logJSON struct {
	ID          string         `json:"id"`
	Message     string         `json:"message"`
	Level       string         `json:"level"`
	Description string         `json:"description"`
	CrawlID     string         `json:"crawlId"`
	TeamID      string         `json:"teamId"`
	Data        map[string]any `json:"data"`
	CreatedAt   time.Time      `json:"createdAt"`
}

// logLevels are the levels an entry can have, as level filters them.
var logLevels = []string{"debug", "info", "warn", "error"}

// listLogs handles GET /crawl-logs/{crawlId}: the crawl's log entries,
// oldest first; level keeps one level's, url those about one page.
func (s *server) listLogs(c *fiber.Ctx) error {
	q := db.LogsQuery{Level: strings.TrimSpace(c.Query("level")), URL: strings.TrimSpace(c.Query("url"))}
	var bad []crawl.FieldError
	if q.Level != "" && !slices.Contains(logLevels, q.Level) {
		bad = append(bad, crawl.FieldError{Field: "level", Message: "must be one of " + strings.Join(logLevels, ", ")})
	}
	if len(q.URL) > maxURLFilter {
		bad = append(bad, crawl.FieldError{Field: "url", Message: fmt.Sprintf("must be at most %d bytes", maxURLFilter)})
	} else if !plainText(q.URL) {
		bad = append(bad, crawl.FieldError{Field: "url", Message: notPlainText})
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters", Details: bad}
	}
	list := func(ctx context.Context, id uuid.UUID, page, limit int) ([]crawl.CrawlLog, int, error) {
		return s.Store.ListLogs(ctx, id, page, limit, q)
	}
	return paginate(s, c, "crawlId", maxLimit, list, func(l crawl.CrawlLog) logJSON {
		return logJSON{
			ID: strconv.FormatInt(l.ID, 10), Message: l.Message, Level: l.Level,
			Description: l.Description, CrawlID: l.CrawlID.String(), TeamID: l.TeamID.String(),
			Data: l.Data, CreatedAt: l.CreatedAt.UTC(),
		}
	})
}

// plainText reports whether a filter's text can be compared with stored
// text: valid UTF-8 without NUL, which Postgres's text does not hold.
func plainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// notPlainText is the message for a filter plainText refuses.
const notPlainText = "must be UTF-8 text without NUL characters"

// maxURLFilter is the longest url a log listing filters by: a page's URL
// is at most 2,048 bytes.
const maxURLFilter = 2048

// paginate answers a paginated read of one of the caller's crawls: the
// crawl ID from path parameter param, page and limit from the query, the
// rows from list, each shown by view.
func paginate[R, V any](s *server, c *fiber.Ctx, param string, limitMax int,
	list func(context.Context, uuid.UUID, int, int) ([]R, int, error), view func(R) V) error {
	id, err := crawlID(c, param)
	if err != nil {
		return err
	}
	page, limit, err := pageParams(c, min(defaultLimit, limitMax), limitMax)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if _, err := s.Store.GetCrawl(ctx, principal(c).TeamID, id); err != nil {
		return err
	}
	rows, total, err := list(ctx, id, page, limit)
	if err != nil {
		return err
	}
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = view(r)
	}
	return c.JSON(newPage(c, out, page, limit, total))
}

// maxSearch is the longest q a listing of pages takes, in characters.
const maxSearch = 200

// pageJSON is one result page of a crawl.
type pageJSON struct {
	URL        string `json:"url"`
	FinalURL   string `json:"finalUrl,omitempty"`
	StatusCode int    `json:"statusCode"`
	Depth      int    `json:"depth"`
	Title      string `json:"title"`
	// Markdown is deduplicated when the crawl's deduplicateContent is on,
	// unless the request asks for raw=true.
	Markdown string `json:"markdown"`
	// Fragments counts the page's text fragments, FragmentsRemoved those
	// deduplication removed from markdown; both are 0 on a crawl that did
	// not deduplicate.
	Fragments        int        `json:"fragments"`
	FragmentsRemoved int        `json:"fragmentsRemoved"`
	Engine           string     `json:"engine"`
	FetchedAt        *time.Time `json:"fetchedAt"`
	// ContentType is the response's; DocumentPages a PDF's page count.
	ContentType   string `json:"contentType,omitempty"`
	DocumentPages int    `json:"documentPages,omitempty"`
	// Extraction is the LLM's answer to the crawl's extraction
	// instructions: JSON when it answered JSON, a string otherwise, null
	// without extraction. ExtractionError says why it is missing.
	Extraction      json.RawMessage `json:"extraction"`
	ExtractionError string          `json:"extractionError,omitempty"`
	// The page's other formats the crawl asked for (formats), each only
	// when asked.
	pageformats.Page
	// How the page compares with the previous crawl, on a crawl with
	// changeTracking.
	changeFields
}

// listPages handles GET /crawls/{id}/pages: the crawl's result pages in
// the order they were stored. raw=true gives each page's markdown as it
// was before deduplication, markdown=false leaves it out (a list of
// titles and URLs), q keeps the pages whose URL or title holds it.
func (s *server) listPages(c *fiber.Ctx) error {
	var q db.ResultsQuery
	var bad []crawl.FieldError
	flag := func(name string, into *bool) {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				bad = append(bad, crawl.FieldError{Field: name, Message: "must be true or false"})
			}
			*into = b
		}
	}
	flag("raw", &q.Raw)
	withMarkdown := true
	flag("markdown", &withMarkdown)
	q.NoMarkdown = !withMarkdown
	q.Search = strings.TrimSpace(c.Query("q"))
	if utf8.RuneCountInString(q.Search) > maxSearch {
		bad = append(bad, crawl.FieldError{Field: "q", Message: fmt.Sprintf("must be at most %d characters", maxSearch)})
	} else if !plainText(q.Search) {
		bad = append(bad, crawl.FieldError{Field: "q", Message: notPlainText})
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters", Details: bad}
	}
	raw := q.Raw
	var prev map[int64]changes.Previous
	list := func(ctx context.Context, id uuid.UUID, page, limit int) ([]crawl.Page, int, error) {
		pages, total, err := s.Store.ListResults(ctx, id, page, limit, q)
		if err != nil {
			return nil, 0, err
		}
		prev, err = s.Store.PreviousOf(ctx, pages)
		return pages, total, err
	}
	base := c.BaseURL()
	return paginate(s, c, "id", maxPagesLimit, list, func(p crawl.Page) pageJSON {
		v := resultView(p, raw, base)
		v.changeFields = changeFieldsOf(p, prev)
		return v
	})
}

// resultView is a result page as the API at base answers it.
func resultView(p crawl.Page, raw bool, base string) pageJSON {
	v := pageJSON{URL: p.URL, Depth: p.Depth, Title: str(p.Title), Markdown: str(p.Markdown), Engine: str(p.Engine),
		Extraction: json.RawMessage("null"), ExtractionError: str(p.ExtractionError)}
	if raw {
		// Pages stored before deduplication existed have no raw markdown:
		// theirs was never deduplicated.
		v.Markdown = str(p.RawMarkdown)
		if p.RawMarkdown == nil {
			v.Markdown = str(p.Markdown)
		}
	}
	if p.Fragments != nil {
		v.Fragments = *p.Fragments
	}
	v.ContentType = str(p.ContentType)
	if p.DocumentPages != nil {
		v.DocumentPages = *p.DocumentPages
	}
	if p.FragmentsRemoved != nil && !raw {
		v.FragmentsRemoved = *p.FragmentsRemoved
	}
	if len(p.Extraction) > 0 {
		v.Extraction = p.Extraction
	}
	if p.StatusCode != nil {
		v.StatusCode = *p.StatusCode
	}
	if p.FinalURL != nil && *p.FinalURL != p.URL {
		v.FinalURL = *p.FinalURL
	}
	if p.FetchedAt != nil {
		t := p.FetchedAt.UTC()
		v.FetchedAt = &t
	}
	if len(p.Formats) > 0 {
		// Written by the converter from pageformats.Page: it reads back.
		_ = json.Unmarshal(p.Formats, &v.Page)
		if v.Page.Screenshot != nil {
			shot := base + *v.Page.Screenshot
			v.Page.Screenshot = &shot
		}
	}
	return v
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
