// Package robots reads robots.txt files: which paths a crawler may fetch,
// how long it waits between requests, and which sitemaps a site lists.
package robots

import (
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// MaxCrawlDelay caps a site's Crawl-delay: a longer one would stall a
// crawl's batches past any sensible timeout.
const MaxCrawlDelay = 30 * time.Second

// Policy is one site's robots.txt as it applies to one user agent.
type Policy struct {
	data  *robotstxt.RobotsData
	group *robotstxt.Group
	agent string
}

// Parse reads a robots.txt response. A 4xx answer (or none: status 0)
// allows everything; a 5xx answer disallows everything, as the site is
// taken to be unwell; an unreadable file allows everything.
func Parse(status int, body []byte, userAgent string) Policy {
	if status == 0 {
		status = 404
	}
	data, err := robotstxt.FromStatusAndBytes(status, body)
	if err != nil || data == nil {
		data, _ = robotstxt.FromStatusAndBytes(404, nil)
	}
	agent := Token(userAgent)
	return Policy{data: data, group: data.FindGroup(agent), agent: agent}
}

// Token returns the product token of a User-Agent header, the name that
// robots.txt groups are matched against ("durablecrawl" for
// "durablecrawl/0.1 (+https://…)").
func Token(userAgent string) string {
	t, _, _ := strings.Cut(strings.TrimSpace(userAgent), "/")
	t, _, _ = strings.Cut(t, " ")
	return t
}

// Allows reports whether path (with its query) may be fetched.
func (p Policy) Allows(path string) bool {
	if path == "" {
		path = "/"
	}
	return p.data.TestAgent(path, p.agent)
}

// CrawlDelay is the wait between two requests the site asks for, capped
// at MaxCrawlDelay.
func (p Policy) CrawlDelay() time.Duration {
	return min(p.group.CrawlDelay, MaxCrawlDelay)
}

// Sitemaps are the sitemap URLs the file lists.
func (p Policy) Sitemaps() []string { return p.data.Sitemaps }
