package static

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageLinks returns the targets of an HTML document's <a href> elements in
// document order, with the pages it offers to browsers without scripts
// (the links inside <noscript>, and <iframe> and <frame> sources: a
// sidebar a script draws is often offered so, as an iframe of the table of
// contents), and its first rel=canonical link, made absolute against the
// document's <base href> (the first one) or else its own URL. It reads
// the document as a stream of tags, without building its tree: the
// crawler needs only these attributes, and a tree costs more than the
// fetch. Fragment-only links (#top) point into the page itself and are
// left out.
func pageLinks(body []byte, page *url.URL) (links []string, canonical string) {
	var t linkTags
	t.scan(body, true)
	hrefs, base, canon, haveBase := t.hrefs, t.base, t.canon, t.haveBase
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

// linkTags collects the link targets of a document's tags.
type linkTags struct {
	hrefs       []string
	base, canon string
	haveBase    bool
}

// scan reads body's tags; with inner, the markup inside a <noscript>
// (which a tokenizer reads as text) is scanned too.
func (t *linkTags) scan(body []byte, inner bool) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if a == atom.Noscript && inner {
			if z.Next() == html.TextToken {
				t.scan(z.Text(), false)
			}
			continue
		}
		if !hasAttr {
			continue
		}
		switch a {
		case atom.A:
			if href, ok := attr(z, "href", ""); ok {
				t.hrefs = append(t.hrefs, href)
			}
		case atom.Iframe, atom.Frame:
			if src, ok := attr(z, "src", ""); ok {
				t.hrefs = append(t.hrefs, src)
			}
		case atom.Link:
			if t.canon != "" {
				continue
			}
			if href, ok := attr(z, "href", "rel"); ok && href != "" {
				t.canon = href
			}
		case atom.Base:
			if !t.haveBase {
				t.base, t.haveBase = attr(z, "href", "")
			}
		}
	}
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
