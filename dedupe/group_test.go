package dedupe

import (
	"maps"
	"slices"
	"testing"
)

// fragment returns the hash of a one-block markdown text.
func fragment(t *testing.T, text string) Hash {
	t.Helper()
	blocks := Split(text)
	if len(blocks) != 1 || !blocks[0].Fragment {
		t.Fatalf("%q is not one fragment", text)
	}
	return blocks[0].Hash
}

func TestSettle(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		// earlier are fragments a page of an earlier group owns;
		// unanswered are fragments another transaction claimed at the
		// same moment (the claim names no owner). Every other fragment is
		// owned by the first page of the group that holds it.
		earlier, unanswered []string
		want                []string
		// counts are each page's fragments and removed fragments.
		counts   [][2]int
		handedOn map[string]int // fragment: index of the page that owns it now
		freed    []string
	}{
		{
			name:   "the first page keeps a fragment",
			pages:  []string{"Shared.\n\nOne.", "Shared.\n\nTwo."},
			want:   []string{"Shared.\n\nOne.", "Two."},
			counts: [][2]int{{2, 0}, {2, 1}},
		},
		{
			name:     "a fragment given back goes to the next page of the group that holds it",
			pages:    []string{"Shared.", "# Specs\n\nShared.", "Other.", "# Specs\n\nNew specs.", "# Specs\n\nOld specs."},
			want:     []string{"Shared.", "", "Other.", "# Specs\n\nNew specs.", "Old specs."},
			counts:   [][2]int{{1, 0}, {2, 2}, {1, 0}, {2, 0}, {2, 1}},
			handedOn: map[string]int{"# Specs": 3},
		},
		{
			name:   "a fragment no later page of the group holds is freed",
			pages:  []string{"Shared.", "# Alone\n\nShared.", "Other."},
			want:   []string{"Shared.", "", "Other."},
			counts: [][2]int{{1, 0}, {2, 2}, {1, 0}},
			freed:  []string{"# Alone"},
		},
		{
			name:   "a fragment handed on and given back again is freed",
			pages:  []string{"Shared.", "# Specs\n\nShared.", "# Specs\n\nShared."},
			want:   []string{"Shared.", "", ""},
			counts: [][2]int{{1, 0}, {2, 2}, {2, 2}},
			freed:  []string{"# Specs"},
		},
		{
			name:    "a fragment an earlier group's page owns is removed",
			pages:   []string{"Body.\n\nFooter.", "Footer."},
			earlier: []string{"Footer."},
			want:    []string{"Body.", ""},
			counts:  [][2]int{{2, 1}, {1, 1}},
		},
		{
			name:       "a fragment claimed at the same moment elsewhere is removed",
			pages:      []string{"Body.\n\nFooter.", "Footer.\n\nMore."},
			unanswered: []string{"Footer."},
			want:       []string{"Body.", "More."},
			counts:     [][2]int{{2, 1}, {2, 1}},
		},
		{
			name:   "an emptied section heading goes, and is freed",
			pages:  []string{"Shared note.", "Intro.\n\n## Notes\n\nShared note.\n\n## Links\n\nOwn link."},
			want:   []string{"Shared note.", "Intro.\n\n## Links\n\nOwn link."},
			counts: [][2]int{{1, 0}, {5, 2}},
			freed:  []string{"## Notes"},
		},
		{
			name:   "a page that removes nothing keeps its raw markdown unchanged",
			pages:  []string{"# Title  \r\n\r\n\r\nText.\r\n\r\n* * *\n", "Other."},
			want:   []string{"# Title  \r\n\r\n\r\nText.\r\n\r\n* * *\n", "Other."},
			counts: [][2]int{{2, 0}, {1, 0}},
		},
		{
			name:    "a page that removes a fragment is rebuilt from its blocks",
			pages:   []string{"Text.\r\n\r\n\r\nFooter.\r\n"},
			earlier: []string{"Footer."},
			want:    []string{"Text."},
			counts:  [][2]int{{2, 1}},
		},
	}
	const earlierPage = 1
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages := make([]Page, len(tt.pages))
			owners := map[Hash]int64{}
			for i, md := range tt.pages {
				pages[i] = NewPage(int64(100+i), md)
				for _, h := range pages[i].Hashes {
					if _, ok := owners[h]; !ok {
						owners[h] = pages[i].ID
					}
				}
			}
			for _, f := range tt.earlier {
				owners[fragment(t, f)] = earlierPage
			}
			for _, f := range tt.unanswered {
				delete(owners, fragment(t, f))
			}
			claimed := maps.Clone(owners)

			got := Settle(pages, owners)

			if len(got.Results) != len(pages) {
				t.Fatalf("%d results for %d pages", len(got.Results), len(pages))
			}
			for i, r := range got.Results {
				if r.Markdown != tt.want[i] {
					t.Errorf("page %d:\n got %q\nwant %q", i, r.Markdown, tt.want[i])
				}
				if c := [2]int{r.Fragments, r.Removed}; c != tt.counts[i] {
					t.Errorf("page %d: fragments, removed = %v, want %v", i, c, tt.counts[i])
				}
			}
			handedOn := map[Hash]int64{}
			for f, i := range tt.handedOn {
				handedOn[fragment(t, f)] = pages[i].ID
			}
			if !maps.Equal(got.HandedOn, handedOn) {
				t.Errorf("handed on %x, want %x", got.HandedOn, handedOn)
			}
			var freed []Hash
			for _, f := range tt.freed {
				freed = append(freed, fragment(t, f))
			}
			if !slices.Equal(got.Freed, freed) {
				t.Errorf("freed %x, want %x", got.Freed, freed)
			}
			if !maps.Equal(owners, claimed) {
				t.Error("Settle changed the owners it was given")
			}
		})
	}
}
