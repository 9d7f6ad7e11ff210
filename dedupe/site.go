package dedupe

import (
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
	// holders counts the pages holding each fragment.
	holders map[Hash]int32
	// owner is the page keeping each fragment held by several pages.
	owner map[Hash]int64
	// common is the least number of holders of a boilerplate fragment.
	common int32
}

// Decide decides, for every fragment that several of pages hold, which
// one keeps it.
func Decide(pages []SitePage) *Decision {
	d := &Decision{holders: map[Hash]int32{}, owner: map[Hash]int64{},
		common: int32(max(minCommon, int(float64(len(pages))*commonShare+0.999)))}
	for _, p := range pages {
		for _, h := range p.Hashes {
			d.holders[h]++
		}
	}
	shared := map[Hash][]int32{} // the pages (indexes) holding each shared fragment
	for i, p := range pages {
		for _, h := range p.Hashes {
			if d.holders[h] > 1 {
				shared[h] = append(shared[h], int32(i))
			}
		}
	}
	// partners counts, for each page, the other pages it shares text
	// with that is not boilerplate.
	partnerSets := make([]map[int32]bool, len(pages))
	for h, hs := range shared {
		if d.holders[h] >= d.common {
			continue
		}
		for _, a := range hs {
			for _, b := range hs {
				if a == b {
					continue
				}
				if partnerSets[a] == nil {
					partnerSets[a] = map[int32]bool{}
				}
				partnerSets[a][b] = true
			}
		}
	}
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
		if na, nb := len(partnerSets[a]), len(partnerSets[b]); na != nb {
			return na < nb
		}
		return closer(a, b)
	}
	for h, hs := range shared {
		better := owns
		if d.holders[h] >= d.common {
			better = closer
		}
		best := hs[0]
		for _, i := range hs[1:] {
			if better(i, best) {
				best = i
			}
		}
		d.owner[h] = pages[best].ID
	}
	return d
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
		return d.holders[h] <= 1 || d.owner[h] == id
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
		n := d.holders[b.Hash]
		if n < d.common {
			gathered[d.owner[b.Hash]] = true
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
	fewestHeld := func(h Hash) bool { return d.holders[h] <= fewest || d.owner[h] == id }
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
