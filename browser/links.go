package browser

import (
	"bytes"
	"net/url"

	"github.com/PuerkitoBio/goquery"
)

// servedLinks returns the absolute targets of the links in a document as
// the server sent it, before its scripts ran.
func servedLinks(body []byte, pageURL string) []string {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := base.Parse(href); err == nil {
			base = b
		}
	}
	var out []string
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		if u, err := base.Parse(href); err == nil {
			out = append(out, u.String())
		}
	})
	return out
}

// unrewritten puts back, in the rendered page's links, the served link a
// script rewrote by changing its query string (a search script adding
// "?search=" to every link): the same page under another query is not a
// page of its own. A link the document as served did not have at all
// (one a script made) stays.
func unrewritten(rendered, served []string) []string {
	if len(served) == 0 {
		return rendered
	}
	had := map[string]bool{}
	byPath := map[string]string{} // the served link of each address without query
	for _, s := range served {
		had[s] = true
		if u, err := url.Parse(s); err == nil {
			if _, dup := byPath[withoutQuery(u)]; !dup {
				byPath[withoutQuery(u)] = s
			}
		}
	}
	out := make([]string, 0, len(rendered))
	for _, r := range rendered {
		if !had[r] {
			if u, err := url.Parse(r); err == nil && u.RawQuery != "" {
				if s, ok := byPath[withoutQuery(u)]; ok {
					r = s
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// withoutQuery is u without its query and fragment.
func withoutQuery(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.ForceQuery = "", "", false
	return c.String()
}

// sameDocument reports whether going from the address a to b stays within
// one document: they differ at most by their fragments, one of which is
// set.
func sameDocument(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil || ua.Fragment == "" && ub.Fragment == "" {
		return false
	}
	ua.Fragment, ua.RawFragment, ub.Fragment, ub.RawFragment = "", "", "", ""
	return ua.String() == ub.String()
}
