package markdown

import (
	"regexp"
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
	// Unconverted are words of the tree that did not reach the markdown
	// (a conversion's fault, expected to be none).
	Unconverted int `json:"unconverted"`
}

// Removed is the sum of the words that went, for any reason.
func (w Words) Removed() int { return w.Hidden + w.Sections + w.Outside + w.Around + w.Unconverted }

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

// markdownWords counts the words of markdown: link and image targets,
// and the markup's own HTML (line breaks in cells), aside.
func markdownWords(md string) int {
	return wordCount(mdTargets.ReplaceAllString(md, " "))
}

var mdTargets = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)|<br />|\x60{3,}[\w+#.-]*`)

// wordCount counts the runs of letters and digits in s.
func wordCount(s string) int {
	n, _ := countRunes(s, 0, false)
	return n
}

// countRunes adds to count the words of s that start in it, in telling
// whether the text before s ended inside a word; it returns both after s.
func countRunes(s string, count int, in bool) (int, bool) {
	for _, r := range s {
		letter := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
		if letter && !in {
			count++
		}
		in = letter
	}
	return count, in
}
