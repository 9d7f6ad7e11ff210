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
	// subdomains also allows the subdomains of the start hosts (any
	// path); external allows every host (Firecrawl's allowSubdomains and
	// allowExternalLinks).
	subdomains, external bool
}

// Widen returns s allowing, besides its hosts, their subdomains and/or
// every other host; the path rules of the start hosts stay.
func (s *Scope) Widen(subdomains, external bool) *Scope {
	w := *s
	w.subdomains, w.external = subdomains, external
	return &w
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
	return s.external && !s.startHost(h) || s.subdomains && s.subdomain(h)
}

// Reaches reports whether the crawl may go to u's host at all: one of
// its sites (see SameSite), or any host when it follows external links.
func (s *Scope) Reaches(u *url.URL) bool {
	return s.external || s.SameSite(u)
}

// startHost reports whether h is one of the start hosts, whose path
// rules hold.
func (s *Scope) startHost(h string) bool {
	for _, r := range s.roots {
		if r.host == h {
			return true
		}
	}
	return false
}

// subdomain reports whether h (host[:port]) is a subdomain of a start
// host, on the same port.
func (s *Scope) subdomain(h string) bool {
	name, port := splitPort(h)
	for _, r := range s.roots {
		rootName, rootPort := splitPort(r.host)
		if port == rootPort && strings.HasSuffix(name, "."+rootName) {
			return true
		}
	}
	return false
}

// splitPort splits host[:port] (IPv6 literals in brackets).
func splitPort(h string) (name, port string) {
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		return h[:i], h[i+1:]
	}
	return h, ""
}

// SameSite reports whether u is on one of the scope's hosts (or, with
// subdomains, on one of their subdomains), whatever its path. Links to
// other sites are external.
func (s *Scope) SameSite(u *url.URL) bool {
	h := siteHost(u)
	return s.startHost(h) || s.subdomains && s.subdomain(h)
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
