package markdown

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// unfoldDisclosures shows what a page folds away behind a control the
// reader opens: an accordion's panels (a product's description, its
// sizes, a service's answers), a "show the rest" box. Such a control
// says so (aria-expanded="false", and aria-controls naming the panel);
// the panel, or an element around it below the control's level, is
// hidden until it is opened (the hidden attribute, aria-hidden, a style
// of display:none or visibility:hidden), and conversion would otherwise
// drop it as what no reader sees. The panel is shown, and a button
// that labels it ("Description", "Dimensions & Materials") becomes its
// words, standing where it stood. A panel hidden with no control that
// opens it stays hidden.
func unfoldDisclosures(doc *goquery.Document) {
	controls := doc.Find(`[aria-expanded="false"][aria-controls]`)
	if controls.Length() == 0 {
		return
	}
	ids := map[string]*html.Node{}
	var index func(n *html.Node)
	index = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			for _, a := range c.Attr {
				if a.Key == "id" {
					if _, dup := ids[a.Val]; !dup {
						ids[a.Val] = c
					}
				}
			}
			index(c)
		}
	}
	index(doc.Get(0))
	controls.Each(func(_ int, s *goquery.Selection) {
		control := s.Get(0)
		names := strings.Fields(s.AttrOr("aria-controls", ""))
		if len(names) == 0 {
			return
		}
		panel := ids[names[0]]
		if panel == nil {
			return
		}
		around := map[*html.Node]bool{} // the control and the elements around it
		for n := control; n != nil; n = n.Parent {
			around[n] = true
		}
		if around[panel] {
			return
		}
		shown := false
		for n := panel; n != nil && !around[n]; n = n.Parent {
			shown = unhide(n) || shown
		}
		if shown && control.Data == "button" {
			control.Data, control.DataAtom = "span", atom.Span
		}
	})
}

// unhide takes from n what hides it from readers (the hidden attribute,
// aria-hidden, display:none and visibility:hidden in its style), and
// reports whether there was any.
func unhide(n *html.Node) bool {
	hid := false
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		switch {
		case a.Key == "hidden", a.Key == "aria-hidden" && strings.TrimSpace(a.Val) == "true":
			hid = true
			continue
		case a.Key == "style":
			var rest []string
			for _, d := range strings.Split(a.Val, ";") {
				v := strings.ToLower(strings.ReplaceAll(d, " ", ""))
				if v == "display:none" || v == "visibility:hidden" || strings.HasPrefix(v, "display:none!") || strings.HasPrefix(v, "visibility:hidden!") {
					hid = true
					continue
				}
				rest = append(rest, d)
			}
			a.Val = strings.Join(rest, ";")
		}
		kept = append(kept, a)
	}
	n.Attr = kept
	return hid
}
