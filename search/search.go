// Package search asks the operator's search backend for web pages, news
// and images: SearXNG's JSON API (GET /search?format=json), as
// self-hosted Firecrawl does. It never scrapes a search engine's pages
// itself. What a caller does with the results (Firecrawl's /v2/search,
// an extraction's web search) is the caller's.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The sources a search may ask for.
const (
	Web    = "web"
	News   = "news"
	Images = "images"
)

// Request is one search.
type Request struct {
	Query string
	// Sources are Web, News and Images, in the order answered (none: Web).
	Sources []string
	// Limit bounds the results of each source.
	Limit int
	// Since and Until bound the results' publication dates, as a time
	// range (TimeRange, SearXNG's day, week, month or year, narrows what
	// the backend is asked for; Since and Until filter what it answers:
	// a result without a date is kept only when both are zero).
	TimeRange    string
	Since, Until time.Time
	// Language ("en", "de-CH") is the results' language and region.
	Language string
	// SafeSearch asks the backend to leave adult results out.
	SafeSearch bool
	// IncludeDomains keeps only results on these hosts (or their
	// subdomains); ExcludeDomains leaves them out.
	IncludeDomains, ExcludeDomains []string
}

// Result is one search result; which fields are set depends on its
// source.
type Result struct {
	URL         string
	Title       string
	Description string
	// Published is when the page was published, when the backend says.
	Published time.Time
	// ImageURL, ImageWidth and ImageHeight describe an image result (or a
	// news result's picture).
	ImageURL                string
	ImageWidth, ImageHeight int
}

// Results are a search's results by source.
type Results map[string][]Result

// Client asks a SearXNG instance.
type Client struct {
	base *url.URL
	http *http.Client
	// maxPages bounds the result pages asked for one source.
	maxPages int
}

// ErrBackend wraps what went wrong with the backend (unreachable, an
// error status, an answer that is not SearXNG's JSON).
var ErrBackend = errors.New("the search backend failed")

// New returns a client of the SearXNG instance at baseURL
// (http://searxng:8080); its JSON format must be enabled (search.formats
// in its settings).
func New(baseURL string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL of a SearXNG instance", baseURL)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: u, http: hc, maxPages: 5}, nil
}

// categories are SearXNG's categories of each source.
var categories = map[string]string{Web: "general", News: "news", Images: "images"}

// Search asks the backend for each source of r, page after page until
// r.Limit results are found or a page adds none, and answers them, each
// URL once per source, filtered by r's domains and dates.
func (c *Client) Search(ctx context.Context, r Request) (Results, error) {
	sources := r.Sources
	if len(sources) == 0 {
		sources = []string{Web}
	}
	limit := r.Limit
	if limit <= 0 {
		limit = 10
	}
	out := Results{}
	for _, src := range sources {
		cat, ok := categories[src]
		if !ok {
			return nil, fmt.Errorf("%q is not a search source", src)
		}
		seen := map[string]bool{}
		list := []Result{}
		for page := 1; page <= c.maxPages && len(list) < limit; page++ {
			hits, err := c.page(ctx, r, cat, page)
			if err != nil {
				if page > 1 && len(list) > 0 {
					break // what the first pages gave stands
				}
				return nil, err
			}
			added := 0
			for _, h := range hits {
				if len(list) >= limit || h.URL == "" || seen[h.URL] || !r.keeps(h) {
					continue
				}
				seen[h.URL] = true
				list = append(list, h)
				added++
			}
			if len(hits) == 0 || added == 0 && len(list) > 0 {
				break
			}
		}
		out[src] = list
	}
	return out, nil
}

// query is the text sent to the backend: the request's, with its domains
// as site: operators, which the engines that know them honour (the
// results are filtered by domain here as well).
func (r Request) query() string {
	q := strings.TrimSpace(r.Query)
	if len(r.IncludeDomains) == 1 {
		q += " site:" + r.IncludeDomains[0]
	}
	for _, d := range r.ExcludeDomains {
		q += " -site:" + d
	}
	return q
}

// keeps reports whether h passes r's domain and date filters.
func (r Request) keeps(h Result) bool {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := strings.ToLower(u.Hostname())
	on := func(d string) bool {
		d = strings.ToLower(d)
		return host == d || strings.HasSuffix(host, "."+d)
	}
	if len(r.IncludeDomains) > 0 {
		found := false
		for _, d := range r.IncludeDomains {
			found = found || on(d)
		}
		if !found {
			return false
		}
	}
	for _, d := range r.ExcludeDomains {
		if on(d) {
			return false
		}
	}
	if r.Since.IsZero() && r.Until.IsZero() {
		return true
	}
	if h.Published.IsZero() {
		return false
	}
	return (r.Since.IsZero() || !h.Published.Before(r.Since)) && (r.Until.IsZero() || !h.Published.After(r.Until))
}

// answer is SearXNG's JSON answer, as far as it is read.
type answer struct {
	Results []struct {
		URL           string `json:"url"`
		Title         string `json:"title"`
		Content       string `json:"content"`
		PublishedDate string `json:"publishedDate"`
		ImgSrc        string `json:"img_src"`
		ThumbnailSrc  string `json:"thumbnail_src"`
		Thumbnail     string `json:"thumbnail"`
		Resolution    string `json:"resolution"`
	} `json:"results"`
}

// maxAnswerBytes bounds one answer of the backend.
const maxAnswerBytes = 8 << 20

// page asks the backend for one page of one category.
func (c *Client) page(ctx context.Context, r Request, category string, page int) ([]Result, error) {
	q := url.Values{"q": {r.query()}, "format": {"json"}, "categories": {category}, "pageno": {strconv.Itoa(page)}}
	if r.Language != "" {
		q.Set("language", r.Language)
	}
	if r.TimeRange != "" {
		q.Set("time_range", r.TimeRange)
	}
	if r.SafeSearch {
		q.Set("safesearch", "1")
	}
	u := *c.base
	u.Path += "/search"
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBackend, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: reading its answer: %v", ErrBackend, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: it answered %s (is its JSON format enabled?)", ErrBackend, resp.Status)
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("%w: its answer is not SearXNG's JSON: %v", ErrBackend, err)
	}
	out := make([]Result, 0, len(a.Results))
	for _, h := range a.Results {
		res := Result{URL: h.URL, Title: strings.TrimSpace(h.Title), Description: strings.TrimSpace(h.Content),
			ImageURL: h.ImgSrc, Published: parseDate(h.PublishedDate)}
		if res.ImageURL == "" {
			res.ImageURL = firstOf(h.ThumbnailSrc, h.Thumbnail)
		}
		if w, hgt, ok := strings.Cut(strings.ReplaceAll(h.Resolution, " ", ""), "x"); ok {
			res.ImageWidth, _ = strconv.Atoi(w)
			res.ImageHeight, _ = strconv.Atoi(hgt)
		}
		out = append(out, res)
	}
	return out, nil
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// parseDate reads a result's publication date in the forms SearXNG
// answers it (ISO 8601, with or without a zone); zero when it has none.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
