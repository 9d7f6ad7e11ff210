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
	noindex  bool
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
	pages = append(pages, sitePage{url: "/print.html", depth: 1, rank: "000001", noindex: true,
		markdown: menu + "\n" + strings.Join(all, "\n\n") + "\n\n" + footer})
	return pages
}

// settle decides pages in the order given and returns each page's
// markdown by URL.
func settle(pages []sitePage) map[string]Keep {
	var site []SitePage
	for i, p := range pages {
		site = append(site, SitePage{ID: int64(i + 1), Depth: p.depth, Rank: p.rank, URL: p.url, NoIndex: p.noindex,
			Hashes: Hashes(Split(p.markdown))})
	}
	d := Decide(site)
	out := map[string]Keep{}
	for i, p := range pages {
		out[p.url] = d.Assemble(int64(i+1), p.markdown, Split(p.markdown))
	}
	return out
}

func TestAggregateGivesWay(t *testing.T) {
	got := settle(bookPages(6))
	for i := 1; i <= 6; i++ {
		md := got[fmt.Sprintf("/ch%d.html", i)].Markdown
		for _, want := range []string{fmt.Sprintf("# Chapter %d", i), fmt.Sprintf("Chapter %d explains", i),
			fmt.Sprintf("```rust\nfn chapter_%d() {}\n```", i), fmt.Sprintf("- point %d.b", i)} {
			if !strings.Contains(md, want) {
				t.Errorf("chapter %d lacks %q:\n%s", i, want, md)
			}
		}
		if strings.Contains(md, "Licensed under MIT") || strings.Contains(md, "[Print]") {
			t.Errorf("chapter %d keeps the site's boilerplate:\n%s", i, md)
		}
	}
	// The print page gives way: it keeps an outline of the chapters.
	if p := got["/print.html"]; p.Markdown != "# Chapter 1\n\n# Chapter 2\n\n# Chapter 3\n\n# Chapter 4\n\n# Chapter 5\n\n# Chapter 6" {
		t.Errorf("the print page keeps %q, want the chapters' headings", p.Markdown)
	}
	start := got["/"].Markdown
	for _, want := range []string{"- [Chapter 6](/ch6.html)", "Welcome to the book.", "Licensed under MIT."} {
		if !strings.Contains(start, want) {
			t.Errorf("the start page lacks the site's shared %q:\n%s", want, start)
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
// keeps the text on the fewest pages rather than nothing.
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
	if md := got["/about"].Markdown; !strings.Contains(md, "Orders leave within two days.") || strings.Contains(md, "Products") {
		t.Errorf("/about keeps %q, want its shipping section without the menu", md)
	}
	if k := got["/red"]; k.Removed != 3 || len(k.Samples) != 3 || k.Samples[0] != "- Home" {
		t.Errorf("/red removed %d fragments, samples %q; want the menu's 3", k.Removed, k.Samples)
	}
}

// TestPartnersAreBounded: two collections that each gather hundreds of
// pages share an introduction. Both share text with more than
// maxPartners pages, so neither is the lesser aggregate: the one closer
// to the start keeps the introduction, though it gathers more pages. The
// pages gathered keep their own text.
func TestPartnersAreBounded(t *testing.T) {
	const gathered = maxPartners + 44
	own := func(i int) string { return fmt.Sprintf("Page %d tells its own story in words no other page uses.", i) }
	intro := "An introduction that both collections print before the pages they gather."
	var pages []sitePage
	var first, second []string
	for i := 1; i <= gathered+20; i++ {
		pages = append(pages, sitePage{url: fmt.Sprintf("/p%d", i), depth: 2, rank: fmt.Sprintf("%05d", i), markdown: own(i)})
		if i <= gathered {
			first = append(first, own(i))
		}
		second = append(second, own(i))
	}
	pages = append(pages,
		sitePage{url: "/first", depth: 2, rank: "00000", markdown: intro + "\n\nA note of the first collection alone.\n\n" + strings.Join(first, "\n\n")},
		sitePage{url: "/second", depth: 1, rank: "00000", markdown: intro + "\n\n" + strings.Join(second, "\n\n")})
	got := settle(pages)
	if !strings.Contains(got["/second"].Markdown, intro) || strings.Contains(got["/first"].Markdown, intro) {
		t.Errorf("the introduction is kept by the first collection (%v) or not by the second (%v), want the second alone",
			strings.Contains(got["/first"].Markdown, intro), strings.Contains(got["/second"].Markdown, intro))
	}
	for _, i := range []int{1, gathered, gathered + 20} {
		if md := got[fmt.Sprintf("/p%d", i)].Markdown; md != own(i) {
			t.Errorf("page %d keeps %q, want its own text", i, md)
		}
	}
}
