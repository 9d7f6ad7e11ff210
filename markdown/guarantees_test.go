package markdown

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/durablecrawl/crawler/htmlnode"
)

// The guarantees of main content (excludeNonMainTags) on pages of shapes
// the weighing does not expect: each fails without the rule that keeps it.

// keepsAll fails t for each of wants that md lacks, naming what lost it.
func keepsAll(t *testing.T, md, what string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("%s lost %q:\n%s", what, want, md)
		}
	}
}

func mainOf(t *testing.T, page string) string {
	t.Helper()
	d, err := Convert([]byte(page), Options{MainContentOnly: true, IncludeLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	return d.Markdown
}

// TestNeverEmpty: a page whose only text is its title, in a <header>
// beside its navigation (an API module without documentation), keeps
// the title.
func TestNeverEmpty(t *testing.T) {
	page := `<html><head><title>Ftime</title></head><body>
<nav><a href="../">Up</a> – <a href="../../">calendar</a> » Ftime</nav>
<header><h1>Module <code>Ftime</code></h1></header>
<div class="content"></div></body></html>`
	if md := mainOf(t, page); !strings.Contains(md, "Module `Ftime`") {
		t.Errorf("the page's only text is gone: %q", md)
	}
}

// contentsPage is a manual's section page: a title, a sentence, and the
// list of its chapters, each a link with a line of description, then the
// site's footer with its prose.
func contentsPage(items int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Text Processing Services</title></head><body>
<div class="related" role="navigation"><ul><li><a href="/">Home</a></li><li><a href="/library/">Library</a></li></ul></div>
<div class="document"><div class="body" role="main">
<h1>Text Processing Services</h1>
<p>The modules described here provide string operations.</p>
<div class="toctree-wrapper"><ul>`)
	for i := 1; i <= items; i++ {
		fmt.Fprintf(&b, `<li><a href="/library/m%d.html">module%d — operations number %d</a></li>`, i, i, i)
	}
	b.WriteString(`</ul></div></div></div>
<div class="footer"><p>© Copyright 2001-2023, the Foundation. This page is licensed under the Foundation's licence, version 2.
See the history and licence for more information, and the notes on how to reuse it.</p>
<p>The Foundation is a non-profit corporation. Please donate. Last updated on Jun 06, 2023. Found a bug?
Created using the generator 4.5.0, with a theme of its own.</p></div>
</body></html>`)
	return b.String()
}

// TestListPageKeepsItsList: a page whose body is a list of links keeps
// every entry, with the introduction before it.
func TestListPageKeepsItsList(t *testing.T) {
	md := mainOf(t, contentsPage(12))
	for i := 1; i <= 12; i++ {
		if want := fmt.Sprintf("[module%d — operations number %d](/library/m%d.html)", i, i, i); !strings.Contains(md, want) {
			t.Errorf("entry %d of the list is gone:\n%s", i, md)
			break
		}
	}
	if !strings.Contains(md, "provide string operations") {
		t.Errorf("the introduction is gone:\n%s", md)
	}
}

// TestFooterNeverChosen: on the same page, the footer's sentences and the
// navigation are not the content.
func TestFooterNeverChosen(t *testing.T) {
	md := mainOf(t, contentsPage(12))
	for _, furniture := range []string{"Found a bug?", "© Copyright", "[Home](/)"} {
		if strings.Contains(md, furniture) {
			t.Errorf("the page's furniture %q is in its content:\n%s", furniture, md)
		}
	}
}

// TestArticleEndStays: the sentence that closes an <article>, after an
// advertisement's slot, stays whether the page sets it in a paragraph, a
// <div> or straight in the article, with its two links; a sentence after
// the article's last heading of a "related" run does not come with it.
func TestArticleEndStays(t *testing.T) {
	ads := []string{
		`<div class="ad">Advertisement</div>`,
		`<aside class="advertisement"><p>Advertisement</p><p>Widget Pro: the fastest widget on the market, now 20% off.</p></aside>`,
		`<div class="ad-slot"><iframe src="https://ads.example/frame"></iframe></div>`,
		`<div class="sponsor"><p>Sponsored by <a href="https://sponsor.example">Sponsor Inc</a></p></div>`,
	}
	const sentence = `See the <a href="/api">API reference</a> and <a href="https://example.org/">an outside page</a>.`
	lasts := []string{"<p>" + sentence + "</p>", "<div>" + sentence + "</div>", sentence}
	for i, ad := range ads {
		for j, last := range lasts {
			page := `<html><head><title>Options</title></head><body><header><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav></header>
<main><article><h1>Crawl options explained</h1>
<p>This article explains the options of the crawler in some detail, with examples of each of them and what they change in the output.</p>
<p>The second paragraph goes on about limits, depth and the patterns that keep a crawl within the part of a site that matters.</p>
` + ad + last + `</article></main><footer>Copyright 2026 Example <a href="/privacy">Privacy</a></footer></body></html>`
			md := mainOf(t, page)
			if !strings.Contains(md, "See the [API reference](/api) and [an outside page](https://example.org/).") {
				t.Errorf("ad %d, sentence %d: the article's last sentence is gone:\n%s", i, j, md)
			}
			if strings.Contains(md, "Copyright") || strings.Contains(md, "Home") {
				t.Errorf("ad %d, sentence %d: the page's furniture came with it:\n%s", i, j, md)
			}
		}
	}
}

// TestLinkedSentenceStays: the last paragraph of an article, a sentence
// that is half links, is the article's.
func TestLinkedSentenceStays(t *testing.T) {
	para := "<p>The service reads every page of a site, turns each into markdown and keeps a log of what it did with it, page by page.</p>"
	page := `<html><head><title>Crawling</title></head><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<article><h1>Crawling</h1>` + strings.Repeat(para, 4) + `
<p>See the <a href="/api">API reference</a> and <a href="https://example.org/">an outside page</a>.</p></article>
<footer>© 2026 Example</footer></body></html>`
	md := mainOf(t, page)
	if !strings.Contains(md, "See the [API reference](/api) and [an outside page](https://example.org/).") {
		t.Errorf("the article's last sentence is gone:\n%s", md)
	}
}

// TestReferencePageWhole: an API page of signatures, each with a line
// of description, keeps every entry and its summary, without the bar of
// links its generator sets above the title.
func TestReferencePageWhole(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Period</title></head><body>
<div class="header"><p>Next: <a href="next.html">Span</a>, Previous: <a href="prev.html">Date</a>, Up: <a href="up.html">Calendar</a></p></div><hr>
<h1>Module <code>Period</code></h1>
<p>A period is the number of seconds between two times.</p>
<h2>Summary</h2><ul>`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `<li><a href="#f%d"><code>f%d</code></a> — short%d</li>`, i, i, i)
	}
	b.WriteString(`</ul><h2>Values</h2><dl>`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `<dt id="f%d"><code>val f%d : int -&gt; period</code></dt><dd><p>Makes period number %d.</p></dd>`, i, i, i)
	}
	b.WriteString(`</dl></body></html>`)
	md := mainOf(t, b.String())
	for i := 1; i <= 6; i++ {
		for _, want := range []string{fmt.Sprintf("`val f%d : int -> period`", i), fmt.Sprintf("Makes period number %d.", i), fmt.Sprintf("— short%d", i)} {
			if !strings.Contains(md, want) {
				t.Errorf("the reference lost %q:\n%s", want, md)
			}
		}
	}
	if !strings.Contains(md, "# Module `Period`") || strings.Contains(md, "Previous") {
		t.Errorf("the title is gone or the bar of links stayed:\n%s", md)
	}
}

// A reference page's blocks named like a news story's labels ("tags",
// "caption") are its content: a method's parameters and examples, what a
// function raises. A news page taken whole loses its photo credit.
func TestReferenceKeepsItsLabels(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Parser</title></head><body><div id="content"><h1>Class: Parser</h1><p class="caption">Module Parser</p>`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `<h3 id="m%d"><code>parse%d(source)</code></h3><div class="tags"><p class="tag_title">Parameters:</p>`+
			`<ul class="param"><li><span class="name">source</span> — <p>The text number %d to read.</p></li></ul>`+
			`<pre><code>Parser.parse%d("x")</code></pre><ul class="at-tags"><li><span class="at-tag">raises</span> <p>Failure %d when the text is empty.</p></li></ul></div>`, i, i, i, i, i)
	}
	b.WriteString(`</div></body></html>`)
	md := mainOf(t, b.String())
	for i := 1; i <= 6; i++ {
		for _, want := range []string{fmt.Sprintf("The text number %d to read.", i), fmt.Sprintf(`Parser.parse%d("x")`, i), fmt.Sprintf("Failure %d when the text is empty.", i)} {
			if !strings.Contains(md, want) {
				t.Errorf("the reference lost %q:\n%s", want, md)
			}
		}
	}
	if !strings.Contains(md, "Module Parser") {
		t.Errorf("the reference lost its caption:\n%s", md)
	}
}

// A list of links that a line of the article announces ("76 Methods:")
// is the article's, wherever it stands; one announced as other stories
// ("Related articles:") is not.
func TestAnnouncedListStays(t *testing.T) {
	page := `<html><body><h1>Connection handle</h1>
<p>Each open database is represented by a pointer to an instance of an opaque structure. It is useful to think of the pointer as an object, with constructors, destructors and many methods.</p>
<p>76 Methods:<div class="columns"><ul><li><a href="a.html">handle_open</a></li><li><a href="b.html">handle_close</a></li><li><a href="c.html">handle_busy</a></li></ul></div></p>
<p><b>Related articles:</b></p><ul><li><a href="x.html">Another story about handles</a></li><li><a href="y.html">A third story</a></li></ul>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the announced list", "76 Methods:", "handle_open", "handle_close", "handle_busy")
	if strings.Contains(md, "Another story") {
		t.Errorf("the related stories stayed:\n%s", md)
	}
}

// A chapter page's table of contents between its title and its
// introduction is the page's: its list of sections stays.
func TestChapterKeepsItsContents(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Chapter 35. Large Objects</title></head><body><div class="navheader"><table width="100%"><tr><th colspan="3">Chapter 35. Large Objects</th></tr>
<tr><td><a href="prev.html">Prev</a></td><td><a href="up.html">Up</a></td><th>Part IV. Client Interfaces</th><td><a href="next.html">Next</a></td></tr></table><hr></div>
<div class="chapter"><div class="titlepage"><div><div><h2>Chapter 35. Large Objects</h2></div></div></div><div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<dt><span class="sect1"><a href="lo-%d.html">35.%d. Section number %d</a></span></dt><dd><dl>`, i, i, i)
		for j := 1; j <= 4; j++ {
			fmt.Fprintf(&b, `<dt><span class="sect2"><a href="lo-%d.html#s%d">35.%d.%d. Part %d of section %d</a></span></dt>`, i, j, i, j, j, i)
		}
		b.WriteString(`</dl></dd>`)
	}
	b.WriteString(`</dl></div><p>The database has a large object facility, which provides stream-style access to user data that is stored in a special large-object structure. Streaming access is useful when working with data values that are too large to manipulate conveniently as a whole.</p>
<p>This chapter describes the implementation and the programming and query language interfaces to large object data. The examples use the C library of the client, but most programming interfaces support the same functions. Other interfaces might use the large object interface inside to support large values in general. That is not described here.</p></div>
<div class="navfooter"><hr><table width="100%"><tr><td><a href="prev.html">Prev</a></td><td><a href="up.html">Up</a></td><td><a href="next.html">Next</a></td></tr></table></div></body></html>`)
	md := mainOf(t, b.String())
	for i := 1; i <= 4; i++ {
		for _, want := range []string{fmt.Sprintf("35.%d. Section number %d", i, i), fmt.Sprintf("35.%d.4. Part 4 of section %d", i, i)} {
			if !strings.Contains(md, want) {
				t.Errorf("the chapter lost %q:\n%s", want, md)
			}
		}
	}
	if !strings.Contains(md, "Chapter 35. Large Objects") || !strings.Contains(md, "stream-style access") {
		t.Errorf("the chapter lost its title or its text:\n%s", md)
	}
}

// A page that names its main part and holds an introduction and a list
// of links to its sections (a manual's section index) keeps the list,
// even when the introduction is nearly half the text.
func TestSectionIndexKeepsItsList(t *testing.T) {
	page := `<html><body><div class="sidebar" role="navigation"><ul><li><a href="/a">Home</a></li></ul></div>
<div class="body" role="main"><section><h1>Contribute to the project</h1>
<p>This guide holds what there is to know about the project itself: how it is managed, and how to take part in it with code, documentation or reports of bugs.</p>
<div class="toctree-wrapper"><ul><li><a href="contributing.html">Contributing</a><ul><li><a href="contributing.html#help">Get help</a></li><li><a href="contributing.html#bugs">Bug reports</a></li></ul></li>
<li><a href="release.html">The release process</a><ul><li><a href="release.html#branches">Branch model</a></li><li><a href="release.html#deprecation">Deprecating a feature</a></li><li><a href="release.html#python">Supported versions of the language</a></li></ul></li>
<li><a href="organization.html">Organization of the project</a><ul><li><a href="organization.html#core">Core developers</a></li><li><a href="organization.html#others">Other contributors</a></li></ul></li>
<li><a href="conduct.html">Code of conduct</a></li></ul></div></section></div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the section index", "how it is managed", "Contributing", "Get help", "Bug reports", "The release process", "Other contributors", "Code of conduct")
	if strings.Contains(md, "Home") {
		t.Errorf("the navigation stayed:\n%s", md)
	}
}

// A page taken whole for its short story still loses its tail: a
// heading such as "Latest articles" with the teasers after it.
func TestWholePageLosesItsTail(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div class="page"><h1>Parties in the new parliament</h1>
<p>Seven parties won seats in the new parliament, two more than in the last one, and none of them holds a majority of its own.</p>
<h2>Latest articles</h2>`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<div class="teaser"><h3><a href="/story-%d">Story number %d about something else</a></h3><p>A short line of teaser %d.</p></div>`, i, i, i)
	}
	b.WriteString(`</div></body></html>`)
	md := mainOf(t, b.String())
	if !strings.Contains(md, "Seven parties won seats") {
		t.Errorf("the story is gone:\n%s", md)
	}
	if strings.Contains(md, "Latest articles") || strings.Contains(md, "Story number") {
		t.Errorf("the tail stayed:\n%s", md)
	}
}

// A manual's "See also:" line inside the text names other pages of it,
// one or several, and stays; a line pointing to another story by its
// headline goes.
func TestSeeAlsoNamesStay(t *testing.T) {
	page := `<html><body><article><h1>drop-index-stmt</h1>
<p>The statement removes an index added with the statement that creates one. The index is removed from the schema and its pages are freed for reuse by the database.</p>
<p>See also: <a href="../lang_dropindex.html">lang_dropindex.html</a></p>
<p>See also: <a href="../a.html">create-index-stmt</a> <a href="../b.html">reindex-stmt</a></p>
<p>Related: <a href="/news/other">Council votes to close the old harbour bridge</a></p>
<p>Dropping an index does not change what any query returns; it changes only how fast some of them run, and how much room the database takes on the disk.</p>
</article></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the manual's see-also line", "lang_dropindex.html", "create-index-stmt", "reindex-stmt")
	if strings.Contains(md, "harbour bridge") {
		t.Errorf("the pointer to another story stayed:\n%s", md)
	}
}

// A chapter's introduction followed by the list of its sections, which
// the page names its table of contents, keeps the list.
func TestNamedContentsStay(t *testing.T) {
	page := `<html><body><div class="chapter"><div class="header"><p>Next: <a href="Definitions.html">How to define new macros</a>, Previous: <a href="Syntax.html">Lexical and syntactic conventions</a>, Up: <a href="index.html">GNU M4</a></p></div><hr>
<h2>4 How to invoke macros</h2>
<p>This chapter covers macro invocation, macro arguments and how macro expansion is treated. A macro that only stands for plain text is not quite enough: we would like macros to become different things by decisions taken while the input is read, and to repeat something a number of times, or while a condition holds.</p>
<ul class="section-toc"><li><a href="Invocation.html">Macro invocation</a></li><li><a href="Inhibiting.html">Preventing macro invocation</a></li>
<li><a href="Arguments.html">Macro arguments</a></li><li><a href="Quoting.html">On quoting arguments to macros</a></li><li><a href="Expansion.html">Macro expansion</a></li></ul>
</div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the chapter", "This chapter covers", "Macro invocation", "Preventing macro invocation", "On quoting arguments to macros", "Macro expansion")
}

// TestProselessListKeepsItsEntries: a page without a paragraph of prose
// and without a main part, whose body is a title and rows of links (a
// generator's directory page, laid out in a table of rows), keeps every
// row: with no article to trim around, no row is an aside to it.
func TestProselessListKeepsItsEntries(t *testing.T) {
	var rows strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&rows, `<tr><td class="left">file</td><td class="right"><a href="src%d.html">source_%d.c</a> <a href="src%d_code.html">[code]</a></td></tr>`, i, i, i)
	}
	page := `<html><head><title>Project: src Directory Reference</title></head><body>
<table width="100%"><tr><td><a href="https://example.org/">Project page</a></td><td><a href="classes.html">Classes</a></td></tr></table>
<hr><div class="header"><div class="title">src Directory Reference</div></div>
<div class="contents"><table class="decls"><tr class="heading"><td colspan="2"><h2>Files</h2></td></tr>` + rows.String() + `</table></div>
<hr><address>Generated by the generator 1.0</address></body></html>`
	md := mainOf(t, page)
	for i := 1; i <= 6; i++ {
		keepsAll(t, md, "the directory page", fmt.Sprintf("[source_%d.c](src%d.html)", i, i))
	}
}

// TestBuilderWidgetHoldsTheArticle: a page builder names the block around
// a post's text a widget; inside the page's <main>, that block is the
// article, not furniture, on every path (the weighing, and the page's
// region measured and taken whole).
func TestBuilderWidgetHoldsTheArticle(t *testing.T) {
	page := `<html><head><title>Harbour notes</title></head><body>
<nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav>
<main><div class="builder-section"><div class="builder-widget builder-widget-heading"><h2>Harbour notes</h2></div>
<div class="builder-widget builder-widget-post-content"><div class="builder-widget-container">
<p>The ferry to the outer islands left at dawn, an hour late because of fog over the sound.</p>
<p>Passengers waited in the shelter by the pier, where the kiosk sold coffee and yesterday's papers.</p>
<p>By noon the wind had turned, and the crossing home took half the time it had taken to get there.</p>
</div></div><ul class="builder-list"><li><a href="/blog/older">An older note</a></li></ul></div></main>
<footer><p>Contact the harbour office for timetables.</p></footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the post", "The ferry to the outer islands", "Passengers waited in the shelter", "By noon the wind had turned")
}

// TestSectionKeepsItsLists: a reference page's <section> holds the
// type's description (paragraphs of prose) and then, under headings of
// its own, its constructors and methods, each a linked name and a line:
// they are the rest of the section the article stands in, and stay.
func TestSectionKeepsItsLists(t *testing.T) {
	var methods strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&methods, `<div><h6><a href="method.Tide.op%d.html">tide_op_%d</a></h6><div class="docblock"><p>Performs operation %d on the tide.</p></div></div>`, i, i, i)
	}
	page := `<html><head><title>Tide</title></head><body>
<nav><a href="index.html">Index</a> <a href="classes.html">Classes</a></nav>
<section id="main"><header><h1>Tide</h1></header>
<section><div class="wrapper"><h4>Description</h4>
<div class="docblock"><p>A tide is the rise and fall of the sea level, measured here against a fixed gauge on the harbour wall, and kept as a series of readings taken every ten minutes through the day.</p>
<p>Readings are stored in the order they were taken; a series can be shifted, trimmed to a window or compared with the tide tables for the same harbour, which the library also reads from the usual files.</p>
<p>A series is immutable once sealed: the operations below return a new series rather than change the one they are given, so that a series may be shared between threads without a lock.</p></div></div>
<div class="wrapper methods"><h4>Instance methods</h4><div class="docblock">` + methods.String() + `</div></div>
</section></section></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the reference page", "A tide is the rise and fall", "Instance methods")
	for i := 1; i <= 8; i++ {
		keepsAll(t, md, "the reference page", fmt.Sprintf("[tide_op_%d](method.Tide.op%d.html)", i, i), fmt.Sprintf("Performs operation %d on the tide.", i))
	}
}

// TestHeadedListsStay: after the article's paragraphs, lists of links
// each under a heading of their own (a manual's "projects using it",
// grouped by theme) are the page's sections, not a tail of links: the
// one whose entries are all links stays with the others.
func TestHeadedListsStay(t *testing.T) {
	var sections strings.Builder
	for s := 1; s <= 3; s++ {
		fmt.Fprintf(&sections, `<h2>Projects using layout %d</h2><ul>`, s)
		for i := 1; i <= 6; i++ {
			note := ""
			if s != 2 && i%2 == 0 {
				note = " (with a layout of its own)"
			}
			fmt.Fprintf(&sections, `<li><a href="https://project%d-%d.example.org/">Project %d.%d</a>%s</li>`, s, i, s, i, note)
		}
		sections.WriteString(`</ul>`)
	}
	page := `<html><head><title>Projects using the generator</title></head><body>
<div class="sidebar" role="navigation"><h3>Navigation</h3><ul><li><a href="index.html">Index</a></li></ul></div>
<div class="body" role="main"><h1>Projects using the generator</h1>
<p>This is a list of projects that use the generator for their documentation, grouped by the layout they chose, in alphabetical order within each group.</p>
<p>If your project should be included, write to the mailing list with its name, its address and the layout it uses, and it will be added to the next release.</p>
` + sections.String() + `</div></body></html>`
	md := mainOf(t, page)
	for s := 1; s <= 3; s++ {
		keepsAll(t, md, "the page of projects", fmt.Sprintf("## Projects using layout %d", s))
		for i := 1; i <= 6; i++ {
			keepsAll(t, md, "the page of projects", fmt.Sprintf("[Project %d.%d](https://project%d-%d.example.org/)", s, i, s, i))
		}
	}
}

// TestNamedContentsInsideTheArticle: a chapter page whose title, table
// of contents (named "toc") and introduction are the article keeps the
// table between them, however short the gap.
func TestNamedContentsInsideTheArticle(t *testing.T) {
	var toc strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&toc, `<dt><span><a href="ch7-%d.html">7.%d. Section number %d</a></span></dt>`, i, i, i)
	}
	page := `<html><head><title>Chapter 7. Managing Stores</title></head><body>
<div class="navheader"><a href="ch6.html">Prev</a> <a href="ch8.html">Next</a></div>
<div class="chapter"><div class="titlepage"><h2>Chapter 7. Managing Stores</h2></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">` + toc.String() + `</dl></div>
<p>Every running server manages one or more stores. Stores are the topmost level for organizing objects; this chapter describes their properties, how to create them, how to change their settings while the server runs, and how to remove them once nothing refers to them any more.</p>
</div><div class="navfooter"><a href="ch6.html">Prev</a> <a href="index.html">Home</a></div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the chapter page", "Chapter 7. Managing Stores", "Every running server manages")
	for i := 1; i <= 5; i++ {
		keepsAll(t, md, "the chapter page", fmt.Sprintf("[7.%d. Section number %d](ch7-%d.html)", i, i, i))
	}
}

// TestSectionAnchorIsNotAName: a manual's section whose id is its
// heading's words ("output-and-navigation") is not navigation for the
// word in it.
func TestSectionAnchorIsNotAName(t *testing.T) {
	page := `<html><head><title>Requirements</title></head><body>
<div class="document"><h1>Requirements</h1>
<div class="section" id="extraction"><h2>Extraction</h2>
<p>Documentation will be generated directly from the source code, drawing from its structure, its docstrings and possibly its comments, so that the code and its documentation stay together.</p>
<p>The tool will extract the constructs it finds as appropriate, keeping to a minimum the comments that only repeat what the code already says.</p></div>
<div class="section" id="output-and-navigation"><h2>Output and Navigation</h2>
<p>Every page links to the pages of the module above it and of the classes it holds, and an index lists every name documented with the page that documents it.</p></div>
</div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the manual page", "## Output and Navigation", "Every page links to the pages of the module")
}

// TestSynopsisBeforeFirstHeadingStays: on a reference page, the synopsis
// before the first heading (every function, linked, with its type) is no
// bar of links for being links: bars are short.
func TestSynopsisBeforeFirstHeadingStays(t *testing.T) {
	var synopsis, entries strings.Builder
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&synopsis, `<li><a href="#v:parse%d">parse%d</a> :: <a href="#t:Parser">Parser</a> s m =&gt; m (<a href="#t:Token">Token</a> s)</li>`, i, i)
		fmt.Fprintf(&entries, `<pre id="v:parse%d">parse%d :: Parser s m =&gt; m (Token s)</pre><p>Parses item %d.</p>`, i, i, i)
	}
	page := `<html><head><title>Data.Parse</title></head><body>
<div id="package-header"><ul class="links"><li><a href="index.html">Contents</a></li><li><a href="doc-index.html">Index</a></li></ul></div>
<div id="content"><p class="caption">Data.Parse</p>
<div id="synopsis"><p>Synopsis</p><ul>` + synopsis.String() + `</ul></div>
<div id="interface"><h1>Parsers</h1>` + entries.String() + `</div></div></body></html>`
	md := mainOf(t, page)
	for i := 1; i <= 16; i++ {
		keepsAll(t, md, "the module page", fmt.Sprintf("[parse%d](#v:parse%d) :: [Parser](#t:Parser) s m => m ([Token](#t:Token) s)", i, i))
	}
}

// TestHeaderWithTheTitleStays: a short reference page without prose,
// whose <header> holds its <h1>, keeps its title.
func TestHeaderWithTheTitleStays(t *testing.T) {
	page := `<html><head><title>Store.flush</title></head><body>
<nav><a href="index.html">Index</a></nav>
<section id="main" class="content"><header><h3>Virtual Method</h3><h1><a href="index.html">Kv</a>.<a href="class.Store.html">Store</a>.flush</h1></header>
<h4>Declaration</h4><pre><code>void flush (KvStore* store)</code></pre>
<h4>Description</h4><div>No description available.</div></section></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the method page", "Virtual Method", "[Store](class.Store.html).flush", "void flush (KvStore* store)")
}

// TestReleaseNotesKeepTheirIntroduction: a release's notes (a title, its
// sections' contents, the date, an introduction, a short section on
// upgrading, then a long list of changes) keep everything before the
// list: the links of the named table of contents are the document's own.
func TestReleaseNotesKeepTheirIntroduction(t *testing.T) {
	var changes strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&changes, `<li><p>Fix a failure number %d when the store replays its log after a restart (A. Maintainer) <a href="https://example.org/c/%d">§</a></p>
<p>The previous logic for coping with the way older versions wrote the log led to a replay failure, with a message about a missing segment, in some setups number %d.</p></li>`, i, i, i)
	}
	page := `<html><head><title>E.4. Release 3.17</title></head><body>
<div class="navheader"><a href="prev.html">Prev</a> <a href="next.html">Next</a></div>
<div class="sect1"><div class="titlepage"><h2>E.4. Release 3.17</h2></div>
<div class="toc"><dl class="toc"><dt><a href="#migration">E.4.1. Migration to Version 3.17</a></dt><dt><a href="#changes">E.4.2. Changes</a></dt></dl></div>
<p>Release date: 2026-02-26</p>
<p>This release contains a small number of fixes from 3.16. For information about new features in the 3 series, see <a href="release-3.html">E.21</a>.</p>
<div class="sect2" id="migration"><div class="titlepage"><h3>E.4.1. Migration to Version 3.17</h3></div>
<p>A dump and restore is not required for those running 3.X.</p>
<p>However, if you upgrade from a version earlier than 3.14, see <a href="release-3-14.html">E.7</a>.</p></div>
<div class="sect2" id="changes"><div class="titlepage"><h3>E.4.2. Changes</h3></div><ul>` + changes.String() + `</ul></div></div>
<div class="navfooter"><a href="prev.html">Prev</a> <a href="index.html">Home</a></div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the release notes", "E.4. Release 3.17", "[E.4.1. Migration to Version 3.17](#migration)", "Release date: 2026-02-26",
		"This release contains a small number of fixes", "A dump and restore is not required", "Fix a failure number 8")
}

// TestFileListIsNotProse: a module page's list of the files it is
// defined in (paths, no words) does not outweigh its overview and the
// list of its classes: prose is made of words.
func TestFileListIsNotProse(t *testing.T) {
	var files, classes strings.Builder
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&files, "lib/tide/handlers/tide_handler_%d.rb,<br />\n", i)
		fmt.Fprintf(&classes, `<span class="object_link"><a href="Handlers/Tide%d.html">TideHandler%d</a></span>, `, i, i)
	}
	page := `<html><head><title>Module: Tide::Handlers</title></head><body>
<div id="header"><a href="index.html">Index</a> » <a href="Tide.html">Tide</a></div>
<div id="content"><h1>Module: Tide::Handlers</h1>
<div class="box_info"><dl><dt>Defined in:</dt><dd>lib/tide/autoload.rb<span class="defines">,<br />` + files.String() + `</span></dd></dl></div>
<h2>Overview</h2><div class="docstring"><p>All handlers of tides</p></div>
<h2>Defined Under Namespace</h2><p class="children"><strong>Classes:</strong> ` + classes.String() + `</p></div>
<div id="footer">Generated by the generator 0.9.</div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the module page", "Module: Tide::Handlers", "lib/tide/autoload.rb", "All handlers of tides", "Defined Under Namespace",
		"[TideHandler1](Handlers/Tide1.html)", "[TideHandler9](Handlers/Tide9.html)")
}

// TestSummaryTablesStayTogether: a package page's summaries (interfaces,
// classes, exceptions), each a table of data in an item of one list,
// all stay, not only the longest.
func TestSummaryTablesStayTogether(t *testing.T) {
	table := func(kind string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `<li class="blockList"><table class="typeSummary"><caption><span>%s Summary</span></caption><tr><th scope="col">%s</th><th scope="col">Description</th></tr><tbody>`, kind, kind)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `<tr><th scope="row"><a href="%s%d.html">%s%d</a></th><td><div class="block">Evaluates the %s number %d of the selector against an element of the document.</div></td></tr>`, kind, i, kind, i, kind, i)
		}
		b.WriteString(`</tbody></table></li>`)
		return b.String()
	}
	page := `<html><head><title>org.example.select</title></head><body>
<header><nav><a href="../index.html">Overview</a> <a href="tree.html">Tree</a></nav></header>
<main role="main"><div class="header"><h1 class="title">Package org.example.select</h1></div>
<div class="contentContainer"><ul class="blockList">` + table("Interface", 2) + table("Class", 40) + table("Exception", 1) + `</ul></div></main>
<footer><p>Copyright © the authors. All rights reserved.</p></footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the package page", "[Interface1](Interface1.html)", "[Interface2](Interface2.html)", "[Class40](Class40.html)", "[Exception1](Exception1.html)")
}

// TestLongFooterIsNotTheArticle: a list page whose footer holds the
// page's longest paragraph (a copyright and licence notice) keeps its
// list, and not the footer.
func TestLongFooterIsNotTheArticle(t *testing.T) {
	var items strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&items, `<li class="fn"><span class="name"><b><a href="qtide.html#op%d">operation%d</a></b></span>(int ) : bool</li>`, i, i)
	}
	page := `<html><head><title>List of All Members for QTide</title></head><body>
<div class="header"><ul><li><a href="index.html">Qt</a></li><li><a href="classes.html">C++ Classes</a></li></ul></div>
<div class="content mainContent"><h1 class="title">List of All Members for QTide</h1>
<p>This is the complete list of members for <a href="qtide.html">QTide</a>, including inherited members.</p>
<div class="table"><table class="propsummary"><tr><td class="topAlign"><ul>` + items.String() + `</ul></td></tr></table></div></div>
<div class="footer"><p>© 2020 The Company Ltd. Documentation contributions included herein are the copyrights of their respective owners.
The documentation provided herein is licensed under the terms of the Free Documentation License version 1.3 as published by the Foundation.
The names and respective logos are trademarks of The Company Ltd. in Finland and other countries worldwide.</p></div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the members page", "[operation1](qtide.html#op1)", "[operation30](qtide.html#op30)")
	if strings.Contains(md, "Company Ltd") {
		t.Errorf("the footer is in the members page's content:\n%s", md)
	}
}

// TestShortLastSentenceStays: the article's last paragraph, a sentence of
// a few words after a linked one, is the article's however short.
func TestShortLastSentenceStays(t *testing.T) {
	page := `<html><head><title>Harbor expands night ferry service | City News</title></head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
<main><article><h1>Harbor expands night ferry service</h1>
<p>The harbor authority will run ferries until two in the morning starting next month, a change commuters have asked for since the bridge closed for repairs last year.</p>
<p>Officials said the extra crossings will cost about four million a year, paid from the toll fund, and that they expect ridership to grow once the schedule is known.</p>
<p>Riders can read <a href="/schedule">the new schedule</a> and <a href="/fares">the fare table</a> on the authority's site.</p>
<p>Ferries run on holidays too.</p>
</article></main>
<footer><p>© 2026 City News. All rights reserved.</p></footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the story", "Riders can read [the new schedule](/schedule)", "Ferries run on holidays too.")
}

// TestLinkedLastSentenceStays: a sentence after the article's last
// paragraph that is mostly links ("See also the … and …") is the
// article's when it stands in the article's container, as the same
// sentence between two paragraphs is; a linked line outside it still goes.
func TestLinkedLastSentenceStays(t *testing.T) {
	page := `<html><head><title>Open a session | Quarry C API</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/docs">Documentation</a> <a href="/download">Download</a></div>
<h2>Open a session</h2>
<pre>int qr_open(const char *path, qr_session **out);</pre>
<p>The qr_open() call opens the store at path and writes a handle to it into out. The handle is valid until it is passed to qr_close(); a store may be opened by several sessions at once, each with its own handle.</p>
<p>See also <a href="/c/close.html">qr_close()</a> and <a href="/c/flags.html">qr_open_flags()</a>.</p>
<div class="bottom"><a href="/privacy">Privacy</a> <a href="/contact">Contact us</a></div>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the reference page", "The qr_open() call opens", "See also [qr_close()](/c/close.html) and [qr_open_flags()](/c/flags.html).")
	if strings.Contains(md, "Contact us") {
		t.Errorf("the page's bottom links stayed:\n%s", md)
	}
}

// TestClosingLineOfAListStays: a release's list of changes, set
// straight in the body, keeps the line after it that points to the
// other releases ("A complete list … is also available."), however much
// of it is links.
func TestClosingLineOfAListStays(t *testing.T) {
	page := `<html><head><title>Quarry 2.4.1</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/download">Download</a></div>
<h2>Quarry 2.4.1, released 2026-03-02</h2>
<ol>
<li>The page cache now grows in steps of one megabyte instead of doubling, which keeps the memory of a long-running process flat under a steady load.</li>
<li>Opening a store read-only no longer takes the write lock, so backups can run while another process writes to the same store without waiting for it.</li>
<li>Fixed a crash when a query named the same column twice in its ORDER BY clause and the table had an index on that column alone.</li>
</ol>
<p>A <a href="/changes.html">full list of releases</a> and a <a href="/timeline.html">timeline</a> are also available.</p>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the release notes", "The page cache now grows", "Fixed a crash", "are also available.")
	if strings.Contains(md, "Download") {
		t.Errorf("the site's menu stayed:\n%s", md)
	}
}

// TestShortLastLineInDivsStays: an article set in divs of text keeps its
// short last sentence, and a widget's "Loading..." placeholder after it
// goes.
func TestShortLastLineInDivsStays(t *testing.T) {
	page := `<html><head><title>Release 2.0</title></head><body>
<nav><a href="/">Project</a> <a href="/docs">Docs</a></nav>
<div id="main"><div class="entry">
<div>Release 2.0 brings a new storage engine, written from scratch over the last year, that keeps every index in a single file and recovers from a crash without a separate log.</div>
<div>Upgrading needs one command; the old files are converted in place and kept as a backup until the first successful start.</div>
<div>Thanks to everyone who tested the betas.</div>
<div class="likes"><h3>Like this:</h3><div>Like Loading...</div></div>
</div></div>
<footer>Project maintained by volunteers.</footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the release note", "Upgrading needs one command", "Thanks to everyone who tested the betas.")
	if strings.Contains(md, "Loading") {
		t.Errorf("the widget's placeholder stayed:\n%s", md)
	}
}

// TestShortDocPageLosesItsOutline: a short documentation page without a
// paragraph of prose, taken by the rules, keeps its text, table and code
// and loses the column that outlines its own headings ("On this page").
func TestShortDocPageLosesItsOutline(t *testing.T) {
	page := `<html><head><title>Configuration | Tidekit</title></head><body>
<nav class="navbar"><a href="/">Tidekit</a><a href="/docs/intro">Docs</a></nav>
<main><div class="row"><div class="col"><article><h1>Configuration</h1>
<p>Tidekit reads its settings from <code>tidekit.yaml</code> in the root.</p>
<h2 id="options">Options</h2>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>port</td><td>8080</td></tr><tr><td>workers</td><td>4</td></tr></tbody></table>
<h2 id="example">Example</h2>
<pre><code>port: 9000</code></pre>
<p>Restart the server after changing it.</p></article></div>
<div class="col col--3"><div class="tableOfContents"><ul><li><a href="#options">Options</a></li><li><a href="#example">Example</a></li></ul></div></div></div></main>
<footer><div>Copyright © 2026 Tidekit.</div></footer></body></html>`
	// convert gives the page an address, so that its anchors are known
	// as its own.
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	keepsAll(t, d.Markdown, "the configuration page", "reads its settings from `tidekit.yaml`", "| port ", "port: 9000", "Restart the server after changing it.")
	if strings.Contains(d.Markdown, "#options)") {
		t.Errorf("the page's outline of its own headings stayed:\n%s", d.Markdown)
	}
}

// TestProselessPageLosesItsTail: a page without a paragraph of prose (a
// product) keeps its description, list and table and loses the page's
// tail after a heading such as "You may also like".
func TestProselessPageLosesItsTail(t *testing.T) {
	page := `<html><head><title>Oak Desk Lamp – Lumen Store</title></head><body>
<header><nav><a href="/">Lumen</a> <a href="/lamps">Lamps</a></nav></header>
<main><div class="product"><div class="info"><h1>Oak Desk Lamp</h1><p class="price">€89.00</p>
<div class="description"><p>Turned from oak, with a linen shade.</p>
<ul><li>Height: 42 cm</li><li>Bulb: E27, up to 40 W</li></ul></div>
<table class="specs"><tr><th>Weight</th><td>1.2 kg</td></tr><tr><th>Warranty</th><td>2 years</td></tr></table></div></div>
<section class="upsell"><h2>You may also like</h2><p><a href="/p/floor">Oak Floor Lamp</a></p><p><a href="/p/wall">Oak Wall Lamp</a></p></section>
</main><footer><p>Free shipping over €100</p></footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the product page", "# Oak Desk Lamp", "Turned from oak, with a linen shade.", "- Height: 42 cm", "| Warranty | 2 years")
	for _, tail := range []string{"You may also like", "Oak Floor Lamp"} {
		if strings.Contains(md, tail) {
			t.Errorf("the page's tail %q stayed:\n%s", tail, md)
		}
	}
}

// TestReferencesLastMethod: a class page's last method, whose heading's
// id is its name ("comments", "related": words that name a comment
// thread or other stories when a block is called so), keeps its heading,
// its line of description and its source.
func TestReferencesLastMethod(t *testing.T) {
	for _, last := range []string{"comments", "related", "replies"} {
		var b strings.Builder
		b.WriteString(`<html><head><title>Class: Post</title></head><body><div id="nav"><a href="/">Home</a> <a href="/classes">Classes</a></div>
<div id="content"><h1>Class: Post</h1><p>A post is one entry of a blog, with its title, its body and the people who wrote it.</p>`)
		for _, m := range []string{"publish", "draft", "title", "render", last} {
			fmt.Fprintf(&b, `<div class="method"><h3 id="%s">%s</h3><p>Returns the %s of the post, as the reader sees it.</p><pre class="code ruby">def %s
  @%s
end</pre></div>`, m, m, m, m, m)
		}
		b.WriteString(`</div><div id="footer">Generated by a generator.</div></body></html>`)
		md := mainOf(t, b.String())
		for _, want := range []string{"### " + last, "Returns the " + last + " of the post", "```ruby\ndef " + last + "\n  @" + last + "\nend\n```"} {
			if !strings.Contains(md, want) {
				t.Errorf("the last method %q lost %q:\n%s", last, want, md)
			}
		}
	}
}

// TestTablesWithoutHeaders: a table is data without a header row: a grid
// of short cells, and a table of options whose descriptions hold several
// paragraphs or a list, keep every cell as a table; a table whose rows
// are a menu beside the page's text, or whose full-width rows hold blocks
// under each row above, lays them out, and their text stays as blocks.
func TestTablesWithoutHeaders(t *testing.T) {
	intro := `<p>This chapter lists what the program takes, how each option changes what it does, and what it prints.</p>`
	options := `<table><tr><td><code>--verbose</code></td><td><p>Prints each step.</p><p>Twice prints more.</p></td></tr>
<tr><td><code>--output</code></td><td><p>Where to write.</p><ul><li>a file</li><li>a folder</li></ul></td></tr></table>`
	md := mainOf(t, `<html><head><title>Options</title></head><body><main><h1>Options</h1>`+intro+options+intro+`</main></body></html>`)
	if !strings.Contains(md, "| `--verbose` | Prints each step.<br />Twice prints more. |") || !strings.Contains(md, "| `--output`  | Where to write.<br />a file<br />a folder |") {
		t.Errorf("the table of options is not a table:\n%s", md)
	}
	var grid strings.Builder
	grid.WriteString("<table>")
	for r := 0; r < 9; r++ {
		grid.WriteString("<tr>")
		for c := 0; c < 9; c++ {
			if (r+c)%3 == 0 {
				fmt.Fprintf(&grid, "<td>%d</td>", (r*9+c)%9+1)
			} else {
				grid.WriteString("<td> </td>")
			}
		}
		grid.WriteString("</tr>")
	}
	grid.WriteString("</table>")
	md = mainOf(t, `<html><head><title>Puzzle</title></head><body><main><h1>Puzzle</h1>`+intro+grid.String()+intro+`</main></body></html>`)
	if n := strings.Count(md, "\n|"); n != 10 { // nine rows and the delimiter row
		t.Errorf("the 9×9 grid has %d lines, want 10:\n%s", n, md)
	}
	menu := `<table><tr><td colspan="2">Example Site</td></tr><tr><td><a href="/">Home</a><br><a href="/a">About</a></td><td>` +
		strings.Repeat(`<p>The site's own text, a paragraph of the page that a table lays out beside its menu, long enough to read.</p>`, 5) + `</td></tr></table>`
	md = mainOf(t, `<html><head><title>Layout</title></head><body>`+menu+`</body></html>`)
	if strings.Contains(md, "|") || !strings.Contains(md, "The site's own text") {
		t.Errorf("a page laid out by a table is a table, or lost its text:\n%s", md)
	}
	instances := `<table><tr><td class="src">Show Pos</td><td class="doc"></td></tr><tr><td colspan="2"><p>Defined in Text.Pos</p><ul><li>show :: Pos -> String</li><li>showList :: [Pos] -> ShowS</li></ul></td></tr>
<tr><td class="src">Eq Pos</td><td class="doc"></td></tr><tr><td colspan="2"><p>Defined in Text.Pos</p><ul><li>(==) :: Pos -> Pos -> Bool</li></ul></td></tr></table>`
	md = mainOf(t, `<html><head><title>Pos</title></head><body><main><h1>Pos</h1>`+intro+instances+`</main></body></html>`)
	if strings.Contains(md, "| ") || !strings.Contains(md, "showList :: [Pos] -> ShowS") {
		t.Errorf("rows of blocks under each row are a table, or lost their text:\n%s", md)
	}
}

// TestManPageWhole: a reference of man-page-style pages (no main, no
// article: a title, then Name, Synopsis, Description, Callbacks, API…,
// each a div of one class opening with its heading, the API's entries in
// definition lists) keeps every part, not only the Description whose
// prose the weighing prefers. testdata/manpage.html has the shape of such
// a page of a real reference, its words replaced.
func TestManPageWhole(t *testing.T) {
	page, err := os.ReadFile("testdata/manpage.html")
	if err != nil {
		t.Fatal(err)
	}
	md := mainOf(t, string(page))
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	doc.Find("h2").Each(func(_ int, h *goquery.Selection) {
		if want := "## " + strings.TrimSpace(h.Text()); !strings.Contains(md, want) {
			t.Errorf("the man page lost its section %q", want)
		}
	})
	// Every definition's term stays (its emphasis aside).
	plain := strings.Join(strings.Fields(strings.NewReplacer("*", "", `\`, "").Replace(md)), " ")
	doc.Find("dt").Each(func(_ int, dt *goquery.Selection) {
		if term := strings.Join(strings.Fields(dt.Text()), " "); !strings.Contains(plain, term) {
			t.Errorf("the man page lost the entry %q", term)
		}
	})
	if t.Failed() {
		t.Logf("markdown:\n%s", md)
	}
}

// TestWordsAccounted: a page's words are in its markdown or went for a
// named reason, step by step: its navigation, a hidden block and its
// comment thread and its byline (sections named or laid out as
// furniture), line numbers beside code (hidden); none is lost in
// conversion, and together they are every word of the page.
func TestWordsAccounted(t *testing.T) {
	var paras strings.Builder
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&paras, "<p>Part %d: the service reads every page of a site, turns each into markdown and keeps a log of what it did with it.</p>", i)
	}
	page := `<html><head><title>Crawling</title><script>var words = "not counted at all";</script></head><body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav>
<div hidden>Three hidden words</div>
<div class="content"><article><h1>Crawling</h1><p class="byline">By Jane Doe</p>` + paras.String() +
		`<div class="highlight"><table><tr><td class="linenos"><pre>1
2</pre></td><td><pre>go run .
make test</pre></td></tr></table></div></article>
<div class="comments"><h2>Comments</h2><p>Great post, thanks for writing it.</p></div></div>
<footer>© 2026 Example Company</footer></body></html>`
	d, err := Convert([]byte(page), Options{MainContentOnly: true, IncludeLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	w := d.Words
	all := htmlnode.CountWords("Home Docs Blog Three hidden words Crawling By Jane Doe 1 2 go run make test Comments Great post, thanks for writing it. © 2026 Example Company") +
		4*htmlnode.CountWords("Part 0: the service reads every page of a site, turns each into markdown and keeps a log of what it did with it.")
	if w.Kept != markdownWords(d.Markdown) || w.Kept+w.Removed() != all {
		t.Errorf("words %+v: kept and removed make %d, the page has %d\n%s", w, w.Kept+w.Removed(), all, d.Markdown)
	}
	if w.Hidden != 2 || w.Unconverted != 0 || w.Sections < htmlnode.CountWords("Home Docs Blog Three hidden words Comments Great post, thanks for writing it.") {
		t.Errorf("words %+v: want the 2 line numbers hidden, the navigation, hidden block and comments among the sections, none unconverted", w)
	}
	if strings.Contains(d.Markdown, "Jane Doe") {
		t.Errorf("the byline is in the article:\n%s", d.Markdown)
	}
}

// TestChapterContents: a manual's chapter page, its numbered title, its
// introduction, then the chapter's own sections as numbered links (in a
// table, as Scribble sets them), keeps the list. testdata/chapter.html
// has the shape of such a page of a real manual, its words replaced.
func TestChapterContents(t *testing.T) {
	page, err := os.ReadFile("testdata/chapter.html")
	if err != nil {
		t.Fatal(err)
	}
	md := mainOf(t, string(page))
	plain := strings.Join(strings.Fields(strings.NewReplacer("*", "", `\`, "").Replace(md)), " ")
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	doc.Find("a").Each(func(_ int, a *goquery.Selection) {
		text := strings.Join(strings.Fields(a.Text()), " ")
		if !strings.HasPrefix(text, "16.") {
			return
		}
		entries++
		if !strings.Contains(plain, text) {
			t.Errorf("the chapter page lost its section %q", text)
		}
	})
	if entries < 3 {
		t.Fatalf("the page has %d numbered sections, want its chapter's", entries)
	}
	if t.Failed() {
		t.Logf("markdown:\n%s", md)
	}
}

// TestDeclaredListingKeepsItsItems: a category page that declares itself
// a collection keeps every item, each with its title, its own text and
// its price, and the long text about the category below them; its
// navigation and footer stay out. (The modern-web set's collection pages,
// internal/modernweb, are where the declared kind makes the difference:
// its recorded collection figure falls by 0.06 without it.)
func TestDeclaredListingKeepsItsItems(t *testing.T) {
	var items strings.Builder
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&items, `<div class="card"><a href="/p/%d"><img src="/m%d.jpg" alt=""><h2>Mug %d, stoneware</h2></a><ul><li>Holds 300 ml</li><li>Dishwasher safe</li></ul><section><span>€%d.00</span></section><div>4.%d (12 reviews)</div></div>`, i, i, i, 10+i, i%10)
	}
	var about strings.Builder
	for _, h := range []string{"About our mugs", "How they are made", "Caring for them"} {
		fmt.Fprintf(&about, "<h2>%s</h2>%s", h, strings.Repeat("<p>Our mugs are thrown on a wheel by the sea, glazed by hand and fired twice in a wood kiln, so that no two of them are quite alike in colour or in shape.</p>", 3))
	}
	page := `<html><head><title>Mugs</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Mugs"}</script></head>
<body><header><nav><a href="/">Home</a> <a href="/mugs">Mugs</a> <a href="/bowls">Bowls</a></nav></header>
<main><h1>Mugs</h1><div class="grid">` + items.String() + `</div><div class="seo">` + about.String() + `</div></main>
<footer><p>© 2026 The Pottery. All rights reserved.</p></footer></body></html>`
	md := mainOf(t, page)
	for i := 1; i <= 24; i++ {
		for _, want := range []string{fmt.Sprintf("Mug %d", i), fmt.Sprintf("€%d.00", 10+i)} {
			if !strings.Contains(md, want) {
				t.Errorf("item %d lost %q:\n%s", i, want, md)
			}
		}
	}
	if !strings.Contains(md, "no two of them are quite alike") {
		t.Errorf("the text about the category is gone:\n%s", md)
	}
	if strings.Contains(md, "All rights reserved") || strings.Contains(md, "[Bowls]") {
		t.Errorf("the page's furniture is in its content:\n%s", md)
	}
}

// TestForumThreadKeepsEveryPost: on a page that declares itself a forum
// thread, each post (an <article> its software names a comment) stays in
// order with its author and its time, while each poster's signature and
// the thread's own comment form do not.
func TestForumThreadKeepsEveryPost(t *testing.T) {
	posts := []struct{ who, when, text string }{
		{"tidewatcher", "March 3, 2026", "My tide gauge reads twenty centimetres high after every storm surge; has anyone seen the float stick like that before?"},
		{"harbourmaster", "March 3, 2026", "Yes, silt collects in the stilling well after a surge; flush it with fresh water and the readings come back within a day."},
		{"tidewatcher", "March 4, 2026", "Flushed it this morning and the gauge agrees with the benchmark again. Thank you for the quick answer, it saved me a trip."},
	}
	var thread strings.Builder
	for i, p := range posts {
		fmt.Fprintf(&thread, `<article class="post comment" id="comment-%d"><aside class="comment-author"><a href="/u/%s">%s</a><span>Members</span></aside>
<div class="comment-meta"><time datetime="2026-03-0%d">%s</time></div><div class="comment-content"><p>%s</p></div>
<div class="signature">Sent from my lighthouse. Keep the lamps trimmed.</div></article>`, i, p.who, p.who, 3+i/2, p.when, p.text)
	}
	page := `<html><head><title>Gauge reads high after a surge</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Gauge reads high after a surge","author":{"@type":"Person","name":"tidewatcher"}}</script></head>
<body><header><nav><a href="/">Forums</a> <a href="/new">New posts</a></nav></header>
<main><h1>Gauge reads high after a surge</h1>` + thread.String() + `
<form class="comment-form"><textarea name="reply"></textarea><button>Post reply</button></form></main>
<footer>Forum software © 2026</footer></body></html>`
	md := mainOf(t, page)
	at := -1
	for i, p := range posts {
		for _, want := range []string{p.who, p.when, p.text} {
			if !strings.Contains(md, want) {
				t.Errorf("post %d lost %q:\n%s", i, want, md)
			}
		}
		next := strings.Index(md, p.text)
		if next <= at {
			t.Errorf("post %d is out of order:\n%s", i, md)
		}
		at = next
	}
	for _, chrome := range []string{"Sent from my lighthouse", "Post reply", "New posts"} {
		if strings.Contains(md, chrome) {
			t.Errorf("the thread's chrome %q is in its content:\n%s", chrome, md)
		}
	}
}

// TestUndeclaredThreadKeepsEveryPost: a thread that declares nothing,
// laid out as a table of alike rows (one post a row, its author and time
// above its text), is every post, in order, however much longer one of
// them is than the rest; and an article's own comments, alike to each
// other but not to it, still go.
func TestUndeclaredThreadKeepsEveryPost(t *testing.T) {
	posts := []string{
		"The ferry timetable changed on Monday and the early boat now leaves at six, not half past; plan for it if you commute.",
		"I rode the new early boat every day this week and kept notes." +
			"<p>On Monday it left on time, docked four minutes early and ran about half full, which the crew put down to the dark mornings.</p>" +
			"<p>On Tuesday a delivery van held it at the slip for ten minutes, and it still docked on time thanks to a calm crossing.</p>" +
			"<p>On Wednesday fog slowed the crossing, so the boat came in a quarter of an hour late and the bus had already gone.</p>" +
			"<p>On Thursday and Friday it kept to the minute both ways, and by Friday most regulars had moved to it from the later boat.</p>",
		"The harbour office says the old times come back in April, once the second crew finishes its training on the new hull.",
		"Good to know. The bus from the station still meets the half past boat, so the first bus of the day now waits a while.",
	}
	var rows strings.Builder
	for i, p := range posts {
		fmt.Fprintf(&rows, `<tr class="row post"><td><table><tr><td class="ind"></td><td class="body"><div class="head"><a href="/u/rider%d">rider%d</a> <span class="age">%d hours ago</span></div>
<div class="comment"><div class="text">%s</div></div></td></tr></table></td></tr>`, i, i, 9-i, p)
	}
	thread := `<html><head><title>Ferry times changed</title></head><body><div class="top"><a href="/">Boards</a> <a href="/new">new</a></div>
<table class="thread">` + rows.String() + `</table><div class="foot"><a href="/faq">FAQ</a> <a href="/rules">Rules</a></div></body></html>`
	md := mainOf(t, thread)
	at := -1
	for i, p := range posts {
		want := p[:40]
		next := strings.Index(md, want)
		if next < 0 {
			t.Errorf("post %d is lost:\n%s", i, md)
			continue
		}
		if next <= at {
			t.Errorf("post %d is out of order:\n%s", i, md)
		}
		at = next
	}

	var comments strings.Builder
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&comments, `<div class="comment"><div class="who">reader%d</div><p>Reader %d thinks the council should have asked the ferry crews first, before the timetable went to print.</p></div>`, i, i)
	}
	article := `<html><head><title>Early ferry moves to six</title></head><body><article><h1>Early ferry moves to six</h1>` +
		strings.Repeat(`<p>The island's early ferry now leaves at six, half an hour before its old time, while the second crew trains on the new hull; the harbour office expects the old timetable back in April.</p>`, 6) +
		`</article><section class="comments"><h2>Comments</h2>` + comments.String() + `</section></body></html>`
	md = mainOf(t, article)
	if !strings.Contains(md, "leaves at six") {
		t.Errorf("the article is lost:\n%s", md)
	}
	if strings.Contains(md, "council should have asked") {
		t.Errorf("the article's comments are in its content:\n%s", md)
	}
}

// TestGridAroundAProseTile: a shop's grid of products with a tile of
// prose among them (an offer), and advice after it, keeps every product,
// those before the tile as much as those after it.
func TestGridAroundAProseTile(t *testing.T) {
	names := []string{"Harbour lantern", "Tide clock", "Rope fender", "Brass compass", "Oilskin hat", "Deck bucket", "Signal flag set", "Chart weights", "Bosun's whistle", "Cabin barometer", "Mooring line", "Galley kettle"}
	var grid strings.Builder
	for i, n := range names {
		if i == 4 {
			grid.WriteString(`<li class="tile offer"><h3>Ten percent off this week</h3><p>Members of the harbour club take ten percent off every lantern, clock and compass in the shop until Sunday, in the shop and online alike.</p></li>`)
		}
		fmt.Fprintf(&grid, `<li class="tile"><a href="/p/%d"><img src="/i/%d.jpg" alt=""><span>%s</span></a><div class="price">€%d.00</div><div class="specs"><div>Weight: %d.%d kg</div><div>Material: brass, oak and waxed cotton</div><div>Made in: Cornwall</div><div>Care: wipe with a dry cloth, oil twice a year</div></div></li>`, i, i, n, 20+7*i, 1+i%3, i)
	}
	page := `<html><head><title>Deck and cabin</title></head><body><header><nav><a href="/">Shop</a> <a href="/deck">Deck</a></nav></header>
<main><h1>Deck and cabin</h1><ul class="grid">` + grid.String() + `</ul>
<section><h2>Choosing for a small boat</h2><p>A small boat has little room below, so pick lanterns and clocks that hang from a hook rather than stand on a shelf, and keep the heavy brass low.</p>
<p>Salt air dulls brass within a season; a wipe after each trip and a thin coat of oil twice a year keep it bright and stop the green from taking hold.</p>
<p>Waxed cotton covers keep spray off the wood, and oak that is oiled before the first winter does not split when the cabin cools at night.</p></section></main><footer>Harbour Shop © 2026</footer></body></html>`
	md := mainOf(t, page)
	for _, n := range names {
		if !strings.Contains(md, n) {
			t.Errorf("the product %q is lost:\n%s", n, md)
		}
	}
}

// TestPageBuilderWidgetsAreTheArticle: a page builder sets each block of
// an article in a "widget" of its own, section after section; the
// widgets of prose are the article, every one of them, while a widget
// of links beside it is still furniture.
func TestPageBuilderWidgetsAreTheArticle(t *testing.T) {
	parts := []string{
		"Room presence needs a receiver in every room; a small board on a shelf listens for the phones and watches that pass by and reports how strong each one sounds.",
		"Phones change their Bluetooth address every few minutes to protect their owners, so the receivers must be given each phone's key before they can follow it from room to room.",
		"Once every receiver has the keys, the home server compares the signal strengths and names the room each person is in, a second or two after they walk through the door.",
	}
	var sections strings.Builder
	for i, p := range parts {
		fmt.Fprintf(&sections, `<section class="builder-section builder-element-%d"><div class="builder-container"><div class="builder-widget-wrap builder-element-populated">
<div class="builder-widget builder-widget-heading"><h2>Step %d</h2></div><div class="builder-widget builder-widget-text-editor"><div class="builder-widget-container"><p>%s</p><p>%s</p></div></div></div></div></section>`, i, i+1, p, p)
	}
	page := `<html><head><title>Who is in which room</title></head><body><div class="site"><div class="content"><h1>Who is in which room</h1>` + sections.String() + `</div>
<div class="widget-area"><div class="widget widget_recent"><h3>Recent posts</h3><ul><li><a href="/a">Garage door sensors</a></li><li><a href="/b">A dashboard for the hall</a></li><li><a href="/c">Moisture in the cellar</a></li></ul></div></div></div></body></html>`
	md := mainOf(t, page)
	for i, p := range parts {
		if !strings.Contains(md, p) {
			t.Errorf("part %d of the article is lost:\n%s", i, md)
		}
	}
	if strings.Contains(md, "Garage door sensors") {
		t.Errorf("the widget of links beside the article is in its content:\n%s", md)
	}
}

// TestCaseJoinsReadApart: two inline boxes side by side, the first ending
// in a small letter or a digit and the second opening with a capital,
// are two words ("$80 MSRP", "Primus Moja"); a word set in several
// elements, and code, stay as written.
func TestCaseJoinsReadApart(t *testing.T) {
	page := `<html><body><main><h1>Camp stoves</h1><ul>
<li><a href="/p/1"><span>Primus</span><span>Moja Single-Burner Stove</span></a><div>Price $80<span>MSRP $160</span><span>50% OFF</span></div></li>
<li><a href="/p/2"><span>Coleman</span><span>Cascade Classic Stove</span></a><div>Price $130<span>MSRP $150</span></div></li>
</ul><p>An un<em>believ</em>able price, and the call is <code>stove.lightUp</code>, or <code>stove</code><code>.Light</code> for short.</p></main></body></html>`
	md := mainOf(t, page)
	for _, want := range []string{"Primus Moja", "Coleman Cascade", "$80 MSRP", "un*believ*able", "`stove``.Light`"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q is not in the markdown:\n%s", want, md)
		}
	}
	if strings.Contains(md, "$80MSRP") || strings.Contains(md, "PrimusMoja") {
		t.Errorf("boxes side by side run together:\n%s", md)
	}
}

// TestPosterCardsGo: on a thread, each poster's card (when they joined,
// their counts of messages) is not content; their name and their post
// are.
func TestPosterCardsGo(t *testing.T) {
	posts := []struct{ who, text string }{
		{"keelhauler", "The bilge pump runs every hour even in calm weather; I suspect the float switch, but the hull may be taking water through the stern gland."},
		{"slipway", "Check the stern gland first: a drip every few seconds is normal, a steady trickle is not, and tightening it half a turn usually settles it."},
		{"keelhauler", "Half a turn did it. The pump has been quiet since yesterday evening, so the float switch was never at fault after all. Thank you."},
	}
	var thread strings.Builder
	for i, p := range posts {
		fmt.Fprintf(&thread, `<article class="message" id="post-%d"><div class="message-cell message-cell--user"><h4 class="message-name"><a href="/members/%s">%s</a></h4>
<div class="message-userExtras"><dl class="pairs"><dt>Joined</dt><dd>Mar %d, 2019</dd></dl><dl class="pairs"><dt>Messages</dt><dd>%d</dd></dl></div></div>
<div class="message-cell message-cell--main"><time datetime="2026-04-0%d">Apr %d, 2026</time><div class="bbWrapper"><p>%s</p></div></div></article>`, i, p.who, p.who, 3+i, 120*(i+1), 1+i, 1+i, p.text)
	}
	page := `<html><head><title>Bilge pump runs every hour</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Bilge pump runs every hour","author":{"@type":"Person","name":"keelhauler"}}</script></head>
<body><header><nav><a href="/">Forums</a></nav></header><main><h1>Bilge pump runs every hour</h1>` + thread.String() + `</main><footer>Boat owners' forum</footer></body></html>`
	md := mainOf(t, page)
	for i, p := range posts {
		if !strings.Contains(md, p.who) || !strings.Contains(md, p.text) {
			t.Errorf("post %d lost its poster or its text:\n%s", i, md)
		}
	}
	for _, card := range []string{"Joined", "Messages", "Mar 3, 2019"} {
		if strings.Contains(md, card) {
			t.Errorf("the poster's card (%q) is in the content:\n%s", card, md)
		}
	}
}

// TestTextLaidOutTwiceReadOnce: a page built for every screen that holds
// its text twice (a copy for phones, one for wide screens) gives it once;
// a line every card of a list repeats, a quote of an earlier post and a
// code block written twice stay wherever they are.
func TestTextLaidOutTwiceReadOnce(t *testing.T) {
	story := []string{
		"The ferry to the outer islands now leaves twice a day from the north quay, weather permitting.",
		"Tickets bought on board cost a little more than those bought at the harbour office beforehand.",
		"In winter the afternoon crossing is dropped, and the morning boat waits for the school bus.",
	}
	copyOf := func(class string) string {
		var b strings.Builder
		b.WriteString(`<div class="` + class + `"><h2>Timetable</h2>`)
		for _, s := range story {
			b.WriteString("<p>" + s + "</p>")
		}
		return b.String() + "</div>"
	}
	const credit = "Timetables are provided courtesy of the island council and change without notice."
	const code = "ferry --from north-quay --to outer-islands --time 08:15 --return 17:40 --passengers 2"
	var cards strings.Builder
	for _, isle := range []string{"Holm", "Skerry", "Lunga"} {
		fmt.Fprintf(&cards, `<li><h3>%s</h3><p>The crossing to %s takes about forty minutes in fair weather and longer in a swell.</p><p>%s</p></li>`, isle, isle, credit)
	}
	page := `<html><head><title>Ferries</title></head><body><nav><a href="/">Home</a></nav><main><h1>Ferries to the outer islands</h1>` +
		copyOf("mobile-only") + copyOf("desktop-only") +
		`<h2>Crossings</h2><ul class="crossings">` + cards.String() + `</ul>` +
		`<blockquote><p>` + story[0] + `</p></blockquote><p>That is what the harbour master wrote in the spring newsletter to every household.</p>` +
		`<pre><code>` + code + `</code></pre><p>The same command books the return, and may be run again for the next day:</p><pre><code>` + code + `</code></pre>` +
		`</main><footer>Island council</footer></body></html>`
	md := mainOf(t, page)
	for i, s := range story {
		want := 1
		if i == 0 {
			want = 2 // and once as the quote
		}
		if got := strings.Count(md, s); got != want {
			t.Errorf("%q is in the content %d times, want %d:\n%s", s, got, want, md)
		}
	}
	if got := strings.Count(md, "## Timetable\n"); got != 1 {
		t.Errorf("the copy's heading is there %d times, want 1:\n%s", got, md)
	}
	if got := strings.Count(md, credit); got != 3 {
		t.Errorf("the line each card holds is there %d times, want 3:\n%s", got, md)
	}
	if got := strings.Count(md, code); got != 2 {
		t.Errorf("the code written twice is there %d times, want 2:\n%s", got, md)
	}
	d, err := Convert([]byte(page), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Words.Repeated < 3*15 {
		t.Errorf("words counted as repeated: %d, want the second copy's: %+v", d.Words.Repeated, d.Words)
	}
}

// TestFoldedPanelsAreContent: an accordion's panels, folded away behind
// the buttons that open them (aria-expanded, aria-controls) and hidden by
// a style until then, are the product's description and measurements,
// each under its button's label; a box hidden with nothing to open it is
// not shown.
func TestFoldedPanelsAreContent(t *testing.T) {
	panel := func(id, label, body string) string {
		return `<div class="acc-item"><button type="button" aria-expanded="false" aria-controls="` + id + `"><span>` + label + `</span><svg viewBox="0 0 8 8"><path d="M0 0h8"/></svg></button>` +
			`<div class="collapse" style="overflow:hidden; display: none; height:0px"><div role="region" id="` + id + `">` + body + `</div></div></div>`
	}
	const description = "A stoneware mug thrown by hand, glazed in speckled white, and fired twice so that it keeps coffee hot for longer."
	page := `<html><head><title>Speckle mug</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Speckle mug","offers":{"@type":"Offer","price":"34.00","priceCurrency":"AUD"}}</script></head>
<body><header><nav><a href="/">Shop</a> <a href="/cart">Cart</a></nav></header><main>
<div class="product"><div class="gallery"><img src="/mug.jpg" alt="Speckle mug"></div><div class="info"><h1>Speckle mug</h1><p class="price">$34.00</p>
<form action="/cart/add"><button type="submit">Add to cart</button></form>` +
		panel("p-desc", "Description", "<p>"+description+"</p>") +
		panel("p-size", "Dimensions", "<ul><li>Height: 9.5 cm</li><li>Holds: 350 ml</li><li>Dishwasher safe, not for the microwave</li></ul>") +
		`</div></div><div style="display:none" class="promo-modal"><p>Sign up for ten percent off your first order and hear about new glazes before anyone else does.</p></div>
</main><footer>Ghost wares</footer></body></html>`
	md := mainOf(t, page)
	for _, want := range []string{"Speckle mug", "$34.00", "Description", description, "Dimensions", "Height: 9.5 cm", "Dishwasher safe"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q is not in the content:\n%s", want, md)
		}
	}
	if strings.Contains(md, "ten percent off") {
		t.Errorf("a box hidden with nothing to open it is in the content:\n%s", md)
	}
	if strings.Index(md, "Description") > strings.Index(md, description) {
		t.Errorf("the panel's label does not stand before it:\n%s", md)
	}
}

// TestLayoutWordsAreNotFurniture: a page builder that names every block
// it lays out a "widget", level after level around the article's own
// paragraphs, keeps its sections of lists beside them; a sidebar's widget
// of links, outside, still goes.
func TestLayoutWordsAreNotFurniture(t *testing.T) {
	cell := func(body string) string {
		return `<div class="span12 widget-span widget-type-cell"><div class="row-fluid"><div class="span12 widget-span widget-type-module">` + body + `</div></div></div>`
	}
	gains := []string{"A roadmap of the processes worth automating first", "Models trained on your own records, not a vendor's", "Dashboards your finance team reads without a data analyst", "A handover plan so your staff run it after we leave"}
	var list strings.Builder
	for i, g := range gains {
		fmt.Fprintf(&list, `<div class="gain"><h3>Gain %d</h3><div class="gain-text">%s, agreed with you before the work starts and checked against it when it ends.</div></div>`, i+1, g)
	}
	page := `<html><head><title>AI consulting</title></head><body><header><nav><a href="/">Home</a> <a href="/services">Services</a></nav></header>
<main><div class="container-fluid">` +
		cell(`<h1>AI consulting for mid-sized firms</h1><p>We help companies of two hundred to two thousand people decide where machine learning pays for itself, and then build it with them, one process at a time.</p><p>Most of our clients start with invoices, forecasts or support tickets: work that is repetitive, well recorded and costly when it goes wrong.</p><p>Every engagement begins with a two-week assessment of your data, your systems and the people who will own the result.</p>`) +
		cell(`<h2>What you gain</h2><div class="intro">Partnering with us is a long-term investment in how your company works, not a one-off installation of a model.</div>`+list.String()) +
		`</div><div class="sidebar"><div class="widget"><h3>Recent posts</h3><ul><li><a href="/blog/a">Forecasting with small data</a></li><li><a href="/blog/b">Why pilots stall</a></li><li><a href="/blog/c">Hiring your first ML engineer</a></li></ul></div></div></main>
<footer>LeverAI</footer></body></html>`
	md := mainOf(t, page)
	for _, g := range append(gains, "What you gain", "decide where machine learning pays") {
		if !strings.Contains(md, g) {
			t.Errorf("%q is not in the content:\n%s", g, md)
		}
	}
	if strings.Contains(md, "Why pilots stall") {
		t.Errorf("the sidebar's widget of links is in the content:\n%s", md)
	}
}

// TestDeclaredQuestionIsAPost: a question page that declares its question
// and answers in microdata keeps the question's text with the answers,
// though the question is built unlike them (the weighing finds the
// answers, alike to each other, and took them alone for the thread).
func TestDeclaredQuestionIsAPost(t *testing.T) {
	const question = "I am catering for forty people for the first time next month, with one chafing dish and a rice cooker. What am I missing, and what should I prepare beforehand?"
	answers := []string{
		"Check everything, then check it again: test your recipes, write checklists of what must come with you, and visit the place beforehand to see its fridges and burners.",
		"Bring extras of everything, because something will spill or more guests will come than you expected, and keep notes of what was eaten for the next time.",
	}
	notes := func(n int) string {
		var b strings.Builder
		for k := 1; k <= n; k++ {
			fmt.Fprintf(&b, "<p>Note %d: whatever you do, write it down as you go; the second event is far easier when the first one left a list of what worked, what ran out and what nobody touched.</p>", k)
		}
		return b.String()
	}
	var b strings.Builder
	for i, a := range answers {
		fmt.Fprintf(&b, `<div class="answer" id="answer-%d" itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><div class="post-layout"><div class="votecell"><div itemprop="upvoteCount">%d</div></div><div class="answercell"><div class="s-prose" itemprop="text"><p>%s</p>%s</div><div class="user-info"><a href="/users/%d">cook%d</a> answered Feb %d, 2011</div></div></div></div>`, i, 5-i, a, notes(12+i), i, i, 12+i)
	}
	page := `<html itemscope itemtype="https://schema.org/QAPage"><head><title>Catering for the first time</title></head><body><header><nav><a href="/">Cooking</a></nav></header>
<div id="content"><div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"><h1 itemprop="name"><a href="/questions/1/catering-for-the-first-time">Catering for the first time: how should I prepare?</a></h1>
<div id="mainbar" role="main"><div class="question" id="question"><div class="question-layout"><div class="votecell"><div itemprop="upvoteCount">11</div></div><div class="postcell"><div class="s-prose" itemprop="text"><p>I am starting a catering service.</p><p>The menu is:</p><ul><li>curry and rice</li><li>chicken nuggets</li><li>vegetable sticks and dips</li><li>sandwiches</li></ul><p>` + question + `</p><p>What am I missing?</p></div>` +
		`<ul class="post-tags"><li><a href="/tagged/equipment">equipment</a></li><li><a href="/tagged/bulk-cooking">bulk-cooking</a></li><li><a href="/tagged/catering">catering</a></li><li><a href="/tagged/food-safety">food-safety</a></li></ul>` +
		`<div class="post-menu"><a href="/q/1">Share</a> <a href="/posts/1/edit">Improve this question</a> <a href="/posts/1/follow">Follow</a> <a href="/posts/1/flag">Flag</a></div>` +
		`<div class="user-info">asked Feb 11, 2011 by <a href="/users/9">newcaterer</a> <a href="/users/9?tab=reputation">159</a> <a href="/help/badges">1 silver badge</a> <a href="/help/badges">4 bronze badges</a></div></div></div></div>
<div id="answers"><h2>2 Answers</h2>` + b.String() + `</div></div><div id="sidebar">` + strings.Repeat(`<p><a href="/q/2">How long can cooked rice stay in a chafing dish before it is unsafe to serve?</a></p>`, 80) + `</div></div></div><footer>Cooking Stack</footer></body></html>`
	md := mainOf(t, page)
	for _, want := range append([]string{question}, answers...) {
		if !strings.Contains(md, want) {
			t.Errorf("%q is not in the thread:\n%s", want[:40], md)
		}
	}
	if strings.Index(md, question) > strings.Index(md, answers[0]) {
		t.Errorf("the question does not come first:\n%s", md)
	}
}

// TestListingItemsKeepTheirNames: a shop's grid whose every product
// carries a class word that elsewhere names a section ("subscription-
// eligible": the product can be subscribed to) keeps its products; a
// newsletter box beside it still goes.
func TestListingItemsKeepTheirNames(t *testing.T) {
	products := []string{"Dark Roast Coffee", "Medium Roast Coffee", "Espresso Roast Coffee", "Vanilla Coffee", "Blueberry Coffee", "Hazelnut Coffee"}
	var grid strings.Builder
	for i, p := range products {
		fmt.Fprintf(&grid, `<li class="grid__item"><div class="card-wrapper subscription-eligible"><img src="/p%d.jpg" alt=""><h3 class="card__heading"><a href="/products/p%d">%s</a></h3><div class="price">$%d.99</div></div></li>`, i, i, p, 15+i)
	}
	page := `<html><head><title>Coffee</title></head><body><header><nav><a href="/">Home</a> <a href="/coffee">Coffee</a></nav></header>
<main><h1>Coffee</h1><p>Every roast we sell, ground or whole bean, shipped the day it is roasted from our roastery.</p><ul class="product-grid">` + grid.String() + `</ul>
<div class="newsletter-subscription"><h2>Join the list</h2><p>Get our roasting notes and first word of new blends in your inbox every month.</p></div></main>
<footer>Roastery</footer></body></html>`
	md := mainOf(t, page)
	for _, p := range products {
		if !strings.Contains(md, p) {
			t.Errorf("%q is not in the content:\n%s", p, md)
		}
	}
	if strings.Contains(md, "roasting notes") {
		t.Errorf("the newsletter box is in the content:\n%s", md)
	}
}

// TestDeclaredAuthorIsNotTheArticle: an article a page builder spreads
// over modules of two paragraphs each, followed by its author's card
// (microdata itemprop "author") of three longer ones, is the article: the
// card, which holds the most paragraph text of any one element, is not
// where the article is.
func TestDeclaredAuthorIsNotTheArticle(t *testing.T) {
	var modules strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&modules, `<div class="module text_%d"><div class="inner"><h4>Trend %d</h4><p>Trend %d is how cleaning companies now plan their visits around what each household asks for, room by room.</p><p>Clients choose the products, the rooms and the schedule, and the crew follows a checklist built from those choices.</p></div></div>`, i, i, i)
	}
	bio := `<div class="author-box" itemscope itemtype="http://schema.org/Person" itemprop="author"><img src="/karina.png" alt=""><div class="name"><a href="/author/karina" rel="author">Karina Cohen</a></div><div class="desc"><p>Karina Cohen is the owner of a local cleaning company serving a large metropolitan area, after a career as an executive in fashion, software, retail and financial services across three continents.</p><p>She holds a business degree from a large university and brings this strategic experience into her company, where her mission goes beyond spotless homes to the people who clean them.</p><p>When she is not leading the company she teaches her daughter at home and sits on the board of a charity that supports families and small businesses in her city.</p></div></div>`
	page := `<html><head><title>Cleaning trends</title></head><body><header><nav><a href="/">Home</a></nav></header>
<div id="main"><div class="row"><h1>The latest trends in house cleaning</h1>` + modules.String() + `</div>` + bio + `</div><footer>Cleaning company</footer></body></html>`
	md := mainOf(t, page)
	for i := 1; i <= 5; i++ {
		if !strings.Contains(md, fmt.Sprintf("Trend %d is how", i)) {
			t.Errorf("trend %d is not in the content:\n%s", i, md)
		}
	}
	if strings.Contains(md, "owner of a local cleaning company") {
		t.Errorf("the author's card is in the content:\n%s", md)
	}
}
