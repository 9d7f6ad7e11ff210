package pagestyle

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Style is what the page's styles say of one element, as far as its
// structure goes. Empty fields are unset: the element has what it
// inherits (white-space and fonts) or its tag's own (display).
type Style struct {
	// WhiteSpace is "pre", "wrap" or "line" when the element keeps its
	// lines as written (white-space: pre, pre-wrap, pre-line: see
	// whiteSpaceOf), "normal" when it joins them.
	WhiteSpace string
	// Font is "mono" for a monospace font, "other" for another.
	Font string
	// Display is the display value set ("table", "table-row", "none"…).
	Display string
}

// Styles are the styles a page's elements are given by its rules and
// style attributes.
type Styles struct {
	own map[*html.Node]*Style
}

// Resolve matches the sheets' rules (in the order the page has them) and
// the elements' style attributes below root, and cascades them.
func Resolve(root *html.Node, sheets []*Sheet) *Styles {
	s := &Styles{own: map[*html.Node]*Style{}}
	type ranked struct {
		*rule
		order int
	}
	byKey := map[string][]ranked{}
	order := 0
	for _, sh := range sheets {
		if sh == nil {
			continue
		}
		for i := range sh.rules {
			r := &sh.rules[i]
			byKey[r.key] = append(byKey[r.key], ranked{r, order})
			order++
		}
	}
	anyRules := order > 0
	var matched []ranked
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			matched = matched[:0]
			if anyRules {
				try := func(key string) {
					for _, r := range byKey[key] {
						if r.sel.Match(c) {
							matched = append(matched, r)
						}
					}
				}
				try("*")
				try(c.Data)
				for _, a := range c.Attr {
					switch a.Key {
					case "id":
						try("#" + a.Val)
					case "class":
						for _, cl := range strings.Fields(a.Val) {
							try("." + cl)
						}
					}
				}
			}
			var inline []declaration
			for _, a := range c.Attr {
				if a.Key == "style" && a.Val != "" {
					inline = Inline(a.Val)
				}
			}
			if len(matched) > 0 || len(inline) > 0 {
				// Cascade: a later, more specific, important
				// declaration is set after (over) an earlier one.
				slices.SortStableFunc(matched, func(a, b ranked) int {
					if a.spec.Less(b.spec) {
						return -1
					}
					if b.spec.Less(a.spec) {
						return 1
					}
					return a.order - b.order
				})
				st := &Style{}
				for _, important := range []bool{false, true} {
					for _, r := range matched {
						for _, d := range r.decls {
							if d.important == important {
								st.set(d)
							}
						}
					}
					for _, d := range inline {
						if d.important == important {
							st.set(d)
						}
					}
				}
				if *st != (Style{}) {
					s.own[c] = st
				}
			}
			walk(c)
		}
	}
	walk(root)
	return s
}

func (st *Style) set(d declaration) {
	switch d.prop {
	case whiteSpace:
		st.WhiteSpace = d.value
	case fontFamily:
		st.Font = d.value
	case display:
		st.Display = d.value
	}
}

// Own is what the page's rules and style attribute set on n itself.
func (s *Styles) Own(n *html.Node) Style {
	if s == nil {
		return Style{}
	}
	if st := s.own[n]; st != nil {
		return *st
	}
	return Style{}
}

// KeepsLinesOwn reports whether n's own rules or style attribute make
// it keep its lines; pre tells whether as pre does (no wrapping: code and
// drawings), not as pre-wrap or pre-line (also set on a user's text).
func (s *Styles) KeepsLinesOwn(n *html.Node) (keeps, pre bool) {
	switch s.Own(n).WhiteSpace {
	case "pre":
		return true, true
	case "wrap", "line":
		return true, false
	}
	return false, false
}

// Empty reports whether no element is given any style read.
func (s *Styles) Empty() bool { return s == nil || len(s.own) == 0 }

// KeepsLines reports whether n shows its text's line breaks (its
// white-space, set or inherited, is pre, pre-wrap, pre-line or
// break-spaces), as a <pre> does.
func (s *Styles) KeepsLines(n *html.Node) bool {
	if s.Empty() {
		return false
	}
	for e := n; e != nil; e = e.Parent {
		switch s.own[e].whiteSpace() {
		case "pre", "wrap", "line":
			return true
		case "normal":
			return false
		}
		if e.Type == html.ElementNode && (e.Data == "pre" || e.Data == "textarea" || e.Data == "listing") {
			return true // the tag's own, which no rule changed
		}
	}
	return false
}

// Monospace reports whether n is set in a monospace font (set or
// inherited); own tells whether n's own rules set it, not an ancestor's.
func (s *Styles) Monospace(n *html.Node) (mono, own bool) {
	if s.Empty() {
		return false, false
	}
	for e := n; e != nil; e = e.Parent {
		if f := s.own[e].font(); f != "" {
			return f == "mono", e == n
		}
	}
	return false, false
}

func (st *Style) whiteSpace() string {
	if st == nil || st.WhiteSpace == "inherit" {
		return ""
	}
	return st.WhiteSpace
}

func (st *Style) font() string {
	if st == nil {
		return ""
	}
	return st.Font
}
