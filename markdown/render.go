package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// The service writes its markdown itself, in one walk over the tree it
// has already cleaned and narrowed: CommonMark with pipe tables. Each
// element is written where the page has it, so words, links, code and
// emphasis keep their order and spacing. How it reads:
//
//   - A block container (div, section, p, …) ends the paragraph before
//     it and after it; blocks are separated by one blank line.
//   - Inline content is collected into a paragraph (para): white space
//     collapses as a browser collapses it, a space or line break is
//     written only before the next word, and an emphasis or link mark is
//     written only once its first word is, so that "<em> word </em>"
//     becomes " *word* " and an empty one leaves nothing.
//   - Headings are ATX (#), code blocks fenced with their language, list
//     items "-" or "N." with their blocks indented under the marker,
//     quotes "> ", rules "* * *", line breaks two spaces and a newline
//     ("<br />" in a table cell).
//   - Text is escaped only where markdown would read it as markup (see
//     appendText).

// renderNodes writes the markdown of each node (a body, a chosen
// element), one after the other.
func renderNodes(nodes []*html.Node) string {
	var r renderer
	var out blocks
	var p para
	for _, n := range nodes {
		r.node(n, &out, &p)
		out.add(r.finish(&p))
	}
	return out.b.String()
}

// renderer holds what the walk is inside of.
type renderer struct {
	strong, em int // emphasis open around the walk (nested ones add no marks)
	inLink     int // links open (a link inside a link keeps its text only)
	cell       bool
	heading    bool
}

// blocks collects the blocks of a container, one blank line apart.
type blocks struct{ b strings.Builder }

func (o *blocks) add(s string) {
	if s == "" {
		return
	}
	if o.b.Len() > 0 {
		o.b.WriteString("\n\n")
	}
	o.b.WriteString(s)
}

// para is the paragraph being written.
type para struct {
	b     []byte
	line  int      // where the current line starts in b
	space bool     // a space is due before the next word
	brk   bool     // a line break is due before the next word
	opens []string // marks opened whose first word is yet to come
}

// ownBlocks are the elements written as one markdown block of their own;
// every other element of blockTags is a container: it ends the paragraph
// before it and starts a new one after it.
var ownBlocks = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"pre": true, "ul": true, "ol": true, "dir": true, "blockquote": true, "table": true, "hr": true}

// controls are a form's fields: what they hold is choices, not text.
var controls = map[string]bool{"input": true, "select": true, "option": true, "optgroup": true, "datalist": true,
	"textarea": true, "button": true}

// isBlock reports whether n is an element that breaks a paragraph.
func isBlock(n *html.Node) bool {
	return n.Type == html.ElementNode && htmlnode.BlockTags[n.Data]
}

// hasBlock reports whether an element below n breaks a paragraph.
func hasBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !controls[c.Data] && (isBlock(c) || hasBlock(c)) {
			return true
		}
	}
	return false
}

// node writes n into the blocks out, its inline content into p.
func (r *renderer) node(n *html.Node, out *blocks, p *para) {
	switch {
	case n.Type == html.TextNode:
		r.text(p, n.Data)
	case n.Type == html.DocumentNode:
		r.children(n, out, p)
	case n.Type != html.ElementNode, controls[n.Data]:
	case ownBlocks[n.Data]:
		out.add(r.finish(p))
		out.add(r.block(n))
	case htmlnode.BlockTags[n.Data]:
		out.add(r.finish(p))
		r.children(n, out, p)
		out.add(r.finish(p))
	case n.Data == "a" || !hasBlock(n):
		r.inline(p, n)
	default: // an inline element around blocks: its blocks are what count
		out.add(r.finish(p))
		r.children(n, out, p)
		out.add(r.finish(p))
	}
}

func (r *renderer) children(n *html.Node, out *blocks, p *para) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c, out, p)
	}
}

// blocksOf writes the content of n as blocks.
func (r *renderer) blocksOf(n *html.Node) string {
	var out blocks
	var p para
	r.children(n, &out, &p)
	out.add(r.finish(&p))
	return out.b.String()
}

// block writes one element of blockTags.
func (r *renderer) block(n *html.Node) string {
	switch n.Data {
	case "pre":
		return codeBlock(n)
	case "ul", "ol", "dir":
		return r.list(n)
	case "blockquote":
		return prefixLines(r.blocksOf(n), "> ", "> ", ">")
	case "table":
		return r.table(n)
	case "hr":
		return "* * *"
	}
	// A heading: one line.
	level := int(n.Data[1] - '0')
	r.heading = true
	var p para
	r.inlineChildren(&p, n)
	r.heading = false
	text := r.finish(&p)
	if text == "" {
		return ""
	}
	// A last word of only "#" would be read as the heading's closing marks.
	if i := strings.LastIndexByte(text, ' '); i >= 0 && strings.Trim(text[i+1:], "#") == "" {
		text = text[:i+1] + `\` + text[i+1:]
	}
	return strings.Repeat("#", level) + " " + text
}

// finish ends the paragraph p and returns it; what was due (a space, a
// break, marks without words) is dropped.
func (r *renderer) finish(p *para) string {
	s := string(p.b)
	*p = para{b: p.b[:0], opens: p.opens[:0]}
	return s
}

// inlineChildren writes the children of n as inline content.
func (r *renderer) inlineChildren(p *para, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			r.text(p, c.Data)
		case html.ElementNode:
			r.inline(p, c)
		}
	}
}

// inline writes element n as inline content. Blocks met here (inside a
// link, a table cell or a heading) are set apart by spaces.
func (r *renderer) inline(p *para, n *html.Node) {
	switch n.Data {
	case "br":
		if r.heading {
			p.space = true
		} else {
			p.brk = true
		}
	case "img":
		src := htmlnode.Attr(n, "src")
		if src == "" {
			return
		}
		alt := strings.Join(strings.Fields(invisible.Replace(htmlnode.Attr(n, "alt"))), " ")
		alt = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(alt)
		r.word(p, "!["+alt+"]("+destination(src)+")")
	case "code", "kbd", "samp", "tt", "var":
		r.codeSpan(p, n)
	case "em", "i":
		r.wrap(p, n, "*", &r.em)
	case "strong", "b":
		r.wrap(p, n, "**", &r.strong)
	case "a":
		r.link(p, n)
	case "input", "select", "option", "optgroup", "datalist", "textarea", "button":
	case "pre":
		p.space = true
		r.codeSpan(p, n)
		p.space = true
	default:
		if isBlock(n) {
			p.space = true
			r.inlineChildren(p, n)
			p.space = true
			return
		}
		r.inlineChildren(p, n)
	}
}

// wrap writes n between mark and mark, unless the same emphasis is open
// around it already.
func (r *renderer) wrap(p *para, n *html.Node, mark string, depth *int) {
	if *depth > 0 {
		r.inlineChildren(p, n)
		return
	}
	*depth++
	at := len(p.opens)
	p.opens = append(p.opens, mark)
	r.inlineChildren(p, n)
	*depth--
	if len(p.opens) > at { // no word came: no marks
		p.opens = p.opens[:at]
		return
	}
	p.b = append(p.b, mark...)
}

// link writes an <a> as [text](href); one without an address, or inside
// another link, keeps its text only.
func (r *renderer) link(p *para, n *html.Node) {
	href := strings.TrimSpace(htmlnode.Attr(n, "href"))
	if href == "" || r.inLink > 0 {
		r.inlineChildren(p, n)
		return
	}
	r.inLink++
	at := len(p.opens)
	p.opens = append(p.opens, "[")
	r.inlineChildren(p, n)
	r.inLink--
	if len(p.opens) > at {
		p.opens = p.opens[:at]
		return
	}
	p.b = append(p.b, "]("...)
	p.b = append(p.b, destination(href)...)
	p.b = append(p.b, ')')
}

// destination writes a link's address so that markdown reads it whole.
var destination = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "[", "%5B", "]", "%5D", "<", "%3C", ">", "%3E", "\n", "", "\t", "").Replace

// codeSpan writes the text of n as inline code.
func (r *renderer) codeSpan(p *para, n *html.Node) {
	raw := invisible.Replace(htmlnode.Text(n))
	text := strings.Join(strings.FieldsFunc(raw, isHTMLSpace), " ")
	if text == "" {
		if raw != "" {
			p.space = true
		}
		return
	}
	if isHTMLSpace(rune(raw[0])) {
		p.space = true
	}
	// The fence is one backtick longer than the longest run inside.
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if text[0] == '`' || text[len(text)-1] == '`' {
		text = " " + text + " "
	}
	r.word(p, fence+text+fence)
	if isHTMLSpace(rune(raw[len(raw)-1])) {
		p.space = true
	}
}

// isHTMLSpace reports the characters HTML collapses.
func isHTMLSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// due writes what is due before a word: the line break or space, then
// the marks opened. It reports whether the word starts a line.
func (r *renderer) due(p *para) bool {
	if p.brk && len(p.b) > p.line {
		if r.cell {
			p.b = append(p.b, "<br />"...)
		} else {
			p.b = append(p.b, "  \n"...)
			p.line = len(p.b)
		}
		p.space = false
	}
	p.brk = false
	if p.space && len(p.b) > p.line {
		p.b = append(p.b, ' ')
	}
	p.space = false
	start := len(p.b) == p.line && len(p.opens) == 0
	for _, m := range p.opens {
		p.b = append(p.b, m...)
	}
	p.opens = p.opens[:0]
	return start
}

// word writes markup (a code span, an image) as one word.
func (r *renderer) word(p *para, s string) {
	r.due(p)
	p.b = append(p.b, s...)
}

// text writes a text node: white space collapsed, the rest escaped.
func (r *renderer) text(p *para, s string) {
	for i := 0; i < len(s); {
		if n := spaceAt(s, i); n > 0 {
			p.space = true
			i += n
			continue
		}
		j, hidden := i, false
		for j < len(s) && spaceAt(s, j) == 0 {
			hidden = hidden || s[j] >= 0xC2 && invisibleAt(s, j)
			j++
		}
		w := s[i:j]
		i = j
		if hidden {
			if w = invisible.Replace(w); w == "" {
				continue
			}
		}
		start := r.due(p)
		p.b = r.appendText(p.b, w, start)
	}
}

// spaceAt is the length of the white space HTML collapses at s[i] (a
// no-break space counts: in markdown it is a space), or 0.
func spaceAt(s string, i int) int {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '\f':
		return 1
	case 0xC2:
		if i+1 < len(s) && s[i+1] == 0xA0 {
			return 2
		}
	}
	return 0
}

// invisibleAt reports whether one of the characters invisible removes
// (a soft hyphen, a zero-width space or joiner, a byte order mark) starts
// at s[i].
func invisibleAt(s string, i int) bool {
	switch s[i] {
	case 0xC2:
		return i+1 < len(s) && s[i+1] == 0xAD
	case 0xE2:
		return i+2 < len(s) && s[i+1] == 0x80 && s[i+2] >= 0x8B && s[i+2] <= 0x8D
	case 0xEF:
		return i+2 < len(s) && s[i+1] == 0xBB && s[i+2] == 0xBF
	}
	return false
}

// markupBytes are the bytes appendText may escape.
var markupBytes = func() (t [256]bool) {
	for _, c := range []byte("\\`*_[]<&|") {
		t[c] = true
	}
	return t
}()

// appendText writes one word of text, escaped where markdown would read
// it as markup: at the start of a line, what would open a heading, a list
// item, a quote, a rule or a code fence; anywhere, backticks, asterisks
// and underscores that could be emphasis, a bracket that would make a
// link, "<" before what could be a tag, "&" before what could be an
// entity, a backslash before punctuation, and "|" in a table cell.
func (r *renderer) appendText(b []byte, w string, lineStart bool) []byte {
	if lineStart && !r.cell {
		switch {
		case len(w) <= 6 && strings.Trim(w, "#") == "",
			w == "-" || w == "+" || w == "*",
			strings.Trim(w, "-") == "" || strings.Trim(w, "=") == "",
			w[0] == '>', strings.HasPrefix(w, "~~~"):
			b = append(b, '\\')
		default:
			if k := strings.IndexFunc(w, func(c rune) bool { return c < '0' || c > '9' }); k > 0 && k <= 9 && k == len(w)-1 && (w[k] == '.' || w[k] == ')') {
				b = append(b, w[:k]...)
				return append(b, '\\', w[k])
			}
		}
	}
	plain := true
	for i := 0; i < len(w) && plain; i++ {
		plain = !markupBytes[w[i]]
	}
	if plain {
		return append(b, w...)
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch c {
		case '\\':
			if isASCIIPunct(next) {
				b = append(b, '\\')
			}
		case '`':
			b = append(b, '\\')
		case '*':
			if len(w) > 1 {
				b = append(b, '\\')
			}
		case '_':
			if i == 0 || i+1 == len(w) || !wordByte(w[i-1]) || !wordByte(next) {
				b = append(b, '\\')
			}
		case '[':
			if r.inLink > 0 {
				b = append(b, '\\')
			}
		case ']':
			if r.inLink > 0 || next == '(' || next == '[' || next == ':' {
				b = append(b, '\\')
			}
		case '<':
			if isASCIILetter(next) || next == '/' || next == '!' || next == '?' {
				b = append(b, '\\')
			}
		case '&':
			if entityAt(w[i+1:]) {
				b = append(b, '\\')
			}
		case '|':
			if r.cell {
				b = append(b, '\\')
			}
		}
		b = append(b, c)
	}
	return b
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// wordByte reports a byte of a word: a letter or digit, or part of a
// character beyond ASCII. An underscore between two of them is not
// emphasis.
func wordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c >= 0x80 }

// entityAt reports whether s (what follows an "&") reads as an entity:
// a name, #digits or #xhex, then ";".
func entityAt(s string) bool {
	end := strings.IndexByte(s, ';')
	if end < 1 || end > 32 {
		return false
	}
	name := s[:end]
	if name[0] == '#' {
		name = strings.TrimPrefix(strings.TrimPrefix(name[1:], "x"), "X")
	}
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isASCIILetter(name[i]) && (name[i] < '0' || name[i] > '9') {
			return false
		}
	}
	return true
}

// codeBlock writes a <pre> as a fenced code block, with the language
// codeLanguages found (a language-X class on its <code>).
func codeBlock(pre *html.Node) string {
	text := invisible.Replace(htmlnode.Text(pre))
	text = strings.TrimRight(strings.TrimLeft(text, "\r\n"), " \t\r\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	lang := ""
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "code" {
			for _, f := range strings.Fields(htmlnode.Attr(c, "class")) {
				if l, ok := strings.CutPrefix(f, "language-"); ok {
					lang = l
					break
				}
			}
			break
		}
	}
	// The fence is longer than any run of backticks the code starts a
	// line with.
	fence := 3
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimLeft(l, " \t")
		n := len(l) - len(strings.TrimLeft(l, "`"))
		fence = max(fence, n+1)
	}
	f := strings.Repeat("`", fence)
	return f + lang + "\n" + text + "\n" + f
}

// list writes a <ul> or <ol>: one item a line, the blocks of an item
// after its first one blank line apart and indented under its marker. A
// list or other element placed in the list outside an item joins the
// item before it.
func (r *renderer) list(n *html.Node) string {
	number := 1
	if s, err := strconv.Atoi(strings.TrimSpace(htmlnode.Attr(n, "start"))); err == nil && s >= 0 {
		number = s
	}
	var out strings.Builder
	indent := ""
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "li" {
			marker := "- "
			if n.Data == "ol" {
				marker = strconv.Itoa(number) + ". "
				number++
			}
			text := r.blocksOf(c)
			if text == "" {
				continue
			}
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			indent = strings.Repeat(" ", len(marker))
			out.WriteString(prefixLines(text, marker, indent, ""))
			continue
		}
		if c.Type != html.ElementNode && (c.Type != html.TextNode || strings.TrimSpace(c.Data) == "") {
			continue
		}
		var stray blocks
		var p para
		r.node(c, &stray, &p)
		stray.add(r.finish(&p))
		text := stray.b.String()
		switch {
		case text == "":
		case out.Len() == 0:
			indent = "  "
			out.WriteString(prefixLines(text, "- ", indent, ""))
		default:
			out.WriteString("\n\n")
			out.WriteString(prefixLines(text, indent, indent, ""))
		}
	}
	return out.String()
}

// prefixLines puts first before the first line of s, rest before each
// line after it, and empty before each empty line.
func prefixLines(s, first, rest, empty string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s) + len(rest)*strings.Count(s, "\n") + len(first))
	for i, l := range strings.Split(s, "\n") {
		switch {
		case i > 0:
			b.WriteByte('\n')
			if l == "" {
				b.WriteString(empty)
			} else {
				b.WriteString(rest)
			}
		default:
			b.WriteString(first)
		}
		b.WriteString(l)
	}
	return b.String()
}

// table writes a table of data as a pipe table: its first row is the
// header (markdown has no table without one), a cell spanning columns
// or rows is followed by empty ones, and a caption is a paragraph before
// it.
func (r *renderer) table(t *html.Node) string {
	rows, caption := r.tableRows(t)
	if len(rows) == 0 {
		return caption
	}
	if caption != "" {
		return caption + "\n\n" + pipeTable(rows)
	}
	return pipeTable(rows)
}

// tableRows reads the rows of table t, each cell's content on one line,
// and its caption.
func (r *renderer) tableRows(t *html.Node) (rows [][]string, caption string) {
	spans := map[int]int{} // column → rows still covered by a cell above
	row := func(tr *html.Node) {
		var cells []string
		col := 0
		covered := func() {
			for spans[col] > 0 {
				spans[col]--
				cells = append(cells, "")
				col++
			}
		}
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Data != "td" && c.Data != "th" {
				continue
			}
			covered()
			cells = append(cells, r.cellText(c))
			width := 1
			if n, err := strconv.Atoi(htmlnode.Attr(c, "colspan")); err == nil && n > 1 && n < 100 {
				width = n
			}
			down := 0
			if n, err := strconv.Atoi(htmlnode.Attr(c, "rowspan")); err == nil && n > 1 && n < 1000 {
				down = n - 1
			}
			for k := 0; k < width; k++ {
				if k > 0 {
					cells = append(cells, "")
				}
				if down > 0 {
					spans[col] = down
				}
				col++
			}
		}
		covered()
		if len(cells) > 0 {
			rows = append(rows, cells)
		}
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "tr":
				row(c)
			case "thead", "tbody", "tfoot":
				walk(c)
			case "caption":
				caption = r.blocksOf(c)
			}
		}
	}
	walk(t)
	return rows, caption
}

// pipeTable writes rows as a pipe table, the first row its header, each
// column padded to its widest cell.
func pipeTable(rows [][]string) string {
	columns := 0
	for _, cells := range rows {
		columns = max(columns, len(cells))
	}
	widths := make([]int, columns)
	for _, cells := range rows {
		for i, c := range cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for i, cells := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte('|')
		for k, w := range widths {
			c := ""
			if k < len(cells) {
				c = cells[k]
			}
			b.WriteByte(' ')
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", w-utf8.RuneCountInString(c)+1))
			b.WriteByte('|')
		}
		if i == 0 {
			b.WriteString("\n|")
			for _, w := range widths {
				b.WriteString(strings.Repeat("-", w+2))
				b.WriteByte('|')
			}
		}
	}
	return b.String()
}

// cellText writes a table cell's content on one line.
func (r *renderer) cellText(c *html.Node) string {
	was := r.cell
	r.cell = true
	var p para
	r.inlineChildren(&p, c)
	r.cell = was
	return r.finish(&p)
}
