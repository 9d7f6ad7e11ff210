// Package linkmemo remembers, for each crawl a worker fetches, the links
// it has put in the crawl's frontier and where (depth, rank). Most links
// of a site are on every page (its navigation, its sidebars): once one is
// in the frontier, enqueueing it again changes nothing unless it comes
// closer to the start, so a worker that remembers it sends the database
// only what is new. The memo is an optimisation only: a link it has
// forgotten (another worker's, one from before a restart, or after it was
// cleared to bound its memory) is sent as before, and the database still
// decides.
package linkmemo

import (
	"sync"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/db"
)

// Memo is the links enqueued, by crawl. It is safe for concurrent use.
type Memo struct {
	mu     sync.Mutex
	max    int
	size   int
	crawls map[uuid.UUID]map[string]place
}

// place is where a link was enqueued in the crawl's order.
type place struct {
	depth int
	rank  string
}

// closer reports whether p comes before q in the crawl's order.
func (p place) closer(q place) bool {
	return p.depth < q.depth || (p.depth == q.depth && p.rank < q.rank)
}

// New returns a memo of at most max links over all crawls; past it the
// memo starts afresh.
func New(max int) *Memo {
	return &Memo{max: max, crawls: map[uuid.UUID]map[string]place{}}
}

// Unknown returns the links that must still go to the database: those the
// memo has not seen enqueued for the crawl at their place or closer. A nil
// memo knows none.
func (m *Memo) Unknown(crawlID uuid.UUID, links []db.NewPage) []db.NewPage {
	if m == nil || len(links) == 0 {
		return links
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	known := m.crawls[crawlID]
	out := links[:0:0]
	for _, l := range links {
		if at, ok := known[l.NormalizedURL]; ok && !(place{l.Depth, l.Rank}).closer(at) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Enqueued records links the crawl's frontier now holds (the transaction
// that enqueued them has committed).
func (m *Memo) Enqueued(crawlID uuid.UUID, links []db.NewPage) {
	if m == nil || len(links) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.size+len(links) > m.max {
		m.crawls, m.size = map[uuid.UUID]map[string]place{}, 0
	}
	known := m.crawls[crawlID]
	if known == nil {
		known = map[string]place{}
		m.crawls[crawlID] = known
	}
	for _, l := range links {
		p := place{l.Depth, l.Rank}
		if at, ok := known[l.NormalizedURL]; !ok {
			known[l.NormalizedURL] = p
			m.size++
		} else if p.closer(at) {
			known[l.NormalizedURL] = p
		}
	}
}

// Forget drops what the memo holds of a crawl (it has ended).
func (m *Memo) Forget(crawlID uuid.UUID) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.size -= len(m.crawls[crawlID])
	delete(m.crawls, crawlID)
}
