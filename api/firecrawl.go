package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/robots"
	"github.com/durablecrawl/crawler/search"
	"github.com/durablecrawl/crawler/urlnorm"
)

// This file serves Firecrawl's HTTP API (see docs/firecrawl.md) on the
// service's engine: a crawl or scrape started here is an ordinary crawl,
// recorded in the same tables, run by the same workflow, visible in GET
// /crawls/{id} and its log. Answers and errors take Firecrawl's shapes.

// firecrawlRoutes adds the /v2 routes and the /v1 subset older clients
// call to authed.
func (s *server) firecrawlRoutes(authed fiber.Router) {
	for _, v := range []string{"/v1", "/v2"} {
		authed.Post(v+"/crawl", s.fcStartCrawl)
		authed.Get(v+"/crawl/active", s.fcActiveCrawls)
		authed.Get(v+"/crawl/:id", s.fcCrawlStatus)
		authed.Delete(v+"/crawl/:id", s.fcCancelCrawl)
		authed.Get(v+"/crawl/:id/errors", s.fcCrawlErrors)
		authed.Post(v+"/scrape", s.fcScrape)
		authed.Post(v+"/map", s.fcMap)
		// A batch scrape is a crawl of its URLs alone: read, cancelled
		// and listed as a crawl is.
		authed.Post(v+"/batch/scrape", s.fcStartBatch)
		authed.Get(v+"/batch/scrape/:id", s.fcCrawlStatus)
		authed.Delete(v+"/batch/scrape/:id", s.fcCancelCrawl)
		authed.Get(v+"/batch/scrape/:id/errors", s.fcCrawlErrors)
		// A search asks the operator's backend, its results scraped as a
		// batch when asked.
		authed.Post(v+"/search", s.fcSearch)
		// A team's usage and quotas (package usage).
		authed.Get(v+"/team/credit-usage", s.fcCreditUsage)
		authed.Get(v+"/team/token-usage", s.fcTokenUsage)
		authed.Get(v+"/team/credit-usage/historical", s.fcUsageHistory(false))
		authed.Get(v+"/team/token-usage/historical", s.fcUsageHistory(true))
		authed.Get(v+"/concurrency-check", s.fcConcurrency)
		authed.Get(v+"/team/queue-status", s.fcQueueStatus)
		// An extraction is a crawl of its URLs (and of its wildcards'
		// parts of their sites), each page read with its prompt and
		// schema; its status combines their answers.
		authed.Post(v+"/extract", s.fcStartExtract)
		authed.Get(v+"/extract/:id", s.fcExtractStatus)
	}
	// v2 alone: an uploaded file read as a page; a crawl's options
	// planned from a sentence, not crawled.
	authed.Post("/v2/parse", s.fcParse)
	authed.Post("/v2/crawl/params-preview", s.fcParamsPreview)
	s.firecrawlMonitorRoutes(authed)
}

// firecrawlPath reports whether a request came through Firecrawl's API,
// whose errors take Firecrawl's shape.
func firecrawlPath(path string) bool {
	return strings.HasPrefix(path, "/v1/") || strings.HasPrefix(path, "/v2/")
}

// fcStartCrawl handles POST /v2/crawl: the crawl is started and answered
// with its ID and the URL to read it at.
//
// A crawl with a prompt is planned first (see plan): the request is
// checked as typed, the model's options join it (what was typed wins),
// each checked as a typed one, and the crawl is started with, and keeps,
// the whole request; a planned option that does not hold is left out and
// named in the answer's warning.
func (s *server) fcStartCrawl(c *fiber.Ctx) error {
	parse := func(body []byte) (crawl.Options, error) { return firecrawl.CrawlOptions(body, s.Server) }
	body := c.Body()
	var warnings []string
	if prompt, top := promptOf(body); prompt != "" && s.Server.LLM && len(body) <= maxRequestBytes {
		if _, err := parse(body); err != nil {
			return err // no model is asked for a request that does not hold
		}
		var startURL string
		_ = json.Unmarshal(top["url"], &startURL) // checked by parse
		planned, err := s.plan(c, strings.TrimSpace(startURL), prompt)
		if err != nil {
			return err
		}
		merged, w, err := checkedPlan(top, planned, func(raw []byte) error { _, err := parse(raw); return err })
		if err != nil {
			return err
		}
		warnings = w
		body, _ = json.Marshal(merged)
	}
	opts, given, err := readBodyOf(body, parse)
	if err != nil {
		return err
	}
	rec, err := s.startCrawl(c, opts, given)
	if err != nil {
		return err
	}
	out := fiber.Map{"success": true, "id": rec.ID.String(), "url": s.fcCrawlURL(c, rec.ID, -1)}
	if len(warnings) > 0 {
		out["warning"] = strings.Join(warnings, "; ")
	}
	return c.JSON(out)
}

// promptOf is a crawl request's prompt ("" when it has none) and its
// fields.
func promptOf(body []byte) (string, map[string]json.RawMessage) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return "", nil
	}
	var prompt string
	if json.Unmarshal(top["prompt"], &prompt) != nil {
		return "", top
	}
	return strings.TrimSpace(prompt), top
}

// fcStartBatch handles POST /v2/batch/scrape: a crawl of the URLs alone,
// answered with its ID, the URL to read it at, and the URLs left out.
func (s *server) fcStartBatch(c *fiber.Ctx) error {
	var invalid []string
	rec, err := s.startFromBody(c, func(body []byte) (o crawl.Options, err error) {
		o, invalid, err = firecrawl.BatchOptionsOf(body, s.Server, strings.HasPrefix(c.Path(), "/v1/"))
		return o, err
	})
	if err != nil {
		return err
	}
	out := fiber.Map{"success": true, "id": rec.ID.String(), "url": s.fcCrawlURL(c, rec.ID, -1)}
	if len(invalid) > 0 {
		out["invalidURLs"] = invalid
	}
	return c.JSON(out)
}

// fcCrawlURL is the absolute URL of a crawl's status, from the skip-th
// document on (skip < 0: the first): under /batch/scrape for a batch's
// requests, /crawl for a crawl's.
func (s *server) fcCrawlURL(c *fiber.Ctx, id uuid.UUID, skip int) string {
	version, rest, _ := strings.Cut(strings.TrimPrefix(c.Path(), "/"), "/")
	kind := "/crawl/"
	if strings.HasPrefix(rest, "batch/") {
		kind = "/batch/scrape/"
	}
	u := c.BaseURL() + "/" + version + kind + id.String()
	if skip > 0 {
		u += "?skip=" + strconv.Itoa(skip)
	}
	return u
}

// fcCrawlStatus handles GET /v2/crawl/{id}: the crawl's state and, from
// ?skip on, up to firecrawl.MaxDocuments of its documents, with next
// while more are stored.
func (s *server) fcCrawlStatus(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	skip := 0
	if q := strings.TrimSpace(c.Query("skip")); q != "" {
		if skip, err = strconv.Atoi(q); err != nil || skip < 0 {
			return &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters",
				Details: []crawl.FieldError{{Field: "skip", Message: "must be a whole number, 0 or more"}}}
		}
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, out, docs, err := s.readStatus(ctx, watchTarget{team: principal(c).TeamID, id: id, base: c.BaseURL()}, skip)
	if err != nil {
		return err
	}
	stored, size := out.Completed, 0
	for _, d := range docs {
		size += d.Size()
		if len(out.Data) > 0 && size > firecrawl.MaxDocumentBytes {
			break
		}
		out.Data = append(out.Data, d)
	}
	// Next is given while more documents are stored than this answer
	// reaches, and, while the crawl runs, at the end of what is stored.
	if end := skip + len(out.Data); end < stored || rec.Status == crawl.StatusRunning && len(out.Data) > 0 {
		next := s.fcCrawlURL(c, rec.ID, end)
		out.Next = &next
	}
	return c.JSON(out)
}

// awaitEnd reads crawl rec until it has ended or timeout has passed, and
// returns it as last read.
func (s *server) awaitEnd(c *fiber.Ctx, rec *crawl.Crawl, timeout time.Duration) (*crawl.Crawl, error) {
	ctx, cancel := context.WithTimeout(c.UserContext(), timeout)
	defer cancel()
	team := principal(c).TeamID
	for !rec.Status.Terminal() {
		select {
		case <-ctx.Done():
			return rec, nil
		case <-time.After(scrapePoll):
		}
		next, err := s.Store.GetCrawl(ctx, team, rec.ID)
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rec = next
	}
	return rec, nil
}

// fcMap handles POST /v2/map: a crawl of the whole host that fetches up
// to firecrawl.MapFetchPages pages for their links (and reads the
// sitemaps unless asked not to), answered with the URLs it found when it
// ends or the map's timeout passes. v1 answers the URLs as strings.
func (s *server) fcMap(c *fiber.Ctx) error {
	var q firecrawl.MapQuery
	rec, err := s.startFromBody(c, func(body []byte) (o crawl.Options, err error) {
		o, q, err = firecrawl.MapOptionsOf(body, s.Server)
		return o, err
	})
	if err != nil {
		return err
	}
	// The crawl ends at the map's timeout; a little more lets it say so.
	if rec, err = s.awaitEnd(c, rec, q.Timeout+5*time.Second); err != nil {
		return err
	}
	read, cancel := s.ctx(c)
	defer cancel()
	// Room for the URLs robots.txt disallows, left out below.
	urls, err := s.Store.MapURLs(read, rec.ID, min(2*q.Limit, q.Limit+1000), q.Search, q.IgnoreQuery)
	if err != nil {
		return err
	}
	if urls, err = s.robotsAllowed(read, rec.ID, urls); err != nil {
		return err
	}
	urls = urls[:min(len(urls), q.Limit)]
	if strings.HasPrefix(c.Path(), "/v1/") {
		return c.JSON(fiber.Map{"success": true, "links": urls})
	}
	links := make([]fiber.Map, len(urls))
	for i, u := range urls {
		links[i] = fiber.Map{"url": u}
	}
	return c.JSON(fiber.Map{"success": true, "id": rec.ID.String(), "links": links})
}

// robotsAllowed leaves out of urls those the robots.txt files the crawl
// read disallow (a URL of an origin whose file it did not read stays).
func (s *server) robotsAllowed(ctx context.Context, crawlID uuid.UUID, urls []string) ([]string, error) {
	if !s.ObeyRobots || len(urls) == 0 {
		return urls, nil
	}
	files, err := s.Store.Robots(ctx, crawlID, frontier.Origins(urls))
	if err != nil {
		return nil, err
	}
	policies := make(map[string]robots.Policy, len(files))
	for origin, f := range files {
		policies[origin] = robots.Parse(f.StatusCode, []byte(f.Body), s.UserAgent)
	}
	out := urls[:0:0]
	for _, u := range urls {
		parsed, err := url.Parse(u)
		if err != nil {
			continue
		}
		if p, ok := policies[frontier.Origin(parsed)]; ok && !p.Allows(parsed.RequestURI()) {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// fcCancelCrawl handles DELETE /v2/crawl/{id}: the crawl is aborted as
// POST /crawls/{id}/abort aborts it.
func (s *server) fcCancelCrawl(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.abort(ctx, c, id)
	if err != nil {
		return err
	}
	status := "cancelled"
	if rec.Status.Terminal() && rec.Status != crawl.StatusAborted {
		status = firecrawl.StatusOf(rec.Status)
	}
	return c.JSON(fiber.Map{"success": true, "status": status})
}

// maxErrors bounds the pages GET /v2/crawl/{id}/errors lists.
const maxErrors = 1000

// fcCrawlErrors handles GET /v2/crawl/{id}/errors: the pages that failed,
// and those robots.txt kept the crawl from.
func (s *server) fcCrawlErrors(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.Store.GetCrawl(ctx, principal(c).TeamID, id)
	if err != nil {
		return err
	}
	pages, err := s.Store.ListPageErrors(ctx, rec.ID, maxErrors)
	if err != nil {
		return err
	}
	type pageError struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp,omitempty"`
		URL       string `json:"url"`
		Error     string `json:"error"`
	}
	errs, blocked := []pageError{}, []string{}
	for _, p := range pages {
		msg := str(p.Error)
		if p.State == crawl.PageSkipped && robotsBlocked(p) {
			blocked = append(blocked, p.URL)
			continue
		}
		if p.State != crawl.PageFailed {
			continue
		}
		e := pageError{ID: strconv.FormatInt(p.ID, 10), URL: p.URL, Error: msg}
		if p.FetchedAt != nil {
			e.Timestamp = p.FetchedAt.UTC().Format(time.RFC3339Nano)
		}
		errs = append(errs, e)
	}
	return c.JSON(fiber.Map{"errors": errs, "robotsBlocked": blocked})
}

// robotsBlocked reports whether robots.txt kept a skipped page from being
// fetched: its cause says so (it disallows the page, or the address a
// redirect led to). A page saved before causes were kept has only its
// words, which say "robots.txt" for these causes alone.
func robotsBlocked(p crawl.Page) bool {
	if p.Cause == nil {
		return strings.Contains(str(p.Error), "robots.txt")
	}
	switch crawl.PageCauseKind(*p.Cause) {
	case crawl.PageRobotsDisallowed, crawl.PageRedirectRobots:
		return true
	}
	return false
}

// fcActiveCrawls handles GET /v2/crawl/active: the team's running crawls.
func (s *server) fcActiveCrawls(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	team := principal(c).TeamID
	type active struct {
		ID      string         `json:"id"`
		TeamID  string         `json:"teamId"`
		URL     string         `json:"url"`
		Options map[string]any `json:"options"`
	}
	out := []active{}
	for page := 1; ; page++ {
		rows, total, err := s.Store.ListCrawls(ctx, team, crawl.StatusRunning, page, maxCrawlsLimit)
		if err != nil {
			return err
		}
		for _, r := range rows {
			out = append(out, active{ID: r.ID.String(), TeamID: team.String(), URL: r.StartURLs[0],
				Options: map[string]any{"limit": r.MaxResults, "crawlEntireDomain": r.EntireWebsite}})
		}
		if page*maxCrawlsLimit >= total || len(rows) == 0 {
			break
		}
	}
	return c.JSON(fiber.Map{"success": true, "crawls": out})
}

// scrapePoll is how often a scrape looks whether its crawl has ended.
const scrapePoll = 100 * time.Millisecond

// fcScrape handles POST /v2/scrape: answered from the team's page cache
// when the request allows a copy of that age (maxAge) and one is there,
// else as a one-page crawl of the engine, with the page's document when
// it ends, or a 408 past the scrape's timeout (the crawl is kept, and runs
// on to its end).
func (s *server) fcScrape(c *fiber.Ctx) error {
	var q firecrawl.ScrapeQuery
	opts, given, err := readBody(c, func(body []byte) (o crawl.Options, err error) {
		o, q, err = firecrawl.ScrapeOptionsOf(body, s.Server)
		return o, err
	})
	if err != nil {
		return err
	}
	if q.MaxAge > 0 {
		if answered, err := s.fcScrapeFromCache(c, opts, q); answered || err != nil {
			return err
		}
	}
	rec, err := s.startCrawl(c, opts, given)
	if err != nil {
		return err
	}
	if rec, err = s.awaitEnd(c, rec, q.Timeout); err != nil {
		return err
	}
	if !rec.Status.Terminal() {
		return &crawl.Error{Code: codeTimeout, Message: fmt.Sprintf(
			"the scrape did not end within %s; its crawl %s goes on, and GET /crawls/%s reads it", q.Timeout, rec.ID, rec.ID)}
	}
	read, cancelRead := s.ctx(c)
	defer cancelRead()
	pages, _, err := s.Store.ListResultsFrom(read, rec.ID, 0, 1)
	if err != nil {
		return err
	}
	if len(pages) == 0 {
		failed, err := s.Store.ListPageErrors(read, rec.ID, 1)
		if err != nil {
			return err
		}
		msg := rec.ErrorMessage
		if len(failed) > 0 && failed[0].Error != nil {
			msg = *failed[0].Error
			if failed[0].Cause != nil && *failed[0].Cause == string(crawl.PageActionFailed) {
				return &crawl.Error{Code: codeActionFailed, Message: fmt.Sprintf("Action(s) failed to complete: %s (crawl %s)", msg, rec.ID)}
			}
		}
		if msg == "" {
			msg = "the page could not be scraped"
		}
		return &crawl.Error{Code: codeScrapeFailed, Message: fmt.Sprintf("%s (crawl %s)", msg, rec.ID)}
	}
	prev, err := s.previousOf(read, rec, pages)
	if err != nil {
		return err
	}
	doc := firecrawl.StoredDocument(pages[0], rec, prev, c.BaseURL())
	doc.Metadata["cacheState"] = "miss"
	return c.JSON(fiber.Map{"success": true, "data": doc})
}

// fcScrapeFromCache answers a scrape with the team's newest stored copy
// of its page read the way opts reads it (crawl.Options.CacheKey), no
// older than q.MaxAge and no younger than q.MinAge, and reports whether
// it did. With a minAge and no such copy, the scrape is a 404: it asks
// for a cached copy alone.
func (s *server) fcScrapeFromCache(c *fiber.Ctx, opts crawl.Options, q firecrawl.ScrapeQuery) (bool, error) {
	// storeInCache false keeps this scrape's page out of the cache, but
	// it may still be answered from it.
	lookup := opts
	lookup.KeepOutOfCache = false
	key := lookup.CacheKey()
	if key == "" || len(opts.StartURLs) != 1 {
		return false, nil
	}
	_, normalized, err := urlnorm.Normalize(opts.StartURLs[0])
	if err != nil {
		return false, nil // the crawl's start refuses it, naming the field
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	now := time.Now()
	page, rec, err := s.Store.CachedPage(ctx, principal(c).TeamID, key, normalized, now.Add(-q.MaxAge), now.Add(-q.MinAge))
	if err != nil {
		return false, err
	}
	if page == nil {
		if q.MinAge > 0 {
			return false, &crawl.Error{Code: crawl.ENOTFOUND, Message: fmt.Sprintf(
				"no cached copy of the page at least %s old (minAge) is stored; scrape it without minAge", q.MinAge)}
		}
		return false, nil
	}
	doc := firecrawl.StoredDocument(*page, rec, nil, c.BaseURL())
	doc.Metadata["cacheState"] = "hit"
	if page.StoredAt != nil {
		doc.Metadata["cachedAt"] = page.StoredAt.UTC().Format(time.RFC3339Nano)
	}
	return true, c.JSON(fiber.Map{"success": true, "data": doc})
}

// fcStartExtract handles POST /v2/extract: a crawl of the URLs alone whose
// pages are read with the request's prompt and schema, answered with its
// ID (GET /v2/extract/{id} reads it).
//
// With enableWebSearch, the prompt is searched for through the search
// backend first, and the web results' pages are read as listed URLs.
func (s *server) fcStartExtract(c *fiber.Ctx) error {
	var found []string
	if q := firecrawl.ExtractWebSearch(c.Body()); q != "" {
		if s.Search == nil {
			return &crawl.Error{Code: crawl.EINVALID, Message: "invalid extract request", Details: []crawl.FieldError{{Field: "enableWebSearch",
				Message: "needs a search backend, and this deployment has none: its operator sets CRAWLER_SEARXNG_URL"}}}
		}
		ctx, cancel := s.ctx(c)
		results, err := s.Search.Search(ctx, search.Request{Query: q, Limit: extractSearchResults})
		cancel()
		if err != nil {
			return crawl.Errorf(crawl.EUNAVAILABLE, "the web search of the extraction failed: %v", err)
		}
		for _, r := range results[search.Web] {
			found = append(found, r.URL)
		}
	}
	var invalid []string
	rec, err := s.startFromBody(c, func(body []byte) (o crawl.Options, err error) {
		o, invalid, err = firecrawl.ExtractOptionsOf(body, s.Server, found...)
		return o, err
	})
	if err != nil {
		return err
	}
	out := fiber.Map{"success": true, "id": rec.ID.String(), "urlTrace": []string{}}
	if len(invalid) > 0 {
		out["invalidURLs"] = invalid
	}
	return c.JSON(out)
}

// extractSearchResults is how many web results an extraction with
// enableWebSearch reads.
const extractSearchResults = 5

// fcExtractStatus handles GET /v2/extract/{id}: processing while the
// extraction's crawl runs, then its pages' answers combined
// (firecrawl.ExtractionOf, in the order of its URLs, then the order its
// wildcards' pages were stored in), or failed when no page gave one;
// with showSources, the pages each field of the answer came from.
func (s *server) fcExtractStatus(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.Store.GetCrawl(ctx, principal(c).TeamID, id)
	if err != nil {
		return err
	}
	out := fiber.Map{"success": true, "status": firecrawl.ExtractStatusOf(rec.Status), "expiresAt": firecrawl.ExpiresAt(rec.CreatedAt)}
	if rec.Status != crawl.StatusSucceeded {
		if rec.Status.Terminal() && rec.ErrorMessage != "" {
			out["error"] = rec.ErrorMessage
		}
		return c.JSON(out)
	}
	pages, _, err := s.Store.ListResultsFrom(ctx, rec.ID, 0, firecrawl.MaxBatchURLs)
	if err != nil {
		return err
	}
	byKey := map[string]crawl.Page{}
	for _, p := range pages {
		byKey[p.NormalizedURL] = p
	}
	var answers []json.RawMessage
	var from []string
	var missing []string
	used := map[int64]bool{}
	for _, u := range rec.StartURLs {
		_, key, _ := urlnorm.Normalize(u)
		p, ok := byKey[key]
		if !ok || len(p.Extraction) == 0 {
			if rec.MaxDepth == 0 { // a start page of a wildcard is not one of its pages
				missing = append(missing, u)
			}
			continue
		}
		used[p.ID] = true
		answers, from = append(answers, p.Extraction), append(from, p.URL)
	}
	// A wildcard's pages, in the order they were stored.
	for _, p := range pages {
		if !used[p.ID] && len(p.Extraction) > 0 && string(p.Extraction) != "null" {
			answers, from = append(answers, p.Extraction), append(from, p.URL)
		}
	}
	if len(answers) == 0 {
		out["status"], out["error"] = "failed", "no page gave an answer: "+strings.Join(missing, ", ")
		return c.JSON(out)
	}
	out["data"] = firecrawl.ExtractionOf(answers)
	if firecrawl.ExtractShowsSources(rec.Request) {
		out["sources"] = firecrawl.SourcesOf(answers, from)
	}
	if len(missing) > 0 {
		out["warning"] = fmt.Sprintf("%d of %d pages gave no answer (see GET /crawls/%s and its log): %s",
			len(missing), len(rec.StartURLs), rec.ID, strings.Join(missing, ", "))
	}
	return c.JSON(out)
}
