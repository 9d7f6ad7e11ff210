// Package pdfdoc turns PDF documents into markdown: text in reading order,
// headings where the document sets lines in a larger type than its body,
// paragraphs rejoined across line breaks (and hyphenated words across
// lines), running headers, footers and page numbers left out, and a
// marker at the start of each page of a document of several
// (<!-- page N -->).
//
// The text and its positions come from PDFium, Chrome's PDF engine, run
// as WebAssembly inside the process (no cgo, no file system, no program
// on the machine): it reads the fonts, encodings and encryption real
// documents use, and a broken document is an error, never a crash.
// docs/pdf.md says how it was chosen over the others measured.
package pdfdoc

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a run of text on one line, in one font, with its box in points
// from the page's bottom left corner (PDF's own coordinates).
type Span struct {
	Text                     string
	Left, Right, Bottom, Top float64
	Size                     float64
}

// Page is the text of one page.
type Page struct {
	Width, Height float64
	Spans         []Span
	// Unreadable marks a page the engine could not read: its marker
	// says so.
	Unreadable bool
}

// line is a row of spans read left to right.
type line struct {
	text        string
	top, bottom float64
	left        float64
	size        float64 // the largest font size on it
	// cells are the line's runs of text set apart by wide gaps, and
	// lefts where each starts: a table's row has two or more.
	cells []string
	lefts []float64
	// region is the part of the page the line is read in (see regions):
	// tables do not run from one to the next, nor do paragraphs, but
	// where flows is set: the first line of a right-hand column, which may
	// go on with the left-hand column's last paragraph.
	region int
	flows  bool
}

// Markdown lays pages out as markdown (see the package comment).
func Markdown(pages []Page) string {
	lines := make([][]line, len(pages))
	for i, p := range pages {
		lines[i] = linesOf(p)
	}
	dropRunning(lines, pages)
	body := bodySize(lines)
	levels := headingLevels(lines, body)
	var b strings.Builder
	for i, ls := range lines {
		if len(pages) > 1 {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "<!-- page %d -->", i+1)
		}
		if pages[i].Unreadable {
			b.WriteString("\n\n<!-- this page could not be read -->")
			continue
		}
		for _, block := range layout(ls, body) {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			if block.table != "" {
				b.WriteString(block.table)
				continue
			}
			if lvl, ok := levels[sizeKey(block.size)]; ok && body > 0 && isHeading(block, body) {
				b.WriteString(strings.Repeat("#", lvl) + " " + block.text)
				continue
			}
			if isItem(block.text) {
				b.WriteString(item(block.text))
				continue
			}
			b.WriteString(escapeStart(block.text))
		}
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// linesOf groups a page's spans into lines, top to bottom (see rowsOf),
// read region by region (see regions).
func linesOf(p Page) []line {
	spans := make([]Span, 0, len(p.Spans))
	for _, s := range p.Spans {
		if strings.TrimSpace(s.Text) != "" && s.Top > s.Bottom {
			spans = append(spans, s)
		}
	}
	var out []line
	first := map[int]int{} // a region's first line
	for r, reg := range regions(spans, p.Width) {
		first[r] = -1
		for _, row := range rowsOf(reg.spans) {
			if l := lineOf(row); l.text != "" {
				l.region, l.flows = r, false
				if first[r] < 0 {
					first[r] = len(out)
					// The top of a right-hand column may go on with the
					// paragraph that ends its left-hand one.
					l.flows = reg.flowsFrom >= 0 && len(out) > 0 && out[len(out)-1].region == reg.flowsFrom
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// rowsOf groups spans into rows, top to bottom: spans whose vertical
// middles lie within half a line of each other.
func rowsOf(spans []Span) [][]Span {
	spans = append([]Span(nil), spans...)
	sort.SliceStable(spans, func(i, j int) bool { return mid(spans[i]) > mid(spans[j]) })
	var rows [][]Span
	for _, s := range spans {
		if n := len(rows); n > 0 {
			last := rows[n-1]
			ref := last[0]
			if math.Abs(mid(s)-mid(ref)) <= 0.5*math.Min(s.Top-s.Bottom, ref.Top-ref.Bottom) {
				rows[n-1] = append(last, s)
				continue
			}
		}
		rows = append(rows, []Span{s})
	}
	return rows
}

// lineOf reads a row's spans left to right into a line.
func lineOf(row []Span) line {
	sort.SliceStable(row, func(i, j int) bool { return row[i].Left < row[j].Left })
	var b strings.Builder
	l := line{top: row[0].Top, bottom: row[0].Bottom, left: row[0].Left}
	prevRight, prevSpace := math.Inf(-1), false
	var cell strings.Builder
	endCell := func() {
		if t := strings.TrimSpace(cell.String()); t != "" {
			l.cells = append(l.cells, t)
		}
		cell.Reset()
	}
	for _, s := range row {
		// PDFium gives a hyphen at a line's end as U+0002.
		text := strings.Join(strings.Fields(strings.ReplaceAll(s.Text, "\u0002", "-")), " ")
		// A space between two runs: one of them has it, or there is
		// room for one between them; a wide gap starts a cell.
		space := prevSpace || unicode.IsSpace(firstRune(s.Text)) || s.Left-prevRight > 0.2*s.Size
		if s.Left-prevRight > cellGap*s.Size {
			endCell()
		}
		if cell.Len() == 0 {
			l.lefts = append(l.lefts, s.Left)
		} else if space {
			cell.WriteByte(' ')
		}
		cell.WriteString(text)
		if b.Len() > 0 && space {
			b.WriteByte(' ')
		}
		b.WriteString(text)
		r, _ := utf8.DecodeLastRuneInString(s.Text)
		prevRight, prevSpace = s.Right, unicode.IsSpace(r)
		l.top, l.bottom = math.Max(l.top, s.Top), math.Min(l.bottom, s.Bottom)
		l.size = math.Max(l.size, s.Size)
	}
	endCell()
	if len(l.lefts) > len(l.cells) {
		l.lefts = l.lefts[:len(l.cells)]
	}
	l.text = strings.TrimSpace(b.String())
	return l
}

// region is a part of a page read as a whole. flowsFrom is, for a
// right-hand column, the index of the left-hand one before it in the
// same band, whose last paragraph may go on at its top; -1 otherwise.
type region struct {
	spans     []Span
	flowsFrom int
}

// regions splits a page's spans into the parts read one after another.
// A page in one column is one region. On a page set in two columns (see
// gutter), the rows that cross the gutter (a title, an abstract, a wide
// figure, a centred page number) cut the page into bands, and each band
// is read as its left column, then its right one, before the crossing
// row under it.
func regions(spans []Span, width float64) []region {
	rows := rowsOf(spans)
	x, ok := gutter(rows, width)
	if !ok {
		return []region{{spans: spans, flowsFrom: -1}}
	}
	var out []region
	var left, right []Span
	flush := func() {
		l := -1
		if len(left) > 0 {
			out = append(out, region{spans: left, flowsFrom: -1})
			l = len(out) - 1
		}
		if len(right) > 0 {
			out = append(out, region{spans: right, flowsFrom: l})
		}
		left, right = nil, nil
	}
	for _, row := range rows {
		if crosses(row, x) {
			flush()
			out = append(out, region{spans: row, flowsFrom: -1})
			continue
		}
		left, right = sides(row, x, left, right)
	}
	flush()
	return out
}

// sides adds a row's spans left of x to left, the others to right.
func sides(row []Span, x float64, left, right []Span) ([]Span, []Span) {
	for _, s := range row {
		if s.Right <= x {
			left = append(left, s)
		} else {
			right = append(right, s)
		}
	}
	return left, right
}

// crosses reports whether a row has text across x.
func crosses(row []Span, x float64) bool {
	for _, s := range row {
		if s.Left < x && s.Right > x {
			return true
		}
	}
	return false
}

// gutter finds the gap between the two columns of a page set in two: the
// middle of the widest stretch, in the middle two fifths of the page, that
// hardly more than the fewest rows cross. It is a gutter only if it is at least a type
// size wide, at most half the rows cross it, and each side holds a column
// of text: five lines or more, a quarter of the page wide or more, most
// lines filling most of its width, few with the wide gaps of a table's
// cells.
func gutter(rows [][]Span, width float64) (float64, bool) {
	if width <= 0 || len(rows) < 10 || width > 1e5 {
		return 0, false
	}
	// cover[x] counts the spans over the point x (a row's spans do not
	// overlap, so it counts rows): one pass over spans, one over points.
	n := int(width) + 2
	diff := make([]int, n+1)
	var sizes []float64
	for _, row := range rows {
		for _, s := range row {
			a, b := max(int(math.Floor(s.Left)), 0), min(int(math.Ceil(s.Right)), n)
			if a < b {
				diff[a]++
				diff[b]--
			}
			sizes = append(sizes, s.Size)
		}
	}
	sort.Float64s(sizes)
	gap := math.Max(sizes[len(sizes)/2], 6) // a type size
	from, to := int(math.Ceil(0.3*width)), int(math.Floor(0.7*width))
	covers := make([]int, 0, to-from+1)
	cover, least := 0, len(rows)+1
	for x := 0; x <= to; x++ {
		cover += diff[x]
		if x >= from {
			covers = append(covers, cover)
			least = min(least, cover)
		}
	}
	// The widest stretch crossed by hardly more rows than the fewest: a
	// title that ends inside the gutter leaves part of it uncrossed.
	limit := least + max(2, len(rows)/10)
	bestX, bestRun, run := 0.0, 0, 0
	for i, c := range covers {
		if c > limit {
			run = 0
			continue
		}
		run++
		if run > bestRun {
			bestRun, bestX = run, float64(from+i)-float64(run-1)/2
		}
	}
	crossing := 0
	for _, row := range rows {
		if crosses(row, bestX) {
			crossing++
		}
	}
	if float64(bestRun) < gap || crossing*2 > len(rows) {
		return 0, false
	}
	var left, right []Span
	for _, row := range rows {
		if !crosses(row, bestX) {
			left, right = sides(row, bestX, left, right)
		}
	}
	if !column(left, width) || !column(right, width) {
		return 0, false
	}
	return bestX, true
}

// column reports whether spans, one side of a page, read as a column of
// text (see gutter).
func column(spans []Span, width float64) bool {
	rows := rowsOf(spans)
	if len(rows) < 5 {
		return false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	widths := make([]float64, 0, len(rows))
	cells := 0
	for _, row := range rows {
		l := lineOf(row)
		r := math.Inf(-1)
		for _, s := range row {
			r = math.Max(r, s.Right)
		}
		lo, hi = math.Min(lo, l.left), math.Max(hi, r)
		widths = append(widths, r-l.left)
		if len(l.cells) > 1 {
			cells++
		}
	}
	if hi-lo < 0.25*width || cells*5 > len(rows) {
		return false
	}
	sort.Float64s(widths)
	return widths[len(widths)/2] >= 0.6*(hi-lo)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func mid(s Span) float64 { return (s.Top + s.Bottom) / 2 }

// pageNumber matches a line that is only a page number ("3", "- 3 -",
// "Page 3", "3 of 10", "iv").
var pageNumber = regexp.MustCompile(`(?i)^[-–— ]*(page\s+)?([0-9]+|[ivxlc]+)(\s*(of|/)\s*[0-9]+)?[-–— ]*$`)

// dropRunning removes running headers and footers: lines in the top or
// bottom tenth of a page that are page numbers, or whose text (digits
// aside) recurs there on at least half the pages of a document of three
// or more.
func dropRunning(lines [][]line, pages []Page) {
	margin := func(l line, p Page) bool {
		h := p.Height
		if h <= 0 {
			return false
		}
		return l.bottom > 0.9*h || l.top < 0.1*h
	}
	// A running head's text, its page numbers aside ("12", "iv",
	// "12 / 63").
	numberLike := regexp.MustCompile(`(?i)^[0-9ivxlcdm/.,:()–—-]+$`)
	key := func(text string) string {
		var kept []string
		for _, w := range strings.Fields(text) {
			if !numberLike.MatchString(w) {
				kept = append(kept, w)
			}
		}
		return strings.Join(kept, " ")
	}
	seen := map[string]int{}
	if len(pages) >= 3 {
		for i, ls := range lines {
			keys := map[string]bool{}
			for _, l := range ls {
				if margin(l, pages[i]) {
					keys[key(l.text)] = true
				}
			}
			for k := range keys {
				seen[k]++
			}
		}
	}
	for i, ls := range lines {
		kept := ls[:0]
		for _, l := range ls {
			if margin(l, pages[i]) && (pageNumber.MatchString(l.text) ||
				len(pages) >= 3 && seen[key(l.text)]*2 >= len(pages)) {
				continue
			}
			kept = append(kept, l)
		}
		lines[i] = kept
	}
}

// sizeKey rounds a font size to half a point.
func sizeKey(s float64) float64 { return math.Round(s*2) / 2 }

// bodySize is the font size most of the text is set in.
func bodySize(lines [][]line) float64 {
	chars := map[float64]int{}
	for _, ls := range lines {
		for _, l := range ls {
			chars[sizeKey(l.size)] += utf8.RuneCountInString(l.text)
		}
	}
	best, most := 0.0, -1
	for s, n := range chars {
		if n > most || n == most && s < best {
			best, most = s, n
		}
	}
	return best
}

// headingLevels numbers the sizes larger than the body's from 1 (the
// largest), up to three levels; the sizes below the third share it.
func headingLevels(lines [][]line, body float64) map[float64]int {
	set := map[float64]bool{}
	if body <= 0 {
		return nil // no size known: no headings
	}
	for _, ls := range lines {
		for _, l := range ls {
			if k := sizeKey(l.size); k >= body*1.15 && len([]rune(l.text)) <= maxHeading {
				set[k] = true
			}
		}
	}
	sizes := make([]float64, 0, len(set))
	for s := range set {
		sizes = append(sizes, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	levels := map[float64]int{}
	for i, s := range sizes {
		levels[s] = min(i+1, 3)
	}
	return levels
}

// maxHeading is the longest text taken for a heading.
const maxHeading = 150

func isHeading(b block, body float64) bool {
	return b.size >= body*1.15 && len([]rune(b.text)) <= maxHeading && b.lines <= 3
}

// block is a paragraph or a heading (lines rejoined), or a table.
type block struct {
	text  string
	size  float64
	lines int
	table string // the table in markdown, when the block is one
}

// cellGap is the gap, in font sizes, that sets a line's cells apart.
const cellGap = 1.5

// layout splits a page's lines into tables and the text around them:
// two or more lines in a row with the same number (two or more) of cells
// starting at the same places, each close under the last, are a table
// whose first row is its header.
func layout(ls []line, body float64) []block {
	var out []block
	start := 0
	for i := 0; i < len(ls); {
		j := i + 1
		for j < len(ls) && sameColumns(ls[j-1], ls[j]) {
			j++
		}
		if j-i >= 2 && len(ls[i].cells) >= 2 {
			out = append(out, blocks(ls[start:i], body)...)
			out = append(out, block{table: table(ls[i:j])})
			start = j
		}
		i = j
	}
	return append(out, blocks(ls[start:], body)...)
}

// sameColumns reports whether b is the next row of a table a is in.
func sameColumns(a, b line) bool {
	if len(a.cells) < 2 || len(a.cells) != len(b.cells) || a.region != b.region {
		return false
	}
	if gap := a.bottom - b.top; gap > 1.5*(a.top-a.bottom) {
		return false
	}
	for k := range a.lefts {
		if math.Abs(a.lefts[k]-b.lefts[k]) > a.size {
			return false
		}
	}
	return true
}

// table writes rows as a markdown table, the first its header.
func table(rows []line) string {
	var b strings.Builder
	for r, row := range rows {
		b.WriteString("|")
		for _, c := range row.cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		if r == 0 {
			b.WriteString("\n|")
			for range row.cells {
				b.WriteString("---|")
			}
		}
		if r < len(rows)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// blocks rejoins a page's lines into paragraphs: a line continues the
// paragraph above when it is set in the same size and follows it within
// about one and a half lines; a word hyphenated at a line's end is joined
// again.
func blocks(ls []line, body float64) []block {
	var out []block
	var prev *line
	for i := range ls {
		l := &ls[i]
		if prev != nil && len(out) > 0 && l.flows && prev.region != l.region && sizeKey(prev.size) == sizeKey(l.size) &&
			!isItem(l.text) && goesOn(prev.text, l.text) {
			b := &out[len(out)-1]
			b.text = joinLines(b.text, l.text)
			b.lines++
			prev = l
			continue
		}
		if prev != nil && len(out) > 0 && prev.region == l.region && sizeKey(prev.size) == sizeKey(l.size) {
			gap := prev.bottom - l.top
			// A line's box is its glyphs' (shorter on a line without
			// capitals), so the type size stands for it when larger.
			height := math.Max(prev.top-prev.bottom, prev.size)
			if gap < 0.9*height && !isItem(l.text) {
				b := &out[len(out)-1]
				b.text = joinLines(b.text, l.text)
				b.lines++
				prev = l
				continue
			}
		}
		out = append(out, block{text: l.text, size: l.size, lines: 1})
		prev = l
	}
	return out
}

// goesOn reports whether line b reads as going on with line a's
// sentence: a ends without a sentence's last mark and b starts in lower
// case.
func goesOn(a, b string) bool {
	last, _ := utf8.DecodeLastRuneInString(a)
	first, _ := utf8.DecodeRuneInString(b)
	return !strings.ContainsRune(".!?:;", last) && unicode.IsLower(first)
}

// bullets are the marks a list item's line starts with.
const bullets = "•●▪◦‣∙·–-*"

// isItem reports whether a line starts a list item: a bullet, or a number
// or letter followed by "." or ")", then a space.
func isItem(text string) bool {
	if rule.MatchString(text) {
		return false // "- - -" is a rule, not an item
	}
	r, n := utf8.DecodeRuneInString(text)
	if strings.ContainsRune(bullets, r) && strings.HasPrefix(text[n:], " ") {
		return true
	}
	return numbered.MatchString(text)
}

var numbered = regexp.MustCompile(`^([0-9]{1,3}|[a-z])[.)] `)

// item writes a list item's line as markdown.
func item(text string) string {
	r, n := utf8.DecodeRuneInString(text)
	if strings.ContainsRune(bullets, r) {
		return "- " + strings.TrimSpace(text[n:])
	}
	return text
}

// joinLines joins a paragraph and its next line: a word hyphenated at the
// line's end is joined without its hyphen when the next line goes on in
// lower case.
func joinLines(a, b string) string {
	if strings.HasSuffix(a, "-") && len(a) > 1 {
		r, _ := utf8.DecodeLastRuneInString(strings.TrimSuffix(a, "-"))
		n, _ := utf8.DecodeRuneInString(b)
		if unicode.IsLetter(r) && unicode.IsLower(n) {
			return strings.TrimSuffix(a, "-") + b
		}
	}
	return a + " " + b
}

// escapeStart keeps a paragraph from being read as markdown syntax it
// does not mean (list items were written as such before): a leading "#",
// ">", "+ " or code fence is escaped, and so is the dot of a leading number too long
// for an item ("2024. A year…"), and a paragraph of only "=", "-", "*"
// or "_" (a heading's underline or a rule).
func escapeStart(text string) string {
	switch {
	case strings.HasPrefix(text, "#"), strings.HasPrefix(text, ">"), strings.HasPrefix(text, "+ "),
		strings.HasPrefix(text, "```"), strings.HasPrefix(text, "~~~"):
		return `\` + text
	case rule.MatchString(text):
		return `\` + text
	}
	if m := longNumber.FindStringIndex(text); m != nil {
		dot := m[1] - 2 // the "." or ")" before the space
		return text[:dot] + `\` + text[dot:]
	}
	return text
}

var (
	rule       = regexp.MustCompile(`^[=*_-][=*_ -]*$`)
	longNumber = regexp.MustCompile(`^[0-9]{4,9}[.)] `)
)
