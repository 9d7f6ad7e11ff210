package browser

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// notFound tells a page that does not exist from one that does, on a site
// whose server answers every address with the same shell and whose
// script draws the page (a client-rendered site): such a server answers
// 200 for an address nothing is at, and the script draws a "not found"
// page. Two signs must agree: the page's scripts asked for something and
// got 404 or 410 (missing, the addresses they asked for), and the page's
// heading (the first of its article, else of its main part, else of the
// page: a site's name heads its side bar) or its title then says, as all
// it says, that the page is not found. Either alone is no proof: scripts fetch optional things that
// may be missing, and a page may be about 404 errors. notFound returns
// the missing address that names the page (its last path segment), or
// the first, when both agree; "" otherwise.
func notFound(pageURL string, missing []string, heading, title string) string {
	if len(missing) == 0 || !saysNotFound(heading) && !saysNotFound(title) {
		return ""
	}
	if u, err := url.Parse(pageURL); err == nil {
		if name := path.Base(strings.TrimSuffix(u.Path, "/")); name != "/" && name != "." {
			for _, m := range missing {
				if mu, err := url.Parse(m); err == nil && strings.Contains(mu.Path, name) {
					return m
				}
			}
		}
	}
	return missing[0]
}

// notFoundWords match a heading or title that says a page is not found:
// the number or the words open it, or the words close it ("Oops! Page not
// found"), so that a page about 404 errors does not.
var notFoundWords = regexp.MustCompile(`(?i)^(error )?404\b|^(error )?(404 )?(page )?not found\b|\bnot found$|\bno such page\b|\bpage (does not|doesn't) exist\b|\bpage (could not|cannot|can't) be found\b`)

// saysNotFound reports whether a heading or title says the page is not
// found; a title's site name after a separator (" · Docs", " | Site")
// is left out.
func saysNotFound(s string) bool {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "|·–—"); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.Trim(s, " !.:-–—")
	return s != "" && notFoundWords.MatchString(s)
}
