package maincontent

import (
	"hash/maphash"
	"strings"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// minRepeatSize is the fewest bytes of text (about eight words) a block
// must hold for its second copy in the content to be taken for a repeat:
// short lines ("Read more", a price, "Add to cart") repeat on purpose.
const minRepeatSize = 48

// repeatsKept are the elements whose blocks repeat on purpose and are
// left alone: code, quotes (a post quoting another is the thread), and
// tables and definition lists, whose cells and definitions say the same
// of different rows and terms.
var repeatsKept = map[string]bool{"pre": true, "blockquote": true, "table": true, "dl": true, "textarea": true}

// dropRepeats removes below the roots each block of text (a block
// element holding no other block) that says word for word, under a
// heading of the same words, what one block before it in the content
// already said, and returns the words it removed. A page built for every
// screen often holds its text twice (one copy laid out for phones, one
// for wide screens, the style showing one); a reader reads it once, and
// the copy's heading goes with it when nothing it heads is left. A line
// said again under another heading (each card's credit line, an
// overload's description) is that section's own, and one said three
// times or more (a song's refrain, a list of identical entries) is
// meant so: both stay.
func dropRepeats(roots []*html.Node) int {
	leaves := textLeaves(roots)
	copies := map[textKey]int{}
	for _, l := range leaves {
		if !l.heading && l.key != (textKey{}) {
			copies[l.key]++
		}
	}
	words := 0
	drop := func(n *html.Node) {
		words += htmlnode.Words(n)
		n.Parent.RemoveChild(n)
	}
	seen, headings := map[textKey]bool{}, map[uint64]bool{}
	// The heading of the section walked, when it repeats one before it,
	// whether a block it heads stays, and whether one went.
	var heading *html.Node
	kept, went := false, false
	closeSection := func() {
		if heading != nil && !kept && went {
			drop(heading) // a copy's heading, its section gone
		}
	}
	for _, l := range leaves {
		switch {
		case l.heading:
			closeSection()
			heading, kept, went = nil, false, false
			if headings[l.key.text] {
				heading = l.n
			}
			headings[l.key.text] = true
		case l.key != (textKey{}) && seen[l.key] && copies[l.key] == 2:
			drop(l.n)
			went = true
		default:
			if l.key != (textKey{}) {
				seen[l.key] = true
			}
			kept = kept || l.shows
		}
	}
	closeSection()
	return words
}

// textLeaf is a block of text below the content (a block element holding
// no other block), a block left alone (repeatsKept), or words loose beside
// blocks (n nil), in the content's order.
type textLeaf struct {
	n *html.Node
	// key is the print of the heading it is under and its own; zero when
	// too short to repeat. A heading's key holds its own print.
	key     textKey
	heading bool
	shows   bool // it has words or a picture of its own
}

// textLeaves are the blocks of text below roots, in order (see textLeaf).
func textLeaves(roots []*html.Node) []textLeaf {
	var leaves []textLeaf
	var under uint64
	var visit func(n *html.Node) (holdsBlock, shows bool)
	visit = func(n *html.Node) (holdsBlock, shows bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				shows = shows || strings.TrimSpace(c.Data) != ""
			case c.Type != html.ElementNode || htmlnode.NeverTags[c.Data]:
			case repeatsKept[c.Data]:
				holdsBlock = true
				leaves = append(leaves, textLeaf{n: c, shows: true})
			default:
				block, below := visit(c)
				holdsBlock = holdsBlock || block || htmlnode.BlockTags[c.Data]
				shows = shows || below && !block || c.Data == "img"
			}
		}
		if holdsBlock || !htmlnode.BlockTags[n.Data] || n.Parent == nil {
			if holdsBlock && shows {
				// Words of its own beside its blocks (text loose in a
				// div): they are kept.
				leaves = append(leaves, textLeaf{shows: true})
			}
			return holdsBlock, shows
		}
		print, size := printOf(n)
		l := textLeaf{n: n, heading: htmlnode.IsHeading(n), shows: shows}
		switch {
		case l.heading:
			under = print
			l.key = textKey{text: print}
		case size >= minRepeatSize:
			l.key = textKey{under, print}
		}
		leaves = append(leaves, l)
		return false, false
	}
	for _, r := range roots {
		visit(r)
	}
	return leaves
}

// textKey is a block's text as dropRepeats tells blocks apart: the print
// of the heading it is under and its own (printOf).
type textKey struct{ under, text uint64 }

// printOf is a 64-bit print of the text below n a reader sees (each text
// node's, white space at its ends aside; the text of elements that never
// hold readable text, htmlnode.NeverTags, aside) and the number of bytes
// it was made of. Two blocks of the same text nodes have the same print;
// two of different ones, all but surely not. Copies a page lays out twice
// come from one template and have the same text nodes.
func printOf(n *html.Node) (print uint64, size int) {
	const prime = 1099511628211
	var add func(*html.Node)
	add = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				if t := strings.TrimSpace(c.Data); t != "" {
					print = (print ^ maphash.String(printSeed, t)) * prime
					size += len(t)
				}
			case c.Type == html.ElementNode && !htmlnode.NeverTags[c.Data]:
				add(c)
			}
		}
	}
	add(n)
	return print, size
}

// printSeed seeds printOf's hashes, the same for the whole process.
var printSeed = maphash.MakeSeed()
