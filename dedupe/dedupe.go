// Package dedupe keeps the text a large share of a crawl's pages repeat
// (menus, footers, banners) on one page only (deduplicateContent).
//
// A page's markdown is split into blocks: paragraphs, headings, list
// items, table rows, code blocks, and the structure between them (rules,
// table delimiter rows). Each block with text is a fragment, identified by
// the hash of its normalized text. Decide (site.go) finds, for the whole
// crawl, the fragments that are the site's furniture (on a large share of
// its pages) and the one page that keeps each, and Assemble rebuilds one
// page's markdown from what it keeps.
package dedupe

import (
	"crypto/sha256"
	"regexp"
	"sort"
	"strings"
)

// Kind is what a block of markdown is.
type Kind uint8

// Block kinds. Paragraph, Heading, ListItem, TableHeader, TableRow and
// Code are fragments when they hold text; Rule, TableDelimiter and Marker
// (a line that is only an HTML comment, such as a PDF's page marker) are
// structure.
const (
	Paragraph Kind = iota
	Heading
	ListItem
	TableHeader
	TableDelimiter
	TableRow
	Code
	Rule
	Marker
)

// Hash identifies a fragment: the first 16 bytes of the SHA-256 of its
// normalized text. It is an alias, so that hashes pass to the database
// layer as they are.
type Hash = [16]byte

// Block is one block of a page's markdown.
type Block struct {
	Kind Kind
	// Text is the block's lines as they are in the page.
	Text string
	// Level is a heading's level, 1 to 6.
	Level int
	// Fragment is set when the block holds text; Hash is then its hash.
	Fragment bool
	Hash     Hash
	// blankBefore is set when a blank line precedes the block.
	blankBefore bool
}

var (
	atxHeading   = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+|$)`)
	setextLine   = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	marker       = regexp.MustCompile(`^<!--[^>]*-->$`)
	rule         = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	listMarker   = regexp.MustCompile(`^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)`)
	fenceOpen    = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	tableDelim   = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	headingClose = regexp.MustCompile(`[ \t]+#+[ \t]*$`)
)

// Split cuts markdown into its blocks, in order.
func Split(markdown string) []Block {
	lines := strings.Split(strings.ReplaceAll(markdown, "\r\n", "\n"), "\n")
	var blocks []Block
	blank := false
	add := func(b Block) {
		b.blankBefore = blank && len(blocks) > 0
		blank = false
		blocks = append(blocks, b)
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			blank = true
			i++
		case isFence(line):
			fence := fenceOpen.FindStringSubmatch(line)[1]
			end := i + 1
			for end < len(lines) && !closesFence(lines[end], fence) {
				end++
			}
			end = min(end+1, len(lines))
			add(Block{Kind: Code, Text: strings.Join(lines[i:end], "\n")})
			i = end
		case atxHeading.MatchString(line):
			add(Block{Kind: Heading, Level: len(atxHeading.FindStringSubmatch(line)[1]), Text: line})
			i++
		case rule.MatchString(line):
			add(Block{Kind: Rule, Text: line})
			i++
		case marker.MatchString(line):
			add(Block{Kind: Marker, Text: line})
			i++
		case isTableRow(line):
			if i+1 < len(lines) && tableDelim.MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-") {
				add(Block{Kind: TableHeader, Text: line})
				add(Block{Kind: TableDelimiter, Text: lines[i+1]})
				i += 2
				continue
			}
			add(Block{Kind: TableRow, Text: line})
			i++
		case listMarker.MatchString(line):
			end := i + 1
			for end < len(lines) && continues(lines[end]) {
				end++
			}
			add(Block{Kind: ListItem, Text: strings.Join(lines[i:end], "\n")})
			i = end
		default:
			end := i + 1
			for end < len(lines) && continues(lines[end]) && !setextLine.MatchString(lines[end]) {
				end++
			}
			if end < len(lines) && setextLine.MatchString(lines[end]) && !strings.HasPrefix(strings.TrimSpace(line), ">") {
				level := 1
				if strings.Contains(lines[end], "-") {
					level = 2
				}
				add(Block{Kind: Heading, Level: level, Text: strings.Join(lines[i:end+1], "\n")})
				i = end + 1
				continue
			}
			add(Block{Kind: Paragraph, Text: strings.Join(lines[i:end], "\n")})
			i = end
		}
	}
	for i := range blocks {
		b := &blocks[i]
		if b.Kind == Rule || b.Kind == TableDelimiter || b.Kind == Marker {
			continue
		}
		if n := normalize(*b); n != "" {
			sum := sha256.Sum256([]byte(n))
			b.Fragment, b.Hash = true, Hash(sum[:16])
		}
	}
	return blocks
}

// continues reports whether line carries on the block above it rather
// than starting a block of its own.
func continues(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if t == "" {
		return false
	}
	if !strings.ContainsRune("#`~-*_+|0123456789", rune(t[0])) {
		return true // no block starts otherwise: skip the patterns
	}
	return !atxHeading.MatchString(line) && !isFence(line) &&
		!rule.MatchString(line) && !listMarker.MatchString(line) && !isTableRow(line)
}

// isFence reports whether line opens a fenced code block. A backtick
// fence's info string has no backtick: "```npm i x``` does it" is text.
func isFence(line string) bool {
	m := fenceOpen.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	if m[1][0] == '`' {
		rest := strings.TrimLeft(line, " ")[len(m[1]):]
		return !strings.Contains(rest, "`")
	}
	return true
}

func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

func isTableRow(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "|")
}

// normalize returns the text that identifies a block: without its
// markdown markers (so that a list item is the same fragment whatever its
// number, and a heading whatever its level), with whitespace collapsed and
// case folded.
func normalize(b Block) string {
	text := b.Text
	switch b.Kind {
	case Heading:
		if m := atxHeading.FindString(text); m != "" {
			text = headingClose.ReplaceAllString(strings.TrimPrefix(text, m), "")
		} else if nl := strings.LastIndexByte(text, '\n'); nl >= 0 {
			text = text[:nl] // setext: drop the underline
		}
	case ListItem:
		text = strings.TrimPrefix(text, listMarker.FindString(text))
	case TableHeader, TableRow:
		cells := strings.Split(strings.Trim(strings.TrimSpace(text), "|"), "|")
		empty := true
		for i, c := range cells {
			cells[i] = strings.TrimSpace(c)
			empty = empty && cells[i] == ""
		}
		if empty {
			return ""
		}
		text = strings.Join(cells, "|")
	}
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// Hashes returns the distinct hashes of the fragments of blocks that can
// be removed (Removable), sorted.
func Hashes(blocks []Block) []Hash {
	return distinct(blocks, func(b Block) bool { return Removable(b.Kind) })
}

// distinct returns the distinct hashes of the fragments of blocks that
// match, sorted.
func distinct(blocks []Block, match func(Block) bool) []Hash {
	seen := make(map[Hash]bool, len(blocks))
	var out []Hash
	for _, b := range blocks {
		if b.Fragment && match(b) && !seen[b.Hash] {
			seen[b.Hash] = true
			out = append(out, b.Hash)
		}
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i][:]) < string(out[j][:]) })
	return out
}

// HeadingHashes returns the distinct hashes of the headings of blocks,
// sorted.
func HeadingHashes(blocks []Block) []Hash {
	return distinct(blocks, func(b Block) bool { return b.Kind == Heading })
}

// Result is a page's markdown after deduplication.
type Result struct {
	Markdown string
	// Fragments counts the page's fragments, Removed those it lost.
	Fragments, Removed int
}

// Assemble rebuilds a page's markdown from the blocks it keeps: the
// removable fragments it owns, every fragment that is not removable
// (code, tables, headings), the headings that still have text under them,
// and the structure around what is left. A page left with no fragment
// comes out empty.
func Assemble(blocks []Block, owned func(Hash) bool) Result {
	var res Result
	keep := make([]bool, len(blocks))
	for i, b := range blocks {
		switch {
		case b.Fragment:
			res.Fragments++
			keep[i] = !Removable(b.Kind) || owned(b.Hash)
		default:
			keep[i] = true // no text to compare (an empty list item, a rule, a table's delimiter): structure
		}
	}
	dropEmptiedHeadings(blocks, keep)
	res.Markdown, res.Removed = write(blocks, keep)
	if res.Removed > 0 && res.Removed == res.Fragments {
		res.Markdown = "" // nothing of the page is left but structure
	}
	return res
}

// dropEmptiedHeadings drops each heading whose section had text and lost
// all of it. The deepest headings are decided first: a section that keeps
// only a sub-heading without text under it has lost its text.
func dropEmptiedHeadings(blocks []Block, keep []bool) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if b.Kind != Heading || !keep[i] {
			continue
		}
		had, kept := false, false
		for j := i + 1; j < len(blocks) && !(blocks[j].Kind == Heading && blocks[j].Level <= b.Level); j++ {
			if blocks[j].Fragment && blocks[j].Kind != Heading {
				had = true
				kept = kept || keep[j]
			}
		}
		if had && !kept {
			keep[i] = false
		}
	}
}

// write joins the kept blocks, with the blank lines between them that the
// page had; rules stay between kept blocks only. It returns the markdown,
// and how many fragments were removed.
func write(blocks []Block, keep []bool) (string, int) {
	lastText := -1
	for i, b := range blocks {
		if keep[i] && b.Kind != Rule {
			lastText = i
		}
	}
	removed := 0
	var sb strings.Builder
	blank, last := false, -1
	for i, b := range blocks {
		if i > 0 && b.blankBefore {
			blank = true
		}
		if b.Fragment && !keep[i] {
			removed++
		}
		if !keep[i] {
			continue
		}
		if b.Kind == Rule && (last < 0 || blocks[last].Kind == Rule || i > lastText) {
			continue
		}
		if last >= 0 {
			sb.WriteString("\n")
			if blank {
				sb.WriteString("\n")
			}
		}
		sb.WriteString(b.Text)
		blank, last = false, i
	}
	return sb.String(), removed
}
