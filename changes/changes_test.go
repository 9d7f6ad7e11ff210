package changes

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDiffShowsOnlyTheChangedLinesWithTheirContext(t *testing.T) {
	prev := "# Title\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	cur := "# Title\n\none\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight"
	d := Diff(prev, cur)
	for _, want := range []string{"diff --git a/page.md b/page.md\n", "--- a/page.md\n", "+++ b/page.md\n",
		"@@ -3,7 +3,8 @@\n", "-four\n", "+FOUR\n", "+eight\n", " three\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "# Title") {
		t.Errorf("diff shows a line far from any change:\n%s", d)
	}
	if Diff(prev, prev) != "" || Structured(prev, prev) != nil {
		t.Error("equal texts have a diff")
	}
}

func TestStructuredCountsAdditionsAndDeletions(t *testing.T) {
	s := Structured("a\nb\nc\n", "a\nB\nc\nd\n")
	if s == nil || len(s.Files) != 1 {
		t.Fatalf("structured diff = %+v", s)
	}
	f := s.Files[0]
	if f.Additions != 2 || f.Deletions != 1 || len(f.Chunks) != 1 {
		t.Fatalf("file = %+v", f)
	}
	var got []string
	for _, l := range f.Chunks[0].Changes {
		got = append(got, l.Type+":"+l.Content)
	}
	want := "normal: a|del:-b|add:+B|normal: c|add:+d"
	if strings.Join(got, "|") != want {
		t.Errorf("changes = %s, want %s", strings.Join(got, "|"), want)
	}
}

func TestFieldsNamesTheFieldsThatChanged(t *testing.T) {
	prev := json.RawMessage(`{"price": 10, "name": "Mug", "tags": ["a"], "stock": {"count": 3, "where": "x"}}`)
	cur := json.RawMessage(`{"price": 12, "name": "Mug", "tags": ["a", "b"], "stock": {"count": 3, "where": "y"}, "new": true}`)
	got := Fields(prev, cur)
	if len(got) != 4 {
		t.Fatalf("fields = %v", got)
	}
	if c := got["price"]; c.Previous != float64(10) || c.Current != float64(12) {
		t.Errorf("price = %+v", c)
	}
	if c := got["stock.where"]; c.Previous != "x" || c.Current != "y" {
		t.Errorf("stock.where = %+v", c)
	}
	if c, ok := got["new"]; !ok || c.Previous != nil || c.Current != true {
		t.Errorf("new = %+v", c)
	}
	if _, ok := got["tags"]; !ok {
		t.Error("the changed array is not named")
	}
	if Fields(prev, prev) != nil {
		t.Error("equal extractions have changed fields")
	}
}
