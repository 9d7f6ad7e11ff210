package frontier

import (
	"net/url"
	"time"

	"github.com/durablecrawl/crawler/robots"
)

// Origin returns scheme://host[:port] of u: the site a robots.txt file
// speaks for.
func Origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// Origins returns the origins of urls, each once, in order of first
// appearance. URLs that do not parse are left out.
func Origins(urls []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		if o := Origin(u); !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// ApplyRobots splits urls into those their site's robots.txt policy
// allows and those it disallows, and returns the longest Crawl-delay of
// the allowed ones' sites. A URL that does not parse is allowed: the fetch
// reports its error.
func ApplyRobots(urls []string, policies map[string]robots.Policy) (allowed, disallowed []string, delay time.Duration) {
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil {
			allowed = append(allowed, s)
			continue
		}
		policy := policies[Origin(u)]
		if !policy.Allows(u.RequestURI()) {
			disallowed = append(disallowed, s)
			continue
		}
		allowed = append(allowed, s)
		delay = max(delay, policy.CrawlDelay())
	}
	return allowed, disallowed, delay
}
