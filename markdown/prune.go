package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// This file holds the rules that take out of a page, around the article
// extractor, what is never part of an article: before it reads the page,
// the sections a page names for what they are (comment threads, related
// stories, newsletter and share boxes) and the elements no reader sees;
// after it, the blocks of its answer that are links and little else.

// sectionWords are words of a class or id that name a section which is
// not the page's article, whatever it holds.
var sectionWords = map[string]bool{
	"comment": true, "comments": true, "commentlist": true, "disqus": true,
	"related": true, "recommended": true, "recommendations": true, "recirc": true, "recirculation": true,
	"outbrain": true, "taboola": true, "trending": true,
	"newsletter": true, "subscribe": true, "subscription": true, "signup": true,
	"share": true, "sharing": true, "sharebar": true, "social": true,
	"breadcrumb": true, "breadcrumbs": true,
	"advert": true, "advertisement": true, "ad": true, "ads": true, "sponsored": true, "promo": true,
}

// hiddenClasses are whole class names that frameworks use to hide an
// element, or to show it to screen readers only.
var hiddenClasses = map[string]bool{
	"sr-only": true, "visually-hidden": true, "visuallyhidden": true,
	"screen-reader-text": true, "screen-reader-only": true, "element-invisible": true,
}

// widgetRoles are ARIA roles of page furniture: menus, dialogs, toolbars
// and the landmarks around the content.
var widgetRoles = map[string]bool{
	"menu": true, "menubar": true, "menuitem": true, "menuitemcheckbox": true, "menuitemradio": true,
	"dialog": true, "alertdialog": true, "toolbar": true, "tooltip": true,
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true,
}

// pruneSections removes below body the elements that are hidden from
// every reader (hidden, aria-hidden, screen-reader-only classes; not those
// hidden by a style, which are mostly tabs and slides a script shows), are
// widgets by their role, or are named as a section other than the
// article (by a word of their class or id). The element that holds most
// of the page's paragraph text, and every element around it, stay
// whatever their names: a page whose whole layout sits in a div called
// "content-with-related" still has its article.
func pruneSections(body *html.Node) {
	keep := map[*html.Node]bool{}
	for n := articleCore(body); n != nil; n = n.Parent {
		keep[n] = true
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				if !keep[c] && notArticle(c) {
					n.RemoveChild(c)
				} else {
					walk(c)
				}
			}
			c = next
		}
	}
	walk(body)
}

// notArticle reports whether n is hidden, a widget or a section named as
// other than the article.
func notArticle(n *html.Node) bool {
	for _, a := range n.Attr {
		v := strings.ToLower(strings.TrimSpace(a.Val))
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "role":
			if widgetRoles[v] {
				return true
			}
		case "class":
			for _, c := range strings.Fields(v) {
				if hiddenClasses[c] || namesSection(c, 0) {
					return true
				}
			}
		case "id":
			// An id of many words is a heading's anchor
			// ("sharing-with-a-single-developer"), not a name.
			if namesSection(v, maxIDWords) {
				return true
			}
		}
	}
	return false
}

// maxIDWords is the most words an id naming a section has.
const maxIDWords = 3

// namesSection reports whether one of name's words (split at anything but
// letters and digits) is a section word, and name has at most maxWords
// words (0: any number).
func namesSection(name string, maxWords int) bool {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if maxWords > 0 && len(words) > maxWords {
		return false
	}
	for _, w := range words {
		if sectionWords[w] {
			return true
		}
	}
	return false
}

// articleCore is the element whose paragraphs hold the most text: the
// article's own container on a page that has one.
func articleCore(body *html.Node) *html.Node {
	score := map[*html.Node]int{}
	var best *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if (c.Data == "p" || c.Data == "pre") && c.Parent != nil {
				score[c.Parent] += utf8.RuneCountInString(strings.TrimSpace(nodeText(c)))
				if best == nil || score[c.Parent] > score[best] {
					best = c.Parent
				}
			}
			walk(c)
		}
	}
	walk(body)
	return best
}

// nodeText is the text below n.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var add func(*html.Node)
	add = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			add(c)
		}
	}
	add(n)
	return b.String()
}

// dropLinkBlocks removes from the extractor's answer the blocks that are
// links and little else where they surround the article: before its
// first sentence of prose and after its last, lists of links (related
// stories, tags, "more from") and headings left with nothing to head;
// anywhere, short paragraphs that are one link ("Reuse content", "Read
// more"). A list of links between two paragraphs of prose is
// the article's own (a list of sources, of changes) and stays.
func dropLinkBlocks(content *html.Node) {
	blocks := blocksOf(content)
	first, last := len(blocks), -1
	for i, b := range blocks {
		if prose(b) {
			first = min(first, i)
			last = i
		}
	}
	var drop []*html.Node
	for i, b := range blocks {
		outside := i < first || i > last
		switch {
		case b.Data == "p" && shortLink(b):
			drop = append(drop, b)
		case outside && i > last && heading(b):
			drop = append(drop, b) // heads nothing: "Related videos", "Comments"
		case outside && (b.Data == "ul" || b.Data == "ol") && linkShare(b) >= 0.8:
			drop = append(drop, b)
		}
	}
	for _, b := range drop {
		if b.Parent != nil {
			b.Parent.RemoveChild(b)
		}
	}
}

// blocksOf lists the blocks below n in document order: paragraphs,
// headings, lists (as a whole), tables, code and quotes.
func blocksOf(n *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "p", "ul", "ol", "dl", "table", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6":
				out = append(out, c)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return out
}

// prose reports whether b is a paragraph of writing: a sentence's worth
// of text, mostly not links.
func prose(b *html.Node) bool {
	if b.Data != "p" && b.Data != "blockquote" && b.Data != "pre" && b.Data != "table" {
		return false
	}
	text := strings.Join(strings.Fields(nodeText(b)), " ")
	return utf8.RuneCountInString(text) >= minProse && linkShare(b) < 0.5
}

// minProse is the least text of a paragraph of prose, in characters.
const minProse = 80

func heading(n *html.Node) bool {
	return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
}

// shortLink reports whether p is a short paragraph that is one link.
func shortLink(p *html.Node) bool {
	text := strings.Join(strings.Fields(nodeText(p)), " ")
	return text != "" && utf8.RuneCountInString(text) < minProse && linkShare(p) >= 0.9
}

// linkShare is the share of n's text, spaces aside, that is inside links.
func linkShare(n *html.Node) float64 {
	var all, linked int
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		if n.Type == html.TextNode {
			k := 0
			for _, r := range n.Data {
				if !unicode.IsSpace(r) {
					k++
				}
			}
			all += k
			if inLink {
				linked += k
			}
		}
		inLink = inLink || (n.Type == html.ElementNode && n.Data == "a")
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink)
		}
	}
	walk(n, false)
	if all == 0 {
		return 0
	}
	return float64(linked) / float64(all)
}

// dropTitle removes the article's first block when it is a heading that
// repeats the page's title: the title is reported on its own, and an
// article's text starts below its headline.
func dropTitle(content *html.Node, title string) {
	blocks := blocksOf(content)
	if len(blocks) == 0 || !heading(blocks[0]) {
		return
	}
	h := strings.ToLower(strings.Join(strings.Fields(nodeText(blocks[0])), " "))
	if h != "" && strings.Contains(strings.ToLower(title), h) {
		blocks[0].Parent.RemoveChild(blocks[0])
	}
}
