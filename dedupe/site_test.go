package dedupe

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

type sitePage struct {
	url      string
	depth    int
	rank     string
	markdown string
}

// bookPages is a small manual: a start page, chapters that each have
// their own text, a print page holding every chapter (marked noindex),
// and a menu and a footer on every page.
func bookPages(chapters int) []sitePage {
	menu := "- [Intro](/)\n- [Print](/print.html)\n"
	for i := 1; i <= chapters; i++ {
		menu += fmt.Sprintf("- [Chapter %d](/ch%d.html)\n", i, i)
	}
	footer := "Built with a book generator. Licensed under MIT."
	chapter := func(i int) string {
		return fmt.Sprintf("# Chapter %d\n\nChapter %d explains topic %d in its own words.\n\n```rust\nfn chapter_%d() {}\n```\n\n- point %d.a\n- point %d.b",
			i, i, i, i, i, i)
	}
	pages := []sitePage{{url: "/", depth: 0, rank: "000", markdown: menu + "\n# The Book\n\nWelcome to the book.\n\n" + footer}}
	var all []string
	for i := 1; i <= chapters; i++ {
		pages = append(pages, sitePage{url: fmt.Sprintf("/ch%d.html", i), depth: 1, rank: fmt.Sprintf("000%03d", i+1),
			markdown: menu + "\n" + chapter(i) + "\n\n" + footer})
		all = append(all, chapter(i))
	}
	pages = append(pages, sitePage{url: "/print.html", depth: 1, rank: "000001",
		markdown: menu + "\n" + strings.Join(all, "\n\n") + "\n\n" + footer})
	return pages
}

// settle decides pages in the order given and returns each page's
// markdown by URL.
func settle(pages []sitePage) map[string]Keep {
	var site []SitePage
	for i, p := range pages {
		blocks := Split(p.markdown)
		site = append(site, SitePage{ID: int64(i + 1), Depth: p.depth, Rank: p.rank, URL: p.url,
			Hashes: Hashes(blocks), Headings: HeadingHashes(blocks)})
	}
	d := Decide(site)
	out := map[string]Keep{}
	for i, p := range pages {
		out[p.url] = d.Assemble(int64(i+1), p.markdown, Split(p.markdown))
	}
	return out
}

// TestFurnitureGoesContentStays: the menu and the footer, on every page,
// are kept by the start page alone; each chapter keeps its text, which
// the print page repeats, and the print page keeps it too.
func TestFurnitureGoesContentStays(t *testing.T) {
	got := settle(bookPages(6))
	var all []string
	for i := 1; i <= 6; i++ {
		md := got[fmt.Sprintf("/ch%d.html", i)].Markdown
		for _, want := range []string{fmt.Sprintf("# Chapter %d", i), fmt.Sprintf("Chapter %d explains", i),
			fmt.Sprintf("```rust\nfn chapter_%d() {}\n```", i), fmt.Sprintf("- point %d.b", i)} {
			if !strings.Contains(md, want) {
				t.Errorf("chapter %d lacks %q:\n%s", i, want, md)
			}
			all = append(all, want)
		}
		if strings.Contains(md, "Licensed under MIT") || strings.Contains(md, "[Print]") {
			t.Errorf("chapter %d keeps the site's furniture:\n%s", i, md)
		}
	}
	print := got["/print.html"].Markdown
	for _, want := range all {
		if !strings.Contains(print, want) {
			t.Errorf("the print page lost %q, which one other page holds", want)
		}
	}
	if strings.Contains(print, "Licensed under MIT") {
		t.Errorf("the print page keeps the footer:\n%s", print)
	}
	start := got["/"].Markdown
	for _, want := range []string{"- [Chapter 6](/ch6.html)", "Welcome to the book.", "Licensed under MIT."} {
		if !strings.Contains(start, want) {
			t.Errorf("the start page lacks the site's shared %q:\n%s", want, start)
		}
	}
}

// TestThreshold: in a crawl of 30 pages, text on Threshold(30) of them is
// furniture and goes from all but the page closest to the start; text on
// one page fewer stays on each; code and tables on every page stay on
// every page.
func TestThreshold(t *testing.T) {
	const n = 30
	th := Threshold(n)
	if th != 10 {
		t.Fatalf("Threshold(%d) = %d, want a third of the pages", n, th)
	}
	var pages []sitePage
	for i := 0; i < n; i++ {
		md := fmt.Sprintf("# Page %d\n\nPage %d says something of its own.\n\n```\nimport thing\n```\n\n| option | default |\n|---|---|\n| depth | 3 |", i, i)
		if i < th {
			md += "\n\nA banner on a third of the pages."
		}
		if i >= n-(th-1) {
			md += "\n\nA note a section repeats."
		}
		pages = append(pages, sitePage{url: fmt.Sprintf("/p%02d", i), depth: 1, rank: fmt.Sprintf("%03d", i), markdown: md})
	}
	got := settle(pages)
	for i, p := range pages {
		md := got[p.url].Markdown
		for _, want := range []string{"```\nimport thing\n```", "| depth | 3 |", fmt.Sprintf("Page %d says", i)} {
			if !strings.Contains(md, want) {
				t.Errorf("%s lost %q:\n%s", p.url, want, md)
			}
		}
		if banner := strings.Contains(md, "A banner"); banner != (i == 0) {
			t.Errorf("%s keeps the banner: %v, want only the first page", p.url, banner)
		}
		if note := strings.Contains(md, "A note a section repeats."); note != (i >= n-(th-1)) {
			t.Errorf("%s keeps the section's note: %v, want every page that has it", p.url, note)
		}
	}
	for _, c := range []struct{ pages, want int }{{1, 2}, {2, 2}, {3, 2}, {6, 2}, {7, 3}, {100, 34}, {1000, 334}} {
		if got := Threshold(c.pages); got != c.want {
			t.Errorf("Threshold(%d) = %d, want %d", c.pages, got, c.want)
		}
	}
}

// TestOrderDoesNotMatter: whatever order the pages come in, each keeps
// the same markdown.
func TestOrderDoesNotMatter(t *testing.T) {
	pages := bookPages(8)
	want := settle(pages)
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 5; round++ {
		shuffled := append([]sitePage(nil), pages...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := settle(shuffled)
		for url, k := range want {
			if got[url].Markdown != k.Markdown {
				t.Fatalf("round %d: %s differs:\n%q\nwant\n%q", round, url, got[url].Markdown, k.Markdown)
			}
		}
	}
}

// TestNeverEmptied: a page whose every fragment another page keeps (the
// same page under a second address, a page of shared sections only)
// keeps all its text rather than nothing.
func TestNeverEmptied(t *testing.T) {
	nav := "- Home\n- Products\n- About us"
	pages := []sitePage{
		{url: "/", rank: "000", markdown: nav + "\n\n# Welcome\n\nWe sell things."},
		{url: "/red", depth: 1, rank: "000000", markdown: nav + "\n\n# Red\n\nThe red thing.\n\n## Shipping\n\nOrders leave within two days."},
		{url: "/blue", depth: 1, rank: "000001", markdown: nav + "\n\n# Blue\n\nThe blue thing.\n\n## Shipping\n\nOrders leave within two days."},
		{url: "/about", depth: 1, rank: "000002", markdown: nav + "\n\n## Shipping\n\nOrders leave within two days."},
		{url: "/index.html", depth: 1, rank: "000003", markdown: nav + "\n\n# Welcome\n\nWe sell things."},
	}
	got := settle(pages)
	for url, k := range got {
		if strings.TrimSpace(k.Markdown) == "" {
			t.Errorf("%s emptied (%d of %d removed)", url, k.Removed, k.Fragments)
		}
	}
	if md := got["/about"].Markdown; md != pages[3].markdown {
		t.Errorf("/about keeps %q, want the whole page", md)
	}
	if k := got["/red"]; k.Removed != 3 || len(k.Samples) != 3 || k.Samples[0] != "- Home" {
		t.Errorf("/red removed %d fragments, samples %q; want the menu's 3", k.Removed, k.Samples)
	}
}

// TestSharedSections: when pages are main content, a section that a
// third of the pages hold under the same heading (the methods many types
// inherit) stays on each, and so do a label before the page's own text
// and the shared items of a list holding its own; a notice each page ends
// with, under its own title, goes from all but the first.
func TestSharedSections(t *testing.T) {
	inherited := "Takes a closure and creates an iterator which calls that closure on each element."
	var pages []sitePage
	for i := 0; i < 6; i++ {
		md := fmt.Sprintf("# Type %d\n\nDefined in:\n\nlib/type%d.rb\n\n- Object\n- Type %d\n\nType %d has a purpose of its own: it reads the records of one kind from the store, checks each against the schema and hands the valid ones to its caller in order.\n\nThis notice ends every page.", i, i, i, i)
		if i%2 == 1 {
			md += "\n\n## Provided methods\n\n### fn map\n\n" + inherited
		}
		pages = append(pages, sitePage{url: fmt.Sprintf("/t%d", i), depth: 1, rank: fmt.Sprintf("%03d", i), markdown: md})
	}
	for _, shared := range []bool{true, false} {
		d := decideFor(pages, shared)
		for i, p := range pages {
			md := d.Assemble(int64(i+1), p.markdown, Split(p.markdown)).Markdown
			if i%2 == 1 && i > 1 && strings.Contains(md, inherited) != shared {
				t.Errorf("shared sections kept %v: %s keeps the inherited method: %v\n%s", shared, p.url, !shared, md)
			}
			if i > 0 && (strings.Contains(md, "Defined in:\n\nlib/") != shared || strings.Contains(md, "- Object\n- Type") != shared) {
				t.Errorf("shared sections kept %v: %s keeps the label and the list's shared item: %v\n%s", shared, p.url, !shared, md)
			}
			if i > 0 && strings.Contains(md, "This notice") {
				t.Errorf("shared sections kept %v: %s keeps the notice every page ends with:\n%s", shared, p.url, md)
			}
		}
	}
}

// TestShortPagesKeepWhatTheyShare: when pages are main content, a page
// that would lose a fifth of its text or more to what fewer than two
// thirds of the crawl's pages hold keeps it: a family of short pages
// (patch releases: one change each, then the line every release note
// ends with, in a crawl of other pages too) shares its text, not the
// site's furniture. Whole pages lose the shared line as furniture.
func TestShortPagesKeepWhatTheyShare(t *testing.T) {
	closing := "A complete list of releases and a timeline of every change are also available."
	var pages []sitePage
	for i := 0; i < 6; i++ {
		md := fmt.Sprintf("## Release 1.0.%d\n\n1. Fixed crash number %d.\n\n%s", i, i, closing)
		pages = append(pages, sitePage{url: fmt.Sprintf("/r%d", i), depth: 1, rank: fmt.Sprintf("%03d", i), markdown: md})
	}
	for i := 0; i < 5; i++ {
		md := fmt.Sprintf("# Guide %d\n\nGuide %d explains how to install and run the program on a system of its kind.", i, i)
		pages = append(pages, sitePage{url: fmt.Sprintf("/g%d", i), depth: 1, rank: fmt.Sprintf("1%02d", i), markdown: md})
	}
	for _, shared := range []bool{true, false} {
		d := decideFor(pages, shared)
		for i, p := range pages[1:6] {
			md := d.Assemble(int64(i+2), p.markdown, Split(p.markdown)).Markdown
			if strings.Contains(md, closing) != shared {
				t.Errorf("main content %v: %s keeps the closing line: %v, want %v\n%s", shared, p.url, !shared, shared, md)
			}
		}
	}
}

// TestNoticesEveryPageOpensWith: what two thirds of a crawl's pages or
// more hold goes from all but one of them, however much of a short page
// it is: six pages, each two notices under its own title, then a line of
// its own, and the crawl's start page without them.
func TestNoticesEveryPageOpensWith(t *testing.T) {
	notices := []string{"This manual describes version 2 of the service, which is no longer maintained.",
		"Please read the migration guide before you upgrade an installation to version 3."}
	pages := []sitePage{{url: "/", depth: 0, rank: "0", markdown: "# Manual\n\n- [One](/p0)\n- [Two](/p1)"}}
	for i := 0; i < 6; i++ {
		md := fmt.Sprintf("# Topic %d\n\n%s\n\n%s\n\nTopic %d has a page of its own.", i, notices[0], notices[1], i)
		pages = append(pages, sitePage{url: fmt.Sprintf("/p%d", i), depth: 1, rank: fmt.Sprintf("%03d", i), markdown: md})
	}
	for _, shared := range []bool{true, false} {
		d := decideFor(pages, shared)
		for i, p := range pages {
			md := d.Assemble(int64(i+1), p.markdown, Split(p.markdown)).Markdown
			own := fmt.Sprintf("Topic %d has a page of its own.", i-1)
			if i > 0 && !strings.Contains(md, own) {
				t.Errorf("main content %v: %s lost its own line:\n%s", shared, p.url, md)
			}
			for _, n := range notices {
				if want := i == 1; strings.Contains(md, n) != want {
					t.Errorf("main content %v: %s keeps %q: %v, want %v\n%s", shared, p.url, n, !want, want, md)
				}
			}
		}
	}
}

// decideFor decides deduplication for pages, ids from 1 in their order,
// with shared sections kept or not.
func decideFor(pages []sitePage, shared bool) *Decision {
	var site []SitePage
	for i, p := range pages {
		blocks := Split(p.markdown)
		site = append(site, SitePage{ID: int64(i + 1), Depth: p.depth, Rank: p.rank, URL: p.url, Hashes: Hashes(blocks), Headings: HeadingHashes(blocks)})
	}
	d := Decide(site)
	d.SharedSections = shared
	return d
}
