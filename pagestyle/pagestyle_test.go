package pagestyle

import (
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

func page(t *testing.T, src string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func find(t *testing.T, doc *html.Node, sel string) *html.Node {
	t.Helper()
	n := cascadia.Query(doc, cascadia.MustCompile(sel))
	if n == nil {
		t.Fatalf("no %s", sel)
	}
	return n
}

// TestSheet: only the rules that set a property read are kept; a
// selector list gives a rule for each selector; print's rules, rules of
// pseudo-elements and declarations of other properties are left out;
// vendor values before the standard one do not hide it.
func TestSheet(t *testing.T) {
	s := Parse([]byte(`
/* a comment */
body, p { color: #333; margin: 0 }
div.line { font-family: monospace, fixed; white-space: -moz-pre-wrap; white-space: pre-wrap; text-indent: -53px }
div.fragment, pre.listing { font: 13px/1.2 "Source Code Pro", Menlo, monospace }
p::before { white-space: pre }
@media print { .noprint { display: none } div.x { white-space: pre } }
@media screen and (min-width: 600px) { .grid { display: table } }
@font-face { font-family: Foo; src: url(foo.woff) }
.broken { white-space: ; display
`))
	if got := s.Rules(); got != 4 {
		t.Errorf("kept %d rules, want 4 (div.line, div.fragment, pre.listing, .grid): %+v", got, s.rules)
	}
	doc := page(t, `<div class="fragment"><div class="line">int a;</div></div><div class="grid"></div><div class="x"></div><p>text</p>`)
	st := Resolve(doc, []*Sheet{s})
	line := find(t, doc, "div.line")
	if !st.KeepsLines(line) {
		t.Errorf("div.line does not keep its lines: %+v", st.Own(line))
	}
	if mono, own := st.Monospace(find(t, doc, "div.fragment")); !mono || !own {
		t.Errorf("div.fragment: monospace %v, own %v", mono, own)
	}
	if mono, own := st.Monospace(line); !mono || !own {
		t.Errorf("div.line: monospace %v, own %v", mono, own)
	}
	if st.Own(find(t, doc, "div.grid")).Display != "table" {
		t.Errorf("a screen's media rule is left out")
	}
	if st.KeepsLines(find(t, doc, "div.x")) {
		t.Errorf("print's rule applied")
	}
	if st.KeepsLines(find(t, doc, "p")) {
		t.Errorf("a pseudo-element's rule applied to its element")
	}
}

// TestCascade: specificity, then order, then !important, then the style
// attribute; white-space and fonts are inherited, display is not.
func TestCascade(t *testing.T) {
	s := Parse([]byte(`
.code { white-space: pre }
div.code.plain { white-space: normal }
#main .code { font-family: Georgia, serif }
.code { font-family: monospace }
.always { white-space: pre-line !important }
.table { display: table }
`))
	doc := page(t, `<div id="main"><div class="code" id="a">x<span id="in">y</span></div><div class="code plain" id="b">x</div>
<div class="always" style="white-space: normal" id="c">x</div><div class="code" style="white-space: normal" id="d">x</div>
<div class="table" id="e"><div id="f">x</div></div><div style="font-family: 'Courier New'" id="g">x</div></div>`)
	st := Resolve(doc, []*Sheet{s})
	for sel, want := range map[string]bool{"#a": true, "#in": true, "#b": false, "#c": true, "#d": false, "#f": false} {
		if got := st.KeepsLines(find(t, doc, sel)); got != want {
			t.Errorf("%s keeps its lines: %v, want %v", sel, got, want)
		}
	}
	if mono, _ := st.Monospace(find(t, doc, "#a")); mono {
		t.Errorf("#main .code is more specific than .code: a serif font")
	}
	if mono, own := st.Monospace(find(t, doc, "#g")); !mono || !own {
		t.Errorf("a style attribute's monospace font: %v %v", mono, own)
	}
	if st.Own(find(t, doc, "#f")).Display != "" {
		t.Errorf("display is inherited")
	}
}

// TestKeyOf: the key of a selector's rightmost compound.
func TestKeyOf(t *testing.T) {
	for sel, want := range map[string]string{
		"div.line": ".line", "#nav > ul li.item:hover": ".item", "pre": "pre", "a[href^='x y'] span": "span",
		"body #main": "#main", ":not(.x)": "*", "*": "*", "div.fragment > div": "div", "ul li:nth-child(2n+1)": "li",
		`.a\:b`: "*",
	} {
		if got := keyOf(sel); got != want {
			t.Errorf("keyOf(%q) = %q, want %q", sel, got, want)
		}
	}
}
