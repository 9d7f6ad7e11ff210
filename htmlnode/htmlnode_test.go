package htmlnode

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func parse(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestWords: a word runs on across inline elements, the text of elements
// that never hold readable text does not count, and markup alone counts
// nothing.
func TestWords(t *testing.T) {
	for _, c := range []struct {
		page string
		want int
	}{
		{`<p>two words</p>`, 2},
		{`<p>ab<i>c</i> d</p>`, 2},
		{`<p>one</p><script>var a = "not words";</script><style>p{}</style>`, 1},
		{`<p>Grüße, 2026 – déjà vu</p>`, 4},
		{`<div><br><img src=x></div>`, 0},
	} {
		if got := Words(parse(t, c.page)); got != c.want {
			t.Errorf("%s: %d words, want %d", c.page, got, c.want)
		}
	}
	if got := CountWords("ab c, d-e"); got != 4 {
		t.Errorf("CountWords: %d, want 4", got)
	}
}

// TestWalks: the text below an element, the first element below it that
// matches, its neighbours with only spaces between, and what it holds.
func TestWalks(t *testing.T) {
	doc := parse(t, `<body><div id="a"> <h2>Title</h2> <p>First <b>bold</b></p>text<p id="last">Last</p></div></body>`)
	h := FirstBelow(doc, IsHeading)
	if h == nil || Text(h) != "Title" {
		t.Fatalf("FirstBelow(IsHeading) = %v", h)
	}
	p := NextElement(h)
	if p == nil || p.Data != "p" || Text(p) != "First bold" || PrevElement(h) != nil || PrevElement(p) != h {
		t.Errorf("neighbours of the heading: next %v, previous %v", p, PrevElement(h))
	}
	if NextElement(p) != nil {
		t.Errorf("an element after text counts as the next one")
	}
	last := FirstBelow(doc, func(n *html.Node) bool { return Attr(n, "id") == "last" })
	if last == nil || OnlyElement(last) != nil || !HasText(last) {
		t.Errorf("the last paragraph: %v", last)
	}
	if got := TrimmedLen(FirstBelow(doc, func(n *html.Node) bool { return n.Data == "div" })); got != len([]rune(strings.TrimSpace(Text(doc.LastChild.LastChild.FirstChild)))) {
		t.Errorf("TrimmedLen = %d", got)
	}
	if IsInline(h) || !IsInline(FirstBelow(doc, func(n *html.Node) bool { return n.Data == "b" })) {
		t.Errorf("a heading is a block, <b> flows inline")
	}
}
