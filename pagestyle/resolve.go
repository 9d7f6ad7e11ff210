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
	m := newMatcher(sheets)
	var matched []ranked
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			matched = m.match(c, matched[:0])
			var inline []declaration
			for _, a := range c.Attr {
				if a.Key == "style" && a.Val != "" {
					inline = Inline(a.Val)
				}
			}
			if st := cascade(matched, inline); st != nil {
				s.own[c] = st
			}
			walk(c)
		}
	}
	walk(root)
	return s
}

// ranked is a rule and its place among the page's rules.
type ranked struct {
	*rule
	order int
}

// matcher holds the page's rules by the key of their rightmost compound
// (see keyOf): an element is tried against the rules its id, classes and
// tag could match, and the universal ones.
type matcher struct {
	byID, byClass, byTag map[string][]ranked
	universal            []ranked
}

func newMatcher(sheets []*Sheet) *matcher {
	m := &matcher{byID: map[string][]ranked{}, byClass: map[string][]ranked{}, byTag: map[string][]ranked{}}
	order := 0
	for _, sh := range sheets {
		if sh == nil {
			continue
		}
		for i := range sh.rules {
			r := ranked{&sh.rules[i], order}
			order++
			switch k := r.key; {
			case k == "*":
				m.universal = append(m.universal, r)
			case k[0] == '#':
				m.byID[k[1:]] = append(m.byID[k[1:]], r)
			case k[0] == '.':
				m.byClass[k[1:]] = append(m.byClass[k[1:]], r)
			default:
				m.byTag[k] = append(m.byTag[k], r)
			}
		}
	}
	return m
}

// match appends to into the rules that match element c.
func (m *matcher) match(c *html.Node, into []ranked) []ranked {
	try := func(rules []ranked) {
		for _, r := range rules {
			if r.sel.Match(c) {
				into = append(into, r)
			}
		}
	}
	try(m.universal)
	try(m.byTag[c.Data])
	for _, a := range c.Attr {
		switch a.Key {
		case "id":
			try(m.byID[a.Val])
		case "class":
			for _, cl := range strings.Fields(a.Val) {
				try(m.byClass[cl])
			}
		}
	}
	return into
}

// cascade is the style the matched rules and the style attribute's
// declarations give an element, nil when they set nothing read: a later,
// more specific, important declaration is set after (over) an earlier
// one, the style attribute over the rules of its importance.
func cascade(matched []ranked, inline []declaration) *Style {
	if len(matched) == 0 && len(inline) == 0 {
		return nil
	}
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
	if *st == (Style{}) {
		return nil
	}
	return st
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
