package markdown

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
)

// splitHeadingRows splits each table that opens with a row holding
// nothing but a heading (one cell across the table, as an API reference
// heads each group of its members: "Public Member Functions", then a row
// per member) at such rows: each heading goes before the rows it heads,
// which stay a table of their own, less the empty rows that separated
// them. A heading inside a table makes it a layout table
// (unwrapLayoutTables), and its rows of data would be flattened into
// loose lines.
func splitHeadingRows(doc *goquery.Document) {
	doc.Find("table").Each(func(_ int, t *goquery.Selection) {
		n := t.Get(0)
		rows := ownRows(n)
		if n.Parent == nil || len(rows) < 2 || rowHeading(rows[0]) == nil {
			return
		}
		var part *html.Node // the table the rows go to
		for _, r := range rows {
			if h := rowHeading(r); h != nil {
				h.Parent.RemoveChild(h)
				n.Parent.InsertBefore(h, n)
				part = nil
				continue
			}
			if !htmlnode.HasText(r) && htmlnode.FirstBelow(r, func(x *html.Node) bool { return x.Data == "img" }) == nil {
				r.Parent.RemoveChild(r) // a separator between members
				continue
			}
			if part == nil {
				part = &html.Node{Type: html.ElementNode, Data: "table", DataAtom: atom.Table, Attr: n.Attr}
				part.AppendChild(&html.Node{Type: html.ElementNode, Data: "tbody", DataAtom: atom.Tbody})
				n.Parent.InsertBefore(part, n)
			}
			r.Parent.RemoveChild(r)
			part.FirstChild.AppendChild(r)
		}
		n.Parent.RemoveChild(n)
	})
}

// ownRows are the rows of table n, not those of tables inside it.
func ownRows(n *html.Node) []*html.Node {
	var rows []*html.Node
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type != html.ElementNode || c.Data == "table":
			case c.Data == "tr":
				rows = append(rows, c)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return rows
}

// rowHeading is the heading row r holds when it holds nothing else: one
// cell, and in it the heading alone (anchors without text aside).
func rowHeading(r *html.Node) *html.Node {
	cell := htmlnode.OnlyElement(r)
	if cell == nil {
		return nil
	}
	var h *html.Node
	for c := cell.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "", c.Type == html.CommentNode:
		case c.Type == html.ElementNode && htmlnode.IsHeading(c) && h == nil:
			h = c
		case c.Type == html.ElementNode && c.Data == "a" && !htmlnode.HasText(c):
		default:
			return nil
		}
	}
	return h
}
