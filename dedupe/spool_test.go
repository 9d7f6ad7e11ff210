package dedupe

import (
	"math/rand"
	"os"
	"reflect"
	"testing"
)

// TestSpoolGivesBackItsPages: pages spooled (with and without fragments,
// with empty and long addresses) come back the same and in order, from
// two readers at once, and closing the spool removes its file.
func TestSpoolGivesBackItsPages(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	pages := randomSite(rand.New(rand.NewSource(3)), 300)
	pages[0].URL, pages[0].Rank, pages[0].Hashes, pages[0].Headings = "", "", nil, nil
	pages[1].URL = string(make([]byte, 70000))
	pages[2].Depth, pages[2].Fragments = 0, 12345
	for _, p := range pages {
		if err := s.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	a, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, want := range pages {
		for _, r := range []*SpoolReader{a, b} {
			got, ok, err := r.Next()
			if err != nil || !ok {
				t.Fatalf("page %d: %v, %v", i, ok, err)
			}
			if len(want.Hashes) == 0 {
				want.Hashes = []Hash{}
			}
			if len(want.Headings) == 0 {
				want.Headings = []Hash{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("page %d came back as %+v, want %+v", i, got.ID, want.ID)
			}
		}
	}
	if _, ok, err := a.Next(); ok || err != nil {
		t.Fatalf("after the last page: %v, %v", ok, err)
	}
	n := 0
	if err := s.Each(func(SitePage) error { n++; return nil }); err != nil || n != len(pages) {
		t.Fatalf("Each saw %d pages (%v), want %d", n, err, len(pages))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the spool left %d files", len(left))
	}
}
