package dedupe

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file decides deduplication for a whole crawl at once, when every
// page is known, so that what a page keeps does not depend on the order in
// which pages were fetched.
//
// A fragment held by one page is that page's. A fragment held by several
// is kept by one of them and removed from the others:
//   - Text that repeats across much of the site (held by at least
//     commonShare of the pages, and at least minCommon) is boilerplate:
//     navigation, footers, banners. The page closest to the start keeps it
//     (depth, then rank), so that the site's shared parts appear once.
//   - Text held by a few pages is a page's own text that other pages
//     repeat: a print version holding every chapter, an archive or a tag
//     page holding whole posts. The page that shares such text with the
//     fewest other pages keeps it (an aggregate shares with every page it
//     gathers); a page marked noindex gives way to one that is not.
//
// No page is emptied: a page that would keep none of its fragments keeps
// its headings when it gathers several pages (an outline of them), else
// the fragments held by the fewest pages (a copy of another page keeps
// all of its text).

// minCommon and commonShare: a fragment held by at least
// max(minCommon, commonShare of the pages) pages is boilerplate.
const (
	minCommon   = 3
	commonShare = 0.1
)

// SitePage is a stored page as the site-wide decision needs it.
type SitePage struct {
	ID int64
	// Depth and Rank are the page's place in the crawl's order; URL breaks
	// ties.
	Depth int
	Rank  string
	URL   string
	// NoIndex is set when the page asks search engines not to index it
	// (a print version, a tag page).
	NoIndex bool
	// Hashes are the page's distinct fragments (Hashes of its blocks).
	Hashes []Hash
}

// Decision is who keeps each fragment of a crawl.
type Decision struct {
	// shared holds each fragment several pages hold: how many, and the
	// page that keeps it. A fragment not in it is held by one page.
	shared map[Hash]sharedFragment
	// common is the least number of holders of a boilerplate fragment.
	common int32
}

type sharedFragment struct {
	holders int32
	owner   int64
}

// holders counts the pages holding fragment h (one when it is no page's
// but the asker's: every fragment asked about is some page's).
func (d *Decision) holders(h Hash) int32 {
	if s, ok := d.shared[h]; ok {
		return s.holders
	}
	return 1
}

// owner is the page keeping a shared fragment h; 0 for a fragment one
// page holds.
func (d *Decision) owner(h Hash) int64 { return d.shared[h].owner }

// Loses reports whether page id, holding the distinct fragments hashes,
// loses any of them to another page: only then does Assemble change it.
func (d *Decision) Loses(id int64, hashes []Hash) bool {
	for _, h := range hashes {
		if s, ok := d.shared[h]; ok && s.owner != id {
			return true
		}
	}
	return false
}

// maxPartners bounds the partners counted for a page: pages that share
// text with more than that many others are all aggregates, and among them
// the crawl's order decides. It bounds the memory and the time a site of
// pages that all share text with one another would take.
const maxPartners = 256

// holding is one fragment of one page (its index among the pages).
type holding struct {
	hash Hash
	page int32
}

// Decide decides, for every fragment that several of pages hold, which
// one keeps it. Its memory is a pair (fragment, page) for each fragment
// of each page while it decides, and an entry for each shared fragment
// afterwards.
func Decide(pages []SitePage) *Decision {
	d := &Decision{shared: map[Hash]sharedFragment{},
		common: int32(max(minCommon, int(float64(len(pages))*commonShare+0.999)))}
	held := holdings(pages)
	partners := partnersOf(held, len(pages), d.common)
	closer := func(a, b int32) bool { // a comes before b in the crawl's order
		pa, pb := &pages[a], &pages[b]
		if pa.Depth != pb.Depth {
			return pa.Depth < pb.Depth
		}
		if pa.Rank != pb.Rank {
			return pa.Rank < pb.Rank
		}
		return pa.URL < pb.URL
	}
	owns := func(a, b int32) bool { // a rather than b keeps shared text
		if pages[a].NoIndex != pages[b].NoIndex {
			return !pages[a].NoIndex
		}
		if na, nb := len(partners[a]), len(partners[b]); na != nb {
			return na < nb
		}
		return closer(a, b)
	}
	eachShared(held, func(h Hash, hs []int32) {
		better := owns
		if int32(len(hs)) >= d.common {
			better = closer
		}
		best := hs[0]
		for _, i := range hs[1:] {
			if better(i, best) {
				best = i
			}
		}
		d.shared[h] = sharedFragment{holders: int32(len(hs)), owner: pages[best].ID}
	})
	return d
}

// holdings lists each fragment of each page, sorted by fragment, then by
// page.
func holdings(pages []SitePage) []holding {
	n := 0
	for _, p := range pages {
		n += len(p.Hashes)
	}
	held := make([]holding, 0, n)
	for i, p := range pages {
		for _, h := range p.Hashes {
			held = append(held, holding{h, int32(i)})
		}
	}
	slices.SortFunc(held, func(a, b holding) int {
		if c := bytes.Compare(a.hash[:], b.hash[:]); c != 0 {
			return c
		}
		return cmp.Compare(a.page, b.page)
	})
	return held
}

// eachShared calls fn with each fragment several pages hold (held sorted
// as holdings sorts it) and the pages (indexes) holding it, in page
// order. fn must not keep hs: it is reused.
func eachShared(held []holding, fn func(h Hash, hs []int32)) {
	holders := make([]int32, 0, 64)
	for i := 0; i < len(held); {
		j := i + 1
		for j < len(held) && held[j].hash == held[i].hash {
			j++
		}
		holders = holders[:0]
		for _, x := range held[i:j] {
			if len(holders) == 0 || holders[len(holders)-1] != x.page {
				holders = append(holders, x.page)
			}
		}
		if len(holders) > 1 {
			fn(held[i].hash, holders)
		}
		i = j
	}
}

// partnersOf holds, for each of n pages, the other pages it shares text
// with that is not boilerplate (held by fewer than common pages), up to
// maxPartners.
func partnersOf(held []holding, n int, common int32) []map[int32]struct{} {
	partners := make([]map[int32]struct{}, n)
	eachShared(held, func(_ Hash, hs []int32) {
		if int32(len(hs)) >= common {
			return
		}
		for _, a := range hs {
			if len(partners[a]) >= maxPartners {
				continue
			}
			if partners[a] == nil {
				partners[a] = map[int32]struct{}{}
			}
			for _, b := range hs {
				if a != b {
					partners[a][b] = struct{}{}
					if len(partners[a]) >= maxPartners {
						break
					}
				}
			}
		}
	})
	return partners
}

// Keep is what a page keeps of its blocks under the decision. Samples
// are the first few fragments it lost (shortened), for its log.
type Keep struct {
	Result
	Samples []string
}

// maxRemovedShown and maxRemovedText bound what Keep.Samples lists.
const (
	maxRemovedShown = 3
	maxRemovedText  = 80
)

// Assemble rebuilds page id's markdown raw (split as blocks) from what the
// decision leaves it; a page that loses nothing keeps raw byte for byte.
func (d *Decision) Assemble(id int64, raw string, blocks []Block) Keep {
	owned := func(h Hash) bool {
		return d.holders(h) <= 1 || d.owner(h) == id
	}
	r := Assemble(blocks, owned)
	if r.Fragments > 0 && r.Markdown == "" {
		r, owned = d.notEmpty(id, blocks)
	}
	if r.Removed == 0 {
		r.Markdown = raw
	}
	k := Keep{Result: r}
	for _, b := range blocks {
		if len(k.Samples) == maxRemovedShown {
			break
		}
		if b.Fragment && !owned(b.Hash) {
			k.Samples = append(k.Samples, shorten(strings.Join(strings.Fields(b.Text), " "), maxRemovedText))
		}
	}
	return k
}

// notEmpty is what a page keeps that would keep none of its fragments.
// A page that gathers the text of several others (a print version, an
// archive) keeps its headings: an outline of what it gathers, whose text
// is on those pages. Any other (a copy of one page, a page made of shared
// sections) keeps the fragments held by the fewest pages.
func (d *Decision) notEmpty(id int64, blocks []Block) (Result, func(Hash) bool) {
	gathered := map[int64]bool{}
	fewest := int32(-1)
	for _, b := range blocks {
		if !b.Fragment {
			continue
		}
		n := d.holders(b.Hash)
		if n < d.common {
			gathered[d.owner(b.Hash)] = true
		}
		if fewest < 0 || n < fewest {
			fewest = n
		}
	}
	if len(gathered) >= 2 {
		headings := map[Hash]bool{}
		for _, b := range blocks {
			if b.Fragment && b.Kind == Heading {
				headings[b.Hash] = true
			}
		}
		outline := func(h Hash) bool { return headings[h] }
		if r := assemble(blocks, outline, true); r.Markdown != "" {
			return r, outline
		}
	}
	fewestHeld := func(h Hash) bool { return d.holders(h) <= fewest || d.owner(h) == id }
	return Assemble(blocks, fewestHeld), fewestHeld
}

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
