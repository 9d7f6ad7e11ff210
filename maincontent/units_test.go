package maincontent

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// TestNotArticle: which elements the names, roles and attributes mark as
// not the article.
func TestNotArticle(t *testing.T) {
	cases := []struct {
		tag, attr, val string
		not            bool
	}{
		{"div", "id", "comments", true},
		{"div", "class", "post related-stories", true},
		{"section", "class", "c-author-bio", true},
		{"div", "id", "sharing-with-a-single-developer", false}, // a heading's anchor
		{"div", "class", "content-main", false},
		{"span", "class", "author", false}, // a name inside a sentence
		{"span", "class", "sr-only", true},
		{"p", "aria-hidden", "true", true},
		{"div", "role", "dialog", true},
		{"div", "role", "main", false},
		{"div", "style", "display:none", false}, // a tab a script shows
		{"div", "hidden", "", true},
		{"li", "itemprop", "author", true},                       // the author's card
		{"span", "itemprop", "author", false},                    // the name in a byline's sentence
		{"div", "style", "top:4.9%;left:96.6%;width:60px", true}, // a chart's label
		{"div", "style", "top:10px;left:20px", false},
		{"div", "style", "margin-top:5%;padding-left:2%", false},
		{"div", "style", "display:none", false}, // no picture: a tab a script shows
	}
	for _, c := range cases {
		n := &html.Node{Type: html.ElementNode, Data: c.tag, Attr: []html.Attribute{{Key: c.attr, Val: c.val}}}
		if got := notArticle(n); got != c.not {
			t.Errorf("<%s %s=%q>: not the article %v, want %v", c.tag, c.attr, c.val, got, c.not)
		}
	}
}

// TestTextCountsAgree: the counting shortcuts (spacelessLen, trimmedLen,
// readBlock's squeezed text) say what their plain definitions say, on
// text with ASCII and Unicode spaces, no-break spaces and letters of
// several bytes, split across elements.
func TestTextCountsAgree(t *testing.T) {
	pieces := []string{"", " ", "  \t\n", "word", "\u00a0", "naïve café", "\u2003em\u2003", "日本語 テキスト", "a\u00a0b", "\r\n x ", "end. "}
	for i, a := range pieces {
		for j, b := range pieces {
			for k, c := range pieces {
				page := "<div>" + html.EscapeString(a) + "<span>" + html.EscapeString(b) + "</span><p>" + html.EscapeString(c) + "</p></div>"
				doc, err := html.Parse(strings.NewReader(page))
				if err != nil {
					t.Fatal(err)
				}
				div := htmlnode.FirstBelow(doc, func(n *html.Node) bool { return n.Data == "div" })
				text := htmlnode.Text(div)
				if got, want := htmlnode.TrimmedLen(div), utf8.RuneCountInString(strings.TrimSpace(text)); got != want {
					t.Errorf("pieces %d %d %d: trimmedLen %d, want %d", i, j, k, got, want)
				}
				want := 0
				for _, r := range text {
					if !unicode.IsSpace(r) {
						want += utf8.RuneLen(r)
					}
				}
				if got := htmlnode.SpacelessLen(text); got != want {
					t.Errorf("pieces %d %d %d: spacelessLen %d, want %d", i, j, k, got, want)
				}
				squeezed := strings.TrimSpace(strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsSpace(r) || r == '\u00a0' }), " "))
				if got := readBlock(div).text; got != squeezed {
					t.Errorf("pieces %d %d %d: readBlock text %q, want %q", i, j, k, got, squeezed)
				}
			}
		}
	}
}

// TestHeadingsOwnAnchorIsNoLink: a heading's link to itself (its id as
// the target's fragment, or as the ?id= a client-rendered manual routes
// headings by) weighs as the heading's own text; a heading that links
// elsewhere weighs as a link.
func TestHeadingsOwnAnchorIsNoLink(t *testing.T) {
	for _, tc := range []struct {
		heading string
		links   int
	}{
		{`<h2 id="usage"><a href="/guide?id=usage">Usage</a></h2>`, 0},
		{`<h2 id="usage"><a href="#usage"><span>Usage</span></a></h2>`, 0},
		{`<h2 id="usage"><a href="/usage">Usage</a></h2>`, 5},
		{`<h2><a href="#usage">Usage</a></h2>`, 5},
	} {
		doc, err := html.Parse(strings.NewReader("<html><body>" + tc.heading + "</body></html>"))
		if err != nil {
			t.Fatal(err)
		}
		c := collect(htmlnode.FirstBelow(doc, func(n *html.Node) bool { return n.Data == "body" }))
		if len(c.units) != 1 || c.units[0].links != tc.links {
			t.Errorf("%s: %d units, links %d, want %d", tc.heading, len(c.units), c.units[0].links, tc.links)
		}
	}
}

// TestRuleBasedFallback: when removing boilerplate would leave too little
// (everything sits in a header), the rule-based selection keeps the whole
// body.
func TestRuleBasedFallback(t *testing.T) {
	page := `<html><body><header><h1>Only a header</h1><p>` + strings.Repeat("Words in the header. ", 20) + `</p></header></body></html>`
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleBasedContent(doc.Find("body")).Text(); !strings.Contains(got, "Only a header") {
		t.Errorf("rule-based fallback lost the heading: %q", got)
	}
}

// TestProductBuyBox: taken as its own region, a page that declares itself
// a product keeps the form that holds its price and sizes (its buy box);
// any other page's forms are furniture. The newsletter form in the footer
// goes either way.
func TestProductBuyBox(t *testing.T) {
	page := `<html><body><header><nav><a href="/">Shop</a></nav></header><main><div class="product">
<h1>Harbour jumper</h1><form class="product-form" action="/cart/add"><p class="price">€89.00</p>
<select name="size"><option>Small</option><option>Large</option></select><button>Add to cart</button></form>
<div class="description"><p>Knitted from undyed wool of the island's own sheep, it keeps the wind out on a cold quay and the warmth in on the boat home.</p></div></div>
<div class="signup"><form class="newsletter"><p>Get our letters from the harbour.</p><input type="email"></form></div></main></body></html>`
	for _, c := range []struct {
		name     string
		nm       naming
		keepsBox bool
	}{{"a product", pageNaming.ofProduct(), true}, {"any page", pageNaming, false}} {
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		body := htmlnode.FirstBelow(doc, func(n *html.Node) bool { return n.Data == "body" })
		text := htmlnode.Text(structuralContent(body, c.nm))
		if strings.Contains(text, "€89.00") != c.keepsBox || strings.Contains(text, "Small") != c.keepsBox {
			t.Errorf("%s: the buy box kept %v, want %v: %q", c.name, !c.keepsBox, c.keepsBox, text)
		}
		if !strings.Contains(text, "undyed wool") {
			t.Errorf("%s: the description is gone: %q", c.name, text)
		}
	}
}
