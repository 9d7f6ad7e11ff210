// Package htmlnode holds what reading a parsed HTML page needs at every
// step, choosing its main content as much as writing its markdown: the
// text and words below an element, the elements that start a block, flow
// inline or never hold readable text, and walks to an element's
// neighbours.
package htmlnode

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Never is a selector of the elements that carry no readable text.
const Never = "script, style, noscript, template, svg, canvas, iframe, object, embed, head, meta, link, button"

// NeverTags are the tag names of Never.
var NeverTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Split(Never, ",") {
		m[strings.TrimSpace(t)] = true
	}
	return m
}()

// InlineTags are the elements whose neighbours' text flows into theirs.
var InlineTags = map[string]bool{"a": true, "b": true, "strong": true, "i": true, "em": true, "code": true,
	"span": true, "u": true, "s": true, "del": true, "ins": true, "mark": true, "small": true, "sub": true,
	"sup": true, "abbr": true, "cite": true, "q": true, "kbd": true, "time": true, "img": true}

// Words counts the words of the text below n as a reader reads it:
// runs of letters and digits, a word running on across inline elements
// ("ab<i>c</i>" is one), the text of elements that never hold readable
// text (NeverTags) aside.
func Words(n *html.Node) int {
	count, in := 0, false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				count, in = CountRunes(c.Data, count, in)
			case html.ElementNode, html.DocumentNode:
				if NeverTags[c.Data] {
					continue
				}
				block := BlockTags[c.Data] || c.Data == "br"
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
		count, _ = CountRunes(n.Data, 0, false)
		return count
	}
	walk(n)
	return count
}

// WordsOf is Words over nodes.
func WordsOf(nodes []*html.Node) int {
	total := 0
	for _, n := range nodes {
		total += Words(n)
	}
	return total
}

// CountWords counts the runs of letters and digits in s.
func CountWords(s string) int {
	n, _ := CountRunes(s, 0, false)
	return n
}

// CountRunes adds to count the words of s that start in it, in telling
// whether the text before s ended inside a word; it returns both after s.
// ASCII is read byte by byte; other characters are letters, digits or
// marks (a word's), or not.
func CountRunes(s string, count int, in bool) (int, bool) {
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

// TrimmedLen is the number of characters of n's text, white space at
// its ends aside: utf8.RuneCountInString(strings.TrimSpace(Text(n)))
// without building the text.
func TrimmedLen(n *html.Node) int {
	total, lead, trail := 0, 0, 0
	seen := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			s := n.Data
			runes := utf8.RuneCountInString(s)
			total += runes
			rest := strings.TrimSpace(s)
			switch {
			case rest == "" && seen:
				trail += runes
			case rest == "":
				lead += runes
			default:
				// rest starts with the first byte that is not space, so
				// its first occurrence is where it stands.
				at := strings.Index(s, rest)
				if !seen {
					lead += utf8.RuneCountInString(s[:at])
				}
				seen, trail = true, utf8.RuneCountInString(s[at+len(rest):])
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return total - lead - trail
}

// Text is the text below n.
func Text(n *html.Node) string {
	var b strings.Builder
	var add func(*html.Node)
	add = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			add(c)
		}
	}
	add(n)
	return b.String()
}

// BlockTags are the elements that start a block of their own. Every
// other element, custom ones included (<mjx-container>, <my-widget>),
// flows inside the block around it, as a browser lays it out.
var BlockTags = map[string]bool{"address": true, "article": true, "aside": true, "blockquote": true, "body": true,
	"caption": true, "center": true, "dd": true, "details": true, "dialog": true, "dir": true, "div": true, "dl": true,
	"dt": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hgroup": true, "hr": true,
	"html": true, "legend": true, "li": true, "listing": true, "main": true, "menu": true, "nav": true, "ol": true,
	"optgroup": true, "option": true, "p": true, "plaintext": true, "pre": true, "search": true, "section": true,
	"summary": true, "table": true, "tbody": true, "td": true, "tfoot": true, "th": true, "thead": true, "tr": true,
	"ul": true, "xmp": true, "video": true, "audio": true}

// IsInline reports whether element n flows inside the block around it.
func IsInline(n *html.Node) bool {
	return !BlockTags[n.Data]
}

// FirstBelow is the first element below n (in document order) for which
// match holds, if any.
func FirstBelow(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if match(c) {
			return c
		}
		if f := FirstBelow(c, match); f != nil {
			return f
		}
	}
	return nil
}

// PrevElement and NextElement are the element just before or after n,
// spaces aside, or nil when text stands between.
func PrevElement(n *html.Node) *html.Node {
	return adjacentElement(n.PrevSibling, func(s *html.Node) *html.Node { return s.PrevSibling })
}

func NextElement(n *html.Node) *html.Node {
	return adjacentElement(n.NextSibling, func(s *html.Node) *html.Node { return s.NextSibling })
}

// SpacelessLen is the length in bytes of s without its whitespace.
func SpacelessLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			n -= int(ASCIISpace[c])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			n -= size
		}
		i += size - 1
	}
	return n
}

// IsHeading reports whether n is a heading, h1 to h6.
func IsHeading(n *html.Node) bool {
	return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
}

// HasText reports whether n holds text other than white space.
func HasText(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" || c.Type == html.ElementNode && HasText(c) {
			return true
		}
	}
	return false
}

// OnlyElement is n's one child element when n holds nothing else but
// white space; nil otherwise.
func OnlyElement(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode && only == nil:
			only = c
		case c.Type == html.ElementNode, c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		}
	}
	return only
}

// Attr is n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// adjacentElement is the first element from s on, stepping with step,
// or nil when text stands before it.
func adjacentElement(s *html.Node, step func(*html.Node) *html.Node) *html.Node {
	for ; s != nil; s = step(s) {
		if s.Type == html.ElementNode {
			return s
		}
		if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" {
			return nil
		}
	}
	return nil
}

// ASCIISpace is 1 for the bytes that are white space in ASCII (as
// unicode.IsSpace has them), 0 for the others.
var ASCIISpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}
