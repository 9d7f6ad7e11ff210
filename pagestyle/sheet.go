// Package pagestyle reads a page's own styles (its stylesheets, <style>
// elements and style attributes) for the few properties that decide what
// a page's structure is as a browser shows it: which blocks keep their
// lines as written (white-space), which are set in a monospace font
// (font-family), and which lay out as a table (display). A generator's
// class names say nothing a converter can rely on; its stylesheet says
// what the reader sees.
//
// Only the rules that set one of those properties are kept from a sheet,
// so that matching them against a page costs little whatever the size of
// the site's stylesheet. Rules are matched with cascadia (the selector
// engine goquery uses) and cascaded as a browser does for them: by
// importance, then specificity, then order; a style attribute wins over
// the sheets' rules that are not !important.
package pagestyle

import (
	"bytes"
	"strings"

	"github.com/andybalholm/cascadia"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// property is one of the properties read.
type property uint8

const (
	whiteSpace property = iota
	fontFamily
	display
	properties
)

// declaration is a value one rule gives one property.
type declaration struct {
	prop      property
	value     string
	important bool
}

// rule is a selector and what it declares of the properties read.
type rule struct {
	sel   cascadia.Sel
	spec  cascadia.Specificity
	key   string // the rightmost compound's id ("#x"), class (".x") or tag ("x"), or "*"
	decls []declaration
}

// Sheet is the part of a stylesheet that decides structure.
type Sheet struct {
	rules []rule
}

// Rules is how many rules of the sheet set a property read.
func (s *Sheet) Rules() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// MaxSheetBytes is the most of a stylesheet that is read; the rest is
// left unread.
const MaxSheetBytes = 1 << 20

// Parse reads a stylesheet. What it cannot parse it passes over, as a
// browser does; rules in @media print (and other media that are not a
// screen) are left out.
func Parse(text []byte) *Sheet {
	if len(text) > MaxSheetBytes {
		text = text[:MaxSheetBytes]
	}
	s := &Sheet{}
	p := css.NewParser(parse.NewInput(bytes.NewReader(text)), false)
	var skip []bool // for each open at-rule, whether its rules are left out
	var group []rule
	var decls []declaration
	for {
		gt, _, data := p.Next()
		switch gt {
		case css.ErrorGrammar:
			if !p.HasParseError() {
				return s // the end of the sheet
			}
		case css.BeginAtRuleGrammar:
			left := len(skip) > 0 && skip[len(skip)-1]
			skip = append(skip, left || !screen(string(data), p.Values()))
		case css.EndAtRuleGrammar:
			if len(skip) > 0 {
				skip = skip[:len(skip)-1]
			}
		case css.BeginRulesetGrammar:
			group, decls = nil, nil
			if len(skip) == 0 || !skip[len(skip)-1] {
				group = selectors(tokensText(p.Values()))
			}
		case css.DeclarationGrammar:
			if len(group) == 0 {
				continue
			}
			if d, ok := declare(string(data), p.Values()); ok {
				decls = append(decls, d)
			}
		case css.EndRulesetGrammar:
			if len(decls) > 0 {
				for _, r := range group {
					r.decls = decls
					s.rules = append(s.rules, r)
				}
			}
			group, decls = nil, nil
		}
	}
}

// Matters reports whether a style attribute may set a property read.
func Matters(style string) bool {
	return strings.Contains(style, "white-space") || strings.Contains(style, "font") || strings.Contains(style, "display")
}

// Inline reads a style attribute: its declarations of the properties
// read, as the rule of the element alone.
func Inline(style string) []declaration {
	if !Matters(style) {
		return nil // most style attributes: nothing read
	}
	var decls []declaration
	p := css.NewParser(parse.NewInput(strings.NewReader(style)), true)
	for {
		gt, _, data := p.Next()
		switch gt {
		case css.ErrorGrammar:
			if !p.HasParseError() {
				return decls
			}
		case css.DeclarationGrammar:
			if d, ok := declare(string(data), p.Values()); ok {
				decls = append(decls, d)
			}
		}
	}
}

// screen reports whether the rules of an at-rule (its name and prelude)
// apply to a page on a screen: @media for all or for screens (whatever
// the width), @supports, @layer and @container. @font-face, @keyframes,
// @page and print's rules hold no rule for an element shown.
func screen(name string, prelude []css.Token) bool {
	switch strings.ToLower(name) {
	case "@supports", "@layer", "@container", "@document", "@scope":
		return true
	case "@media":
	default:
		return false
	}
	q := strings.ToLower(tokensText(prelude))
	if strings.Contains(q, "not screen") || strings.Contains(q, "only print") {
		return false
	}
	media := false
	for _, m := range []string{"print", "speech", "aural", "braille", "embossed", "handheld", "projection", "tty", "tv"} {
		media = media || strings.Contains(q, m)
	}
	return !media || strings.Contains(q, "screen") || strings.Contains(q, "all")
}

// tokensText is the text of tokens.
func tokensText(tokens []css.Token) string {
	var b strings.Builder
	for _, t := range tokens {
		b.Write(t.Data)
	}
	return b.String()
}

// selectors parses a selector list into one rule for each selector
// cascadia can match; one it cannot (a pseudo-element, a selector of a
// later level) is left out alone.
func selectors(list string) []rule {
	var out []rule
	for _, one := range splitTop(list, ',') {
		one = strings.TrimSpace(one)
		sel, err := cascadia.Parse(one)
		if err != nil || one == "" {
			continue
		}
		out = append(out, rule{sel: sel, spec: sel.Specificity(), key: keyOf(one)})
	}
	return out
}

// eachTop calls fn with the index of each byte of s that stands outside
// quotes, brackets and parentheses.
func eachTop(s string, fn func(i int)) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0:
			fn(i)
		}
	}
}

// splitTop splits s at sep outside brackets, parentheses and quotes.
func splitTop(s string, sep byte) []string {
	var parts []string
	start := 0
	eachTop(s, func(i int) {
		if s[i] == sep {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	})
	return append(parts, s[start:])
}

// keyOf is the key a selector's rightmost compound selector gives: its
// id, else its first class, else its tag, else "*". An element can match
// the selector only if it has that key (see Resolve), so that matching a
// page tries each element against a few rules only.
func keyOf(sel string) string {
	last := sel
	eachTop(sel, func(i int) {
		switch sel[i] {
		case ' ', '>', '+', '~', '\t', '\n':
			last = sel[i+1:]
		}
	})
	// The compound's own part: pseudo-classes and attributes aside.
	compound := last
	depth := 0
	var b strings.Builder
	for i := 0; i < len(compound); i++ {
		c := compound[i]
		switch {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && c == ':':
			// a pseudo-class: skipped to its end
			j := i + 1
			for j < len(compound) && (isName(compound[j]) || compound[j] == ':') {
				j++
			}
			i = j - 1
		case depth == 0:
			b.WriteByte(c)
		}
	}
	own := b.String()
	if strings.ContainsRune(own, '\\') {
		return "*" // an escaped name: matched without a key
	}
	if i := strings.IndexByte(own, '#'); i >= 0 {
		return "#" + nameAt(own, i+1)
	}
	if i := strings.IndexByte(own, '.'); i >= 0 {
		return "." + nameAt(own, i+1)
	}
	if tag := strings.ToLower(nameAt(own, 0)); tag != "" && !strings.Contains(own, "|") {
		return tag
	}
	return "*"
}

// nameAt is the name that starts at s[i].
func nameAt(s string, i int) string {
	j := i
	for j < len(s) && isName(s[j]) {
		j++
	}
	return s[i:j]
}

func isName(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// declare reads one declaration (its property's name and value tokens)
// when it sets a property read.
func declare(name string, value []css.Token) (declaration, bool) {
	var prop property
	switch strings.ToLower(name) {
	case "white-space", "white-space-collapse":
		prop = whiteSpace
	case "font-family", "font":
		prop = fontFamily
	case "display":
		prop = display
	default:
		return declaration{}, false
	}
	d := declaration{prop: prop}
	var words []string
	for i := 0; i < len(value); i++ {
		t := value[i]
		switch {
		case t.TokenType == css.DelimToken && string(t.Data) == "!":
			if i+1 < len(value) && strings.EqualFold(string(value[i+1].Data), "important") {
				d.important = true
			}
			i = len(value)
		case t.TokenType == css.IdentToken, t.TokenType == css.StringToken:
			words = append(words, strings.ToLower(strings.Trim(string(t.Data), `"'`)))
		}
	}
	switch prop {
	case whiteSpace:
		d.value = whiteSpaceOf(words)
	case fontFamily:
		d.value = fontOf(words)
	case display:
		if len(words) > 0 {
			d.value = words[0]
			if len(words) > 1 && words[1] == "table" {
				d.value = "table" // "block table"
			}
		}
	}
	return d, d.value != ""
}

// whiteSpaceOf is what a white-space value means for lines: "pre" when
// the element keeps its lines and spaces and never wraps them (pre, as
// code and drawings are set), "wrap" when it keeps them and wraps (pre-wrap,
// break-spaces; white-space-collapse: preserve), "line" when it keeps line
// breaks only (pre-line, preserve-breaks), "normal" when it joins lines,
// "" for a value not known.
func whiteSpaceOf(words []string) string {
	for _, w := range words {
		switch w {
		case "pre":
			return "pre"
		case "pre-wrap", "break-spaces", "preserve", "preserve-spaces":
			return "wrap"
		case "pre-line", "preserve-breaks":
			return "line"
		case "normal", "nowrap", "collapse", "discard":
			return "normal"
		case "inherit":
			return "inherit"
		}
	}
	return ""
}

// monospaceFonts are font families drawn in fixed width, beside the
// generic name.
var monospaceFonts = []string{"monospace", "mono", "courier", "consolas", "menlo", "monaco", "lucida console", "lucida sans typewriter", "andale", "fixedsys", "inconsolata", "fira code", "ui-monospace", "sfmono", "source code pro", "hack"}

// fontOf is "mono" when a font-family (or font) value names a monospace
// family first (what a reader sees: its fallbacks follow), "other" when
// it names another, "" when it names none ("inherit").
func fontOf(words []string) string {
	for _, w := range words {
		switch w {
		case "inherit", "initial", "unset", "revert", "normal", "italic", "bold", "bolder", "lighter", "oblique", "small-caps", "larger", "smaller",
			"xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "condensed", "semi-condensed", "expanded":
			continue
		}
		for _, m := range monospaceFonts {
			if strings.Contains(w, m) {
				return "mono"
			}
		}
		return "other"
	}
	return ""
}
