package maincontent

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/articlevote"

	"github.com/durablecrawl/crawler/htmlnode"
)

// minAgreedWords is the least words a block both this converter and an
// independent extractor keep must have to mark where the article goes on:
// a short line (a date, a "Share" label) is found in any text.
const minAgreedWords = 5

// maxOutvotedLine is the most words a block inside the article may have
// and still go when neither extractor keeps it: a credit, a photographer's
// name, a "Read more" or newsletter line; a paragraph the others leave out
// (a lead, a caption of a sentence or two) stays.
const maxOutvotedLine = 15

// outvote puts the blocks of the article chosen (root) to a vote with
// the independent extractors' opinions (articlevote): a block goes when
// neither keeps it and it stands after the last block of some words one of
// them keeps (what follows the article: headline lists, teasers, comment
// threads), or is a short line (under maxOutvotedLine words) anywhere.
// Longer blocks inside the article stay as the converter chose them (the
// others often leave out a lead, a caption, a list). A page's leading h1
// and code are kept whatever the vote. An element left holding none of
// its blocks goes with them (a comment's author and time around its
// outvoted text). It returns the words that went.
func outvote(root *html.Node, op *articlevote.Opinions) (removed int) {
	type block struct {
		n     *html.Node
		words int
		kept  bool
	}
	var blocks []block
	leaf := map[*html.Node]bool{}
	for i, n := range leafBlocks(root) {
		b := block{n: n, words: htmlnode.Words(n), kept: true}
		if !(i == 0 && n.Data == "h1") && n.Data != "pre" {
			b.kept = op.Keeps(spacedText(n))
		}
		blocks = append(blocks, b)
		leaf[n] = true
	}
	last := -1
	for i, b := range blocks {
		if b.kept && b.n.Data != "pre" && b.words >= minAgreedWords {
			last = i
		}
	}
	gone := map[*html.Node]bool{}
	for i, b := range blocks {
		if !b.kept && (i > last || b.words < maxOutvotedLine) {
			gone[b.n] = true
		}
	}
	if len(gone) == 0 {
		return 0
	}
	// sweep removes what went below n, and the elements left holding
	// none of their blocks; it reports whether n holds a block that
	// stays and whether one went.
	var sweep func(n *html.Node) (held, went bool)
	sweep = func(n *html.Node) (held, went bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			h, w := false, gone[c]
			switch {
			case w:
			case leaf[c]:
				h = true
			case c.Type == html.ElementNode:
				h, w = sweep(c)
			}
			if w && !h {
				removed += htmlnode.Words(c)
				n.RemoveChild(c)
			}
			held, went = held || h, went || w
			c = next
		}
		return held, went
	}
	sweep(root)
	return removed
}

// leafBlocks are the blocks below root that hold no other block, in
// document order: paragraphs, headings, list items, table cells' rows
// taken as whole tables, preformatted text.
func leafBlocks(root *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node) bool // reports whether n holds a block
	walk = func(n *html.Node) bool {
		holds := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || htmlnode.NeverTags[c.Data] {
				continue
			}
			switch {
			case c.Data == "table" || c.Data == "pre":
				out = append(out, c)
				holds = true
			case htmlnode.BlockTags[c.Data]:
				if !walk(c) {
					out = append(out, c)
				}
				holds = true
			default:
				holds = walk(c) || holds
			}
		}
		return holds
	}
	walk(root)
	return out
}

// spacedText is the text below n with a space where a line breaks.
func spacedText(n *html.Node) string {
	var b strings.Builder
	var add func(*html.Node)
	add = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.Data == "br" || htmlnode.NeverTags[n.Data]):
			b.WriteByte(' ')
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			add(c)
		}
	}
	add(n)
	return b.String()
}
