package dedupe

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
)

// hashOf is a fragment's hash made from a number.
func hashOf(n int) Hash {
	var h Hash
	binary.LittleEndian.PutUint64(h[:], uint64(n)+1)
	return h
}

// randomSite is n pages holding fragments drawn so that many are held by
// about a third of the pages, around the threshold: fragment k is on a
// page with a chance that falls with k, and each page has some of its
// own; in some sites one page (a manual on one page) has thousands.
func randomSite(r *rand.Rand, n int) []SitePage {
	huge := -1
	if r.Intn(3) == 0 {
		huge = r.Intn(n)
	}
	pages := make([]SitePage, n)
	for i := range pages {
		p := SitePage{ID: int64(i + 1), Depth: r.Intn(4), Rank: fmt.Sprintf("%04d", r.Intn(n)), URL: fmt.Sprintf("/p%d", i)}
		for k := 0; k < 60; k++ {
			if r.Float64() < 0.6/float64(1+k/6) {
				p.Hashes = append(p.Hashes, hashOf(k))
			}
			if k < 12 && r.Float64() < 0.5/float64(1+k/3) {
				p.Headings = append(p.Headings, hashOf(1000+k))
			}
		}
		own := r.Intn(20)
		if i == huge {
			own = 20 * n
		}
		for k := own; k > 0; k-- {
			p.Hashes = append(p.Hashes, hashOf(1_000_000+i*100_000+k))
		}
		pages[i] = p
	}
	return pages
}

// decideByCounting is the decision made by counting every fragment of
// every page at once: what Decide must say in bounded memory.
func decideByCounting(pages []SitePage) (map[Hash]int64, map[Hash]bool) {
	count, best := map[Hash]int{}, map[Hash]int{}
	headings := map[Hash]int{}
	at := func(i int) place { p := pages[i]; return place{p.ID, p.Depth, p.Rank, p.URL} }
	for i, p := range pages {
		for _, h := range p.Hashes {
			count[h]++
			if b, ok := best[h]; !ok || at(i).before(at(b)) {
				best[h] = i
			}
		}
		for _, h := range p.Headings {
			headings[h]++
		}
	}
	t := Threshold(len(pages))
	owner, shared := map[Hash]int64{}, map[Hash]bool{}
	for h, n := range count {
		if n >= t {
			owner[h] = pages[best[h]].ID
		}
	}
	for h, n := range headings {
		if n >= t {
			shared[h] = true
		}
	}
	return owner, shared
}

// decideWith is Decide with surveys keeping at least floor counters; it
// reports whether the pages had to be seen again and how many times the
// first survey's counters each lost one.
func decideWith(pages []SitePage, floor int) (d *Decision, again bool, rounds int) {
	each := func(add func(SitePage) error) error {
		for _, p := range pages {
			if err := add(p); err != nil {
				return err
			}
		}
		return nil
	}
	s := newSurvey(floor)
	each(s.Add)
	rounds = s.fragments.rounds + s.headings.rounds
	d, err := s.Decide(each)
	if err != nil {
		panic(err)
	}
	return d, !s.sure(), rounds
}

// TestDecideMatchesCounting: with few counters or many, in any order of
// the pages, the bounded passes decide what counting every fragment of
// every page decides; the cases include counters that had to forget
// (rounds) and surveys that were not sure and saw the pages again.
func TestDecideMatchesCounting(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	forgot, seenAgain := 0, 0
	for round := 0; round < 60; round++ {
		pages := randomSite(r, 1+r.Intn(600))
		r.Shuffle(len(pages), func(i, j int) { pages[i], pages[j] = pages[j], pages[i] })
		owner, shared := decideByCounting(pages)
		for _, floor := range []int{1, 4, 16, minCounters} {
			d, again, rounds := decideWith(pages, floor)
			if rounds > 0 {
				forgot++
			}
			if again {
				seenAgain++
			}
			if !maps.Equal(d.owner, owner) || !maps.Equal(d.sharedHeadings, shared) {
				t.Fatalf("round %d, %d pages, floor %d: %d pieces of furniture and %d shared headings, want %d and %d",
					round, len(pages), floor, len(d.owner), len(d.sharedHeadings), len(owner), len(shared))
			}
		}
		if d := Decide(pages); !maps.Equal(d.owner, owner) || !maps.Equal(d.sharedHeadings, shared) || d.Threshold != Threshold(len(pages)) {
			t.Fatalf("round %d: Decide differs from counting", round)
		}
	}
	if forgot == 0 || seenAgain == 0 {
		t.Fatalf("the cases never made counters forget (%d) or a survey see the pages again (%d)", forgot, seenAgain)
	}
}

// TestSurveyDoesNotGrowWithPages: surveying 100,000 pages (a menu of 8
// items on each, 20 fragments of its own on each) keeps as many counters
// as surveying 1,000, finds the menu without seeing the pages again, and
// the tally gives the menu to the first page.
func TestSurveyDoesNotGrowWithPages(t *testing.T) {
	page := func(i int) SitePage {
		p := SitePage{ID: int64(i + 1), Depth: min(i, 3), Rank: fmt.Sprintf("%06d", i), URL: fmt.Sprintf("/p%d", i),
			Headings: []Hash{hashOf(-2 - i)}}
		for k := 0; k < 8; k++ {
			p.Hashes = append(p.Hashes, hashOf(k))
		}
		for k := 0; k < 20; k++ {
			p.Hashes = append(p.Hashes, hashOf(100+i*20+k))
		}
		return p
	}
	var counters []int
	for _, n := range []int{1000, 100_000} {
		s := NewSurvey()
		for i := 0; i < n; i++ {
			s.Add(page(i))
		}
		if !s.sure() {
			t.Fatalf("%d pages: the survey is not sure", n)
		}
		counters = append(counters, s.counters())
		tally := s.tally()
		for i := 0; i < n; i++ {
			tally.Add(page(i))
		}
		d := tally.Decision()
		want := map[Hash]int64{}
		for k := 0; k < 8; k++ {
			want[hashOf(k)] = 1
		}
		if !maps.Equal(d.owner, want) {
			t.Fatalf("%d pages: furniture %v, want the menu's 8 items kept by page 1", n, slices.Collect(maps.Values(d.owner)))
		}
	}
	if counters[1] > 2*minCounters || counters[1] > counters[0] {
		t.Fatalf("counters: %d for 1,000 pages, %d for 100,000", counters[0], counters[1])
	}
}
