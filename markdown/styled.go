package markdown

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
	"github.com/durablecrawl/crawler/pagestyle"
)

// This file reads structure from the page's own styles (package
// pagestyle): a block the page shows line for line (white-space: pre,
// pre-wrap, pre-line) or sets in a monospace font with lines of its own is
// code, whatever its tags: Doxygen's fragments (a div of divs, one per
// line, each pre-wrap), a generator's div of monospace lines broken by
// <br>. Such a block becomes a <pre> that the rest of the conversion
// takes as it takes any (fenced, line numbers dropped).

// maxLinkedSheets is the most linked stylesheets read for a page.
const maxLinkedSheets = 16

// pageStyles resolves the styles of doc's elements: its linked
// stylesheets (through o.Stylesheet, when set) and <style> elements in
// the order the page has them, and its style attributes.
func pageStyles(doc *goquery.Document, o Options) *pagestyle.Styles {
	var sheets []*pagestyle.Sheet
	linked, inline := 0, false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "style":
				if media := htmlnode.Attr(c, "media"); (media == "" || screenMedia(media)) && c.FirstChild != nil {
					sheets = append(sheets, pagestyle.Cached(htmlnode.Text(c)))
				}
				continue
			case "link":
				if sh := linkedSheet(c, o, &linked); sh != nil {
					sheets = append(sheets, sh)
				}
				continue
			case "script", "template", "svg", "math":
				continue
			}
			inline = inline || pagestyle.Matters(htmlnode.Attr(c, "style"))
			walk(c)
		}
	}
	walk(doc.Get(0))
	if !inline && !slices.ContainsFunc(sheets, func(s *pagestyle.Sheet) bool { return s.Rules() > 0 }) {
		return nil // nothing on the page says anything of its structure
	}
	return pagestyle.Resolve(doc.Get(0), sheets)
}

// linkedSheet is the sheet link element n names, through o.Stylesheet,
// if it is a stylesheet for a screen and the page has not linked
// maxLinkedSheets already (linked counts them).
func linkedSheet(n *html.Node, o Options, linked *int) *pagestyle.Sheet {
	rel := strings.ToLower(htmlnode.Attr(n, "rel"))
	href := strings.TrimSpace(htmlnode.Attr(n, "href"))
	if o.Stylesheet == nil || href == "" || *linked == maxLinkedSheets || !listsWord(rel, "stylesheet") || listsWord(rel, "alternate") {
		return nil
	}
	if media := htmlnode.Attr(n, "media"); media != "" && !screenMedia(media) {
		return nil
	}
	u, err := url.Parse(href)
	if err != nil {
		return nil
	}
	if o.PageURL != nil {
		u = o.PageURL.ResolveReference(u)
	}
	if !u.IsAbs() {
		return nil
	}
	*linked++
	return o.Stylesheet(u)
}

// screenMedia reports whether a media attribute's query holds a screen.
func screenMedia(media string) bool {
	m := strings.ToLower(media)
	return m == "" || strings.Contains(m, "all") || strings.Contains(m, "screen") || !strings.ContainsAny(m, "abcdefghijklmnopqrstuvwxyz")
}

// listsWord reports whether the space-separated list s holds w.
func listsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// lineBlocks are the elements that can be a block of code the styles make
// (a <td> or an <li> is a part of a table or a list, not a block of its
// own).
var lineBlocks = map[string]bool{"div": true, "p": true, "section": true, "blockquote": true, "dd": true, "figure": true, "center": true}

// notInCode are elements a block of code never holds.
var notInCode = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true, "ol": true, "dl": true,
	"table": true, "pre": true, "blockquote": true, "p": true, "section": true, "article": true, "nav": true, "form": true, "textarea": true,
	"iframe": true, "img": true, "picture": true, "video": true, "audio": true, "header": true, "footer": true, "aside": true, "main": true,
	"details": true, "figure": true, "hr": true, "input": true, "select": true, "button": true}

// keepStyledLines replaces each block below n that the styles show line
// for line (see styledCode) by a <pre> holding its lines, and returns the
// words that went with them (line numbers, tooltips).
func keepStyledLines(n *html.Node, st *pagestyle.Styles) (words int) {
	if st.Empty() {
		return 0
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch c.Data {
			case "pre", "textarea", "script", "style", "code", "template", "svg", "math", "table":
				if c.Data == "table" {
					words += keepStyledLines(c, st) // a cell may hold a block of code
				}
			default:
				if styledCode(c, st) {
					words += toPre(c, st)
				} else {
					words += keepStyledLines(c, st)
				}
			}
		}
		c = next
	}
	return words
}

// styledCode reports whether block e is code as the page shows it: it
// holds no other blocks than lines (divs, line breaks) and inline text,
// and either its own styles keep its lines, in a monospace font unless as
// pre does (pre-wrap and pre-line also keep the lines of a user's
// comment), or it is two lines or more that each keep their lines in a
// monospace font (Doxygen's fragment of div.line, beside the hidden
// tooltips its lines show on hover), or it is set in a monospace font of
// its own, apart from its parent's (not a whole page set so), and holds a
// line break.
func styledCode(e *html.Node, st *pagestyle.Styles) bool {
	if !lineBlocks[e.Data] || !styledLines(e, st) {
		return false
	}
	return htmlnode.FirstBelow(e, func(d *html.Node) bool { return notInCode[d.Data] }) == nil && strings.TrimSpace(htmlnode.Text(e)) != ""
}

// styledLines is styledCode's reading of the styles alone (what holds
// the block, blocks and text, is read after, and only then).
func styledLines(e *html.Node, st *pagestyle.Styles) bool {
	mono, own := st.Monospace(e)
	if keeps, pre := st.KeepsLinesOwn(e); keeps && (pre || mono) {
		return true
	}
	lines, kept, text := 0, 0, false
	for c := e.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			text = text || strings.TrimSpace(c.Data) != ""
		case c.Type != html.ElementNode || st.Own(c).Display == "none":
		case c.Data == "br":
			lines++
		case lineBlocks[c.Data] || c.Data == "span" && st.Own(c).Display == "block":
			lines++
			keeps, pre := st.KeepsLinesOwn(c)
			if m, _ := st.Monospace(c); keeps && (pre || m) {
				kept++
			}
		}
	}
	if !text && kept >= 2 && kept == lines {
		return true
	}
	if !mono || !own || lines < 1 {
		return false
	}
	parent, _ := st.Monospace(e.Parent)
	return !parent
}

// toPre replaces e by a <pre> (with e's classes, which may name its
// language) holding e's content as lines: each block inside ends its line,
// a <br> is a line break, and text keeps its white space where the styles
// keep it, else runs of it are one space.
func toPre(e *html.Node, st *pagestyle.Styles) (dropped int) {
	pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
	for _, a := range e.Attr {
		if a.Key == "class" {
			pre.Attr = append(pre.Attr, a)
		}
	}
	dropped = moveLines(e, pre, st)
	for _, n := range lineNumberSel.MatchAll(pre) {
		dropped += htmlnode.Words(n)
		n.Parent.RemoveChild(n)
	}
	trimLineEnds(pre)
	dedent(pre)
	e.Parent.InsertBefore(pre, e)
	e.Parent.RemoveChild(e)
	return dropped
}

// moveLines moves n's content under to as lines (see toPre), and
// returns the words of what it left out (tooltips).
func moveLines(n, to *html.Node, st *pagestyle.Styles) (dropped int) {
	keep := st.KeepsLines(n)
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		switch {
		case c.Type == html.TextNode && keep:
			to.AppendChild(c)
		case c.Type == html.TextNode:
			if strings.TrimSpace(c.Data) == "" && (blockSibling(c.PrevSibling) || blockSibling(next) || c.PrevSibling == nil && next == nil) {
				break // the markup's own line breaks between lines
			}
			c.Data = collapseSpace(c.Data)
			if endsLine(to) {
				c.Data = strings.TrimLeft(c.Data, " ") // a line's start, as a browser shows it
			}
			to.AppendChild(c)
		case c.Type != html.ElementNode || st.Own(c).Display == "none":
			dropped += htmlnode.Words(c) // not a line: a tooltip shown on hover
		case c.Data == "br":
			appendText(to, "\n")
		case lineBlocks[c.Data] || c.Data == "span" && st.Own(c).Display == "block":
			if !endsLine(to) {
				appendText(to, "\n")
			}
			dropped += moveLines(c, to, st)
			appendText(to, "\n")
		default:
			brAsText(c)
			to.AppendChild(c)
		}
		c = next
	}
	return dropped
}

// trimLineEnds removes the spaces that end lines of the text below n
// (an empty line of a listing holds one): a reader sees none.
func trimLineEnds(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.Contains(c.Data, "\n") {
			c.Data = lineEnd.ReplaceAllString(c.Data, "\n")
		}
		trimLineEnds(c)
	}
}

var lineEnd = regexp.MustCompile(`[ \t]+\n`)

// lineNumberSel finds a listing's line numbers (see lineNumbers).
var lineNumberSel = cascadia.MustCompile(lineNumbers)

// dedent removes the white space every line of the text below n starts
// with (the space a listing sets between its line numbers and its code),
// blank lines aside.
func dedent(n *html.Node) {
	var texts []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				c.Data = strings.ReplaceAll(c.Data, "\u00a0", " ") // as markdown has it (invisible)
				texts = append(texts, c)
			}
			walk(c)
		}
	}
	walk(n)
	var all strings.Builder
	for _, t := range texts {
		all.WriteString(t.Data)
	}
	common := -1
	for _, line := range strings.Split(all.String(), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if common < 0 || indent < common {
			common = indent
		}
	}
	if common <= 0 {
		return
	}
	// Each line's first common bytes are white space: drop them, across
	// the texts the line runs through.
	drop := common
	for _, t := range texts {
		var b strings.Builder
		for i := 0; i < len(t.Data); i++ {
			c := t.Data[i]
			switch {
			case c == '\n':
				drop = common
				b.WriteByte(c)
			case drop > 0 && (c == ' ' || c == '\t'):
				drop--
			default:
				drop = 0
				b.WriteByte(c)
			}
		}
		t.Data = b.String()
	}
}

// blockSibling reports whether n is a line of its own.
func blockSibling(n *html.Node) bool {
	return n != nil && n.Type == html.ElementNode && (lineBlocks[n.Data] || n.Data == "br")
}

// endsLine reports whether what to holds is nothing or ends a line.
func endsLine(to *html.Node) bool {
	last := to.LastChild
	for last != nil && last.Type == html.ElementNode && last.LastChild != nil {
		last = last.LastChild
	}
	return last == nil || last.Type == html.TextNode && strings.HasSuffix(last.Data, "\n")
}

func appendText(to *html.Node, s string) {
	if last := to.LastChild; last != nil && last.Type == html.TextNode {
		last.Data += s
		return
	}
	to.AppendChild(&html.Node{Type: html.TextNode, Data: s})
}

// brAsText replaces the line breaks below n by newlines.
func brAsText(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && c.Data == "br" {
			n.InsertBefore(&html.Node{Type: html.TextNode, Data: "\n"}, c)
			n.RemoveChild(c)
		} else {
			brAsText(c)
		}
		c = next
	}
}

// collapseSpace makes each run of white space in s one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// styledTables turns the elements below n that the styles lay out as a
// table (display: table, its rows table-row, their cells table-cell;
// rows may stand in row groups) into the table's elements, so that they
// are read as any table is: as data, or as layout whose cells' blocks
// are kept (unwrapLayoutTables). A grid whose rows hold anything else
// than cells is left as it is.
func styledTables(n *html.Node, st *pagestyle.Styles) {
	if st.Empty() {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if d := st.Own(c).Display; (d == "table" || d == "inline-table") && c.Data != "table" {
			if rows := styledRows(c, st); len(rows) > 0 {
				retag(c, atom.Table)
				for _, r := range rows {
					retag(r.row, atom.Tr)
					for _, cell := range r.cells {
						if r.head {
							retag(cell, atom.Th)
						} else {
							retag(cell, atom.Td)
						}
					}
				}
			}
		}
		styledTables(c, st)
	}
}

// styledRow is a row of a styled table and its cells; head is set in a
// header group.
type styledRow struct {
	row   *html.Node
	cells []*html.Node
	head  bool
}

// styledRows are the rows of styled table t, or none when t holds
// anything else with text than rows (and row groups of rows), or a row
// anything else than cells.
func styledRows(t *html.Node, st *pagestyle.Styles) []styledRow {
	var rows []styledRow
	var groups []*html.Node
	var read func(parent *html.Node, head bool) bool
	read = func(parent *html.Node, head bool) bool {
		for c := parent.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
				return false
			}
			if c.Type != html.ElementNode {
				continue
			}
			switch st.Own(c).Display {
			case "table-row-group", "table-footer-group":
				if !read(c, false) {
					return false
				}
				groups = append(groups, c)
			case "table-header-group":
				if !read(c, true) {
					return false
				}
				groups = append(groups, c)
			case "table-row":
				r := styledRow{row: c, head: head}
				for cell := c.FirstChild; cell != nil; cell = cell.NextSibling {
					switch {
					case cell.Type == html.TextNode && strings.TrimSpace(cell.Data) != "":
						return false
					case cell.Type != html.ElementNode:
					case st.Own(cell).Display == "table-cell":
						r.cells = append(r.cells, cell)
					case strings.TrimSpace(htmlnode.Text(cell)) != "":
						return false
					}
				}
				rows = append(rows, r)
			case "none", "table-caption", "table-column", "table-column-group":
			default:
				if strings.TrimSpace(htmlnode.Text(c)) != "" {
					return false
				}
			}
		}
		return true
	}
	if !read(t, false) {
		return nil
	}
	for _, g := range groups {
		retag(g, atom.Tbody) // a header group's cells are headers
	}
	return rows
}

// retag makes n an element of another tag, its attributes kept.
func retag(n *html.Node, a atom.Atom) {
	n.DataAtom, n.Data = a, a.String()
}

// separateBoxes sets a space between the children of an element that the
// styles lay out as a flex or grid container, and after an inline element
// they lay out as a box of its own (block, inline-block, flex): each is a
// box of its own, and a reader sees their words apart ("1989" "2h 7m"),
// where the markup alone would run them together.
func separateBoxes(n *html.Node, st *pagestyle.Styles) {
	if st.Empty() {
		return
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		container := false
		switch st.Own(n).Display {
		case "flex", "inline-flex", "grid", "inline-grid":
			container = n.Data != "pre" && n.Data != "code"
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Data == "pre" || c.Data == "code" {
				continue
			}
			walk(c)
			next := c.NextSibling
			if next == nil || next.Type != html.ElementNode {
				continue
			}
			if container || boxed(st.Own(c).Display) || boxed(st.Own(next).Display) {
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, next)
			}
		}
	}
	walk(n)
}

// boxed reports whether display lays an element out as a box of its own.
func boxed(display string) bool {
	switch display {
	case "block", "inline-block", "flex", "inline-flex", "grid", "inline-grid", "list-item", "table", "table-cell":
		return true
	}
	return false
}

// separateCaseJoins sets a space between two elements side by side, or an
// element and text beside it, when nothing separates them and the first
// ends in a small letter or a digit and the second opens with a capital
// ("80" "MSRP", "Primus" "Moja"): a word does not turn to a capital in
// its middle, so these are two boxes a reader sees apart, laid out by
// styles the page may not have sent (a card's price and its label, a
// brand and a product's name). Code is left as it is.
func separateCaseJoins(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !codeLike(c) {
			separateCaseJoins(c)
		}
		next := c.NextSibling
		if next == nil || c.Type != html.ElementNode && next.Type != html.ElementNode {
			continue
		}
		if asWritten(c) || asWritten(next) {
			continue
		}
		last, ok := edgeRune(c, true)
		if !ok || !(unicode.IsLower(last) || unicode.IsDigit(last)) {
			continue
		}
		first, ok := edgeRune(next, false)
		if ok && unicode.IsUpper(first) {
			n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, next)
		}
	}
}

// asWritten reports whether n is an element whose edges separateCaseJoins
// leaves as they are: code, and blocks, which are written apart anyway.
func asWritten(n *html.Node) bool {
	return n.Type == html.ElementNode && (codeLike(n) || !htmlnode.IsInline(n))
}

// codeLike reports whether n is code, or text that is not read.
func codeLike(n *html.Node) bool {
	switch n.Data {
	case "pre", "code", "kbd", "samp", "var", "script", "style", "textarea":
		return true
	}
	return false
}

// edgeRune is the last (or first) character of the text below n, and
// false when that is a space or there is none, or lies deeper than
// maxEdgeDepth elements below n.
func edgeRune(n *html.Node, last bool) (rune, bool) {
	return edgeRuneAt(n, last, 0)
}

// maxEdgeDepth is how deep edgeRune looks for a character.
const maxEdgeDepth = 32

func edgeRuneAt(n *html.Node, last bool, depth int) (rune, bool) {
	if depth > maxEdgeDepth {
		return 0, false
	}
	switch n.Type {
	case html.TextNode:
		if n.Data == "" {
			return 0, false
		}
		var r rune
		if last {
			r, _ = utf8.DecodeLastRuneInString(n.Data)
		} else {
			r, _ = utf8.DecodeRuneInString(n.Data)
		}
		return r, !unicode.IsSpace(r)
	case html.ElementNode:
		if htmlnode.NeverTags[n.Data] || n.Data == "br" || n.Data == "img" {
			return 0, false
		}
		c := n.FirstChild
		if last {
			c = n.LastChild
		}
		for c != nil {
			if c.Type == html.TextNode && c.Data == "" || c.Type == html.CommentNode {
				if last {
					c = c.PrevSibling
				} else {
					c = c.NextSibling
				}
				continue
			}
			return edgeRuneAt(c, last, depth+1)
		}
	}
	return 0, false
}
