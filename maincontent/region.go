package maincontent

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// This file holds what the page's own structure says its content is, and
// the check that the weighed article did not lose most of it.
//
// The weighing (score.go, choose.go) looks for an article: paragraphs of
// prose. A page that is not one (a manual's index, a section's table of
// contents, an API reference made of signatures and one-line
// descriptions, a keyword index) has little prose, and the weighing then
// keeps a sliver of it: the introduction before the list, or one entry.
// Such a page says where its content is by its structure: its <main>
// (or role=main), else its body, in both cases without the landmarks and
// furniture around the content (navigation, banners, footers, asides,
// hidden elements, widgets). That region, whole, is the content of a
// reference page (regionStats.reference), and of a page whose chosen
// article is a sliver of it: under maxSliver of text and under
// minOwnShare of the region's, or, on a page that does not call itself
// an article, under minPlainShare of the region's text outside links
// (partForWhole).

// minOwnShare is the least share of the page's own region's text the
// chosen article must hold. News articles hold most of theirs: what is
// around the text of a story inside its page's main part (teasers, a
// comment form, captions) is rarely more than the story. A list page
// whose weighing kept only its introduction holds a few hundredths.
const minOwnShare = 0.25

// minPlainShare is the least share of the region's plain text (text
// outside links) that the chosen article must hold on a page that does
// not call itself an article. A manual's page is mostly its own words:
// a module's summary, its description and its types above the functions
// the weighing chose are text of the page's own, while what a short blog
// post or a news item leaves out of its region is mostly links (other
// posts, the site's menus). Measured on the tuning halves (0.5, 0.6,
// 0.7, 0.8): 0.7 kept every real manual's page above 80 % of its words
// but three, and cost the article sets one page (a blog post whose
// sidebar calendar is plain text); 0.8 cost two more.
const minPlainShare = 0.7

// minNamedShare is minOwnShare for a page that names its main part
// (<main>, role=main): what it marks as its content is its content more
// surely than a body is, and a section's index there (its introduction,
// then the list of its pages) keeps its list when the introduction is
// nearly half of it.
const minNamedShare = 0.5

// maxSliver is the most text (white space aside) of a chosen article
// that can be a sliver of the page: more is an article of substance,
// wherever it stands, and the page's region around it (a news site's
// lists of other stories, a part marked main that is not the story) is
// not its content.
const maxSliver = 1000

// ownRegion is the element the page names as its main part: the first
// <main> or role=main element that holds text, else body.
func ownRegion(body *html.Node) *html.Node {
	if m := htmlnode.FirstBelow(body, func(n *html.Node) bool {
		return (n.Data == "main" || attrIs(n, "role", "main")) && htmlnode.HasText(n)
	}); m != nil {
		return m
	}
	return body
}

// attrIs reports whether n's attribute key is v, case and spaces aside.
func attrIs(n *html.Node, key, v string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return strings.EqualFold(strings.TrimSpace(a.Val), v)
		}
	}
	return false
}

// regionFurniture reports whether n, inside the page's own region, is
// not its content: an element hidden from every reader, a widget by its
// role, a section named for what it is (comments, sharing), navigation,
// an aside, a footer, a form, or a block named as furniture; a <header>
// unless it holds the page's <h1> (a module's title and synopsis). An
// element that holds the page's title or its main part is never
// furniture, whatever its name: a layout whose whole page sits in
// <div class="content-with-sidebar">.
// Nor is an element of core (see regionCore): the article the region
// holds, named as a widget by its page builder.
func regionFurniture(n *html.Node, core *regionCore) bool {
	return regionFurnitureBy(n, sectionWords, furnitureTags, core)
}

// regionFurnitureBy is regionFurniture with the given section words and
// furniture tags.
func regionFurnitureBy(n *html.Node, words, tags map[string]bool, core *regionCore) bool {
	if n.Type != html.ElementNode {
		return false
	}
	if n.Data == "header" {
		return !holdsPage(n) && !core.holds(n)
	}
	return (notArticleBy(n, words) || furnitureBy(n, tags)) && !holdsPage(n) && !core.holds(n)
}

// regionCore is the region's article core (articleCore: the element
// whose paragraphs hold the most text) and the elements around it up to
// the region, when those paragraphs hold at least minCoreShare of the
// region's text. Page builders name every block of a page for what it is
// in the builder ("elementor-widget" around a post's text), and a name
// does not make an article furniture. It is worked out once, and only
// when an element named as furniture holds a paragraph of prose: most
// pages' navigation and footers hold none.
type regionCore struct {
	region *html.Node
	done   bool
	chain  map[*html.Node]bool
}

func newRegionCore(region *html.Node) *regionCore { return &regionCore{region: region} }

// holds reports whether n is the core or around it.
func (c *regionCore) holds(n *html.Node) bool {
	if c == nil || htmlnode.FirstBelow(n, func(p *html.Node) bool { return p.Data == "p" && moreText(p, minProseBytes) }) == nil {
		return false
	}
	if !c.done {
		c.done = true
		c.chain = coreChain(c.region)
	}
	return c.chain[n]
}

// coreChain is regionCore's set: the core and the elements around it, or
// nil when the core's paragraphs hold too little of the region's text.
func coreChain(region *html.Node) map[*html.Node]bool {
	core := articleCore(region)
	if core == nil {
		return nil
	}
	paragraphs := 0
	for c := core.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "p" || c.Data == "pre") {
			paragraphs += keptText([]*html.Node{c}, 0)
		}
	}
	if float64(paragraphs) < minCoreShare*float64(keptText([]*html.Node{region}, 0)) {
		return nil
	}
	chain := map[*html.Node]bool{}
	for n := core; n != nil && n != region; n = n.Parent {
		chain[n] = true
	}
	return chain
}

// minCoreShare is the least share of its region's text the article core's
// paragraphs must hold to be kept whatever its name.
const minCoreShare = 0.3

// holdsPage reports whether n holds the page's title (<h1>) or its main
// part (<main>, role=main, <article>).
func holdsPage(n *html.Node) bool {
	return htmlnode.FirstBelow(n, func(c *html.Node) bool {
		return c.Data == "h1" || c.Data == "main" || c.Data == "article" || attrIs(c, "role", "main")
	}) !=
		nil
}

// regionText is the length of the text below n, white space aside,
// without the region's furniture, counting from the start when inside
// is set, else from the page's own region down.
func regionText(n *html.Node, inside bool, core *regionCore) int {
	total := 0
	var walk func(n *html.Node, inside bool)
	walk = func(n *html.Node, inside bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && inside:
				total += htmlnode.SpacelessLen(c.Data)
			case c.Type == html.ElementNode && !htmlnode.NeverTags[c.Data] && !regionFurniture(c, core):
				walk(c, inside || c.Data == "main" || attrIs(c, "role", "main"))
			}
		}
	}
	walk(n, inside)
	return total
}

// keptOwnText is the length of the text of the chosen nodes that is the
// page's own (inside region, the page's own region, and not its
// furniture): what the article holds of what the page says is its
// content. An article chosen in the page's footer holds none.
func keptOwnText(nodes []*html.Node, region *html.Node) int {
	if region.Data == "body" {
		// The page names no main part: what the weighing chose is
		// judged by its size alone.
		return keptText(nodes, 0)
	}
	total, core := 0, newRegionCore(region)
	for _, n := range nodes {
		inside := n == region
		for p := n.Parent; p != nil && !inside; p = p.Parent {
			inside = p == region
		}
		furnished := false
		for p := n; p != nil && p != region; p = p.Parent {
			furnished = furnished || regionFurniture(p, core)
		}
		if furnished {
			continue
		}
		total += regionText(n, inside, core)
	}
	return total
}

// keptText is the length of the text below nodes, white space aside,
// counted up to limit (0: all of it).
func keptText(nodes []*html.Node, limit int) int {
	total := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			total += htmlnode.SpacelessLen(n.Data)
		}
		for c := n.FirstChild; c != nil && (limit == 0 || total < limit); c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		if walk(n); limit > 0 && total >= limit {
			break
		}
	}
	return total
}

// onlyCodeText reports whether all the text below nodes stands inside
// <pre> elements: the weighing chose a listing of code (a source file's
// page), whose name and links stand around it, not a part of it; the
// page is its region, as a reference's is.
func onlyCodeText(nodes []*html.Node) bool {
	seen := false
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			return false
		}
		if n.Type == html.ElementNode && n.Data == "pre" {
			seen = true
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	for _, n := range nodes {
		if !walk(n) {
			return false
		}
	}
	return seen
}

// onlyHeaderText reports whether all the text below nodes stands inside
// <header> elements: the weighing chose a page's preamble (its title
// and the paragraph that introduces it, as odoc and other generators set
// it apart) because what follows has no prose. A header introduces the
// content; it is not the content.
func onlyHeaderText(nodes []*html.Node) bool {
	seen := false
	var walk func(n *html.Node, inHeader bool) bool
	walk = func(n *html.Node, inHeader bool) bool {
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			seen = true
			return inHeader
		}
		inHeader = inHeader || n.Type == html.ElementNode && n.Data == "header"
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c, inHeader) {
				return false
			}
		}
		return true
	}
	for _, n := range nodes {
		if !walk(n, false) {
			return false
		}
	}
	return seen
}

// structuralContent narrows body to the page's own region and removes
// the furniture inside it, and the sections nm names (body is changed).
// On a reference page, a block named as a label (labelWords) stays
// (referenceNaming): a reference has no bylines or photo credits, and its
// generator's "tags" and "captions" are parts of it. A page taken whole
// because its article was a sliver may be a news page, and loses them
// (pageNaming).
func structuralContent(body *html.Node, nm naming) *html.Node {
	region := ownRegion(body)
	core := newRegionCore(region)
	var walk func(n *html.Node, inPost bool)
	walk = func(n *html.Node, inPost bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			words, post := nm.at(c, inPost)
			if regionFurnitureBy(c, words, nm.furniture, core) && !authorPane(c, post) {
				n.RemoveChild(c)
			} else if c.Type == html.ElementNode {
				if inPost && c.Data == "dl" && posterCard(c) {
					stripPosterCard(c)
				}
				walk(c, post)
			}
			c = next
		}
	}
	walk(region, false)
	dropLeadingBars(region)
	return region
}

// dropLeadingBars removes, before the region's first heading, the bars
// of links a generator sets above each page (its Prev/Up/Next line, a
// breadcrumb, a row of section links; short, see maxBarText) and the
// rules beside them. Lists
// of links after a heading are the page's (a table of contents); a region
// without a heading keeps everything.
func dropLeadingBars(region *html.Node) {
	first := htmlnode.FirstBelow(region, htmlnode.IsHeading)
	if first == nil {
		return
	}
	for n := first; n != nil && n != region; n = n.Parent {
		for c := n.PrevSibling; c != nil; {
			prev := c.PrevSibling
			if c.Type == html.ElementNode && (c.Data == "hr" || linkBar(c) && !moreText(c, maxBarText) && !namedContents(c)) {
				c.Parent.RemoveChild(c)
			}
			c = prev
		}
	}
}

// maxBarText is the most text of a bar of links, white space aside: a
// Prev/Up/Next line or a breadcrumb, not a synopsis of a module's
// functions or a table of contents (which the page may also name so).
const maxBarText = 300

// linkBar reports whether n is a bar of links: mostly links, or links
// parted by labels of a word or two ("Next:", "Up:", "|", "»").
func linkBar(n *html.Node) bool {
	links, linked, other := 0, 0, 0
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		switch {
		case n.Type == html.TextNode && inLink:
			linked += htmlnode.SpacelessLen(n.Data)
		case n.Type == html.TextNode:
			other += htmlnode.SpacelessLen(n.Data)
		case n.Type == html.ElementNode && n.Data == "a" && !inLink:
			links++
			inLink = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink)
		}
	}
	walk(n, false)
	return links > 0 && (float64(linked) >= minBarLinks*float64(linked+other) || links >= 2 && other <= maxBarLabel*links)
}

// minBarLinks is the least share of a bar's text that is links;
// maxBarLabel, the most text (spaces aside) between a bar's links, for
// each link.
const (
	minBarLinks = 0.6
	maxBarLabel = 10
)

// regionStats are what the page's own region holds: its text (white
// space aside, furniture aside), the part of it in paragraphs of prose,
// its marks of a reference (code blocks, definition terms, code outside
// paragraphs), and its plain text (outside links).
type regionStats struct {
	text, prose, marks, plain int
}

// measureRegion walks the page's own region once for its regionStats.
func measureRegion(region *html.Node) regionStats {
	var st regionStats
	core := newRegionCore(region)
	// walk counts the text below x into st and returns it.
	var walk func(x *html.Node, inParagraph, inLink bool) int
	walk = func(x *html.Node, inParagraph, inLink bool) int {
		text := 0
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				text += htmlnode.SpacelessLen(c.Data)
				if !inLink {
					st.plain += htmlnode.SpacelessLen(c.Data)
				}
				continue
			}
			if c.Type != html.ElementNode || htmlnode.NeverTags[c.Data] || regionFurniture(c, core) {
				continue
			}
			switch c.Data {
			case "pre", "dt":
				st.marks++
			case "code", "tt", "kbd", "samp":
				if !inParagraph {
					st.marks++
				}
			}
			size := walk(c, inParagraph || c.Data == "p", inLink || c.Data == "a")
			if c.Data == "p" && !inParagraph && size >= minProseParagraph {
				st.prose += size
			}
			text += size
		}
		return text
	}
	st.text = walk(region, false, false)
	return st
}

// partForWhole reports whether the article chosen (nodes) is a part of
// the page's own region taken for the whole: a sliver of it by all its
// text, or by its plain text on a page that does not call itself an
// article, or only its header, or code alone.
func partForWhole(nodes []*html.Node, region *html.Node, st regionStats, article bool) bool {
	if onlyCodeText(nodes) {
		return true
	}
	if keptText(nodes, maxSliver) >= maxSliver {
		return false
	}
	least := minOwnShare
	if region.Data != "body" {
		least = minNamedShare
	}
	return float64(keptOwnText(nodes, region)) < least*float64(st.text) || onlyHeaderText(nodes) ||
		!article && float64(plainText(nodes)) < minPlainShare*float64(st.plain)
}

// reference reports whether the page is a reference (an API's page, a
// manual's index, a list of commands): its own region holds code blocks,
// definition terms and code outside paragraphs (signatures, names in a
// table or a list of members) in numbers an article does not have. Code
// inside paragraphs, which articles about programming have plenty of,
// does not count; nor is a page whose text is mostly paragraphs of prose
// (a tutorial, an article with many code blocks) a reference. Such a page
// is its own region, whole: the weighing looks for prose, and would keep
// a sliver of it.
func (st regionStats) reference() bool {
	return st.marks >= minReferenceMarks && 2*st.prose < st.text
}

// minProseParagraph is the least text of a paragraph of prose, in bytes,
// spaces aside: a reference's paragraphs are one-line descriptions.
const minProseParagraph = 200

// minReferenceMarks is the least number of code blocks, definition terms
// and code outside paragraphs that makes a page a reference.
const minReferenceMarks = 5

// plainText is the length of the text below nodes outside links, white
// space aside.
func plainText(nodes []*html.Node) int {
	total := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			total += htmlnode.SpacelessLen(n.Data)
			return
		}
		if n.Type == html.ElementNode && (htmlnode.NeverTags[n.Data] || n.Data == "a") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return total
}
