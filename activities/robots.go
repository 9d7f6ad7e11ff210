package activities

import (
	"context"
	"net/url"
	"sync"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/robots"
)

// maxRobotsBytes is the most of a robots.txt file that is read; larger
// files are cut, as search engines do.
const maxRobotsBytes = 512 << 10

// origin returns scheme://host[:port] of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// sitePolicies returns the robots.txt policy of each origin. Files the
// crawl has not read yet are fetched and recorded first; the crawl then
// applies the recorded file for its whole run.
func (a *Activities) sitePolicies(ctx context.Context, c *db.Crawl, o crawl.Options, origins []string) (map[string]robots.Policy, error) {
	known, err := a.Store.Robots(ctx, c.ID, origins)
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
		var mu sync.Mutex
		var rows []db.Robots
		err := a.Static.FetchAll(ctx, missing, a.batch(o), func(r fetch.Result) {
			u, err := url.Parse(r.URL)
			if err != nil {
				return
			}
			row := db.Robots{CrawlID: c.ID, Origin: origin(u), StatusCode: r.StatusCode}
			if r.Err == nil && r.StatusCode >= 200 && r.StatusCode < 300 {
				row.Body = string(r.Body[:min(len(r.Body), maxRobotsBytes)])
			}
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
		if err != nil {
			return nil, err
		}
		if err := a.Store.SaveRobots(ctx, rows); err != nil {
			return nil, err
		}
		if known, err = a.Store.Robots(ctx, c.ID, origins); err != nil {
			return nil, err
		}
	}
	out := make(map[string]robots.Policy, len(origins))
	for _, org := range origins {
		r := known[org]
		out[org] = robots.Parse(r.StatusCode, []byte(r.Body), a.Settings.UserAgent)
	}
	return out, nil
}
