// Package pagekind tells what kind of page a page says it is, from what it
// declares about itself: schema.org types in JSON-LD and microdata, and
// its Open Graph type. It never reads a site's name, a class name or the
// page's wording.
package pagekind

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// Kind is what a page is about.
type Kind string

const (
	// Unknown: the page declares nothing that says what it is.
	Unknown Kind = ""
	// Article: a news story, a blog post, an article.
	Article Kind = "article"
	// Product: one product for sale (a Product as the page's subject).
	Product Kind = "product"
	// Discussion: a forum thread, a question with its answers.
	Discussion Kind = "discussion"
	// Listing: a list of items, a category, a collection of products.
	Listing Kind = "listing"
)

// Declared is what the page's head and body declare about it.
type Declared struct {
	// Types counts the schema.org types the page declares, by name
	// (Product, Offer, DiscussionForumPosting, ItemList…), in JSON-LD and
	// microdata; a type nested inside another (an ItemList's Products)
	// counts as Listed.
	Types map[string]int
	// Listed counts the types declared as the items of a list.
	Listed map[string]int
	// OpenGraph is the page's og:type, lower case.
	OpenGraph string
}

// Read reads what doc declares.
func Read(doc *html.Node) Declared {
	d := Declared{Types: map[string]int{}, Listed: map[string]int{}}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "script" && strings.EqualFold(strings.TrimSpace(htmlnode.Attr(n, "type")), "application/ld+json"):
				if n.FirstChild != nil {
					var v any
					if json.Unmarshal([]byte(n.FirstChild.Data), &v) == nil {
						d.readJSONLD(v, false)
					}
				}
			case n.Data == "meta" && strings.EqualFold(htmlnode.Attr(n, "property"), "og:type"):
				d.OpenGraph = strings.ToLower(strings.TrimSpace(htmlnode.Attr(n, "content")))
			}
			if t := htmlnode.Attr(n, "itemtype"); t != "" {
				for _, one := range strings.Fields(t) {
					name := one[strings.LastIndexAny(one, "/#")+1:]
					if insideItemList(n) {
						d.Listed[name]++
					} else {
						d.Types[name]++
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return d
}

// readJSONLD counts the types of a JSON-LD value and of the values nested
// in it; listed is set inside a list's items.
func (d *Declared) readJSONLD(v any, listed bool) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d.readJSONLD(e, listed)
		}
	case map[string]any:
		for _, name := range typeNames(v["@type"]) {
			if listed {
				d.Listed[name]++
			} else {
				d.Types[name]++
			}
		}
		for k, e := range v {
			switch k {
			case "@type", "@context":
			case "itemListElement", "hasPart", "mainEntity":
				inList := listed || k == "itemListElement"
				d.readJSONLD(e, inList)
			default:
				d.readJSONLD(e, listed)
			}
		}
	}
}

func typeNames(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v[strings.LastIndexAny(v, "/:#")+1:]}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, typeNames(e)...)
		}
		return out
	}
	return nil
}

func insideItemList(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if strings.HasSuffix(htmlnode.Attr(p, "itemtype"), "ItemList") {
			return true
		}
	}
	return false
}

// Kind is what the declarations say the page is: a product when one
// Product is its subject; a discussion when it declares a forum posting
// or a question page; a listing when it declares a list or a collection of
// items, or several products; an article when it declares one; otherwise
// Unknown.
func (d Declared) Kind() Kind {
	switch {
	case d.Types["DiscussionForumPosting"] > 0 || d.Types["QAPage"] > 0:
		return Discussion
	case d.Types["CollectionPage"] > 0 || d.OpenGraph == "product.group" ||
		(d.Types["ItemList"] > 0 && d.Types["Product"] != 1 || d.Listed["Product"] > 1 || d.Types["Product"] > 1) && !d.declaresArticle():
		return Listing
	case d.Types["Product"] == 1 || d.OpenGraph == "product" || d.OpenGraph == "og:product" || d.OpenGraph == "product.item":
		return Product
	case d.declaresArticle():
		return Article
	}
	return Unknown
}

// declaresArticle reports whether the page declares an article.
func (d Declared) declaresArticle() bool {
	return d.Types["Article"] > 0 || d.Types["NewsArticle"] > 0 || d.Types["BlogPosting"] > 0 || d.OpenGraph == "article"
}
