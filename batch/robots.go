package batch

import (
	"context"
	"net/url"
	"sync"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/robots"
)

// RobotsStore keeps the robots.txt files a crawl read.
type RobotsStore interface {
	Robots(ctx context.Context, crawlID uuid.UUID, origins []string) (map[string]db.Robots, error)
	SaveRobots(ctx context.Context, rows []db.Robots) error
}

// maxRobotsBytes is the most of a robots.txt file that is read; larger
// files are cut, as search engines do.
const maxRobotsBytes = 512 << 10

// RobotsReader reads the robots.txt files of a crawl's sites, once a
// crawl: the crawl then applies the recorded file for its whole run. Its
// groups are those of UserAgent.
type RobotsReader struct {
	Store     RobotsStore
	Fetcher   Fetcher
	UserAgent string
}

// Policies returns the robots.txt policy of each origin, fetching and
// recording first the files the crawl has not read yet (requested as the
// crawl's pages are, req).
func (r RobotsReader) Policies(ctx context.Context, crawlID uuid.UUID, req fetch.Batch, origins []string) (map[string]robots.Policy, error) {
	known, err := r.Store.Robots(ctx, crawlID, origins)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, org := range origins {
		if _, ok := known[org]; !ok {
			missing = append(missing, org+"/robots.txt")
		}
	}
	if len(missing) > 0 {
		if err := r.read(ctx, crawlID, req, missing); err != nil {
			return nil, err
		}
		if known, err = r.Store.Robots(ctx, crawlID, origins); err != nil {
			return nil, err
		}
	}
	out := make(map[string]robots.Policy, len(origins))
	for _, org := range origins {
		f := known[org]
		out[org] = robots.Parse(f.StatusCode, []byte(f.Body), r.UserAgent)
	}
	return out, nil
}

// read fetches the robots.txt files at urls and records them, with their
// status (a file that did not come is recorded empty).
func (r RobotsReader) read(ctx context.Context, crawlID uuid.UUID, req fetch.Batch, urls []string) error {
	var mu sync.Mutex
	var rows []db.Robots
	err := r.Fetcher.FetchAll(ctx, urls, req, func(res fetch.Result) {
		u, err := url.Parse(res.URL)
		if err != nil {
			return
		}
		row := db.Robots{CrawlID: crawlID, Origin: frontier.Origin(u), StatusCode: res.StatusCode}
		if res.Err == nil && res.StatusCode >= 200 && res.StatusCode < 300 {
			row.Body = string(res.Body[:min(len(res.Body), maxRobotsBytes)])
		}
		mu.Lock()
		rows = append(rows, row)
		mu.Unlock()
	})
	if err != nil {
		return err
	}
	return r.Store.SaveRobots(ctx, rows)
}
