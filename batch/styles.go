package batch

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/pagestyle"
)

// Stylesheets are the linked stylesheets a worker's crawls read for their
// pages' structure (markdown.Options.Stylesheet): each fetched once for
// each crawl (through the static fetcher, as the crawl's pages are
// requested: its headers, its egress, the host's politeness budget) and
// kept parsed while the worker remembers it. A site's pages share a few
// sheets, so a crawl of thousands of pages asks for a handful.
type Stylesheets struct {
	// Fetcher fetches the sheets.
	Fetcher Fetcher
	mu      sync.Mutex
	sheets  map[sheetKey]*sheetEntry
	order   []sheetKey // oldest first, for eviction
}

type sheetKey struct {
	crawl uuid.UUID
	url   string
}

type sheetEntry struct {
	done  chan struct{}
	sheet *pagestyle.Sheet // nil: none could be read
}

// maxSheets is the most sheets a worker remembers, over all its crawls;
// sheetTimeout, the longest a sheet is waited for (a sheet that does not
// come in time is none, for the crawl on this worker).
const (
	maxSheets    = 2048
	sheetTimeout = 5 * time.Second
)

// NewStylesheets returns an empty memory of sheets fetched with f.
func NewStylesheets(f Fetcher) *Stylesheets {
	return &Stylesheets{Fetcher: f, sheets: map[sheetKey]*sheetEntry{}}
}

// Sheet returns the sheet at u for crawl id (requested as req says),
// fetching it if no page of the crawl asked for it yet on this worker;
// nil when it cannot be read (not http, not a stylesheet, an error
// answer). Pages asking for a sheet being fetched wait for it.
func (s *Stylesheets) Sheet(ctx context.Context, id uuid.UUID, u *url.URL, req fetch.Batch) *pagestyle.Sheet {
	if s == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	k := sheetKey{crawl: id, url: u.String()}
	s.mu.Lock()
	e, ok := s.sheets[k]
	if !ok {
		e = &sheetEntry{done: make(chan struct{})}
		s.sheets[k] = e
		s.order = append(s.order, k)
		if len(s.order) > maxSheets {
			delete(s.sheets, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.mu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.sheet
		case <-ctx.Done():
			return nil
		}
	}
	defer close(e.done)
	// Pages wait for it in their conversion: a slow site holds them for
	// sheetTimeout at most, once a crawl.
	ctx, cancel := context.WithTimeout(ctx, sheetTimeout)
	defer cancel()
	req.Screenshot, req.WaitFor, req.Validators = "", 0, nil
	req.Admit, req.Skip, req.FollowRedirect = nil, nil, nil // the pages' own bounds and rules
	req.Parallelism = 1
	_ = s.Fetcher.FetchAll(ctx, []string{k.url}, req, func(r fetch.Result) {
		if r.Err == nil && r.StatusCode >= 200 && r.StatusCode < 300 && stylesheetType(r.ContentType) {
			e.sheet = pagestyle.Parse(r.Body)
		}
	})
	return e.sheet
}

// stylesheetType reports whether a response's type may be a stylesheet:
// text/css, or a type servers give files they do not know (an error
// page's text/html is not).
func stylesheetType(ct string) bool {
	ct = strings.ToLower(ct)
	return ct == "" || strings.HasPrefix(ct, "text/css") || strings.HasPrefix(ct, "text/plain") || strings.HasPrefix(ct, "application/octet-stream")
}
