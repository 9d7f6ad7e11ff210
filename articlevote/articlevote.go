// Package articlevote asks two independent main-content extractors,
// go-trafilatura and go-readability, which text of an article page they
// take for the article, so that the converter's own choice can be put to a
// vote: a block that the converter keeps and neither of the others does is
// outvoted two to one.
//
// Asking costs each extractor's walk of the page (a few times the
// converter's own), so it is done for pages that call themselves articles
// (Article): news stories and blog posts, where what follows the article
// (headline lists, teasers, comment threads) is what costs precision.
package articlevote

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode"

	readability "github.com/go-shiori/go-readability"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// MaxElements is the largest page, in elements, the extractors are asked
// about: their walks grow faster than the page.
const MaxElements = 20000

// MinShare is the share of a block's word pairs that an extractor's text
// must hold for the extractor to keep the block.
const MinShare = 0.3

// Opinions are the texts the independent extractors took for a page's
// article, as sets of word pairs.
type Opinions struct {
	texts []pairSet
}

type pairSet map[string]struct{}

// Ask runs the extractors on doc (which neither changes: each works on
// its own copy) and returns what both took, or nil when either could not
// answer: a vote needs both.
func Ask(doc *html.Node, pageURL *url.URL) (op *Opinions) {
	defer func() {
		if recover() != nil {
			op = nil // an extractor's fault on an odd page costs the vote, never the page
		}
	}()
	if elements(doc, MaxElements+1) > MaxElements {
		return nil
	}
	res, err := trafilatura.ExtractDocument(doc, trafilatura.Options{
		OriginalURL:     pageURL,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled, // the date is not asked for
	})
	if err != nil || res == nil || strings.TrimSpace(res.ContentText) == "" {
		return nil
	}
	art, err := readability.FromDocument(doc, pageURL)
	if err != nil || strings.TrimSpace(art.TextContent) == "" {
		return nil
	}
	return &Opinions{texts: []pairSet{heldOf(Words(res.ContentText)), heldOf(Words(art.TextContent))}}
}

// Keeps says whether either extractor keeps text: its text holds at least
// MinShare of text's word pairs. Text of no words is kept.
func (o *Opinions) Keeps(text string) bool {
	ws := Words(text)
	if len(ws) == 0 {
		return true
	}
	own := pairsOf(ws)
	for _, t := range o.texts {
		held := 0
		for p := range own {
			if _, ok := t[p]; ok {
				held++
			}
		}
		if float64(held) >= MinShare*float64(len(own)) {
			return true
		}
	}
	return false
}

// Words splits text into lower-case words: runs of letters and digits,
// and each character of the scripts written without spaces (Chinese,
// Japanese, Korean, Thai) on its own.
func Words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		start := 0
		for i, r := range w {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
				if start < i {
					out = append(out, w[start:i])
				}
				start = i + len(string(r))
				out = append(out, w[i:start])
			}
		}
		if start < len(w) {
			out = append(out, w[start:])
		}
	}
	return out
}

// heldOf is what a text holds: its pairs of neighbouring words and its
// words (a block of one word is looked up by itself).
func heldOf(ws []string) pairSet {
	s := pairsOf(ws)
	for _, w := range ws {
		s[w] = struct{}{}
	}
	return s
}

// pairsOf is the set of pairs of neighbouring words (the word itself for
// a text of one): pairs, unlike single words, seldom match by chance.
func pairsOf(ws []string) pairSet {
	s := pairSet{}
	if len(ws) == 1 {
		s[ws[0]] = struct{}{}
	}
	for i := 0; i+1 < len(ws); i++ {
		s[ws[i]+" "+ws[i+1]] = struct{}{}
	}
	return s
}

// elements counts doc's elements, stopping at most.
func elements(doc *html.Node, most int) int {
	n := 0
	var walk func(*html.Node)
	walk = func(p *html.Node) {
		for c := p.FirstChild; c != nil && n < most; c = c.NextSibling {
			if c.Type == html.ElementNode {
				n++
			}
			walk(c)
		}
	}
	walk(doc)
	return n
}

// Article says whether the page calls itself an article: Open Graph's type
// "article" or an article's publication time, a schema.org type of
// article or blog post in JSON-LD or microdata.
func Article(doc *html.Node) bool {
	found := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case c.Data == "meta":
				prop := strings.ToLower(htmlnode.Attr(c, "property"))
				if prop == "" {
					prop = strings.ToLower(htmlnode.Attr(c, "name"))
				}
				found = prop == "og:type" && strings.HasPrefix(strings.ToLower(strings.TrimSpace(htmlnode.Attr(c, "content"))), "article") ||
					prop == "article:published_time"
			case c.Data == "script" && strings.EqualFold(strings.TrimSpace(htmlnode.Attr(c, "type")), "application/ld+json"):
				if c.FirstChild != nil {
					found = jsonLDArticle([]byte(c.FirstChild.Data))
				}
			default:
				if t := htmlnode.Attr(c, "itemtype"); t != "" && articleType(t[strings.LastIndexAny(t, "/#")+1:]) {
					found = true
				}
			}
			if !found {
				walk(c)
			}
		}
	}
	walk(doc)
	return found
}

// jsonLDArticle says whether a JSON-LD block describes an article: an
// object (at any depth, in @graph or lists) whose @type is one.
func jsonLDArticle(data []byte) bool {
	var v any
	if json.Unmarshal(bytes.TrimSpace(data), &v) != nil {
		return false
	}
	var look func(any, int) bool
	look = func(v any, depth int) bool {
		if depth > 8 {
			return false
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if look(e, depth+1) {
					return true
				}
			}
		case map[string]any:
			switch t := x["@type"].(type) {
			case string:
				if articleType(t) {
					return true
				}
			case []any:
				for _, e := range t {
					if s, ok := e.(string); ok && articleType(s) {
						return true
					}
				}
			}
			for k, e := range x {
				if k == "@graph" || k == "mainEntity" || k == "mainEntityOfPage" {
					if look(e, depth+1) {
						return true
					}
				}
			}
		}
		return false
	}
	return look(v, 0)
}

// articleType says whether a schema.org type name is an article or a blog
// post: Article and its kinds (NewsArticle, OpinionNewsArticle, …),
// BlogPosting and LiveBlogPosting. TechArticle is left out: it is the
// type of a manual's page, whose parts after its prose (see-also lists,
// tables of options) are its own.
func articleType(t string) bool {
	t = strings.TrimPrefix(strings.TrimSpace(t), "schema:")
	return t != "TechArticle" && (strings.HasSuffix(t, "Article") || strings.HasSuffix(t, "BlogPosting"))
}
