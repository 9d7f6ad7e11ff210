package dedupe

import (
	"math/rand"
	"os"
	"reflect"
	"testing"
)

// TestSpoolGivesBackItsPages: pages spooled (with and without fragments,
// with empty and long addresses) come back the same and in order, from
// two readers at once, also after more pages are added; the spool's file
// has no name from the start (a killed worker leaves nothing behind).
func TestSpoolGivesBackItsPages(t *testing.T) {
	dir := t.TempDir()
	files := openFiles(t)
	s, err := NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the spool's file has a name: %s", left[0].Name())
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
	if err := s.Add(SitePage{ID: 9999}); err != nil { // not seen by a
		t.Fatal(err)
	}
	b, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
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
	if p, ok, err := b.Next(); !ok || err != nil || p.ID != 9999 {
		t.Fatalf("the page added after the first reader: %v, %v, %v", p.ID, ok, err)
	}
	n := 0
	if err := s.Each(func(SitePage) error { n++; return nil }); err != nil || n != len(pages)+1 {
		t.Fatalf("Each saw %d pages (%v), want %d", n, err, len(pages)+1)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the spool left %d files", len(left))
	}
	if now := openFiles(t); now != files { // its file has no name: only Close frees it
		t.Errorf("%d files open after Close, %d before the spool", now, files)
	}
}

// openFiles is how many files this process has open.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(fds)
}
