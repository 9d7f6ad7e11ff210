package dedupe

import "errors"

// A crawl's furniture is found in passes over its pages whose memory
// does not grow with the number of pages, only with how many fragments a
// page holds:
//
//   - a Survey sees every page once and keeps a bounded set of candidate
//     fragments, sure to hold every fragment Threshold pages hold
//     (Misra and Gries' frequent-item counters: a counter for each
//     candidate; when a new fragment finds every counter taken, each
//     counter loses one instead). If the counters were too few for that
//     (sure), the pages are seen once more by the survey that again returns,
//     whose number of counters the first pass measured;
//   - a Tally sees every page once more, counts exactly how many pages
//     hold each candidate and which of them is closest to the start, and
//     gives the Decision.
//
// Survey.Decide runs the passes after the first; Decide runs them all
// over pages held in memory, SettleDeduplication over a crawl's pages
// spooled to disk.

// minCounters is the fewest counters a survey keeps for fragments and
// for headings: a crawl whose pages hold fewer distinct fragments is
// counted exactly.
const minCounters = 4096

// countersPerFragment: a survey keeps at least this many counters for
// each fragment a page holds on average. Each time every counter loses
// one, as many sightings as there are counters, plus the new one, are
// forgotten; with four counters for each fragment a page holds on
// average, that happens fewer times than a quarter of the pages, so a
// fragment that Threshold pages (a third of them) hold still has a
// counter at the end.
const countersPerFragment = 4

// frequent keeps counters for the fragments seen most often.
type frequent struct {
	counts map[Hash]int
	// limit is the most counters kept; grow lets it rise with the
	// fragments a page holds on average, from floor.
	limit, floor int
	grow         bool
	// held counts the fragments seen (a page's distinct ones each);
	// rounds, the times every counter lost one.
	held, rounds int
}

func newFrequent(limit, floor int, grow bool) frequent {
	return frequent{counts: map[Hash]int{}, limit: limit, floor: floor, grow: grow}
}

// add counts the distinct fragments of one page; pages is how many pages
// have been seen, this one included.
func (f *frequent) add(hashes []Hash, pages int) {
	for _, h := range hashes {
		f.held++
		if c, ok := f.counts[h]; ok {
			f.counts[h] = c + 1
			continue
		}
		if f.grow {
			f.limit = max(f.limit, enoughCounters(f.held, pages, f.floor))
		}
		if len(f.counts) < f.limit {
			f.counts[h] = 1
			continue
		}
		f.rounds++
		for k, c := range f.counts {
			if c == 1 {
				delete(f.counts, k)
			} else {
				f.counts[k] = c - 1
			}
		}
	}
}

// enoughCounters is how many counters (at least floor) make sure that
// fragments held by Threshold(pages) pages are counted, when pages hold
// held fragments.
func enoughCounters(held, pages, floor int) int {
	return max(floor, countersPerFragment*(held/max(pages, 1)+1))
}

// again returns counters for the same fragments seen again, as many as
// pages holding them need, which do not grow.
func (f *frequent) again(pages int) frequent {
	n := enoughCounters(f.held, pages, f.floor)
	return newFrequent(n, n, false)
}

// Survey is the first pass over a crawl's pages: it finds the fragments
// and headings that may be held by Threshold pages.
type Survey struct {
	fragments, headings frequent
	pages               int
}

// NewSurvey starts a survey.
func NewSurvey() *Survey { return newSurvey(minCounters) }

// newSurvey starts a survey keeping at least floor counters for each of
// fragments and headings.
func newSurvey(floor int) *Survey {
	return &Survey{fragments: newFrequent(floor, floor, true), headings: newFrequent(floor, floor, true)}
}

// Add sees one page (its Hashes and Headings). It never fails: its
// error is there for it to be given to a Spool's Each.
func (s *Survey) Add(p SitePage) error {
	s.pages++
	s.fragments.add(p.Hashes, s.pages)
	s.headings.add(p.Headings, s.pages)
	return nil
}

// Decide ends the decision on the pages the survey saw, which each gives
// again, in any order, as many times as needed: once more to a survey
// that is sure if this one is not, then to a Tally.
func (s *Survey) Decide(each func(func(SitePage) error) error) (*Decision, error) {
	if !s.sure() {
		s = s.again()
		if err := each(s.Add); err != nil {
			return nil, err
		}
		if !s.sure() { // enoughCounters is wrong for Threshold: never decide on a guess
			return nil, errors.New("dedupe: a survey seen again is still not sure of its candidates")
		}
	}
	t := s.tally()
	if err := each(t.Add); err != nil {
		return nil, err
	}
	return t.Decision(), nil
}

// counters is how many counters the survey holds: what its memory
// grows with.
func (s *Survey) counters() int { return len(s.fragments.counts) + len(s.headings.counts) }

// sure reports whether every fragment and heading Threshold pages hold
// is among the candidates. When it is not, the pages must be seen again
// by again's survey.
func (s *Survey) sure() bool {
	t := Threshold(s.pages)
	return s.fragments.rounds < t && s.headings.rounds < t
}

// again returns a survey to see the same pages again with as many
// counters as they need, which is then sure.
func (s *Survey) again() *Survey {
	return &Survey{
		fragments: s.fragments.again(s.pages),
		headings:  s.headings.again(s.pages),
	}
}

// tally returns the second pass over the same pages, for the
// candidates the survey found.
func (s *Survey) tally() *Tally {
	t := &Tally{threshold: Threshold(s.pages), most: Most(s.pages), fragments: make(map[Hash]*holders, len(s.fragments.counts)),
		headings: make(map[Hash]int, len(s.headings.counts))}
	for h := range s.fragments.counts {
		t.fragments[h] = &holders{}
	}
	for h := range s.headings.counts {
		t.headings[h] = 0
	}
	return t
}

// Tally counts the pages holding each candidate and finds, for each
// fragment, the page closest to the start holding it.
type Tally struct {
	threshold, most int
	fragments       map[Hash]*holders
	headings        map[Hash]int
}

// holders is how many pages hold a fragment, and the closest of them.
type holders struct {
	n    int
	best place
}

// place is a page's place in the crawl's order: depth, then rank, then
// URL.
type place struct {
	id    int64
	depth int
	rank  string
	url   string
}

func (a place) before(b place) bool {
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.url < b.url
}

// Add sees one page (its Hashes and Headings, which must be distinct).
// It never fails (see Survey.Add).
func (t *Tally) Add(p SitePage) error {
	at := place{id: p.ID, depth: p.Depth, rank: p.Rank, url: p.URL}
	for _, h := range p.Hashes {
		if c, ok := t.fragments[h]; ok {
			c.n++
			if c.n == 1 || at.before(c.best) {
				c.best = at
			}
		}
	}
	for _, h := range p.Headings {
		if n, ok := t.headings[h]; ok {
			t.headings[h] = n + 1
		}
	}
	return nil
}

// Decision says who keeps each piece of furniture: the fragments held
// by Threshold pages or more.
func (t *Tally) Decision() *Decision {
	d := &Decision{owner: map[Hash]int64{}, sharedHeadings: map[Hash]bool{}, most: map[Hash]bool{}, Threshold: t.threshold}
	for h, c := range t.fragments {
		if c.n >= t.threshold {
			d.owner[h] = c.best.id
		}
		if c.n >= t.most {
			d.most[h] = true
		}
	}
	for h, n := range t.headings {
		if n >= t.threshold {
			d.sharedHeadings[h] = true
		}
	}
	return d
}
