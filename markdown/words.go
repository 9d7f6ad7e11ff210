package markdown

import (
	"github.com/durablecrawl/crawler/htmlnode"
	"strings"
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
	// Repeated went with the blocks of text that said word for word what
	// the content had already said (a copy laid out for phones beside one
	// for wide screens, a description repeated in every tab).
	Repeated int `json:"repeated"`
	// Unconverted are words of the tree that did not reach the markdown
	// (a conversion's fault, expected to be none).
	Unconverted int `json:"unconverted"`
}

// Removed is the sum of the words that went, for any reason.
func (w Words) Removed() int {
	return w.Hidden + w.Sections + w.Outside + w.Around + w.Outvoted + w.Repeated + w.Unconverted
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
		count, _ = htmlnode.CountRunes(md[start:i], count, in)
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
	count, _ = htmlnode.CountRunes(md[start:], count, in)
	return count
}
