// Package urlpattern names what tells apart two addresses of one page: a
// query parameter that changes nothing of what the page shows (the
// heading a client-rendered manual scrolls to, ?id=install; a sort
// order; a tracking tag), or a path suffix (a print view, /print). A crawl
// that keeps finding pages it already has under one such pattern stops
// fetching addresses of that pattern (see db.NoteDuplicates).
package urlpattern

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/durablecrawl/crawler/urlnorm"
)

// Pattern is a query parameter ("query:id") or a path suffix
// ("suffix:/print").
type Pattern string

const (
	queryPrefix  = "query:"
	suffixPrefix = "suffix:"
)

// Of returns the pattern that tells dup, an address whose page repeats
// the page at orig, from orig: the one query parameter dup has that orig
// lacks or has with another value (or the other way round), or the view
// segment dup's path adds to orig's (viewSuffixes). There is none when the
// two differ otherwise (another host, other paths, several parameters).
func Of(dup, orig string) (Pattern, bool) {
	d, err := url.Parse(dup)
	if err != nil {
		return "", false
	}
	o, err := url.Parse(orig)
	if err != nil || d.Host != o.Host || d.Scheme != o.Scheme {
		return "", false
	}
	dPath, dq := routed(d)
	oPath, oq := routed(o)
	if dPath == oPath {
		var differ []string
		for k, v := range dq {
			if !slices.Equal(v, oq[k]) {
				differ = append(differ, k)
			}
		}
		for k := range oq {
			if _, ok := dq[k]; !ok {
				differ = append(differ, k)
			}
		}
		if len(differ) != 1 || differ[0] == "" {
			return "", false
		}
		return Pattern(queryPrefix + differ[0]), true
	}
	base := strings.TrimSuffix(oPath, "/")
	suffix, ok := strings.CutPrefix(dPath, base)
	if !ok || dq.Encode() != oq.Encode() || !viewSuffixes[strings.TrimSuffix(suffix, "/")] {
		return "", false
	}
	return Pattern(suffixPrefix + strings.TrimSuffix(suffix, "/")), true
}

// viewSuffixes are the path segments that show a page again rather than
// name a page of their own: a print view, an AMP view, the folder's index
// file. Any other segment below a page is a page of its own, whatever it
// says (a catch-all server may answer the same for all).
var viewSuffixes = map[string]bool{
	"/print": true, "/printable": true, "/print.html": true, "/amp": true, "/amp.html": true,
	"/index.html": true, "/index.htm": true, "/index.php": true,
}

// routed returns the path and the query of u, those of its route fragment
// ("/#/guide?id=x": "/#/guide" and id=x) added: on a site whose script
// routes by the fragment, the route is the page's path and its query.
func routed(u *url.URL) (string, url.Values) {
	q := u.Query()
	route := urlnorm.Route(u.Fragment)
	if route == "" {
		return u.Path, q
	}
	routePath, routeQuery, _ := strings.Cut(route, "?")
	rq, _ := url.ParseQuery(routeQuery)
	for k, v := range rq {
		q[k] = append(q[k], v...)
	}
	if strings.Trim(routePath, "/") == "" {
		return u.Path, q // the root route: the page itself
	}
	return strings.TrimSuffix(u.Path, "/") + "/#" + routePath, q
}

// Matches reports whether u is an address of the pattern.
func (p Pattern) Matches(u *url.URL) bool {
	path, q := routed(u)
	if name, ok := strings.CutPrefix(string(p), queryPrefix); ok {
		_, has := q[name]
		return has
	}
	if suffix, ok := strings.CutPrefix(string(p), suffixPrefix); ok {
		return strings.HasSuffix(path, suffix)
	}
	return false
}

// MatchesURL is Matches for an address as text; one that does not parse
// matches nothing.
func (p Pattern) MatchesURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && p.Matches(u)
}

// Regexp is a POSIX regular expression (as Postgres reads them) that
// matches the addresses of the pattern, written as the crawl stores them.
func (p Pattern) Regexp() string {
	if name, ok := strings.CutPrefix(string(p), queryPrefix); ok {
		return `\?([^#]*&)?` + regexp.QuoteMeta(url.QueryEscape(name)) + `(=|&|#|$)`
	}
	if suffix, ok := strings.CutPrefix(string(p), suffixPrefix); ok {
		return `^[^?#]*(#!?/[^?]*)?` + regexp.QuoteMeta(suffix) + `([?#]|$)`
	}
	return `$^`
}

// String words the pattern: `the query parameter "id"`, `the path
// suffix "/print"`.
func (p Pattern) String() string {
	if name, ok := strings.CutPrefix(string(p), queryPrefix); ok {
		return `the query parameter "` + name + `"`
	}
	if suffix, ok := strings.CutPrefix(string(p), suffixPrefix); ok {
		return `the path suffix "` + suffix + `"`
	}
	return string(p)
}

// SamePage reports whether a and b may be addresses of one page: they
// have one PageKey.
func SamePage(a, b string) bool {
	ka, kb := PageKey(a), PageKey(b)
	return ka != "" && ka == kb
}

// PageKey names the page an address may show: its scheme, host and path,
// without a trailing slash or a view segment (viewSuffixes), and without
// its query. Addresses of one page share it (another query, a print
// view, the folder's index file); two pages of a site that say the same
// at unrelated addresses have two. "" for an address that does not parse.
func PageKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	path, _ := routed(u)
	p := strings.TrimSuffix(path, "/")
	for suffix := range viewSuffixes {
		if strings.HasSuffix(p, suffix) {
			p = strings.TrimSuffix(strings.TrimSuffix(p, suffix), "/")
			break
		}
	}
	return u.Scheme + "://" + u.Host + p
}

// Cleaner reports whether a is the cleaner of two addresses of one page:
// the one with fewer query parameters, or, with as many, the shorter path
// (without the view segment). A reader links to the cleaner.
func Cleaner(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return true
	}
	pa, qa := routed(ua)
	pb, qb := routed(ub)
	if len(qa) != len(qb) {
		return len(qa) < len(qb)
	}
	return len(pa) < len(pb)
}
