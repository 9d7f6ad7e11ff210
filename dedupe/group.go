package dedupe

import (
	"bytes"
	"slices"
)

// Page is a page of a crawl to deduplicate, split into its blocks.
type Page struct {
	ID int64
	// Raw is the page's markdown before deduplication.
	Raw    string
	Blocks []Block
	// Hashes are the page's distinct fragments, sorted: what it claims.
	Hashes []Hash
}

// NewPage splits the markdown raw of page id.
func NewPage(id int64, raw string) Page {
	blocks := Split(raw)
	return Page{ID: id, Raw: raw, Blocks: blocks, Hashes: Hashes(blocks)}
}

// Settlement is what the pages of a group keep, and where the fragments
// they give back go.
type Settlement struct {
	// Results are the pages' results, in the group's order.
	Results []Result
	// HandedOn maps each fragment given back to the later page of the
	// group that owns it now.
	HandedOn map[Hash]int64
	// Freed are the fragments given back that no later page of the group
	// holds, sorted: nobody owns them, a later group may claim them.
	Freed []Hash
}

// Settle decides what each page of a group keeps, the pages taken in
// crawl order; owners is the owner of each fragment as the group's claim
// answered (it is not changed). A page keeps the fragments it owns, and
// the headings and structure Assemble keeps around them; a page that
// removes nothing keeps its raw markdown byte for byte. A fragment a page
// gives back (Result.Released) goes to the next page of the group that
// holds it, which owns it from then on, or is freed when none does.
func Settle(pages []Page, owners map[Hash]int64) Settlement {
	s := Settlement{Results: make([]Result, len(pages)), HandedOn: map[Hash]int64{}}
	moved := map[Hash]int64{} // owner of each fragment given back; 0: none
	ownerOf := func(h Hash) int64 {
		if id, ok := moved[h]; ok {
			return id
		}
		return owners[h]
	}
	for i, p := range pages {
		r := Assemble(p.Blocks, func(h Hash) bool { return ownerOf(h) == p.ID })
		if r.Removed == 0 {
			r.Markdown = p.Raw // rebuilt from blocks, it would lose line endings and blank runs
		}
		s.Results[i] = r
		for _, h := range r.Released {
			moved[h] = 0
			for _, next := range pages[i+1:] {
				if slices.Contains(next.Hashes, h) {
					moved[h] = next.ID
					break
				}
			}
		}
	}
	for h, id := range moved {
		if id == 0 {
			s.Freed = append(s.Freed, h)
		} else {
			s.HandedOn[h] = id
		}
	}
	slices.SortFunc(s.Freed, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
	return s
}
