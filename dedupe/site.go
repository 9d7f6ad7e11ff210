package dedupe

import (
	"bytes"
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file decides deduplication for a whole crawl at once, when every
// page is known, so that what a page keeps does not depend on the order in
// which pages were fetched.
//
// Deduplication takes out the site's furniture, nothing else. A fragment
// is furniture when a large share of the crawl's pages hold it (see
// furnitureShare): a menu, a footer, a banner, a "subscribe" box. The page
// closest to the start (depth, then rank, then URL) keeps it, so that the
// site's shared parts still appear once; every other page loses it.
//
// Text that a few pages share is content and stays on each of them: a
// summary and the page it summarises, a release note repeating a line of
// the one before, the example a tutorial shows on three pages, a print
// version gathering every chapter. Code blocks and tables are never taken
// (Removable), and headings go only with the text under them.
//
// No page is emptied: a page that would keep none of its text keeps all
// of it. When the pages are main content already (SharedSections), no
// page loses a fifth of its text or more to fragments that fewer than
// two thirds of the pages hold (largeShares), and what
// ties a repeated fragment to the page's own text keeps it (pagesOwn): a
// label before the page's own text, a list holding items of the page's
// own, and a section whose heading a third of the pages hold too:
// main content has taken the site's furniture, and a section many pages
// repeat under the same heading is documentation a family of pages
// shares (the methods an API's types inherit, each documented under its
// signature on every type's page), not furniture. A notice at the end of
// every article, under each article's own heading, goes.

// furnitureShare and minFurniture: a fragment held by at least
// max(minFurniture, furnitureShare of the crawl's pages) pages is
// furniture. Site-wide furniture (a menu, a footer) is on every page; a
// third leaves room for sites whose pages come in two or three templates
// (a blog's posts, its tag pages, its about pages) while text that a
// section of a manual repeats (its own menu, a notice on each of its
// pages) is a section's, and stays. The pages of a small crawl are few:
// two of them holding the same paragraph is what deduplicateContent
// describes, and it goes from one.
const (
	furnitureShare = 1.0 / 3
	minFurniture   = 2
)

// mostShare: a fragment held by at least this share of a crawl's pages
// (Most) is the site's wherever it stands and however much of a page it
// is (a notice every page opens with); the cap on what a short page
// loses (largeShares) is for text a family of pages shares, a part of
// the site.
const mostShare = 2.0 / 3

// Removable reports whether a block of kind k can be taken from a page
// for being furniture. Code and tables are a page's own even when other
// pages repeat them (an import line, a table of options), and a heading
// goes only with the text under it (Assemble drops a heading whose
// section lost all its text).
func Removable(k Kind) bool {
	return k == Paragraph || k == ListItem
}

// SitePage is a stored page as the site-wide decision needs it.
type SitePage struct {
	ID int64
	// Depth and Rank are the page's place in the crawl's order; URL breaks
	// ties.
	Depth int
	Rank  string
	URL   string
	// Hashes are the page's distinct removable fragments (Hashes of its
	// blocks); Headings, its headings' (HeadingHashes).
	Hashes, Headings []Hash
	// Fragments counts the page's fragments, repeats counted (it is not
	// used by the decision: it is carried for the page's record).
	Fragments int
}

// Decision is who keeps each piece of furniture of a crawl.
type Decision struct {
	// owner holds each fragment that is furniture and the page that keeps
	// it. A fragment not in it stays on every page holding it.
	owner map[Hash]int64
	// sharedHeadings holds the headings held by Threshold pages or more.
	sharedHeadings map[Hash]bool
	// most holds the fragments held by Most pages or more.
	most map[Hash]bool
	// Threshold is the least number of pages holding a fragment that
	// makes it furniture.
	Threshold int
	// SharedSections keeps a fragment whose section's heading is held
	// by Threshold pages or more: set when the pages are main content.
	SharedSections bool
}

// Loses reports whether page id, holding the distinct fragments hashes,
// loses any of them to another page: only then does Assemble change it.
func (d *Decision) Loses(id int64, hashes []Hash) bool {
	for _, h := range hashes {
		if o, ok := d.owner[h]; ok && o != id {
			return true
		}
	}
	return false
}

// Threshold is the number of pages that must hold a fragment for it to be
// the furniture of a crawl of n pages.
func Threshold(n int) int {
	return max(minFurniture, int(float64(n)*furnitureShare+0.999999))
}

// Most is the number of pages of a crawl of n that hold what most of
// them hold (mostShare, and at least Threshold).
func Most(n int) int {
	return max(Threshold(n), int(float64(n)*mostShare+0.999999))
}

// Decide decides which fragments of pages are furniture and which page
// keeps each, with a Survey and a Tally over pages.
func Decide(pages []SitePage) *Decision {
	each := func(fn func(SitePage) error) error {
		for _, p := range pages {
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	}
	s := NewSurvey()
	_ = each(s.Add)
	d, _ := s.Decide(each) // each never fails
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
// decision leaves it; a page that loses nothing, or would lose all its
// text, keeps raw byte for byte.
func (d *Decision) Assemble(id int64, raw string, blocks []Block) Keep {
	owned := func(h Hash) bool {
		o, furniture := d.owner[h]
		return !furniture || o == id
	}
	if d.SharedSections {
		if kept := d.pagesOwn(blocks, owned); len(kept) > 0 {
			furniture := owned
			owned = func(h Hash) bool { return furniture(h) || kept[h] }
		}
	}
	if d.SharedSections {
		if big := largeShares(blocks, owned, d.most); len(big) > 0 {
			shared := owned
			owned = func(h Hash) bool { return shared(h) || big[h] }
		}
	}
	r := Assemble(blocks, owned)
	if r.Removed == 0 || r.Markdown == "" {
		return Keep{Result: Result{Markdown: raw, Fragments: r.Fragments}}
	}
	k := Keep{Result: r}
	for _, b := range blocks {
		if len(k.Samples) == maxRemovedShown {
			break
		}
		if b.Fragment && Removable(b.Kind) && !owned(b.Hash) {
			k.Samples = append(k.Samples, shorten(strings.Join(strings.Fields(b.Text), " "), maxRemovedText))
		}
	}
	return k
}

// largeShares is the set of removable fragments of blocks that other
// pages hold but that the page keeps, when pages are main content, so
// that deduplication takes less than maxTakenShare of its text: the
// largest first, never one of most (held by most of the crawl's pages).
// Main content has taken the site's furniture; what many pages still
// share is a notice under each article, a small part of it. When it is a
// large part and not on most pages, the page is one of a family of short
// pages that say nearly the same (a patch release's change, then the
// line every release note ends with, in a crawl of more than release
// notes), and what they share is their text.
func largeShares(blocks []Block, owned func(Hash) bool, most map[Hash]bool) map[Hash]bool {
	if !slices.ContainsFunc(blocks, func(b Block) bool { return b.Fragment && Removable(b.Kind) && !owned(b.Hash) }) {
		return nil // most pages: nothing of theirs is shared
	}
	all, taken := 0, 0
	size := map[Hash]int{}
	for _, b := range blocks {
		if !b.Fragment {
			continue
		}
		n := readLen(b.Text)
		all += n
		if Removable(b.Kind) && !owned(b.Hash) {
			size[b.Hash] += n
			taken += n
		}
	}
	if float64(taken) < maxTakenShare*float64(all) {
		return nil
	}
	shared := make([]Hash, 0, len(size))
	for h := range size {
		if !most[h] {
			shared = append(shared, h)
		}
	}
	// Largest first, ties by hash: the same page keeps the same blocks
	// whatever the order of the crawl.
	slices.SortFunc(shared, func(a, b Hash) int {
		if c := cmp.Compare(size[b], size[a]); c != 0 {
			return c
		}
		return bytes.Compare(a[:], b[:])
	})
	big := map[Hash]bool{}
	for _, h := range shared {
		if float64(taken) < maxTakenShare*float64(all) {
			break
		}
		big[h] = true
		taken -= size[h]
	}
	return big
}

// readLen counts the letters and digits a reader reads in a block's
// markdown: link targets and image addresses aside.
func readLen(text string) int {
	if strings.Contains(text, "](") {
		text = linkTarget.ReplaceAllString(text, "]")
	}
	n := 0
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

var linkTarget = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)`)

// maxTakenShare is the share of a page's text (main content) that
// deduplication may not reach: a fifth, so that a page keeps four fifths
// of what conversion gave it.
const maxTakenShare = 0.2

// pagesOwn is the set of removable fragments of blocks that other pages
// hold too but that belong to this page's own text, when pages are main
// content (see SharedSections): those in a section whose heading a third
// of the pages hold (sharedHeadings), the items of a list that holds
// items of the page's own (an inheritance tree starting at "Object"), and
// a label announcing the page's own text ("Defined in:" before the file's
// name), with what stands between them.
func (d *Decision) pagesOwn(blocks []Block, owned func(Hash) bool) map[Hash]bool {
	kept := map[Hash]bool{}
	own := func(b Block) bool { return b.Fragment && (!Removable(b.Kind) || owned(b.Hash)) }
	shared := false
	for i, b := range blocks {
		switch {
		case b.Kind == Heading:
			shared = b.Fragment && d.sharedHeadings[b.Hash]
		case !b.Fragment || !Removable(b.Kind) || owned(b.Hash):
		case shared:
			kept[b.Hash] = true
		case b.Kind == Paragraph && isLabel(b.Text):
			// The label and what stands between it and the page's own
			// text it announces ("Inherits:", "Object", then the tree).
			for j := i + 1; j < len(blocks) && j <= i+maxLabelled && blocks[j].Kind != Heading; j++ {
				if own(blocks[j]) {
					for _, l := range blocks[i:j] {
						if l.Fragment {
							kept[l.Hash] = true
						}
					}
					break
				}
			}
		}
	}
	// A list is the run of items between blank lines or other blocks.
	for start := 0; start < len(blocks); {
		end := start + 1
		if blocks[start].Kind == ListItem {
			for end < len(blocks) && blocks[end].Kind == ListItem && !blocks[end].blankBefore {
				end++
			}
			if slices.ContainsFunc(blocks[start:end], own) {
				for _, b := range blocks[start:end] {
					if b.Fragment {
						kept[b.Hash] = true
					}
				}
			}
		}
		start = end
	}
	return kept
}

// isLabel reports whether text is a label: a few words ending with a
// colon.
func isLabel(text string) bool {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "*_"))
	return strings.HasSuffix(t, ":") && utf8.RuneCountInString(t) <= maxLabel
}

// maxLabel is the longest label, in characters; maxLabelled, the most
// blocks a label's own text may stand after it.
const (
	maxLabel    = 40
	maxLabelled = 3
)

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
