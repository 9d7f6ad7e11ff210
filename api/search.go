package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/search"
	"github.com/durablecrawl/crawler/urlnorm"
)

// SearchBackend asks the operator's search backend (package search).
type SearchBackend interface {
	Search(ctx context.Context, r search.Request) (search.Results, error)
}

// fcSearch handles POST /v2/search (and /v1/search): the query is asked
// of the deployment's search backend and, when scrapeOptions ask for
// formats, the web and news results are scraped as one batch scrape (an
// ordinary durable crawl, its ID the answer's id), each document merged
// into its result. Results not scraped within the timeout are answered
// without their document, with a warning; the batch goes on.
func (s *server) fcSearch(c *fiber.Ctx) error {
	began := time.Now()
	v1 := strings.HasPrefix(c.Path(), "/v1/")
	if len(c.Body()) > maxRequestBytes {
		return fiber.NewError(fiber.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxRequestBytes))
	}
	plan, err := firecrawl.SearchOf(c.Body(), s.Server, began, v1)
	if err != nil {
		return err
	}
	if s.Search == nil {
		return &crawl.Error{Code: crawl.EINVALID, Message: "search needs a search backend, and this deployment has none: its operator sets CRAWLER_SEARXNG_URL to a SearXNG instance with its JSON format on"}
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), plan.Timeout)
	defer cancel()
	results, err := s.Search.Search(ctx, plan.Backend)
	if err != nil {
		if ctx.Err() != nil {
			return &crawl.Error{Code: codeTimeout, Message: fmt.Sprintf("the search backend did not answer within %s", plan.Timeout)}
		}
		if errors.Is(err, search.ErrBackend) {
			return crawl.Errorf(crawl.EUNAVAILABLE, "%v", err)
		}
		return err
	}
	scraped, err := s.scrapeResults(c, plan, results, began)
	if err != nil {
		return err
	}
	warnings := append(plan.Warnings, scraped.warnings...)
	id := scraped.id
	if id == "" {
		id = uuid.NewString()
	}
	count := 0
	data := map[string][]firecrawl.SearchItem{}
	for _, src := range plan.Sources {
		items := []firecrawl.SearchItem{}
		for _, r := range results[src] {
			if plan.DropInvalid && scraped.invalid[r.URL] && src != search.Images {
				continue
			}
			items = append(items, firecrawl.SearchItemOf(src, len(items)+1, r, scraped.docs[r.URL]))
		}
		data[src] = items
		count += len(items)
	}
	out := fiber.Map{"success": true, "id": id, "creditsUsed": count}
	if v1 {
		// v1 answers the web results as one list of documents.
		out["data"] = data[search.Web]
	} else {
		out["data"] = data
	}
	if len(warnings) > 0 {
		out["warning"] = strings.Join(warnings, "; ")
	}
	return c.JSON(out)
}

// scraped is what scrapeResults made of a search's results: each
// scraped result's document by URL, the URLs the service does not
// scrape, the batch's ID and warnings.
type scraped struct {
	docs     map[string]*firecrawl.Document
	invalid  map[string]bool
	id       string
	warnings []string
}

// scrapeResults scrapes the web and news results of a search whose plan
// asks for it, as one batch scrape, waiting for it up to the plan's
// timeout (counted from began).
func (s *server) scrapeResults(c *fiber.Ctx, plan firecrawl.SearchPlan, results search.Results, began time.Time) (scraped, error) {
	out := scraped{docs: map[string]*firecrawl.Document{}, invalid: map[string]bool{}}
	if plan.Scrape == nil {
		return out, nil
	}
	var urls []string
	seen := map[string]bool{}
	for _, src := range []string{search.Web, search.News} {
		for _, r := range results[src] {
			if !seen[r.URL] {
				seen[r.URL] = true
				urls = append(urls, r.URL)
			}
		}
	}
	if len(urls) == 0 {
		return out, nil
	}
	opts, invalid, err := firecrawl.SearchBatch(plan, urls, s.Server)
	for _, u := range invalid {
		out.invalid[u] = true
	}
	if err != nil && len(invalid) == len(urls) {
		out.warnings = append(out.warnings, "no result's address can be scraped here")
		return out, nil
	}
	if err != nil {
		return out, err
	}
	given, err := crawl.Given(bytes.Clone(c.Body())) // the search as asked, kept with its batch
	if err != nil {
		return out, err
	}
	rec, err := s.startCrawl(c, opts, given)
	if err != nil {
		return out, err
	}
	out.id = rec.ID.String()
	if rec, err = s.awaitEnd(c, rec, max(plan.Timeout-time.Since(began), time.Second)); err != nil {
		return out, err
	}
	if !rec.Status.Terminal() {
		out.warnings = append(out.warnings, fmt.Sprintf("not every result was scraped within the timeout; the batch scrape %s goes on (GET /v2/batch/scrape/%s)", rec.ID, rec.ID))
	}
	read, cancel := s.ctx(c)
	defer cancel()
	pages, _, err := s.Store.ListResultsFrom(read, rec.ID, 0, firecrawl.MaxBatchURLs)
	if err != nil {
		return out, err
	}
	byKey := map[string]*firecrawl.Document{}
	for _, p := range pages {
		d := firecrawl.StoredDocument(p, rec, nil, c.BaseURL())
		byKey[p.NormalizedURL] = &d
	}
	for _, u := range urls {
		if _, key, err := urlnorm.Normalize(u); err == nil && byKey[key] != nil {
			out.docs[u] = byKey[key]
		}
	}
	if n := len(urls) - len(invalid) - len(out.docs); n > 0 && rec.Status.Terminal() {
		out.warnings = append(out.warnings, fmt.Sprintf("%d results could not be scraped (GET /v2/batch/scrape/%s/errors)", n, rec.ID))
	}
	return out, nil
}
