// Package maincontent chooses which parts of a parsed page are its main
// content (excludeNonMainTags): the article of a news page, the chapter
// of a manual, the items of a listing, the posts of a thread. It changes
// the tree and hands back what stays; package markdown writes that as
// markdown. docs/main-content.md walks through each step: prune.go (what
// goes before the page is weighed), score.go (the weighing that finds the
// article), choose.go (the page's units, and what an article holds by its
// kind), trim.go (what goes around the article once chosen), region.go
// (the page's own region, for pages that are not one article), posts.go
// (posts built alike), outvote.go (independent extractors' votes on an
// article's edges), repeats.go (text laid out twice, read once). kinds.go says, kind of page by kind, what its main
// content is and which of these rules makes it so.
package maincontent

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/articlevote"
	"github.com/durablecrawl/crawler/htmlnode"
	"github.com/durablecrawl/crawler/pagekind"
)

// Page is what the selection knows of a page besides its tree.
type Page struct {
	// Title is the page's title; URL where it was fetched from (nil when
	// unknown).
	Title string
	URL   *url.URL
	// Kind is what the page declares it is (pagekind).
	Kind pagekind.Kind
	// Article is set when the page calls itself an article
	// (articlevote.Article), and Opinions then holds the independent
	// extractors' takes on it (articlevote.Ask), which outvote puts to
	// the vote.
	Article  bool
	Opinions *articlevote.Opinions
}

// Removed counts the words each step of the selection took out of the
// tree, as markdown.Words names them.
type Removed struct {
	// Sections went with the sections the page names for what they are,
	// hides or lays out as furniture; Outside were left outside the
	// article weighed; Around went with what trimming took around it;
	// Outvoted with the blocks the independent extractors outvoted;
	// Repeated with the blocks that said again what the content had said
	// (dropRepeats).
	Sections, Outside, Around, Outvoted, Repeated int
}

// Select narrows body, a page parsed and cleaned that holds words words,
// to its main content, and returns it with the words it holds and the
// words each step removed. again parses and cleans the page afresh (and
// counts its words): when the article the weighing chose proves a sliver
// of the page's own region, the page is taken whole, and choosing took
// the rest out of the tree.
func Select(body *goquery.Selection, words int, p Page, again func() (*goquery.Selection, int, error)) (*goquery.Selection, int, Removed, error) {
	// What the page's kind changes (kinds.go).
	rules := rulesOf(p.Kind)
	names := rules.names
	var r Removed
	region := ownRegion(body.Get(0))
	stats := measureRegion(region)
	switch {
	case stats.reference():
		root := goquery.NewDocumentFromNode(structuralContent(body.Get(0), rules.regionNames)).Selection
		tree := htmlnode.WordsOf(root.Nodes)
		r.Sections = max(0, words-tree)
		return root, tree, r, nil
	case rules.whole:
		// A page that declares itself a list of items (a category, a
		// collection, a list of products) is its items: its own
		// region, whole, not the one item the weighing would find the
		// longest.
		root, tree := wholeRegion(body.Get(0), names, &r, words)
		r.Repeated = dropRepeats(root.Nodes)
		return root, tree - r.Repeated, r, nil
	}
	root, tree := mainContent(body, p.Title, names, p.URL, &r, words)
	switch {
	case partForWhole(root.Nodes, region, stats, p.Article):
		// The article weighed holds a sliver of what the page's own
		// structure says is its content (region.go), or none of it, or
		// code alone: the page is a list, an index, a reference, a
		// source listing, and is taken whole, less a tail of other
		// stories after its prose.
		body, words, err := again()
		if err != nil {
			return nil, 0, Removed{}, err
		}
		r = Removed{}
		root, tree = wholeRegion(body.Get(0), names, &r, words)
	case p.Opinions != nil:
		r.Outvoted = outvote(root.Get(0), p.Opinions)
		tree = htmlnode.WordsOf(root.Nodes)
	}
	r.Repeated = dropRepeats(root.Nodes)
	return root, tree - r.Repeated, r, nil
}

// boilerplate holds elements that are not a page's main content.
const boilerplate = `nav, header, footer, aside, form, dialog, menu,
	[role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search],
	[aria-hidden=true], [hidden],
	[id*=cookie], [class*=cookie], [id*=consent], [class*=consent],
	[class*=sidebar], [id*=sidebar], [class*=breadcrumb], [class*=share], [class*=social]`

// mainCandidates are elements that usually wrap the main content, best first.
var mainCandidates = []string{"main", "[role=main]", "article", "#content", ".content", "#main", ".main"}

// MinText is the least text a main-content candidate must hold;
// below it the whole body is used instead.
const MinText = 200

// wholeRegion is the page's own region (structuralContent, less the
// sections names names) less a tail of other stories after its prose, and
// its words; w counts what went.
func wholeRegion(body *html.Node, names naming, w *Removed, after int) (*goquery.Selection, int) {
	root := goquery.NewDocumentFromNode(structuralContent(body, names)).Selection
	region := htmlnode.WordsOf(root.Nodes)
	w.Sections = max(0, after-region)
	trimTail(root.Get(0))
	tree := htmlnode.WordsOf(root.Nodes)
	w.Around = max(0, region-tree)
	return root, tree
}

// mainContent narrows a page to its main content (docs/main-content.md
// walks through it). Sections that are never the article are pruned
// (prune.go); the page's own units are weighed to find the article
// (score.go) and what it holds is kept as the page has it (choose.go),
// then trimmed to the article (trim.go). A page on which no article
// stands out (a listing of other pages' teasers, a landing page) gets the
// rule-based selection below. It counts in w the words each step takes
// from the page's all (see Words), and returns with the content the
// words it holds.
func mainContent(body *goquery.Selection, title string, names naming, page *url.URL, w *Removed, all int) (*goquery.Selection, int) {
	b := body.Get(0)
	brParagraphs(b)
	var posts map[*html.Node]bool
	w.Sections, posts = pruneSections(b, names)
	pruned := all - w.Sections
	picked, ok := choose(b, title, posts)
	if !ok {
		// Trimmed as a chosen article is, or as a list when it holds no
		// paragraph of prose (trimRuled); a title box before it
		// (ruleBasedContent's first node of two) is left whole.
		sel := ruleBasedContent(body)
		chosen := htmlnode.WordsOf(sel.Nodes)
		w.Outside = max(0, pruned-chosen)
		if n := len(sel.Nodes); n > 0 {
			trimRuled(sel.Nodes[n-1], title, page)
		}
		left := htmlnode.WordsOf(sel.Nodes)
		w.Around = max(0, chosen-left)
		return sel, left
	}
	picked.keepChosen(b)
	w.Outside = picked.removed
	w.Around = trimArticle(b, title)
	// Counted as each step removed them, not again over the tree: what
	// conversion keeps is what the page had less what went.
	return body, max(0, pruned-w.Outside-w.Around)
}

// dropOwnOutlines removes below n the lists of links that all lead to
// anchors of the page itself (a documentation page's column "On this
// page"): they repeat its headings. It reports whether it removed any.
func dropOwnOutlines(n *html.Node, page *url.URL) bool {
	if page == nil {
		return false
	}
	var lists []*html.Node
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if (c.Data == "ul" || c.Data == "ol") && ownOutline(c, page) {
				lists = append(lists, c)
				continue
			}
			walk(c)
		}
	}
	walk(n)
	for _, l := range lists {
		l.Parent.RemoveChild(l)
	}
	return len(lists) > 0
}

// ownOutline reports whether list holds two links or more, all to anchors
// of page, and nothing but their text.
func ownOutline(list *html.Node, page *url.URL) bool {
	links, own := 0, true
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		for c := x.FirstChild; c != nil && own; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "a" {
				links++
				own = toOwnAnchor(c, page)
				continue
			}
			if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
				own = false
			}
			walk(c)
		}
	}
	walk(list)
	return own && links >= 2
}

// toOwnAnchor reports whether link a leads to an anchor of page itself
// (links are absolute by now).
func toOwnAnchor(a *html.Node, page *url.URL) bool {
	for _, at := range a.Attr {
		if at.Key != "href" {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(at.Val))
		return err == nil && u.Fragment != "" && u.Host == page.Host && u.Path == page.Path && u.RawQuery == page.RawQuery
	}
	return false
}

// titleBox is the block right before n when it is a short box without
// links that holds a heading (a manual page's title and one-line summary,
// set apart from its body), if any.
func titleBox(n *html.Node) *html.Node {
	box := htmlnode.PrevElement(n)
	if box == nil || htmlnode.FirstBelow(box, htmlnode.IsHeading) == nil && !htmlnode.IsHeading(box) || htmlnode.FirstBelow(box, func(c *html.Node) bool { return c.Data == "a" }) != nil {
		return nil
	}
	if utf8.RuneCountInString(strings.TrimSpace(htmlnode.Text(box))) > maxTitleBox {
		return nil
	}
	return box
}

func textLen(s *goquery.Selection) int {
	return len(strings.Join(strings.Fields(s.Text()), " "))
}

// ruleBasedContent narrows root to its main content by rules. Boilerplate
// is removed first; then the first candidate wrapper with enough text is
// taken. When removal leaves too little text, the untouched body is kept:
// a page that is all "boilerplate" by these rules still has something to
// say.
func ruleBasedContent(root *goquery.Selection) *goquery.Selection {
	whole := root.Clone()
	// A <header> holding the page's <h1> is its title, not a banner (as
	// in regionFurniture).
	root.Find(boilerplate).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Get(0).Data != "header" || !holdsPage(s.Get(0))
	}).Remove()
	for _, sel := range mainCandidates {
		c := root.Find(sel).First()
		if c.Length() > 0 && textLen(c) >= MinText {
			if lead := titleBox(c.Get(0)); lead != nil {
				return goquery.NewDocumentFromNode(lead).Selection.AddNodes(c.Get(0))
			}
			return c
		}
	}
	if textLen(root) < MinText && textLen(whole) > 2*textLen(root) {
		return whole
	}
	return root
}

// maxTitleBox is the longest text of a title box, in characters.
const maxTitleBox = 300
