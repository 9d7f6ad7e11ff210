// Package markdown turns a fetched HTML page into the markdown a crawl
// stores: the page's title, and its content with the chosen parts removed.
package markdown

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"

	"github.com/durablecrawl/crawler/articlevote"
	"github.com/durablecrawl/crawler/pagekind"
	"github.com/durablecrawl/crawler/pagestyle"

	"github.com/durablecrawl/crawler/htmlnode"
	"github.com/durablecrawl/crawler/maincontent"
)

// Options choose what of a page goes into its markdown.
type Options struct {
	// PageURL resolves relative links and images; links come out absolute.
	PageURL *url.URL
	// MainContentOnly drops navigation, headers, footers, sidebars and
	// banners (excludeNonMainTags).
	MainContentOnly bool
	// IncludeLinks keeps links as markdown links; false keeps their text.
	IncludeLinks bool
	// KeepLink, when set, decides which links stay links (the others keep
	// their text only): includeExternalLinks false drops links to other
	// sites.
	KeepLink func(*url.URL) bool
	// IncludeOnlyTags are CSS selectors: when given, only the matching
	// elements make the markdown, in document order, instead of the main
	// content. ExcludeTags are removed first.
	IncludeOnlyTags []string
	ExcludeTags     []string
	// HTML asks for Document.HTML: the chosen elements as HTML.
	HTML bool
	// Stylesheet, when set, gives the page's linked stylesheet at an
	// address (nil when it cannot be read): with the page's <style>
	// elements and style attributes, it says which blocks keep their lines
	// (styled.go).
	Stylesheet func(*url.URL) *pagestyle.Sheet
}

// Document is a converted page.
type Document struct {
	Title    string
	Markdown string
	// NoIndex is set when the page asks search engines not to index it
	// (<meta name="robots" content="noindex">): a print version, a tag
	// page. It is stored with the page.
	NoIndex bool
	// Words says where the page's words went: in the markdown, or out of
	// it for a named reason (see Words).
	Words Words
	// HTML, with Options.HTML, is the content the markdown is made of, as
	// HTML: the main content (or the chosen tags, or the body), without
	// scripts, styles, comments, event handlers or style attributes, links
	// and images absolute.
	HTML string
}

// invisible removes characters that only steer layout (soft hyphens, zero
// width spaces and joiners): in markdown they only split words.
// A no-break space becomes a plain one: markdown readers and text
// consumers treat it as a space anyway, and search does not.
var invisible = strings.NewReplacer("\u00ad", "", "\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "", "\u00a0", " ")

// Convert renders page as markdown.
func Convert(page []byte, o Options) (Document, error) {
	doc, err := parse(page)
	if err != nil {
		return Document{}, err
	}
	d := Document{Title: title(doc), NoIndex: noIndex(doc)}
	w := &d.Words
	// Asked before cleaning: the extractors read the page as served.
	article := o.MainContentOnly && articlevote.Article(doc.Get(0))
	var kind pagekind.Kind
	if o.MainContentOnly {
		kind = pagekind.Read(doc.Get(0)).Kind()
	}
	opinions := articleOpinions(doc.Get(0), article, o)
	var after int // the words of the page once cleaned
	cleaned := func(doc *goquery.Document) {
		w.Hidden = clean(doc, o)
		after = htmlnode.Words(doc.Get(0))
	}
	cleaned(doc)
	tree := -1 // the words of what is rendered, when a step counted them
	root := bodyOf(doc)
	switch {
	case len(o.IncludeOnlyTags) > 0:
		root = outermost(doc.Find(strings.Join(o.IncludeOnlyTags, ", ")))
		tree = htmlnode.WordsOf(root.Nodes)
		w.Outside = max(0, after-tree)
	case o.MainContentOnly:
		var r maincontent.Removed
		p := maincontent.Page{Title: d.Title, URL: o.PageURL, Kind: kind, Article: article, Opinions: opinions}
		root, tree, r, err = maincontent.Select(root, after, p, func() (*goquery.Selection, int, error) {
			// The page afresh, its words counted anew.
			doc, err := parse(page)
			if err != nil {
				return nil, 0, err
			}
			cleaned(doc)
			return bodyOf(doc), after, nil
		})
		if err != nil {
			return Document{}, err
		}
		w.Sections, w.Outside, w.Around, w.Outvoted, w.Repeated = r.Sections, r.Outside, r.Around, r.Outvoted, r.Repeated
	}
	if o.HTML {
		d.HTML = contentHTML(root)
	}
	root.Find("a").Each(func(_ int, a *goquery.Selection) {
		if !o.IncludeLinks || !keep(a, o.KeepLink) {
			a.ReplaceWithSelection(a.Contents())
		}
	})
	if tree < 0 {
		tree = after // the whole page
	}
	d.Markdown, err = render(root)
	// Letters written decomposed (a "u" and a combining diaeresis, as
	// some editors save them) are composed, as nearly all text is: a
	// search for "geprüft" then finds the page's word.
	d.Markdown, d.Title = norm.NFC.String(d.Markdown), norm.NFC.String(d.Title)
	w.Kept = markdownWords(d.Markdown)
	w.Unconverted = max(0, tree-w.Kept)
	return d, err
}

// articleOpinions are the independent extractors' takes on a page that
// calls itself an article (article), when its main content is asked for
// (nil otherwise): outvote puts the article to their vote.
func articleOpinions(doc *html.Node, article bool, o Options) *articlevote.Opinions {
	if !o.MainContentOnly || len(o.IncludeOnlyTags) > 0 || !article {
		return nil
	}
	return articlevote.Ask(doc, o.PageURL)
}

// parse parses page.
func parse(page []byte) (*goquery.Document, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	return doc, nil
}

// bodyOf is the page's body, or the whole document when it has none.
func bodyOf(doc *goquery.Document) *goquery.Selection {
	if root := doc.Find("body").First(); root.Length() > 0 {
		return root
	}
	return doc.Selection
}

// contentHTML is the HTML of the chosen elements, without comments, event
// handlers and style attributes.
func contentHTML(root *goquery.Selection) string {
	var strip func(n *html.Node)
	strip = func(n *html.Node) {
		attrs := n.Attr[:0]
		for _, a := range n.Attr {
			if k := strings.ToLower(a.Key); !strings.HasPrefix(k, "on") && k != "style" {
				attrs = append(attrs, a)
			}
		}
		n.Attr = attrs
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch c.Type {
			case html.CommentNode:
				n.RemoveChild(c)
			case html.ElementNode:
				strip(c)
			}
			c = next
		}
	}
	var b bytes.Buffer
	for _, n := range root.Nodes {
		strip(n)
		if n.Type == html.DocumentNode {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				_ = html.Render(&b, c)
			}
			continue
		}
		_ = html.Render(&b, n)
	}
	return strings.TrimSpace(b.String())
}

// clean readies a parsed page for any choice of its content: the blocks
// its styles show line for line become code and the elements they lay out
// as tables become tables (styled.go), tabs are
// unfolded (see unfoldTabs), what no reader sees, code's line numbers and
// the elements excluded go, formulas become TeX, links and images get
// absolute addresses (against the page's <base> if it has one), links
// with nothing to show go, and layout tables are unwrapped.
// It returns how many words went as what no reader sees (line numbers,
// tooltips, the elements excluded).
func clean(doc *goquery.Document, o Options) (removed int) {
	pageURL := o.PageURL
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok && pageURL != nil {
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil {
			pageURL = b
		}
	}
	styles := pageStyles(doc, o)
	removed += keepStyledLines(doc.Get(0), styles)
	styledTables(doc.Get(0), styles)
	separateBoxes(doc.Get(0), styles)
	separateCaseJoins(doc.Get(0))
	unwrapNoscript(doc)
	unfoldTabs(doc)
	unfoldDisclosures(doc)
	mathAsTeX(doc)
	dropUnseen(doc.Get(0))
	gone := doc.Find(lineNumbers)
	for _, sel := range o.ExcludeTags {
		gone = gone.AddSelection(doc.Find(sel))
	}
	removed += outerWords(gone.Nodes)
	gone.Remove()
	dropHeadingAnchors(doc)
	absolutize(doc, pageURL)
	// A link with nothing to show (an anchor beside a heading or a
	// member of an API page) would be "[](…)" in markdown.
	doc.Find("a").Each(func(_ int, a *goquery.Selection) {
		if n := a.Get(0); n.Parent != nil && !showsSomething(n) {
			n.Parent.RemoveChild(n)
		}
	})
	if len(o.IncludeOnlyTags) == 0 {
		// Before the main content is chosen, so that the blocks of a
		// layout table are weighed as blocks. Chosen tags are taken as
		// the page has them.
		splitHeadingRows(doc)
		unwrapLayoutTables(doc.Selection)
	}
	return removed
}

// outerWords counts the words below nodes, once for nodes inside others
// of them (a listing's thousands of line numbers: in time of the nodes
// and their depth).
func outerWords(nodes []*html.Node) int {
	set := make(map[*html.Node]bool, len(nodes))
	for _, n := range nodes {
		set[n] = true
	}
	words := 0
	for _, n := range nodes {
		inner := false
		for p := n.Parent; p != nil && !inner; p = p.Parent {
			inner = set[p]
		}
		if !inner {
			words += htmlnode.Words(n)
		}
	}
	return words
}

// render writes the chosen elements as markdown (render.go), after
// readying code blocks and table cells.
func render(root *goquery.Selection) (string, error) {
	codeLanguages(root)
	escapeCellCodePipes(root)
	return strings.TrimSpace(renderNodes(root.Nodes)), nil
}

// noIndex reports whether the page's robots meta tags ask not to index it.
func noIndex(doc *goquery.Document) bool {
	found := false
	doc.Find("meta[name]").EachWithBreak(func(_ int, m *goquery.Selection) bool {
		name, _ := m.Attr("name")
		if n := strings.ToLower(strings.TrimSpace(name)); n != "robots" && n != "googlebot" {
			return true
		}
		content, _ := m.Attr("content")
		for _, v := range strings.FieldsFunc(strings.ToLower(content), func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			found = found || v == "noindex" || v == "none"
		}
		return !found
	})
	return found
}

// unwrapNoscript puts in place of a <noscript> the elements it holds
// when they have more text than the rest of the page: some sites give the
// article only there, for readers without JavaScript, which is how the
// static fetcher reads them. A parser that runs scripts keeps a
// noscript's content as raw text. Smaller ones (tracking pixels, "enable
// JavaScript", an image's fallback, a menu) go with the other noscripts.
func unwrapNoscript(doc *goquery.Document) {
	visible := -1 // the text outside scripts and noscripts, counted once asked
	doc.Find("noscript").Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		raw := s.Text()
		if n.Parent == nil || len(raw) < maincontent.MinText {
			return
		}
		nodes, err := html.ParseFragment(strings.NewReader(raw), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
		if err != nil {
			return
		}
		text := 0
		for _, c := range nodes {
			text += visibleText(c)
		}
		if text < maincontent.MinText {
			return
		}
		if visible < 0 {
			visible = visibleText(doc.Find("body").Get(0))
		}
		if text <= visible {
			return
		}
		for _, c := range nodes {
			n.Parent.InsertBefore(c, n)
		}
		n.Parent.RemoveChild(n)
	})
}

// visibleText counts the characters of text below n outside the elements
// that never hold readable text, spaces aside.
func visibleText(n *html.Node) int {
	if n == nil {
		return 0
	}
	count := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			for _, r := range n.Data {
				if !unicode.IsSpace(r) {
					count++
				}
			}
		case n.Type == html.ElementNode && htmlnode.NeverTags[n.Data]:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return count
}

// dropUnseen removes below root the elements that never hold readable
// text (see never) and turns each <br> inside a <pre> into the code's
// newline (a highlighter may end each line of code with one, as Hexo's
// does), in one walk.
func dropUnseen(root *html.Node) {
	var walk func(n *html.Node, inPre bool)
	walk = func(n *html.Node, inPre bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				switch {
				case htmlnode.NeverTags[c.Data]:
					n.RemoveChild(c)
				case inPre && c.Data == "br":
					n.InsertBefore(&html.Node{Type: html.TextNode, Data: "\n"}, c)
					n.RemoveChild(c)
				default:
					walk(c, inPre || c.Data == "pre")
				}
			}
			c = next
		}
	}
	walk(root, false)
}

// showsSomething reports whether n holds text other than white space or
// a picture.
func showsSomething(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "",
			c.Type == html.ElementNode && (c.Data == "img" || showsSomething(c)):
			return true
		}
	}
	return false
}

// mathAsTeX replaces each MathML formula that carries its TeX source (an
// annotation, or the alttext attribute) with that source between dollar
// signs, as markdown writers put formulas; the picture a page shows
// instead of MathML (Wikipedia's fallback image) goes. MathML's own
// elements would come out as loose symbols, one a line.
func mathAsTeX(doc *goquery.Document) {
	found := false
	doc.Find("math").Each(func(_ int, m *goquery.Selection) {
		tex := strings.TrimSpace(m.Find(`annotation[encoding="application/x-tex"]`).First().Text())
		if tex == "" {
			tex, _ = m.Attr("alttext")
			tex = strings.TrimSpace(tex)
		}
		if tex == "" {
			return
		}
		// Wikipedia wraps each formula in {\displaystyle …}.
		if inner, ok := strings.CutPrefix(tex, "{\\displaystyle"); ok && strings.HasSuffix(inner, "}") {
			tex = strings.TrimSpace(strings.TrimSuffix(inner, "}"))
		}
		if d, _ := m.Attr("display"); d == "block" {
			tex = "$$" + tex + "$$"
		} else {
			tex = "$" + tex + "$"
		}
		m.ReplaceWithHtml(html.EscapeString(tex))
		found = true
	})
	if found {
		doc.Find(`img[class*="math-fallback"]`).Remove()
	}
}

// dropHeadingAnchors removes from headings the links that carry no word
// (the "¶", "#" or icon a page puts beside a heading to link to it): in
// markdown they are noise before the heading's text. A link from a
// heading to its own anchor (href="#…") keeps its text only.
func dropHeadingAnchors(doc *goquery.Document) {
	// Elsewhere (an API reference's signature in a <dt>), a link to an
	// anchor of the page that is only a mark ("¶", "#", "§") goes too.
	doc.Find(`a[href^="#"]`).Each(func(_ int, a *goquery.Selection) {
		if t := strings.TrimSpace(a.Text()); t == "¶" || t == "#" || t == "§" {
			a.Remove()
		}
	})
	doc.Find("h1 a, h2 a, h3 a, h4 a, h5 a, h6 a").Each(func(_ int, a *goquery.Selection) {
		text := strings.TrimSpace(a.Text())
		switch href, _ := a.Attr("href"); {
		case !strings.ContainsFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
			a.Remove()
		case strings.HasPrefix(strings.TrimSpace(href), "#"):
			a.ReplaceWithSelection(a.Contents())
		case len(text) <= len("[edit source]") && editControl.MatchString(text):
			// A wiki's "[edit]" beside each heading is a control, not
			// the heading's words; its brackets go with it.
			if p := a.Parent(); p.Is("span") && editControl.MatchString(strings.TrimSpace(p.Text())) {
				p.Remove()
			} else {
				a.Remove()
			}
		}
	})
}

// editControl is the text of a link that opens a section for editing
// (MediaWiki writes "[edit]" or "[edit source]" beside each heading).
var editControl = regexp.MustCompile(`(?i)^\[?\s*edit( source)?\s*\]?$`)

// unwrapLayoutTables replaces each table used for layout by its cells'
// content, in reading order: a table a cell of which holds code, quotes,
// headings or tables lays out blocks, and as a markdown table it would
// squeeze them into one line each. A table of rows whose cells hold lists
// or several paragraphs is a table of data (an API reference's functions,
// each with a signature, a description and an example; an option and what
// it does), with a header row or without, and stays a table, each cell's
// blocks joined by line breaks; unless it is one row, or a cell holds most
// of its text and more than a few lines (cellHoldsPage), or a cell of
// blocks spans columns (spans): then it lays out a page (a menu beside its
// text) or blocks under each row.
func unwrapLayoutTables(root *goquery.Selection) {
	root.Find("table").Each(func(_ int, t *goquery.Selection) {
		n := t.Get(0)
		if n.Parent == nil {
			return
		}
		switch tableKind(t) {
		case dataTable:
			return
		case dataTableOfBlocks:
			ownCells(t, func(cell *goquery.Selection) { joinBlocks(cell.Get(0)) })
			return
		}
		ownCells(t, func(cell *goquery.Selection) {
			div := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
			for c := cell.Get(0).FirstChild; c != nil; {
				next := c.NextSibling
				cell.Get(0).RemoveChild(c)
				div.AppendChild(c)
				c = next
			}
			n.Parent.InsertBefore(div, n)
		})
		n.Parent.RemoveChild(n)
	})
}

// Kinds of tables.
const (
	dataTable = iota
	dataTableOfBlocks
	layoutTable
)

// longCell reports whether one of table t's own cells holds more than
// maxDataCell characters of text.
func longCell(t *goquery.Selection) bool {
	long := false
	ownCells(t, func(cell *goquery.Selection) {
		long = long || htmlnode.TrimmedLen(cell.Get(0)) > maxDataCell
	})
	return long
}

// maxDataCell is the most text, in characters, of a cell of a one-row
// table of data.
const maxDataCell = 300

// tableKind tells a table of data from one used for layout (see
// unwrapLayoutTables), looking at its own cells, not those of tables
// inside it.
func tableKind(t *goquery.Selection) int {
	n := t.Get(0)
	header := t.Find("thead, th").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.ParentsFiltered("table").Get(0) == n
	}).Length() > 0
	rows := t.Find("tr").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.ParentsFiltered("table").Get(0) == n
	}).Length()
	if rows < 2 && longCell(t) {
		// One row of cells side by side, one of them holding a page's
		// worth of text (a menu beside the text, as sites laid pages out
		// before CSS), is layout: data has rows, and short cells.
		return layoutTable
	}
	kind := dataTable
	ownCells(t, func(cell *goquery.Selection) {
		switch {
		case kind == layoutTable:
		case cell.Find("pre, blockquote, h1, h2, h3, h4, h5, h6, table, details").Length() > 0:
			kind = layoutTable
		case cell.Find("ul, ol").Length() > 0 || cell.Find("p, div").Length() > 1:
			if rows >= 2 && (header || !cellHoldsPage(t) && !spans(cell.Get(0))) {
				kind = dataTableOfBlocks
			} else {
				kind = layoutTable
			}
		}
	})
	return kind
}

// spans reports whether cell spans columns: a row of one block across a
// table of several columns lays out what it holds under the row above
// (Haddock's instance details under each instance's signature).
func spans(cell *html.Node) bool {
	v := strings.TrimSpace(htmlnode.Attr(cell, "colspan"))
	return v != "" && v != "1"
}

// cellHoldsPage reports whether one of table t's own cells holds a page's
// worth of its text: more than maxDataCell characters and most of the
// table's (a menu in one cell, the page's text in the next).
func cellHoldsPage(t *goquery.Selection) bool {
	all, most := 0, 0
	ownCells(t, func(cell *goquery.Selection) {
		n := htmlnode.TrimmedLen(cell.Get(0))
		all += n
		most = max(most, n)
	})
	return most > maxDataCell && 2*most > all
}

// ownCells calls fn with each cell of table t, not of tables inside it.
func ownCells(t *goquery.Selection, fn func(*goquery.Selection)) {
	n := t.Get(0)
	t.Find("td, th").Each(func(_ int, cell *goquery.Selection) {
		if cell.ParentsFiltered("table").Get(0) == n {
			fn(cell)
		}
	})
}

// joinBlocks replaces the blocks of a table cell (paragraphs, divs, lists
// and their items) by their content, separated by line breaks, which a
// markdown table cell can hold.
func joinBlocks(cell *html.Node) {
	var lines [][]*html.Node
	var line []*html.Node
	flush := func() {
		for _, k := range line {
			if k.Type != html.TextNode || strings.TrimSpace(k.Data) != "" {
				lines = append(lines, line)
				break
			}
		}
		line = nil
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && cellBlocks[c.Data] {
				flush()
				walk(c)
				flush()
			} else {
				n.RemoveChild(c)
				line = append(line, c)
			}
			c = next
		}
	}
	walk(cell)
	flush()
	for c := cell.FirstChild; c != nil; c = cell.FirstChild {
		cell.RemoveChild(c)
	}
	for i, l := range lines {
		if i > 0 {
			cell.AppendChild(&html.Node{Type: html.ElementNode, Data: "br", DataAtom: atom.Br})
		}
		for _, k := range l {
			cell.AppendChild(k)
		}
	}
}

// cellBlocks are the blocks joinBlocks joins.
var cellBlocks = map[string]bool{"p": true, "div": true, "ul": true, "ol": true, "li": true, "dl": true, "dt": true, "dd": true}

// escapeCellCodePipes escapes the pipes of code inside table cells: in a
// markdown table a pipe ends the cell even inside a code span, unless it
// is written \|.
func escapeCellCodePipes(root *goquery.Selection) {
	root.Find("td code, th code").Each(func(_ int, s *goquery.Selection) {
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				n.Data = strings.ReplaceAll(n.Data, "|", `\|`)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(s.Get(0))
	})
}

// wrapInCode replaces the children of pre with one <code> holding their
// text (the highlighter's spans go, the code stays) and returns it. The
// nodes are built by hand: the parser, given such a node as context,
// refuses them.
func wrapInCode(pre *html.Node) *html.Node {
	text := goquery.NewDocumentFromNode(pre).Text()
	for c := pre.FirstChild; c != nil; {
		next := c.NextSibling
		pre.RemoveChild(c)
		c = next
	}
	code := &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code}
	code.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	pre.AppendChild(code)
	return code
}

// codeLanguage finds a code block's language in its classes: language-go,
// lang-go, highlight-source-go, brush: go, or a bare known name.
var codeLanguage = regexp.MustCompile(`(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([\w+#.-]+)`)

// bareLanguages are language names that highlighters put as a class of
// their own (<pre class="highlight python">).
var bareLanguages = map[string]bool{"bash": true, "c": true, "cpp": true, "csharp": true, "css": true, "go": true,
	"html": true, "java": true, "javascript": true, "js": true, "json": true, "kotlin": true, "php": true,
	"python": true, "ruby": true, "rust": true, "sh": true, "shell": true, "sql": true, "swift": true,
	"toml": true, "ts": true, "typescript": true, "xml": true, "yaml": true}

// onlyChild reports whether child is n's only child, white space aside.
func onlyChild(n, child *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		// An empty element (the <span></span> Pygments starts a block
		// with) is nothing beside the child.
		if c != child && (c.Type == html.ElementNode || c.Type == html.TextNode) && strings.TrimSpace(htmlnode.Text(c)) != "" {
			return false
		}
	}
	return true
}

// trimCodeLines removes the blank lines a code block starts or ends with
// (a generator's newline after <code>): they are layout, not code.
func trimCodeLines(code *html.Node) {
	var texts []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				texts = append(texts, c)
			}
			walk(c)
		}
	}
	walk(code)
	for _, t := range texts {
		t.Data = trimBlankLines(t.Data)
		if t.Data != "" {
			break
		}
	}
	for i := len(texts) - 1; i >= 0; i-- {
		t := texts[i]
		t.Data = strings.TrimRight(t.Data, " \t\n\r")
		if t.Data != "" {
			break
		}
	}
}

// trimBlankLines removes the lines s starts with that hold only white
// space (a first line's indentation stays).
func trimBlankLines(s string) string {
	for {
		rest := strings.TrimLeft(s, " \t\r")
		if !strings.HasPrefix(rest, "\n") {
			return s
		}
		s = rest[1:]
	}
}

// noLanguage are the names highlighters give code they do not highlight.
var noLanguage = map[string]bool{"default": true, "none": true, "text": true, "plain": true, "plaintext": true,
	"nohighlight": true, "notranslate": true}

// codeLanguages gives each <pre>'s code a language-X class the converter
// reads, from wherever the page's highlighter put the language: on the
// <pre>, on the <code>, in a data-lang attribute or as a bare class.
func codeLanguages(root *goquery.Selection) {
	// A code block wrapped in another <pre> (mdBook's playground) is
	// read as the inner one, which names the language.
	root.Find("pre pre").Each(func(_ int, inner *goquery.Selection) {
		if outer := inner.ParentsFiltered("pre").Last(); outer.Length() > 0 {
			outer.ReplaceWithSelection(outer.Contents())
		}
	})
	root.Find("pre").Each(func(_ int, pre *goquery.Selection) {
		// The code is the <pre>'s one <code>; a <pre> holding text or
		// other elements beside it (a synopsis with <code> for each type
		// and <em> for each placeholder) is made one <code> of its text.
		code := pre.ChildrenFiltered("code").First()
		if code.Length() == 0 || !onlyChild(pre.Get(0), code.Get(0)) {
			code = goquery.NewDocumentFromNode(wrapInCode(pre.Get(0))).Selection
		}
		trimCodeLines(code.Get(0))
		if c, _ := code.Attr("class"); strings.Contains(c, "language-") {
			return
		}
		lang := ""
		// Sphinx puts it two levels up: <div class="highlight-python3">
		// <div class="highlight"><pre>.
		for _, s := range []*goquery.Selection{code, pre, pre.Parent(), pre.Parent().Parent()} {
			if l, ok := s.Attr("data-lang"); ok && strings.TrimSpace(l) != "" {
				lang = strings.TrimSpace(l)
				break
			}
			class, _ := s.Attr("class")
			if m := codeLanguage.FindStringSubmatch(class); m != nil {
				lang = m[1]
				break
			}
			for _, f := range strings.Fields(strings.ToLower(class)) {
				if bareLanguages[f] {
					lang = f
					break
				}
			}
			if lang != "" {
				break
			}
		}
		if lang = strings.ToLower(lang); lang != "" && !noLanguage[lang] {
			code.AddClass("language-" + lang)
		}
	})
}

// outermost drops the elements of sel that sit inside other elements of
// sel, so that nested matches are not rendered twice.
func outermost(sel *goquery.Selection) *goquery.Selection {
	return sel.FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.ParentsFiltered("*").FilterFunction(func(_ int, p *goquery.Selection) bool {
			return sel.IsSelection(p)
		}).Length() == 0
	})
}

// keep reports whether a link stays a link under keepLink.
func keep(a *goquery.Selection, keepLink func(*url.URL) bool) bool {
	if keepLink == nil {
		return true
	}
	href, ok := a.Attr("href")
	if !ok {
		return false
	}
	u, err := url.Parse(href)
	return err == nil && keepLink(u)
}

func title(doc *goquery.Document) string {
	t := strings.Join(strings.Fields(doc.Find("title").First().Text()), " ")
	if t == "" {
		t = strings.Join(strings.Fields(doc.Find("h1").First().Text()), " ")
	}
	return t
}

// absolutize rewrites href and src attributes to absolute URLs, so the
// markdown's links work outside the page.
func absolutize(doc *goquery.Document, base *url.URL) {
	if base == nil {
		return
	}
	fix := func(attr string) func(int, *goquery.Selection) {
		return func(_ int, s *goquery.Selection) {
			v, _ := s.Attr(attr)
			v = strings.TrimSpace(v)
			if v == "" || strings.HasPrefix(strings.ToLower(v), "javascript:") {
				if attr == "href" {
					s.ReplaceWithSelection(s.Contents()) // no target: its text stays
				}
				return
			}
			if u, err := base.Parse(v); err == nil {
				s.SetAttr(attr, u.String())
			}
		}
	}
	doc.Find("a[href]").Each(fix("href"))
	// A link's title (a tooltip, mostly its own text again) is noise in
	// the markdown.
	doc.Find("a[title]").RemoveAttr("title")
	doc.Find("img").Each(func(_ int, s *goquery.Selection) { lazySource(s.Get(0)) })
	doc.Find("img[src]").Each(fix("src"))
	joinText(doc.Get(0))
}

// lazySource gives a picture whose page loads it with a script (no src,
// or a placeholder: a data: URI, a blank or spacer image) the address the
// script would load, from the attributes lazy loaders read (data-src,
// data-lazy-src, data-original, then the first of a srcset). A
// placeholder with none of them goes: it shows nothing.
func lazySource(img *html.Node) {
	src := strings.TrimSpace(htmlnode.Attr(img, "src"))
	if src != "" && !placeholder(src) {
		return
	}
	for _, key := range []string{"data-src", "data-lazy-src", "data-original", "data-lazy", "data-srcset", "srcset"} {
		v := strings.TrimSpace(htmlnode.Attr(img, key))
		if strings.HasSuffix(key, "srcset") {
			v, _, _ = strings.Cut(v, ",")
			v, _, _ = strings.Cut(strings.TrimSpace(v), " ")
		}
		if v != "" && !placeholder(v) {
			setAttr(img, "src", v)
			return
		}
	}
	if src != "" {
		setAttr(img, "src", "")
	}
}

// placeholder reports whether an image address is a lazy loader's
// stand-in: an inline data: image or a file named blank, spacer,
// placeholder, transparent or pixel.
func placeholder(src string) bool {
	l := strings.ToLower(src)
	if strings.HasPrefix(l, "data:") {
		return true
	}
	name := l[strings.LastIndexByte(l, '/')+1:]
	name, _, _ = strings.Cut(name, "?")
	name, _, _ = strings.Cut(name, ".")
	switch name {
	case "blank", "spacer", "placeholder", "transparent", "pixel", "1x1", "grey", "gray", "lazy", "loading":
		return true
	}
	return false
}

// setAttr sets attribute key of n to v, adding it when n has none.
func setAttr(n *html.Node, key, v string) {
	for i := range n.Attr {
		if n.Attr[i].Key == key {
			n.Attr[i].Val = v
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: v})
}

// joinText merges adjacent text nodes below n, as a parser would have
// made them. Unwrapping an element leaves its text beside its
// neighbours', and the rules that read a node's text expect it whole.
func joinText(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		for c.Type == html.TextNode && c.NextSibling != nil && c.NextSibling.Type == html.TextNode {
			next := c.NextSibling
			c.Data += next.Data
			n.RemoveChild(next)
		}
		joinText(c)
	}
}
