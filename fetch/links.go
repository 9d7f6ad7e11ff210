package fetch

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageLinks returns the targets of an HTML document's <a href> elements in
// document order, and its first rel=canonical link, made absolute against
// the document's <base href> (the first one) or else its own URL. It reads
// the document as a stream of tags, without building its tree: the
// crawler needs only these attributes, and a tree costs more than the
// fetch. Fragment-only links (#top) point into the page itself and are
// left out.
func pageLinks(body []byte, page *url.URL) (links []string, canonical string) {
	var hrefs []string
	var base, canon string
	haveBase := false
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch atom.Lookup(name) {
		case atom.A:
			if href, ok := attr(z, "href", ""); ok {
				hrefs = append(hrefs, href)
			}
		case atom.Link:
			if canon != "" {
				continue
			}
			if href, ok := attr(z, "href", "rel"); ok && href != "" {
				canon = href
			}
		case atom.Base:
			if !haveBase {
				base, haveBase = attr(z, "href", "")
			}
		}
	}
	resolveFrom := page
	if haveBase {
		if b, err := page.Parse(strings.TrimSpace(base)); err == nil {
			resolveFrom = b
		}
	}
	for _, h := range hrefs {
		h = strings.TrimSpace(h)
		if h == "" || strings.HasPrefix(h, "#") {
			continue
		}
		if u, err := resolveFrom.Parse(h); err == nil {
			links = append(links, u.String())
		}
	}
	if canon != "" {
		if u, err := resolveFrom.Parse(strings.TrimSpace(canon)); err == nil {
			canonical = u.String()
		}
	}
	return links, canonical
}

// attr returns the value of the tag's attribute key. With rel set, it
// returns the value only when the tag's rel attribute lists "canonical".
func attr(z *html.Tokenizer, key, rel string) (string, bool) {
	var value string
	found, canonical := false, rel == ""
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case key:
			if !found {
				value, found = string(v), true
			}
		case "rel":
			if rel != "" {
				for _, r := range strings.Fields(string(v)) {
					if strings.EqualFold(r, "canonical") {
						canonical = true
					}
				}
			}
		}
		if !more {
			break
		}
	}
	return value, found && canonical
}
