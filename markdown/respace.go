package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// respace puts back the spaces the extractor trims off the ends of its text
// nodes ("Press. <a>ISBN</a> 978…" comes out "Press.<a>ISBN</a>978…"):
// a text node glued to the one before is looked for in the page's own
// text, in order, and given a space in front where the page had one.
// Nothing else changes: a node that cannot be found keeps its text, and no
// space is added inside a word the page wrote without one ("<b>T</b>he").
func respace(content *html.Node, body *html.Node) {
	page := "" // the page's text, squeezed, made when first needed
	cur := 0
	var prev *html.Node // the text node before, in the extractor's order
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode {
				walk(c)
				continue
			}
			// Only a node glued to the one before can lack a space.
			glued := prev != nil && !startsWithSpace(c.Data) && !endsWithSpace(prev.Data)
			prev = c
			if !glued {
				continue
			}
			core := strings.TrimSpace(squeeze(c.Data))
			if core == "" {
				continue
			}
			if page == "" {
				page = squeeze(nodeText(body))
			}
			if at := find(page, core, cur); at >= 0 {
				cur = at + len(core)
				if at > 0 && page[at-1] == ' ' {
					c.Data = " " + c.Data
				}
			}
		}
	}
	walk(content)
}

// find is where core is in page: the first place after from, else the
// first anywhere (the extractor moves a few things, such as a headline,
// and then goes on in the page's order).
func find(page, core string, from int) int {
	if i := strings.Index(page[from:], core); i >= 0 {
		return from + i
	}
	return strings.Index(page[:min(len(page), from+len(core))], core)
}

// squeeze turns every run of white space (ASCII spaces and no-break
// spaces) into one space. It works on bytes: it runs over whole pages.
func squeeze(s string) string {
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			space = true
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0xa0: // U+00A0
			space = true
			i++
		default:
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, c)
		}
	}
	if space {
		b = append(b, ' ')
	}
	return string(b)
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r) || r == '\u00a0'
}

func endsWithSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r) || r == '\u00a0'
}
