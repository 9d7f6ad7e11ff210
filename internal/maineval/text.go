package main

import (
	"regexp"
	"strings"
)

// plain is the text of a markdown document, as a reader sees it: link
// targets and line breaks in table cells go, a link's text and an
// image's alt text stay (an image kept is scored by what it says),
// and the marks that snippets would not contain (block markers at line
// starts, code fences with their language names, emphasis, escapes and
// table bars) are removed.
func plain(md string) string {
	md = strings.ReplaceAll(md, "<br />", " ") // a line break inside a table cell
	md = mdImage.ReplaceAllString(md, "$1")
	md = mdLink.ReplaceAllString(md, "$1")
	r := strings.NewReplacer("**", "", "\\", "", "`", "", " | ", " ", "| ", "", " |", "")
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if codeFence.MatchString(l) {
			lines[i] = "" // a fence and its language name are marks, not words of the page
			continue
		}
		lines[i] = blockMark.ReplaceAllString(l, "")
	}
	text := emphasis.ReplaceAllString(strings.Join(lines, "\n"), "$1$2$3")
	return strings.Join(strings.Fields(r.Replace(text)), " ")
}

// mdImage matches a markdown image; mdLink a markdown link, keeping its
// text. Link texts may hold escaped brackets, targets one level of
// parentheses (Foo_(bar)) and a title.
var (
	mdImage = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)`)
	mdLink  = regexp.MustCompile(`\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)`)
)

// emphasis matches *text* and _text_ between word boundaries.
var emphasis = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s](?:[^*_]*[^*_\s])?)[*_]([\s.,;:!?)]|$)`)

// codeFence matches a line that opens or closes a fenced code block.
var codeFence = regexp.MustCompile("^\\s*(```+|~~~+)[\\w+#.-]*\\s*$")

var blockMark = regexp.MustCompile(`^\s*(#{1,6} |> |[-*+] |\d+\. )+`)
