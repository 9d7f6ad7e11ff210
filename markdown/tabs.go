package markdown

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// lineNumbers are the cells and columns that code highlighters set
// beside a code block to number its lines (Pygments' "linenos" table
// cell, Hexo's and Jekyll's "gutter"), or put before each line inside
// the block (Pygments' inline "linenos" spans, as Sphinx writes them): in
// markdown they would be a code block of numbers before the code, or
// numbers glued to each line of it.
const lineNumbers = `td.linenos, td.gutter, td.lineno, td[class*="line-numbers"], div.linenodiv, pre span.linenos, pre span.lineno`

// unfoldTabs lays out tabbed content (a command for each operating
// system, an example in each language) as the page's own blocks, one
// panel after the other, each headed by its tab's label. A browser shows
// one panel at a time and hides the others (the hidden attribute, which
// would otherwise drop them as what no reader sees); the labels sit in a
// bar of their own, run together without the panels. Two markups are
// read: ARIA tabs (role="tablist" with role="tab", role="tabpanel"; as
// Docusaurus and sphinx-tabs write them) and the tabbed sets of Python
// Markdown's extensions (MkDocs), labels in "tabbed-labels" and panels in
// "tabbed-block".
func unfoldTabs(doc *goquery.Document) {
	doc.Find(`[role="tablist"]`).Each(func(_ int, list *goquery.Selection) {
		var labels []string
		list.Find(`[role="tab"]`).Each(func(_ int, tab *goquery.Selection) {
			labels = append(labels, strings.TrimSpace(tab.Text()))
		})
		// The panels are in the smallest element around the list that
		// holds as many as it has tabs.
		for around := list.Parent(); around.Length() > 0; around = around.Parent() {
			panels := around.Find(`[role="tabpanel"]`)
			if panels.Length() == 0 {
				continue
			}
			if panels.Length() == len(labels) {
				headPanels(labels, panels)
				list.Remove()
			}
			return
		}
	})
	doc.Find(".tabbed-set").Each(func(_ int, set *goquery.Selection) {
		var labels []string
		set.ChildrenFiltered(".tabbed-labels").Find("label").Each(func(_ int, l *goquery.Selection) {
			labels = append(labels, strings.TrimSpace(l.Text()))
		})
		panels := set.ChildrenFiltered(".tabbed-content").ChildrenFiltered(".tabbed-block")
		if len(labels) > 0 && panels.Length() == len(labels) {
			headPanels(labels, panels)
			set.ChildrenFiltered(".tabbed-labels").Remove()
			set.ChildrenFiltered("input").Remove()
		}
	})
}

// headPanels shows each panel and puts its label first in it, as a
// paragraph.
func headPanels(labels []string, panels *goquery.Selection) {
	panels.Each(func(i int, p *goquery.Selection) {
		n := p.Get(0)
		kept := n.Attr[:0]
		for _, a := range n.Attr {
			if a.Key != "hidden" && !(a.Key == "aria-hidden" && a.Val == "true") {
				kept = append(kept, a)
			}
		}
		n.Attr = kept
		if labels[i] == "" {
			return
		}
		label := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		label.AppendChild(&html.Node{Type: html.TextNode, Data: labels[i]})
		n.InsertBefore(label, n.FirstChild)
	})
}
