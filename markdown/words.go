package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Words says where a page's words went on their way to its markdown,
// step by step (each counted as the words the step took out of the page's
// tree): what stays is in the markdown, every other word went for a named
// reason. With main content off only Kept and Hidden are counted.
type Words struct {
	// Kept are the words of the markdown (link targets aside).
	Kept int `json:"kept"`
	// Hidden went before anything was chosen: the line numbers beside
	// code, links with nothing to show, the tags excludeTags names.
	Hidden int `json:"hidden"`
	// Sections went with the sections the page names for what they are,
	// hides, or lays out as furniture (navigation, header, footer, asides,
	// comment threads, related stories, sharing), before the article was
	// weighed or around the page's region.
	Sections int `json:"sections"`
	// Outside are the words the weighing left outside the article.
	Outside int `json:"outside"`
	// Around went with what trimming took around the article: asides,
	// bylines, credits, the page's tail of other stories.
	Around int `json:"around"`
	// Outvoted went with the blocks of an article page that neither
	// independent extractor took for the article and that follow it
	// (headline lists, teasers, comment threads) or are short lines in it
	// (outvote.go).
	Outvoted int `json:"outvoted"`
	// Unconverted are words of the tree that did not reach the markdown
	// (a conversion's fault, expected to be none).
	Unconverted int `json:"unconverted"`
}

// Removed is the sum of the words that went, for any reason.
func (w Words) Removed() int {
	return w.Hidden + w.Sections + w.Outside + w.Around + w.Outvoted + w.Unconverted
}

// treeWords counts the words of the text below n as a reader reads it:
// runs of letters and digits, a word running on across inline elements
// ("ab<i>c</i>" is one), the text of elements that never hold readable
// text (see never) aside.
func treeWords(n *html.Node) int {
	count, in := 0, false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				count, in = countRunes(c.Data, count, in)
			case html.ElementNode, html.DocumentNode:
				if neverTags[c.Data] {
					continue
				}
				block := blockTags[c.Data] || c.Data == "br"
				if block {
					in = false
				}
				walk(c)
				if block {
					in = false
				}
			}
		}
	}
	if n.Type == html.TextNode {
		count, _ = countRunes(n.Data, 0, false)
		return count
	}
	walk(n)
	return count
}

// treesWords is treeWords over nodes.
func treesWords(nodes []*html.Node) int {
	total := 0
	for _, n := range nodes {
		total += treeWords(n)
	}
	return total
}

// CountWords counts the words of markdown as Words.Kept counts them.
func CountWords(md string) int { return markdownWords(md) }

// markdownWords counts the words of markdown: link and image targets
// ("](…)"), the line breaks set in table cells ("<br />") and a fence's
// language aside. It scans once (a page's markdown may be megabytes).
func markdownWords(md string) int {
	count, in := 0, false
	start := 0
	skip := func(i, j int) { // counts md[start:i], then skips to j
		count, _ = countRunes(md[start:i], count, in)
		in = false
		start = j
	}
	for i := 0; i < len(md); i++ {
		switch md[i] {
		case ']':
			if i+1 < len(md) && md[i+1] == '(' {
				if end := strings.IndexByte(md[i+2:], ')'); end >= 0 {
					skip(i, i+2+end+1)
					i = start - 1
				}
			}
		case '<':
			if strings.HasPrefix(md[i:], "<br />") {
				skip(i, i+len("<br />"))
				i = start - 1
			}
		case '`':
			if (i == 0 || md[i-1] == '\n') && strings.HasPrefix(md[i:], "```") {
				end := strings.IndexByte(md[i:], '\n')
				if end < 0 {
					end = len(md) - i
				}
				skip(i, i+end)
				i = start - 1
			}
		}
	}
	count, _ = countRunes(md[start:], count, in)
	return count
}

// wordCount counts the runs of letters and digits in s.
func wordCount(s string) int {
	n, _ := countRunes(s, 0, false)
	return n
}

// countRunes adds to count the words of s that start in it, in telling
// whether the text before s ended inside a word; it returns both after s.
// ASCII is read byte by byte; other characters are letters, digits or
// marks (a word's), or not.
func countRunes(s string, count int, in bool) (int, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		var letter bool
		if c < utf8.RuneSelf {
			letter = asciiWord[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			letter = unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
			i += size
		}
		if letter && !in {
			count++
		}
		in = letter
	}
	return count, in
}

// asciiWord holds the ASCII letters and digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()
