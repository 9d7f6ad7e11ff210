package maincontent

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
)

// brParagraphs turns the paragraphs some editors write as runs of text
// parted by two line breaks (Blogger's "text<br><br>text", with no <p>)
// into <p> elements, below root, so that the weighing sees them as the
// paragraphs they are. A run is the text and inline elements between two
// such breaks or between a break and a block element (a heading, a
// list); a lone <br> stays a line break inside its paragraph.
//
// In the same walk go the blocks that only hold the errors a page's
// server script printed into it ("Warning: Use of undefined constant …
// in /path/file.php on line 12"): they are no one's text, and once
// parted into paragraphs they would weigh as prose.
func brParagraphs(root *html.Node) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch {
			case c.Type != html.ElementNode || c.Data == "pre" || htmlnode.InlineTags[c.Data]:
			case opensServerError(c) && serverErrors.MatchString(strings.TrimSpace(htmlnode.Text(c))):
				n.RemoveChild(c)
			case c.Data != "p":
				walk(c)
			}
			c = next
		}
		if n.Type == html.ElementNode && n.Data != "p" && hasDoubleBreak(n) {
			splitAtBreaks(n)
		} else if n.Type == html.ElementNode && n.Data != "p" && holdsChild(n, "p") {
			wrapLooseProse(n)
		}
	}
	walk(root)
}

// opensServerError reports whether n's first child, white space aside,
// is a bold label such as a script's error starts with ("<b>Warning</b>:").
func opensServerError(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.ElementNode && (c.Data == "b" || c.Data == "strong"):
			return serverErrorLabels[strings.ToLower(strings.TrimSpace(htmlnode.Text(c)))]
		default:
			return false
		}
	}
	return false
}

// serverErrorLabels open an error a PHP script prints.
var serverErrorLabels = map[string]bool{"warning": true, "notice": true, "deprecated": true, "fatal error": true, "parse error": true, "strict standards": true}

// serverErrors is a text made only of such errors, one after the other.
var serverErrors = regexp.MustCompile(`(?is)^((warning|notice|deprecated|fatal error|parse error|strict standards)\s*: .+? on line \d+\s*)+$`)

// hasDoubleBreak reports whether n's own children hold text and two
// <br> with only white space between them.
func hasDoubleBreak(n *html.Node) bool {
	text, lastBr := false, false
	double := false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			continue
		case c.Type == html.TextNode:
			text = true
			lastBr = false
		case c.Type == html.ElementNode && c.Data == "br":
			double = double || lastBr
			lastBr = true
			continue
		default:
			lastBr = false
		}
	}
	return text && double
}

// splitAtBreaks wraps each run of n's inline children between double
// breaks and block elements in a <p>, dropping the breaks that parted
// them.
func splitAtBreaks(n *html.Node) {
	var run []*html.Node
	flush := func(before *html.Node) {
		// Breaks and white space at the run's ends part paragraphs.
		for len(run) > 0 && blankOrBreak(run[0]) {
			n.RemoveChild(run[0])
			run = run[1:]
		}
		for len(run) > 0 && blankOrBreak(run[len(run)-1]) {
			n.RemoveChild(run[len(run)-1])
			run = run[:len(run)-1]
		}
		if len(run) == 0 {
			return
		}
		p := wrapInParagraph(n, run)
		run = nil
		if opensServerError(p) && serverErrors.MatchString(strings.TrimSpace(htmlnode.Text(p))) {
			n.RemoveChild(p)
		}
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.ElementNode && c.Data == "br" && nextBreak(c):
			run = append(run, c)
			flush(c)
		case c.Type == html.TextNode || c.Type == html.ElementNode && (htmlnode.InlineTags[c.Data] || c.Data == "br"):
			run = append(run, c)
		case c.Type == html.ElementNode:
			flush(c) // a block element ends the run before it
		}
		c = next
	}
	flush(nil)
}

// nextBreak reports whether the next sibling of br, white space aside,
// is another <br>.
func nextBreak(br *html.Node) bool {
	for s := br.NextSibling; s != nil; s = s.NextSibling {
		switch {
		case s.Type == html.TextNode && strings.TrimSpace(s.Data) == "":
		case s.Type == html.ElementNode && s.Data == "br":
			return true
		default:
			return false
		}
	}
	return false
}

// blankOrBreak reports whether n is white space or a <br>.
func blankOrBreak(n *html.Node) bool {
	return n.Type == html.TextNode && strings.TrimSpace(n.Data) == "" || n.Type == html.ElementNode && n.Data == "br"
}

// minLooseProse is the least words a run of text standing loose beside
// paragraphs must have to be taken for one.
const minLooseProse = 10

// wrapLooseProse makes a paragraph of each run of text and inline
// elements of at least minLooseProse words that stands loose in n beside
// its <p> children: a browser lays such a run out as a block of its own,
// and a generator that opens each section's first paragraph without its
// tag (LaTeX2HTML: a heading, then text, then <P>) means one.
func wrapLooseProse(n *html.Node) {
	var run []*html.Node
	flush := func() {
		words := 0
		for _, c := range run {
			words += htmlnode.Words(c)
		}
		if words >= minLooseProse {
			wrapInParagraph(n, run)
		}
		run = nil
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.TextNode || c.Type == html.ElementNode && (htmlnode.InlineTags[c.Data] || c.Data == "br"):
			run = append(run, c)
		case c.Type == html.ElementNode:
			flush()
		}
		c = next
	}
	flush()
}

// holdsChild reports whether n has a child element named tag.
func holdsChild(n *html.Node, tag string) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			return true
		}
	}
	return false
}

// wrapInParagraph moves run, children of n in order, into a new <p> in
// their place, and returns it.
func wrapInParagraph(n *html.Node, run []*html.Node) *html.Node {
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	n.InsertBefore(p, run[0])
	for _, c := range run {
		n.RemoveChild(c)
		p.AppendChild(c)
	}
	return p
}
