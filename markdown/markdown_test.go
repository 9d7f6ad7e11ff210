package markdown

import (
	"net/url"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/internal/testsite"
)

const article = `<!doctype html><html><head><title> The  Title </title><script>var tracking = 1;</script>
<style>body { color: red }</style></head><body>
<header><nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav></header>
<div class="cookie-banner">We use cookies. Accept?</div>
<aside class="sidebar">Related: other posts</aside>
<main><article>
<h1>How crawls work</h1>
<p>A crawl starts at one page and follows its links, one hop at a time, until it has seen enough of the site.
It stores every page as <a href="markdown.html">markdown</a> and keeps a log of what it did along the way.</p>
<ul><li>first point</li><li>second point</li></ul>
<p><img src="/img/diagram.png" alt="diagram"></p>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>maxDepth</td><td>10</td></tr></table>
</article></main>
<footer>Copyright notice</footer>
</body></html>`

func convert(t *testing.T, page string, o Options) Document {
	t.Helper()
	if o.PageURL == nil {
		o.PageURL, _ = url.Parse("https://example.com/blog/post.html")
	}
	d, err := Convert([]byte(page), o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMainContentOnly(t *testing.T) {
	d := convert(t, article, Options{MainContentOnly: true, IncludeLinks: true})
	if d.Title != "The Title" {
		t.Errorf("title = %q", d.Title)
	}
	for _, want := range []string{"# How crawls work", "- first point", "[markdown](https://example.com/blog/markdown.html)",
		"| maxDepth | 10      |"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, d.Markdown)
		}
	}
	// Images inside the article stay, with their alt text and an
	// absolute address.
	if !strings.Contains(d.Markdown, "![diagram](https://example.com/img/diagram.png)") {
		t.Errorf("markdown lacks the article's image:\n%s", d.Markdown)
	}
	for _, unwanted := range []string{"Home", "cookies", "Related", "Copyright", "tracking", "color: red"} {
		if strings.Contains(d.Markdown, unwanted) {
			t.Errorf("markdown holds %q:\n%s", unwanted, d.Markdown)
		}
	}
}

func TestWholeBody(t *testing.T) {
	d := convert(t, article, Options{MainContentOnly: false, IncludeLinks: true})
	for _, want := range []string{"# How crawls work", "Copyright notice", "[Home](https://example.com/)", "Related",
		"![diagram](https://example.com/img/diagram.png)"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, d.Markdown)
		}
	}
	if strings.Contains(d.Markdown, "tracking") {
		t.Errorf("markdown holds script text:\n%s", d.Markdown)
	}
}

func TestLinksAsText(t *testing.T) {
	d := convert(t, article, Options{MainContentOnly: true, IncludeLinks: false})
	// Images stay; every other "](" is a link.
	if strings.Count(d.Markdown, "](") > strings.Count(d.Markdown, "![") {
		t.Errorf("markdown still has links:\n%s", d.Markdown)
	}
	if strings.Contains(d.Markdown, "[markdown]") || !strings.Contains(d.Markdown, "as markdown and keeps") {
		t.Errorf("link text not kept as plain text:\n%s", d.Markdown)
	}
}

func TestFallbackWhenMainContentIsTooSmall(t *testing.T) {
	// Everything sits in a header: removing boilerplate would leave nothing.
	page := `<html><body><header><h1>Only a header</h1><p>` + strings.Repeat("Words in the header. ", 20) + `</p></header></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	if !strings.Contains(d.Markdown, "Words in the header.") {
		t.Errorf("the page's only text was dropped:\n%s", d.Markdown)
	}
}

func TestBaseHref(t *testing.T) {
	page := `<html><head><base href="https://cdn.example.org/docs/"></head><body><p><a href="guide">Guide</a></p></body></html>`
	d := convert(t, page, Options{IncludeLinks: true})
	if !strings.Contains(d.Markdown, "[Guide](https://cdn.example.org/docs/guide)") {
		t.Errorf("base href not applied:\n%s", d.Markdown)
	}
}

// TestLazyImages: a picture a script loads gets the address the script
// would load (data-src, data-lazy-src, data-original, a srcset); a
// placeholder with no such address, or an inline data: image, goes.
func TestLazyImages(t *testing.T) {
	page := `<html><body><p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" data-src="/img/one.jpg" alt="One">
<img src="/assets/blank.gif" data-lazy-src="two.jpg" alt="Two">
<img data-srcset="/img/three-small.jpg 400w, /img/three.jpg 800w" alt="Three">
<img src="/img/four.jpg" data-src="/img/other.jpg" alt="Four">
<img src="data:image/png;base64,iVBORw0KGgo=" alt="Inline">
</p></body></html>`
	d := convert(t, page, Options{IncludeLinks: true})
	for _, want := range []string{"![One](https://example.com/img/one.jpg)", "![Two](https://example.com/blog/two.jpg)",
		"![Three](https://example.com/img/three-small.jpg)", "![Four](https://example.com/img/four.jpg)"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("markdown lacks %s:\n%s", want, d.Markdown)
		}
	}
	if strings.Contains(d.Markdown, "data:") || strings.Contains(d.Markdown, "Inline") {
		t.Errorf("an inline or placeholder image is kept:\n%s", d.Markdown)
	}
}

func TestInvisibleCharacters(t *testing.T) {
	d := convert(t, "<html><body><p>Soft\u00adhy\u00adphens and zero\u200bwidth spaces.</p></body></html>", Options{})
	if d.Markdown != "Softhyphens and zerowidth spaces." {
		t.Errorf("markdown %q", d.Markdown)
	}
}

func TestTitleFallsBackToHeading(t *testing.T) {
	d := convert(t, `<html><body><h1>Heading title</h1></body></html>`, Options{})
	if d.Title != "Heading title" {
		t.Errorf("title = %q", d.Title)
	}
}

func BenchmarkConvert100KB(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<html><head><title>Big</title></head><body><nav>menu</nav><main>")
	for sb.Len() < 100<<10 {
		sb.WriteString(`<h2>Section</h2><p>Some paragraph text with <a href="/x">a link</a> and <em>emphasis</em>, long enough to matter.</p><ul><li>one</li><li>two</li></ul>`)
	}
	sb.WriteString("</main><footer>f</footer></body></html>")
	page := []byte(sb.String())
	u, _ := url.Parse("https://example.com/")
	b.SetBytes(int64(len(page)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Convert(page, Options{PageURL: u, MainContentOnly: true, IncludeLinks: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTagFilters(t *testing.T) {
	page := `<html><body><nav>Menu</nav><article><h1>Title</h1><p>Body <span class="ad">BUY NOW</span> text.</p>
		<div class="note"><p>A note.</p></div></article><div class="note">Outside note.</div><footer>Foot</footer></body></html>`
	d := convert(t, page, Options{IncludeLinks: true, ExcludeTags: []string{".ad", "footer"}})
	if strings.Contains(d.Markdown, "BUY NOW") || strings.Contains(d.Markdown, "Foot") || !strings.Contains(d.Markdown, "Menu") {
		t.Errorf("excludeTags: %s", d.Markdown)
	}
	d = convert(t, page, Options{MainContentOnly: true, IncludeLinks: true, IncludeOnlyTags: []string{"h1", ".note"}})
	want := "# Title\n\nA note.\n\nOutside note."
	if d.Markdown != want {
		t.Errorf("includeOnlyTags: %q, want %q", d.Markdown, want)
	}
	d = convert(t, page, Options{IncludeLinks: true, IncludeOnlyTags: []string{"article", "p"}, ExcludeTags: []string{".ad"}})
	if strings.Count(d.Markdown, "A note.") != 1 || strings.Contains(d.Markdown, "BUY NOW") {
		t.Errorf("nested matches rendered twice or exclusion ignored: %q", d.Markdown)
	}
}

func TestExternalLinks(t *testing.T) {
	page := `<html><body><main><p>See <a href="/local">the local page</a> and <a href="https://other.example/x">another site</a>.</p></main></body></html>`
	sameSite := func(u *url.URL) bool { return u.Host == "example.com" }
	d := convert(t, page, Options{IncludeLinks: true, KeepLink: sameSite})
	if !strings.Contains(d.Markdown, "[the local page](https://example.com/local)") || strings.Contains(d.Markdown, "other.example") ||
		!strings.Contains(d.Markdown, "another site") {
		t.Errorf("external link not reduced to text: %s", d.Markdown)
	}
	d = convert(t, page, Options{IncludeLinks: true})
	if !strings.Contains(d.Markdown, "[another site](https://other.example/x)") {
		t.Errorf("external link dropped without KeepLink: %s", d.Markdown)
	}
}

// BenchmarkConvertSitePage converts pages of the generated site the crawl
// benchmark crawls (8 to 20 KB, a shared navigation bar, sidebar and
// footer around an article), with main content only (the default) and
// whole: the conversion cost of a typical page of make bench.
func BenchmarkConvertSitePage(b *testing.B) {
	site := testsite.New(testsite.Options{Pages: 64})
	pages := make([][]byte, site.Pages())
	size := 0
	for i := range pages {
		pages[i] = site.HTML(i)
		size += len(pages[i])
	}
	u, _ := url.Parse("https://example.com/")
	for _, main := range []bool{true, false} {
		name := "main"
		if !main {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size / len(pages)))
			for i := 0; i < b.N; i++ {
				if _, err := Convert(pages[i%len(pages)], Options{PageURL: u, MainContentOnly: main, IncludeLinks: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWikiEditLinksGo: a wiki's "[edit]" control beside each heading is
// not part of the heading, in every mode; a heading's other links stay.
func TestWikiEditLinksGo(t *testing.T) {
	page := `<html><body><h2><span class="mw-headline">Details</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/w/index.php?title=X&amp;action=edit&amp;section=1">edit</a><span class="mw-editsection-bracket">]</span></span></h2>
<p>Text of the section.</p><h2>See <a href="/wiki/Y">Y</a> <a href="/w/index.php?title=X&amp;action=edit&amp;section=2">Edit</a></h2><p>More.</p></body></html>`
	for _, main := range []bool{false, true} {
		md := convert(t, page, Options{MainContentOnly: main, IncludeLinks: true}).Markdown
		if strings.Contains(strings.ToLower(md), "edit") {
			t.Errorf("main content %v: the edit control stayed:\n%s", main, md)
		}
		if !strings.Contains(md, "## Details\n") || !strings.Contains(md, "## See [Y](https://example.com/wiki/Y)") {
			t.Errorf("main content %v: a heading lost its words:\n%s", main, md)
		}
	}
}

// TestDecomposedLettersComposed: letters a page writes decomposed (a base
// letter and a combining mark) come out composed, in the text and the
// title.
func TestDecomposedLettersComposed(t *testing.T) {
	page := "<html><head><title>Gepru\u0308ft</title></head><body><p>Es wurde gepru\u0308ft, ob die Gurtla\u0308nge reicht.</p></body></html>"
	d := convert(t, page, Options{})
	if !strings.Contains(d.Markdown, "Es wurde geprüft, ob die Gurtlänge reicht.") || d.Title != "Geprüft" {
		t.Errorf("decomposed letters stayed decomposed: %q, title %q", d.Markdown, d.Title)
	}
}

// TestGroupedMembersStayATable: a reference that heads each group of its
// members with a row of its own (one cell across the table holding a
// heading, as Doxygen does) keeps each group's heading and its members as
// a table, without the empty rows between them; and the heading that
// labels a group of member sections, right over the first one's heading
// of its level, stays.
func TestGroupedMembersStayATable(t *testing.T) {
	page := `<html><head><title>Quarry: Store Class Reference</title></head><body>
<div id="top"><a href="/">Quarry</a> <a href="/classes.html">Classes</a> <a href="/files.html">Files</a></div>
<div class="contents">
<table class="memberdecls">
<tr class="heading"><td colspan="2"><h2 class="groupheader"><a name="pub-methods"></a>Public Member Functions</h2></td></tr>
<tr><td class="memItemLeft">bool</td><td class="memItemRight"><a class="el" href="#a1">open</a> (const char *path)</td></tr>
<tr><td class="mdescLeft">&#160;</td><td class="mdescRight">Opens the store at path for reading and writing.</td></tr>
<tr class="separator"><td class="memSeparator" colspan="2">&#160;</td></tr>
<tr><td class="memItemLeft">void</td><td class="memItemRight"><a class="el" href="#a2">close</a> ()</td></tr>
<tr class="heading"><td colspan="2"><h2 class="groupheader"><a name="pub-static"></a>Static Public Member Functions</h2></td></tr>
<tr><td class="memItemLeft">static int</td><td class="memItemRight"><a class="el" href="#a3">version</a> ()</td></tr>
</table>
<h2 class="groupheader">Detailed Description</h2>
<div class="textblock"><p>A store keeps records of one kind in a single file, with an index on their keys; it is opened by one process at a time and closed when that process is done with it.</p></div>
<h2 class="groupheader">Member Function Documentation</h2>
<h2 class="memtitle">open()</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr><td class="memname">bool Store::open</td><td>(</td><td class="paramtype">const char *</td><td class="paramname"><em>path</em></td><td>)</td></tr></table></div>
<div class="memdoc"><p>Opens the store at path.</p></div></div>
<h2 class="memtitle">close()</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr><td class="memname">void Store::close</td><td>(</td><td>)</td></tr></table></div>
<div class="memdoc"><p>Closes the store.</p></div></div>
</div>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the class reference", "## Public Member Functions\n\n| bool", "| void", "## Static Public Member Functions\n\n| static int", "## Member Function Documentation\n\n## open()")
	if strings.Contains(md, "|  |  |") || strings.Contains(md, "Classes") {
		t.Errorf("an empty row or the site's menu stayed:\n%s", md)
	}
}

// TestPreambleIsNotTheContent: a module page whose only paragraph of
// prose is its preamble (a <header> holding its title and introduction,
// as odoc sets it) keeps the definitions that follow it, which have no
// prose for the weighing to find.
func TestPreambleIsNotTheContent(t *testing.T) {
	page := `<html><head><title>Period (calendar.Period)</title></head><body>
<nav><a href="../index.html">Up</a> – <a href="../../index.html">calendar</a></nav>
<header><h1>Module <code>Period</code></h1><p>A period is the time passed between two events, a date or a time. Only an interface for the arithmetic of periods is defined here; each kind of event implements it in its own module, with the fields that make sense for it, and converts to the others where it can.</p></header>
<div class="content">
<div class="spec"><code>type field = [</code><table><tr><td><code>| &#96;Year</code></td></tr><tr><td><code>| &#96;Month</code></td></tr><tr><td><code>| &#96;Day</code></td></tr></table><code>]</code></div>
<div class="spec"><code>module type <a href="S/index.html">S</a> = sig ... end</code><div class="doc"><p>The interface of all periods.</p></div></div>
</div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the module page", "# Module `Period`", "A period is the time passed", "`type field = [`", "`Month", "`module type S = sig ... end`", "The interface of all periods.")
}

// TestMemberSectionsAfterTheDescription: a class page whose one paragraph
// of prose stands under "Detailed Description" keeps the later sections
// of that heading's level and their subsections: each member's heading
// and its one-line description (qdoc's "Member Function Documentation").
func TestMemberSectionsAfterTheDescription(t *testing.T) {
	page := `<html><head><title>QuFlag Class | Quarry 2.1</title></head><body>
<div class="navigationbar"><ul><li><a href="/">Quarry 2.1</a></li><li><a href="/classes.html">C++ Classes</a></li></ul></div>
<div class="content mainContent">
<h1 class="title">QuFlag Class</h1>
<p>The QuFlag class holds one flag of a set. <a href="#details">More...</a></p>
<h2 id="public-functions">Public Functions</h2>
<div class="table"><table class="alignedsummary"><tr><td></td><td><b><a href="#QuFlag">QuFlag</a></b>(int <i>value</i>)</td></tr><tr><td>int</td><td><b><a href="#toInt">toInt</a></b>() const</td></tr></table></div>
<div class="descr"><h2 id="details">Detailed Description</h2>
<p>It is a plain integer, except where overloads and conversions are concerned: a function that takes a QuFlag is not called with any integer by mistake.</p>
<p>You never need to use this class in your own code: the flag sets make and read its objects, and the compiler turns them into integers wherever a plain number is asked for.</p></div>
<div class="func"><h2>Member Function Documentation</h2>
<h3 class="fn" id="QuFlag">QuFlag::QuFlag(int value)</h3>
<p>Constructs a flag object that stores the value.</p>
<h3 class="fn" id="toInt">int QuFlag::toInt() const</h3>
<p>Returns the value stored by the flag object.</p>
</div></div>
<div class="footer"><p>© 2026 The Quarry Authors.</p></div>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the class page", "## Member Function Documentation", "### QuFlag::QuFlag(int value)", "Constructs a flag object that stores the value.", "Returns the value stored by the flag object.")
}

// TestRepeatedUnderAnotherHeadingStays: a paragraph a reference repeats
// word for word under another heading (each overload of a function
// documented in full) stays in each section; repeated inside one section
// (a lead printed twice), it is written once.
func TestRepeatedUnderAnotherHeadingStays(t *testing.T) {
	shared := "Returns an iterator to the entry whose key is key, if the map holds one; if it does not, this function returns end()."
	page := `<html><head><title>Map Class</title></head><body>
<div class="content"><h1>Map Class</h1>
<p>A map keeps entries sorted by their keys and finds any of them in logarithmic time, whatever the kind of key it is asked for.</p>
<h2>Member Function Documentation</h2>
<h3>Map::find(const String &amp;key)</h3>
<p>` + shared + `</p>
<h3>Map::find(int key)</h3>
<p>This is an overloaded function.</p>
<p>` + shared + `</p>
<p>` + shared + `</p>
</div></body></html>`
	md := mainOf(t, page)
	if n := strings.Count(md, shared); n != 2 {
		t.Errorf("the shared description is written %d times, want once under each heading:\n%s", n, md)
	}
}

// TestAnnouncedNamesStay: after an object's description, a line that
// announces a list ("4 Methods:") and the list of the methods' names,
// each a link, stay: a reference's list of its members. A list of other
// stories' headlines after an article is no list of names.
func TestAnnouncedNamesStay(t *testing.T) {
	page := `<html><head><title>Session Object</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/docs.html">Documentation</a></div>
<h2>Session Object</h2>
<pre>typedef struct qr_session qr_session;</pre>
<p>A session is the handle through which a process reads and writes one store. It is opened with qr_open(), passed to every call that touches the store, and closed with qr_close() when the process is done.</p>
<p>4 Methods:</p>
<div class="columns"><ul>
<li><a href="/c/begin.html">qr_begin</a></li>
<li><a href="/c/commit.html">qr_commit</a></li>
<li><a href="/c/get.html">qr_get</a></li>
<li><a href="/c/put.html">qr_put</a></li>
</ul></div>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the object's page", "4 Methods:", "[qr_begin](/c/begin.html)", "[qr_put](/c/put.html)")
	if strings.Contains(md, "Documentation") {
		t.Errorf("the site's menu stayed:\n%s", md)
	}
	story := `<html><head><title>Harbor expands night ferry service</title></head><body>
<article><h1>Harbor expands night ferry service</h1>
<p>The harbor authority will run ferries until two in the morning starting next month, a change commuters have asked for since the bridge closed for repairs last year.</p>
<p>Read more:</p>
<ul><li><a href="/a">City council approves the new budget after a long night of debate</a></li>
<li><a href="/b">Schools reopen their libraries for the summer holidays</a></li></ul>
</article></body></html>`
	if md := mainOf(t, story); strings.Contains(md, "City council") {
		t.Errorf("a list of other stories stayed after the article:\n%s", md)
	}
}

// TestSectionIndexKeepsItsPages: a section's index page, whose main part
// is a title, an introduction and then the list of the section's pages
// (each a link, the last thing in <main>), keeps the list.
func TestSectionIndexKeepsItsPages(t *testing.T) {
	page := `<html><head><title>User Guide - Tidekit</title></head><body>
<div class="navbar"><a href="/">Tidekit</a> <a href="/user-guide/">User Guide</a> <a href="/about/">About</a></div>
<div class="row"><div class="col-md-3"><ul><li><a href="/">Home</a></li><li><a href="/user-guide/">User Guide</a></li></ul></div>
<div class="col-md-9" role="main">
<h1>User Guide</h1>
<p>The user guide explains how to run Tidekit day to day. Start with the installation if you have not yet; you can then read the pages below in order, or jump to the one you need.</p>
<ul>
<li><a href="installation.html">Installation</a></li>
<li><a href="configuration.html">Configuration</a></li>
<li><a href="backups.html">Taking Backups</a></li>
</ul></div></div>
<footer><p>Built with a static site generator.</p></footer></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the section's index", "The user guide explains", "[Installation](installation.html)", "[Taking Backups](backups.html)")
	if strings.Contains(md, "About") {
		t.Errorf("the navigation bar stayed:\n%s", md)
	}
}

// TestLinesAfterAnArticleEndingInAList: when the article's last
// paragraph is an item of a list, the lines that close the article stand
// beside the list: an announced list of names and a "See also" sentence
// after it stay.
func TestLinesAfterAnArticleEndingInAList(t *testing.T) {
	page := `<html><head><title>Dynamic String Object</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/docs.html">Documentation</a></div>
<h2>Dynamic String Object</h2>
<blockquote><pre>typedef struct qr_str qr_str;</pre></blockquote>
<p>An instance of the string object holds a string of any length while it is being built.</p>
<p>The life of a string object is as follows:</p>
<ol>
<li>The object is created with a constructor that takes the store it belongs to and an initial size.</li>
<li>Text is appended to it by the methods below, each of which grows the buffer as it needs to.</li>
<li>The object is destroyed, and the string it built is returned, by a call that finishes it.</li>
</ol>
<p>3 Methods:</p>
<div class="columns"><ul>
<li><a href="/c/append.html">qr_str_append</a></li>
<li><a href="/c/length.html">qr_str_length</a></li>
<li><a href="/c/reset.html">qr_str_reset</a></li>
</ul></div>
<p>See also lists of <a href="/objects.html">Objects</a>, <a href="/constants.html">Constants</a>, and <a href="/functions.html">Functions</a>.</p>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the object's page", "3 Methods:", "[qr_str_length](/c/length.html)", "See also lists of [Objects](/objects.html)")
}

// TestLinkedSentenceBeforeTheArticleStays: a sentence that is mostly
// links just before the article ("Inherited by Quarry::FileStore and
// Quarry::MemoryStore.") stays as such a sentence inside it does.
func TestLinkedSentenceBeforeTheArticleStays(t *testing.T) {
	page := `<html><body>
<div id="top"><a href="/">Quarry</a> <a href="/classes.html">Classes</a> <a href="/files.html">Files</a></div>
<div class="contents">
<p>Inherited by <a href="/filestore.html">Quarry::FileStore</a> and <a href="/memstore.html">Quarry::MemoryStore</a>.</p>
<table class="memberdecls">
<tr class="heading"><td colspan="2"><h2 class="groupheader">Public Member Functions</h2></td></tr>
<tr><td>virtual bool</td><td><a href="#a1">open</a> (const char *path)=0</td></tr>
<tr><td>virtual void</td><td><a href="#a2">close</a> ()=0</td></tr>
</table>
<h2 class="groupheader">Detailed Description</h2>
<div class="textblock"><p>The interface of every store: a store opens, gives its records to the one process that opened it, and closes when that process is done with it, whatever keeps the records underneath.</p>
<p>A store that keeps its records in a file writes them through on every commit; one that keeps them in memory loses them when the process ends, which is what the tests of a program that uses a store want.</p></div>
</div></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the class page", "Inherited by [Quarry::FileStore](/filestore.html) and [Quarry::MemoryStore](/memstore.html).", "## Public Member Functions")
	if strings.Contains(md, "Classes") {
		t.Errorf("the site's menu stayed:\n%s", md)
	}
}

// TestTeaserExcerptsGo: teasers of other pages after the article (a link
// holding the picture and the title, then a one-line excerpt) go, excerpts
// included, though each reads as a short sentence in the article's
// container; the article's table, sources and last line stay.
func TestTeaserExcerptsGo(t *testing.T) {
	page := `<html><head><title>Rainfall in 2025 | Weather Notes</title></head><body>
<nav class="top"><a href="/">Weather Notes</a> <a href="/data">Data</a></nav>
<div class="content">
<h1>Rainfall in 2025</h1>
<p>Last year was the wettest of the decade at all three of our stations, with the autumn months bringing almost half of the year's rain in a few long storms.</p>
<table><thead><tr><th>Station</th><th>Rain (mm)</th></tr></thead><tbody><tr><td>North</td><td>1,204</td></tr><tr><td>Hill</td><td>1,530</td></tr></tbody></table>
<p>Sources: <a href="/n">North station log</a>, <a href="/h">Hill station log</a>.</p>
<p>The hill station's total is the highest it has recorded since it opened.</p>
<h3>You might also like</h3>
<div class="teaser"><a href="/snow"><img src="/s.png" alt=""><h4>Snow in 2025</h4></a><p>How the winter compared.</p></div>
<div class="teaser"><a href="/wind"><img src="/w.png" alt=""><h4>Wind in 2025</h4></a><p>The year's strongest gusts.</p></div>
</div>
<div class="footer">Weather Notes is a hobby site.</div>
</body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the article", "| Hill", "Sources: [North station log](/n)", "The hill station's total is the highest")
	if strings.Contains(md, "How the winter compared") || strings.Contains(md, "strongest gusts") {
		t.Errorf("the teasers' excerpts stayed:\n%s", md)
	}
	// Teasers set as a linked line and a line of excerpt, under a
	// heading that opens the page's tail: nothing after it stays.
	plain := strings.Replace(page, `<div class="teaser"><a href="/snow"><img src="/s.png" alt=""><h4>Snow in 2025</h4></a><p>How the winter compared.</p></div>
<div class="teaser"><a href="/wind"><img src="/w.png" alt=""><h4>Wind in 2025</h4></a><p>The year's strongest gusts.</p></div>`,
		`<p><a href="/snow"><b>Snow in 2025</b></a></p><p>How the winter compared.</p>
<p><a href="/wind"><b>Wind in 2025</b></a></p><p>The year's strongest gusts.</p>`, 1)
	if plain == page {
		t.Fatal("the plain teasers were not put in")
	}
	if md := mainOf(t, plain); strings.Contains(md, "How the winter compared") || strings.Contains(md, "strongest gusts") {
		t.Errorf("the plain teasers' excerpts stayed:\n%s", md)
	}
}

// TestOneRowLayoutTable: a page laid out as one table row, a menu cell
// beside a cell holding the page's text in lines broken by <br>, comes
// out as the text's paragraphs, not as one row of a markdown table.
func TestOneRowLayoutTable(t *testing.T) {
	page := `<html><head><title>Growing tomatoes on a balcony</title></head><body>
<table width="100%"><tr><td width="180" valign="top"><a href="/">Home</a><br><a href="/garden">Garden</a><br><a href="/kitchen">Kitchen</a></td>
<td valign="top"><font size="5"><b>Growing tomatoes on a balcony</b></font><br><br>
Tomatoes do well in pots if they get six hours of sun and a pot of at least twenty litres. I use cherry varieties, which stay small and give fruit from July.<br><br>
Water every evening in summer, and feed once a week from the first flowers on. Pinch out the side shoots of tall varieties so the plant puts its strength into the fruit.
</td></tr></table></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the page", "Tomatoes do well in pots", "\n\nWater every evening in summer")
	if strings.Contains(md, "|") || strings.Contains(md, "Kitchen") {
		t.Errorf("the layout stayed a table, or its menu stayed:\n%s", md)
	}
	// A one-row table of short cells is data, and stays a table.
	row := `<html><body><article><h1>Release 2.0</h1><p>Release 2.0 brings a new storage engine, written from scratch over the last year, that keeps every index in one file.</p>
<table><tr><th>Version</th><td>2.0.1</td><th>Date</th><td>2026-03-02</td></tr></table></article></body></html>`
	if md := mainOf(t, row); !strings.Contains(md, "| Version |") {
		t.Errorf("a one-row table of data lost its table:\n%s", md)
	}
}

// TestAnnouncedListBeforeTheArticle: a list of links the line before it
// announces ("… split into two categories:") stays where it stands before
// the article's first paragraph, as it does inside the article (a
// client-rendered manual's home page); the sidebar's list of the same
// links does not.
func TestAnnouncedListBeforeTheArticle(t *testing.T) {
	page := `<html><body><main role="presentation">
<aside class="sidebar" role="none"><div class="sidebar-nav" role="navigation"><ul><li><a href="/Guides/Index">Guides</a></li><li class="active"><a href="/">index</a></li></ul></div></aside>
<section class="content"><article id="main" class="markdown-section" role="main"><h1 id="quarry"><a href="/?id=quarry" class="anchor"><span>Quarry</span></a></h1><p>The documentation for Quarry is split into two categories:</p>
<ul>
<li><a href="/Reference/Index">Reference documentation</a></li>
<li><a href="/Guides/Index">Guides</a></li>
</ul>
<p>The reference documentation utilizes a very formal style in an effort to document Quarry&#39;s API and implementation details thoroughly for the developer who needs such. The guides utilize an informal style to introduce newcomers to its concepts.</p>
<h2 id="where-to-start"><a href="/?id=where-to-start" class="anchor"><span>Where To Start</span></a></h2><p>Complete newcomers to Quarry should first read our <a href="/Guides/Getting-Started">Getting Started</a> guide.</p>
<p>Developers experienced with Quarry should consult the <a href="/Reference/Index">reference documentation</a> directly to find the topic they are seeking more information about.</p>
</article></section></main></body></html>`
	md := mainOf(t, page)
	keepsAll(t, md, "the home page", "split into two categories:\n\n- [Reference documentation](/Reference/Index)\n- [Guides](/Guides/Index)\n\nThe reference documentation")
	if strings.Count(md, "/Guides/Index") != 1 {
		t.Errorf("the sidebar stayed:\n%s", md)
	}
}
