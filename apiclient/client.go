// Package apiclient is a Go client of the crawl service's HTTP API (see
// docs/api.md): create, read, list and abort crawls, read their logs,
// result pages and changes a page at a time, following each answer's next
// link, and manage crawl schedules.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to one deployment of the API with one API key.
type Client struct {
	// BaseURL is the API's address, for example http://127.0.0.1:8080.
	BaseURL string
	Key     string
	// HTTP is the client requests go through; nil is one with a 30 s
	// timeout.
	HTTP *http.Client
}

// Crawl is the part of the API's Crawl object a client reads.
type Crawl struct {
	ID                string     `json:"id"`
	Status            string     `json:"status"`
	StartURL          string     `json:"startUrl"`
	MaxResults        *int       `json:"maxResults"`
	Paused            bool       `json:"paused"`
	TotalPages        int        `json:"totalPages"`
	DurationInSeconds int64      `json:"durationInSeconds"`
	CreatedAt         time.Time  `json:"createdAt"`
	CompletedAt       *time.Time `json:"completedAt"`
	// Progress is on the answers about one crawl, not in lists.
	Progress *Progress `json:"progress"`
}

// Ended reports whether the crawl has its final status.
func (c Crawl) Ended() bool { return c.Status != "" && c.Status != "running" }

// Progress says where a crawl's discovered pages stand.
type Progress struct {
	Queued     int `json:"queued"`
	InProgress int `json:"inProgress"`
	Stored     int `json:"stored"`
	Failed     int `json:"failed"`
	Skipped    int `json:"skipped"`
	// Duplicates repeat the content of a page the crawl keeps.
	Duplicates int `json:"duplicates"`
}

// LogEntry is one entry of a crawl's log.
type LogEntry struct {
	Level       string         `json:"level"`
	Message     string         `json:"message"`
	Description string         `json:"description"`
	Data        map[string]any `json:"data"`
	CreatedAt   time.Time      `json:"createdAt"`
}

// Page is one result page of a crawl; Raw is the page as the API sent it.
type Page struct {
	URL      string          `json:"url"`
	Title    string          `json:"title"`
	Markdown string          `json:"markdown"`
	Raw      json.RawMessage `json:"-"`
}

// Error is an error answer of the API.
type Error struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"details"`
	// RetryAfter is the wait a 429 answer asks for.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d): %s", e.Code, e.Status, e.Message)
	for _, d := range e.Details {
		fmt.Fprintf(&b, "\n  %s: %s", d.Field, d.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry in %s)", e.RetryAfter)
	}
	return b.String()
}

// Create creates a crawl from a request body (the API's create request).
func (c *Client) Create(ctx context.Context, body []byte) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodPost, c.url("/crawls"), body, &out)
	return out, err
}

// Crawl reads one crawl, with its progress.
func (c *Client) Crawl(ctx context.Context, id string) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodGet, c.url("/crawls/"+url.PathEscape(id)), nil, &out)
	return out, err
}

// Abort aborts a crawl (nothing changes for one that has ended).
func (c *Client) Abort(ctx context.Context, id string) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodPost, c.url("/crawls/"+url.PathEscape(id)+"/abort"), nil, &out)
	return out, err
}

// Crawls calls each for the team's crawls, newest first, status "" for
// all; limit is the page size, and all follows the pages to the end.
func (c *Client) Crawls(ctx context.Context, status string, limit int, all bool, each func(Crawl) error) error {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if status != "" {
		q.Set("status", status)
	}
	return walk(ctx, c, c.url("/crawls?"+q.Encode()), all, func(raw json.RawMessage) error {
		var x Crawl
		if err := json.Unmarshal(raw, &x); err != nil {
			return err
		}
		return each(x)
	})
}

// Logs calls each for a crawl's log entries, oldest first, from the
// after'th on (0: all).
func (c *Client) Logs(ctx context.Context, id string, after int, each func(LogEntry) error) error {
	const limit = 1000
	page := after/limit + 1
	skip := after % limit
	first := c.url(fmt.Sprintf("/crawl-logs/%s?limit=%d&page=%d", url.PathEscape(id), limit, page))
	return walk(ctx, c, first, true, func(raw json.RawMessage) error {
		if skip > 0 {
			skip--
			return nil
		}
		var x LogEntry
		if err := json.Unmarshal(raw, &x); err != nil {
			return err
		}
		return each(x)
	})
}

// Pages calls each for a crawl's result pages in the order they were
// stored; raw asks for the markdown before deduplication.
func (c *Client) Pages(ctx context.Context, id string, raw bool, each func(Page) error) error {
	first := c.url(fmt.Sprintf("/crawls/%s/pages?limit=100&raw=%t", url.PathEscape(id), raw))
	return walk(ctx, c, first, true, func(r json.RawMessage) error {
		var x Page
		if err := json.Unmarshal(r, &x); err != nil {
			return err
		}
		x.Raw = r
		return each(x)
	})
}

// PagesPage is one page of a crawl's result pages: Page of TotalPages.
type PagesPage struct {
	Pages      []Page
	Page       int
	TotalPages int
}

// PagesAt reads the page-th page (from 1) of a crawl's result pages, limit
// pages long.
func (c *Client) PagesAt(ctx context.Context, id string, page, limit int) (PagesPage, error) {
	var p listPage
	u := c.url(fmt.Sprintf("/crawls/%s/pages?page=%d&limit=%d", url.PathEscape(id), page, limit))
	if err := c.do(ctx, http.MethodGet, u, nil, &p); err != nil {
		return PagesPage{}, err
	}
	out := PagesPage{Page: p.Page, TotalPages: p.TotalPages, Pages: make([]Page, 0, len(p.Results))}
	for _, r := range p.Results {
		var x Page
		if err := json.Unmarshal(r, &x); err != nil {
			return PagesPage{}, err
		}
		x.Raw = r
		out.Pages = append(out.Pages, x)
	}
	return out, nil
}

// Scrape scrapes one page through the API's Firecrawl-compatible scrape
// (POST /v2/scrape, body its request) and returns its document.
func (c *Client) Scrape(ctx context.Context, body []byte) (json.RawMessage, error) {
	var out struct {
		Data json.RawMessage `json:"data"`
	}
	err := c.do(ctx, http.MethodPost, c.url("/v2/scrape"), body, &out)
	return out.Data, err
}

// Search searches the web through the API's Firecrawl-compatible search
// (POST /v2/search, body its request) and returns its results by source
// (web, news, images), with the answer's warning.
func (c *Client) Search(ctx context.Context, body []byte) (map[string][]map[string]any, string, error) {
	var out struct {
		Data    map[string][]map[string]any `json:"data"`
		Warning string                      `json:"warning"`
	}
	err := c.do(ctx, http.MethodPost, c.url("/v2/search"), body, &out)
	return out.Data, out.Warning, err
}

// Map lists a site's URLs through the API's Firecrawl-compatible map
// (POST /v1/map, body its request).
func (c *Client) Map(ctx context.Context, body []byte) ([]string, error) {
	var out struct {
		Links []string `json:"links"`
	}
	err := c.do(ctx, http.MethodPost, c.url("/v1/map"), body, &out)
	return out.Links, err
}

// listPage is one answer of a paginated read.
type listPage struct {
	Results    []json.RawMessage `json:"results"`
	Page       int               `json:"page"`
	TotalPages int               `json:"totalPages"`
	Next       *string           `json:"next"`
}

// walk reads the paginated answers from first on, following next (only
// the first page unless all), and hands each result to each.
func walk(ctx context.Context, c *Client, first string, all bool, each func(json.RawMessage) error) error {
	next := first
	for next != "" {
		var p listPage
		if err := c.do(ctx, http.MethodGet, next, nil, &p); err != nil {
			return err
		}
		for _, r := range p.Results {
			if err := each(r); err != nil {
				return err
			}
		}
		if !all || p.Next == nil {
			return nil
		}
		next = *p.Next
	}
	return nil
}

// Extract starts an extraction through the API's Firecrawl-compatible
// extract (POST /v2/extract, body its request) and returns its ID.
func (c *Client) Extract(ctx context.Context, body []byte) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := c.do(ctx, http.MethodPost, c.url("/v2/extract"), body, &out)
	return out.ID, err
}

// ExtractStatus is an extraction's status (GET /v2/extract/{id}): status,
// data, sources, warning and error as the API answers them.
type ExtractStatus struct {
	Status  string              `json:"status"`
	Data    json.RawMessage     `json:"data"`
	Sources map[string][]string `json:"sources,omitempty"`
	Warning string              `json:"warning,omitempty"`
	Error   string              `json:"error,omitempty"`
}

// ExtractStatusOf reads an extraction's status.
func (c *Client) ExtractStatusOf(ctx context.Context, id string) (ExtractStatus, error) {
	var out ExtractStatus
	err := c.do(ctx, http.MethodGet, c.url("/v2/extract/"+url.PathEscape(id)), nil, &out)
	return out, err
}

// Parse reads a file through the API's parse (POST /v2/parse, the file
// uploaded as multipart with its scrape options) and returns its
// document.
func (c *Client) Parse(ctx context.Context, filename string, data []byte, options []byte) (json.RawMessage, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", filename)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(data); err != nil {
		return nil, err
	}
	if len(options) > 0 {
		if err := w.WriteField("options", string(options)); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	var out struct {
		Data json.RawMessage `json:"data"`
	}
	err = c.doTyped(ctx, http.MethodPost, c.url("/v2/parse"), body.Bytes(), w.FormDataContentType(), &out)
	return out.Data, err
}

func (c *Client) url(path string) string {
	return strings.TrimSuffix(c.BaseURL, "/") + path
}

// do sends a request and decodes the JSON answer into out, or returns the
// API's error as an *Error.
func (c *Client) do(ctx context.Context, method, u string, body []byte, out any) error {
	return c.doTyped(ctx, method, u, body, "application/json", out)
}

// doTyped is do with a body of contentType.
func (c *Client) doTyped(ctx context.Context, method, u string, body []byte, contentType string, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	if resp.StatusCode >= 300 {
		e := &Error{Status: resp.StatusCode}
		var wrapped struct {
			Error *Error `json:"error"`
		}
		wrapped.Error = e
		if json.Unmarshal(raw, &wrapped) != nil || e.Code == "" {
			// Firecrawl's shape, under /v1 and /v2: the message is the
			// error, beside the code and the fields at fault.
			var fc struct {
				Error   string          `json:"error"`
				Code    string          `json:"code"`
				Details json.RawMessage `json:"details"`
			}
			if json.Unmarshal(raw, &fc) == nil && fc.Error != "" {
				e.Code, e.Message = fc.Code, fc.Error
				_ = json.Unmarshal(fc.Details, &e.Details) // the message names the fields too
			}
		}
		if e.Code == "" {
			e.Code, e.Message = "http_error", fmt.Sprintf("%s %s answered %s", method, u, resp.Status)
		}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, u, err)
	}
	return nil
}
