// Package frontier holds the per-page rules of a crawl: which links it
// follows and in what order, which fetched pages it keeps, what a redirect,
// a rel=canonical link or robots.txt means for a page, when a failed fetch
// is tried again, and what a fetch result makes of a page.
//
// Its functions take and return plain values. What a rule needs from the
// crawl's stored state (is a URL known? who owns a redirect target?) is
// asked by the caller and handed back to the rule, so that every decision
// is tested here without Temporal or Postgres.
package frontier

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/scope"
	"github.com/durablecrawl/crawler/urlnorm"
)

// Rules are a crawl's decisions on URLs: which links are followed, which
// pages are kept, how deep the crawl goes. They are safe for concurrent
// use.
type Rules struct {
	scope *scope.Scope
	paths *scope.Paths
	// depthLimit is the deepest hop followed; -1 means no limit.
	depthLimit int
	// sitemapDepth is the depth of the pages sitemaps list: 1, or 0 for
	// a Firecrawl crawl (whose depth counts them as start pages).
	sitemapDepth int
	// ignoreQuery makes URLs that differ only in their query one page.
	ignoreQuery bool
	// fullURL matches the path rules against the whole URL.
	fullURL bool
	// keepErrorPages keeps pages answered with an error status and a body
	// (crawl.Options.KeepErrorPages).
	keepErrorPages bool
}

// Key is the frontier key of u: its normalized form (see urlnorm.Key),
// without the query when the crawl ignores query parameters.
func (r Rules) Key(u *url.URL) string {
	k := urlnorm.Key(u)
	if r.ignoreQuery {
		k, _, _ = strings.Cut(k, "?")
	}
	return k
}

// RulesOf returns the rules of a crawl's options. It fails only on path
// patterns that do not compile, which request validation refuses first.
func RulesOf(o crawl.Options) (Rules, error) {
	var starts []*url.URL
	for _, s := range o.StartURLs {
		if u, err := urlnorm.Clean(nil, s); err == nil {
			starts = append(starts, u)
		}
	}
	newPaths := scope.NewPaths
	if o.PathRegexes() {
		newPaths = scope.NewPathRegexes
	}
	paths, err := newPaths(o.IncludeOnlyPaths, o.ExcludePaths)
	if err != nil {
		return Rules{}, fmt.Errorf("path rules: %w", err)
	}
	r := Rules{scope: scope.New(starts, o.EntireWebsite).Widen(o.AllowSubdomains, o.AllowExternal), paths: paths, depthLimit: o.DepthLimit(), sitemapDepth: 1,
		ignoreQuery: o.IgnoreQuery, fullURL: o.RegexOnFullURL, keepErrorPages: o.KeepErrorPages}
	if o.Shape == crawl.ShapeFirecrawl {
		r.sitemapDepth = 0 // Firecrawl counts sitemap pages as start pages
	}
	return r, nil
}

// Follows reports whether a link to u is crawled: in scope, and allowed by
// the path rules.
func (r Rules) Follows(u *url.URL) bool {
	return r.scope.Allows(u) && r.paths.Allows(r.pathOf(u))
}

// Keeps reports whether a fetched page at u may become a result. Start
// pages are fetched whatever the path rules say, to discover links.
func (r Rules) Keeps(u *url.URL) bool { return r.paths.Allows(r.pathOf(u)) }

// pathOf is what the path rules are matched against: u's path, or, for a
// crawl that asked for it (Firecrawl's regexOnFullURL), all of u.
func (r Rules) pathOf(u *url.URL) string {
	if r.fullURL {
		return u.String()
	}
	return u.Path
}

// SameSite reports whether u is on a site the crawl started from.
func (r Rules) SameSite(u *url.URL) bool { return r.scope.SameSite(u) }

// Reaches reports whether the crawl may go to u's host: its own sites, or
// any with allowExternalLinks.
func (r Rules) Reaches(u *url.URL) bool { return r.scope.Reaches(u) }

// FollowsLinksOf reports whether the links of a page at depth are
// followed: whether depth+1 is within the crawl's depth limit.
func (r Rules) FollowsLinksOf(depth int) bool {
	return r.depthLimit < 0 || depth+1 <= r.depthLimit
}

// Link is a page of the crawl's frontier: where to fetch it, its
// normalized key (one page per key), its depth in link hops from a start
// page, and its rank among the pages of that depth.
type Link struct {
	URL   string
	Key   string
	Depth int
	Rank  string
}

// maxRankLength bounds ranks (3 characters a level, 64 levels) so that
// they stay small in the frontier index.
const maxRankLength = 3 * 64

// ChildRank returns the rank of the i-th link of a page ranked parent: the
// parent's rank and i in three base-36 digits, so that ranks sort as a
// sequential breadth-first crawl would visit the pages.
func ChildRank(parent string, i int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	if len(parent) >= maxRankLength {
		return parent // very deep pages share their ancestor's rank; ids order them
	}
	i = min(i, 36*36*36-1)
	return parent + string([]byte{digits[i/(36*36)], digits[i/36%36], digits[i%36]})
}

// Seeds returns a crawl's start pages, in the order given. A URL that does
// not normalize is left out (requests with one are refused at creation).
func Seeds(startURLs []string) []Link {
	var seeds []Link
	for _, s := range startURLs {
		fetchURL, key, err := urlnorm.Normalize(s)
		if err != nil {
			continue
		}
		seeds = append(seeds, Link{URL: fetchURL, Key: key, Depth: 0, Rank: ChildRank("", len(seeds))})
	}
	return seeds
}

// SeedsOf is Seeds for a crawl with options o: keyed as its rules key
// links (without the query when it ignores query parameters).
func SeedsOf(o crawl.Options) []Link {
	seeds := Seeds(o.StartURLs)
	if o.IgnoreQuery {
		for i := range seeds {
			seeds[i].Key, _, _ = strings.Cut(seeds[i].Key, "?")
		}
	}
	return seeds
}

// sitemapRank is the rank under which pages listed by sitemaps follow the
// start pages.
const sitemapRank = "000"

// Listed returns the i-th page a sitemap crawl takes from its sitemaps,
// or false when the crawl does not follow loc.
func (r Rules) Listed(loc string, i int) (Link, bool) {
	u, err := urlnorm.Clean(nil, loc)
	if err != nil || len(u.String()) > crawl.MaxURLLength || !r.Follows(u) {
		return Link{}, false
	}
	return Link{URL: u.String(), Key: r.Key(u), Depth: r.sitemapDepth, Rank: ChildRank(sitemapRank, i)}, true
}

// Links returns the links among hrefs (found on the page at page, ranked
// parentRank) that the crawl follows: cleaned, without repeats, at depth,
// ranked after the page in the order they appear.
func (r Rules) Links(page *url.URL, hrefs []string, depth int, parentRank string) []Link {
	return r.links(page, hrefs, depth, parentRank, urlnorm.Clean)
}

// links is Links with the hrefs cleaned by clean (urlnorm.CleanRoute for
// a rendered page's).
func (r Rules) links(page *url.URL, hrefs []string, depth int, parentRank string, clean func(*url.URL, string) (*url.URL, error)) []Link {
	seen := make(map[string]bool, len(hrefs))
	var out []Link
	for _, h := range hrefs {
		if len(h) > crawl.MaxURLLength {
			continue // no real page has such an address; it would not fit the index
		}
		u, err := clean(page, h)
		if err != nil || !r.Follows(u) || len(u.String()) > crawl.MaxURLLength {
			continue
		}
		key := r.Key(u)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Link{URL: u.String(), Key: key, Depth: depth, Rank: ChildRank(parentRank, len(out))})
	}
	return out
}

// Canonical returns a page's rel=canonical URL when it names another page
// the crawl follows: that page and this one are one, and only one of them
// is stored.
func (r Rules) Canonical(page *url.URL, href string) (*url.URL, bool) {
	if href == "" {
		return nil, false
	}
	u, err := urlnorm.Clean(page, href)
	if err != nil || r.Key(u) == r.Key(page) || !r.Follows(u) || len(u.String()) > crawl.MaxURLLength {
		return nil, false
	}
	return u, true
}
