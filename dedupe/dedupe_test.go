package dedupe

import (
	"fmt"
	"strings"
	"testing"
)

// othersOwn assembles each page as if another page kept every fragment
// the others hold too: what a page loses when that text is furniture.
func othersOwn(pages ...string) []Result {
	holders := map[Hash]int{}
	for _, md := range pages {
		for _, h := range Hashes(Split(md)) {
			holders[h]++
		}
	}
	var out []Result
	for i, md := range pages {
		r := Assemble(Split(md), func(h Hash) bool { return i == 0 || holders[h] == 1 })
		out = append(out, r)
	}
	return out
}

func TestSplitKinds(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"",
		"A paragraph",
		"on two lines.",
		"",
		"- one",
		"  more of one",
		"- two",
		"1. three",
		"",
		"| a | b |",
		"|---|:-:|",
		"| 1 | 2 |",
		"",
		"```go",
		"x := 1",
		"",
		"y := 2",
		"```",
		"",
		"---",
		"",
		"Setext",
		"======",
		"> quoted",
		"> text",
	}, "\n")
	want := []struct {
		kind Kind
		text string
	}{
		{Heading, "# Title"},
		{Paragraph, "A paragraph\non two lines."},
		{ListItem, "- one\n  more of one"},
		{ListItem, "- two"},
		{ListItem, "1. three"},
		{TableHeader, "| a | b |"},
		{TableDelimiter, "|---|:-:|"},
		{TableRow, "| 1 | 2 |"},
		{Code, "```go\nx := 1\n\ny := 2\n```"},
		{Rule, "---"},
		{Heading, "Setext\n======"},
		{Paragraph, "> quoted\n> text"},
	}
	got := Split(md)
	if len(got) != len(want) {
		for _, b := range got {
			t.Logf("%d %q", b.Kind, b.Text)
		}
		t.Fatalf("got %d blocks, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Kind != w.kind || got[i].Text != w.text {
			t.Errorf("block %d = (%d, %q), want (%d, %q)", i, got[i].Kind, got[i].Text, w.kind, w.text)
		}
		if frag := w.kind != Rule && w.kind != TableDelimiter; got[i].Fragment != frag {
			t.Errorf("block %d fragment = %v, want %v", i, got[i].Fragment, frag)
		}
	}
}

func TestInlineBackticksAreNotAFence(t *testing.T) {
	blocks := Split("```npm install foo``` installs it.\n\n# Next\n\nText.")
	if len(blocks) != 3 || blocks[0].Kind != Paragraph || blocks[1].Kind != Heading {
		for _, b := range blocks {
			t.Logf("%d %q", b.Kind, b.Text)
		}
		t.Fatal("a line with inline triple backticks opened a code block")
	}
}

func TestNormalizedFragmentsMatch(t *testing.T) {
	same := [][2]string{
		{"Hello   World", "hello world"},
		{"- item one", "7. Item  One"},
		{"## Pricing", "# pricing #"},
		{"|a|b|", "|  A | b  |"},
		{"Line one\nline two", "line one line two"},
	}
	for _, p := range same {
		a, b := Split(p[0]), Split(p[1])
		if len(a) != 1 || len(b) != 1 || a[0].Hash != b[0].Hash {
			t.Errorf("%q and %q should be one fragment", p[0], p[1])
		}
	}
	different := [][2]string{
		{"hello world", "hello, world"},
		{"`x`", "x"},
	}
	for _, p := range different {
		if Split(p[0])[0].Hash == Split(p[1])[0].Hash {
			t.Errorf("%q and %q should be different fragments", p[0], p[1])
		}
	}
}

// TestAssemble: what a page keeps when the fragments it shares with the
// first page are the first page's.
func TestAssemble(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		want  []string
	}{
		{
			name: "shared paragraphs and list items go from later pages",
			pages: []string{
				"- Home\n- About\n\n# Welcome\n\nFirst page text.\n\nCopyright 2026 Example",
				"- Home\n- About\n\n# Second\n\nSecond page text.\n\nCopyright 2026 Example",
			},
			want: []string{
				"- Home\n- About\n\n# Welcome\n\nFirst page text.\n\nCopyright 2026 Example",
				"# Second\n\nSecond page text.",
			},
		},
		{
			name: "a heading whose text all went goes too, a heading still with text stays",
			pages: []string{
				"# A\n\n## Shipping\n\nShips in two days.\n\n## Returns\n\nThirty days.",
				"# B\n\n## Shipping\n\nShips in two days.\n\n## Sizes\n\nS, M and L.\n\n## Returns\n\nThirty days, free.",
			},
			want: []string{
				"# A\n\n## Shipping\n\nShips in two days.\n\n## Returns\n\nThirty days.",
				"# B\n\n## Sizes\n\nS, M and L.\n\n## Returns\n\nThirty days, free.",
			},
		},
		{
			name: "a page that loses every fragment comes out empty (the decision then keeps it whole)",
			pages: []string{
				"Intro.\n\n### Note\n\nShared note.",
				"## Unique heading\n\n### Other note\n\nShared note.",
			},
			want: []string{
				"Intro.\n\n### Note\n\nShared note.",
				"",
			},
		},
		{
			name: "repeats within one page stay",
			pages: []string{
				"Same line.\n\nSame line.",
			},
			want: []string{"Same line.\n\nSame line."},
		},
		{
			name: "tables are never taken, whole or row by row",
			pages: []string{
				"| Plan | Price |\n|---|---|\n| Free | 0 |\n| Pro | 10 |",
				"Plans.\n\n| Plan | Price |\n|---|---|\n| Free | 0 |\n| Team | 50 |",
			},
			want: []string{
				"| Plan | Price |\n|---|---|\n| Free | 0 |\n| Pro | 10 |",
				"Plans.\n\n| Plan | Price |\n|---|---|\n| Free | 0 |\n| Team | 50 |",
			},
		},
		{
			name: "code blocks are never taken",
			pages: []string{
				"```\nnpm install thing\n```\n\nSetup.",
				"Usage.\n\n```\nnpm install thing\n```\n\nSetup.",
			},
			want: []string{
				"```\nnpm install thing\n```\n\nSetup.",
				"Usage.\n\n```\nnpm install thing\n```",
			},
		},
		{
			name: "rules stay between kept blocks only",
			pages: []string{
				"Header bar\n\n---\n\nFooter bar",
				"Header bar\n\n---\n\nBody.\n\n---\n\nFooter bar",
			},
			want: []string{
				"Header bar\n\n---\n\nFooter bar",
				"Body.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := othersOwn(tt.pages...)
			for i := range tt.want {
				if got[i].Markdown != tt.want[i] {
					t.Errorf("page %d:\n got %q\nwant %q", i, got[i].Markdown, tt.want[i])
				}
			}
		})
	}
}

func TestCounts(t *testing.T) {
	r := othersOwn("A.\n\nB.", "A.\n\nC.\n\n| x |\n|---|\n| y |")
	if r[0].Fragments != 2 || r[0].Removed != 0 {
		t.Errorf("first page: %d fragments, %d removed", r[0].Fragments, r[0].Removed)
	}
	if r[1].Fragments != 4 || r[1].Removed != 1 {
		t.Errorf("second page: %d fragments, %d removed; want 4, 1", r[1].Fragments, r[1].Removed)
	}
}

// TestHashesAreRemovableOnly: code, tables and headings are never
// furniture, so their hashes are not counted across pages.
func TestHashesAreRemovableOnly(t *testing.T) {
	blocks := Split("# Title\n\nText.\n\n- item\n\n```\ncode\n```\n\n| a |\n|---|\n| b |")
	if n := len(Hashes(blocks)); n != 2 {
		t.Errorf("%d hashes, want the paragraph's and the list item's", n)
	}
}

func TestHashesSortedAndDistinct(t *testing.T) {
	hs := Hashes(Split("b\n\na\n\nb\n\n---\n\nc"))
	if len(hs) != 3 {
		t.Fatalf("got %d hashes, want 3", len(hs))
	}
	for i := 1; i < len(hs); i++ {
		if string(hs[i-1][:]) >= string(hs[i][:]) {
			t.Fatalf("hashes not sorted: %x", hs)
		}
	}
}

func TestSplitAssembleKeepsPageWhole(t *testing.T) {
	md := "# T\n\nP one.\n\n- a\n- b\n\n| h |\n|---|\n| r |\n\n```\ncode\n```\n\n---\n\nEnd."
	if got := Assemble(Split(md), func(Hash) bool { return true }).Markdown; got != md {
		t.Errorf("owning everything changed the page:\n got %q\nwant %q", got, md)
	}
}

func FuzzAssemble(f *testing.F) {
	f.Add("# a\n\nb\n\n- c\n| d |\n|---|\n```\ne")
	f.Fuzz(func(t *testing.T, md string) {
		blocks := Split(md)
		all := Assemble(blocks, func(Hash) bool { return true })
		none := Assemble(blocks, func(Hash) bool { return false })
		removable := 0
		for _, b := range blocks {
			if b.Fragment && Removable(b.Kind) {
				removable++
			}
		}
		if none.Removed > removable {
			t.Fatalf("owning nothing removed %d fragments, only %d can go", none.Removed, removable)
		}
		if all.Removed != 0 {
			t.Fatalf("owning everything removed %d of %d fragments", all.Removed, all.Fragments)
		}
	})
}

// BenchmarkSplitAssemble measures the CPU side of deduplicating a page of
// about 20 KB of markdown (the database round trip is measured in db).
func BenchmarkSplitAssemble(b *testing.B) {
	var md strings.Builder
	for i := 0; md.Len() < 20<<10; i++ {
		fmt.Fprintf(&md, "## Section %d\n\nParagraph %d with a few words of text in it, as pages have.\n\n- item %d\n- item %d\n\n", i, i, i, i+1)
	}
	page := md.String()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		blocks := Split(page)
		hashes := Hashes(blocks)
		owned := make(map[Hash]bool, len(hashes))
		for i, h := range hashes {
			owned[h] = i%2 == 0
		}
		Assemble(blocks, func(h Hash) bool { return owned[h] })
	}
}

// TestPageMarkersAreStructure: a PDF's page markers are the same in every
// document, yet never fragments, so deduplication keeps them on each.
func TestPageMarkersAreStructure(t *testing.T) {
	blocks := Split("<!-- page 1 -->\n\nText of the report.\n\n<!-- page 2 -->\n\nMore text.")
	markers := 0
	for _, b := range blocks {
		if b.Kind == Marker {
			markers++
			if b.Fragment {
				t.Errorf("marker %q is a fragment", b.Text)
			}
		}
	}
	if markers != 2 {
		t.Errorf("%d markers in %+v", markers, blocks)
	}
	// Another page owns "More text.": the markers stay with the text kept.
	res := Assemble(blocks, func(h Hash) bool { return h == blocks[1].Hash })
	if !strings.Contains(res.Markdown, "<!-- page 1 -->") || !strings.Contains(res.Markdown, "<!-- page 2 -->") ||
		strings.Contains(res.Markdown, "More text.") {
		t.Errorf("assembled: %q", res.Markdown)
	}
}
