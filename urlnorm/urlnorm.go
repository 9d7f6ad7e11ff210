// Package urlnorm turns the many spellings of a URL into one key, so that a
// crawl never fetches the same page twice.
package urlnorm

import (
	"errors"
	"net/url"
	"path"
	"sort"
	"strings"

	"golang.org/x/net/idna"
)

// trackingParams are query parameters that identify a campaign or a click,
// never a page. Parameters starting with utm_ are dropped too.
var trackingParams = map[string]bool{
	"gclid": true, "dclid": true, "fbclid": true, "msclkid": true, "yclid": true,
	"mc_cid": true, "mc_eid": true, "_ga": true, "_gl": true, "igshid": true,
	"ref_src": true,
}

// ErrNotHTTP is returned for URLs that are not http or https.
var ErrNotHTTP = errors.New("not an http or https URL")

// Clean resolves ref against base (base may be nil) and returns the URL the
// crawler should request: absolute, without fragment or tracking parameters,
// with a lower-case scheme and host and no default port.
func Clean(base *url.URL, ref string) (*url.URL, error) {
	return clean(base, ref, false)
}

// CleanRoute is Clean for an address a rendered page links to: it keeps
// a fragment that is a route (Route), which is the page's address on a
// site whose script routes by the fragment ("/#/guide/install"), and
// drops any other.
func CleanRoute(base *url.URL, ref string) (*url.URL, error) {
	return clean(base, ref, true)
}

// Route returns the route a fragment holds: "/guide?id=x" of "/guide?id=x"
// or of "!/guide?id=x" (a "hashbang"), as a client-rendered site whose
// script routes by the fragment writes its addresses; "" for a fragment
// that is an anchor in the page ("install"), or the root route ("/").
func Route(fragment string) string {
	r := strings.TrimPrefix(fragment, "!")
	if !strings.HasPrefix(r, "/") || r == "/" {
		return ""
	}
	return r
}

func clean(base *url.URL, ref string, keepRoute bool) (*url.URL, error) {
	ref = strings.TrimSpace(ref)
	u, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, ErrNotHTTP
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return nil, errors.New("URL has no host")
	}
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		host = ascii
	}
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.User = nil
	if route := Route(u.Fragment); keepRoute && route != "" {
		u.Fragment, u.RawFragment = strings.TrimSuffix(u.Fragment, "/"), ""
	} else {
		u.Fragment, u.RawFragment = "", ""
	}
	if !strings.Contains(strings.ToUpper(u.RawPath), "%2F") {
		// Let EscapedPath re-encode the path, so %7E and ~ are one spelling.
		u.RawPath = ""
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	} else if strings.Contains(u.Path, "/.") {
		clean := path.Clean(u.Path)
		if strings.HasSuffix(u.Path, "/") && clean != "/" {
			clean += "/"
		}
		u.Path, u.RawPath = clean, ""
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if trackingParams[strings.ToLower(k)] || strings.HasPrefix(strings.ToLower(k), "utm_") {
				q.Del(k)
			}
		}
		u.RawQuery = q.Encode() // Encode sorts by key
	}
	u.ForceQuery = false
	return u, nil
}

// Key returns the identity of a cleaned URL: the host without a leading
// "www.", the path without a trailing slash (so /docs and /docs/ are one
// page) and the sorted query. The scheme is left out: a site that answers
// on http and https, or with and without www, serves one page under all of
// these names. A route fragment (Route) is kept after the query: on a site
// that routes by it, it names the page. Two URLs with the same key are the
// same page to the crawler.
func Key(u *url.URL) string {
	p := u.EscapedPath()
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	var b strings.Builder
	b.WriteString("//")
	b.WriteString(strings.TrimPrefix(u.Host, "www."))
	b.WriteString(p)
	if u.RawQuery != "" {
		// Clean already sorted the query; sort again for URLs built elsewhere.
		parts := strings.Split(u.RawQuery, "&")
		sort.Strings(parts)
		b.WriteByte('?')
		b.WriteString(strings.Join(parts, "&"))
	}
	if Route(u.Fragment) != "" {
		b.WriteByte('#')
		b.WriteString(strings.TrimSuffix(u.EscapedFragment(), "/"))
	}
	return b.String()
}

// Normalize cleans raw and returns the URL to fetch and its key.
func Normalize(raw string) (fetch string, key string, err error) {
	u, err := Clean(nil, raw)
	if err != nil {
		return "", "", err
	}
	return u.String(), Key(u), nil
}
