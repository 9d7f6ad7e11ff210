// Package scope decides which discovered links a crawl follows.
//
// Links are followed on the start URL's host only (a leading "www." is
// ignored, so example.com and www.example.com are one site). Without
// entireWebsite, only paths under the start URL's directory are followed: a
// crawl started at /docs/intro follows /docs/**, one started at / follows
// the whole host.
package scope

import (
	"net/url"
	"strings"
)

// Scope is the set of URLs a crawl may fetch. It is safe for concurrent use.
type Scope struct {
	roots []root
}

type root struct {
	host string // host[:port] without a leading www.
	dir  string // path prefix ending in "/"
}

// New returns the scope of a crawl that starts at startURLs. Each start URL
// adds its host (and, unless entireWebsite, its directory).
func New(startURLs []*url.URL, entireWebsite bool) *Scope {
	s := &Scope{}
	for _, u := range startURLs {
		r := root{host: siteHost(u), dir: "/"}
		if !entireWebsite {
			r.dir = Dir(u.Path)
		}
		s.roots = append(s.roots, r)
	}
	return s
}

// Allows reports whether u is inside the scope.
func (s *Scope) Allows(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	h := siteHost(u)
	p := u.Path
	if p == "" {
		p = "/"
	}
	for _, r := range s.roots {
		if r.host != h {
			continue
		}
		// /docs is the directory /docs/ itself, so it is in scope too.
		if strings.HasPrefix(p, r.dir) || p+"/" == r.dir {
			return true
		}
	}
	return false
}

// SameSite reports whether u is on one of the scope's hosts, whatever its
// path. Links to other sites are external.
func (s *Scope) SameSite(u *url.URL) bool {
	h := siteHost(u)
	for _, r := range s.roots {
		if r.host == h {
			return true
		}
	}
	return false
}

// Dir returns the directory of a URL path: everything up to and including
// its last slash.
func Dir(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "/"
	}
	return p[:i+1]
}

func siteHost(u *url.URL) string {
	return strings.TrimPrefix(strings.ToLower(u.Host), "www.")
}
