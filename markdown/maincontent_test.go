package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// paragraphs returns n distinct paragraphs of an article about topic, each a
// few sentences long, as HTML.
func paragraphs(topic string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d on %s tells the reader something new about the subject at hand. "+
			"It goes on for a while, as paragraphs of articles do, so that it reads as prose number %d.</p>\n", i, topic, i)
	}
	return b.String()
}

// articlePage wraps body in a page titled title, between a navigation bar
// and a footer.
func articlePage(title, body string) string {
	return `<!doctype html><html><head><title>` + title + ` | Example News</title></head><body>
<nav><a href="/">Home</a> <a href="/world/">World</a> <a href="/tech/">Tech</a></nav>
<div class="page">` + body + `</div>
<footer><p>© Example News. <a href="/terms">Terms</a></p></footer></body></html>`
}

// TestMainContentDropsWhatIsNotTheArticle: each case is a page whose
// article is surrounded by one kind of boilerplate; the markdown holds the
// article (its first and last paragraphs, and what the case adds to want)
// and none of the boilerplate.
func TestMainContentDropsWhatIsNotTheArticle(t *testing.T) {
	indent := "\n" + strings.Repeat(" ", 60) // a generated page's indentation between a label's lines
	article := paragraphs("harbours", 8)
	cases := []struct {
		name   string
		body   string
		want   []string
		unwant []string
	}{
		{
			name: "comment thread named by id",
			body: `<article>` + article + `</article><div id="comments"><h3>3 comments</h3>
				<div class="comment"><p>Great piece, I always wondered how harbours keep their depth through the winter storms.</p></div>
				<div class="comment"><p>I disagree with the second paragraph entirely and I will say so at some length here.</p></div></div>`,
			unwant: []string{"3 comments", "Great piece", "I disagree"},
		},
		{
			name: "related stories and newsletter named by class",
			body: `<article>` + article + `<div class="related-stories"><h4>More on this</h4><p>Rivers that change course every spring and the towns that follow them</p></div>
				<div class="newsletter-box"><p>Get the best of Example News in your inbox every morning, free of charge.</p></div></article>`,
			unwant: []string{"More on this", "Rivers that change", "inbox every morning"},
		},
		{
			name: "a comment thread named in German, camel-cased",
			body: `<article>` + article + `<div class="kommentarModul"><h3>Ihre Meinung</h3>
				<div class="kommentarContent"><p>Hallo, eine super Idee, ich hatte den Fehler auch schon oft gemacht und mich gewundert.</p></div></div></article>`,
			unwant: []string{"Ihre Meinung", "super Idee"},
		},
		{
			name: "teasers that end with a read-more link",
			body: `<div class="main"><article>` + article + `</article><h2>Veranstaltungen</h2>
				<div class="card"><h3>Den Hof öffnen</h3><p>Sie haben einen landwirtschaftlichen Betrieb und würden gerne Ihren Beitrag zum Dialog leisten?</p>
				<a href="/events/1">Mehr lesen...</a></div>
				<div class="card"><h3>Wäschepflege von A bis Z</h3><p>Ein Seminar für Auszubildende in der Hauswirtschaft rund um die Wäschepflege im Haushalt.</p>
				<a href="/events/2">» Read more</a></div></div>`,
			unwant: []string{"Den Hof", "landwirtschaftlichen Betrieb", "Mehr lesen", "Wäschepflege", "Read more"},
		},
		{
			name: "other stories' teasers set in the article as an aside",
			body: `<article>` + paragraphs("harbours", 4) + `<aside class="inset"><div class="item"><h6><a href="/other">How canals are dug</a></h6>
				<p>When a canal is dug through soft ground, the banks give way unless they are …<a href="/other">Read more</a></p></div>
				<div class="item"><h6><a href="/third">Locks explained</a></h6><p>A lock lifts a boat the way a stair lifts a walker …
				<a href="/third">Read more</a></p></div></aside>` + paragraphs("docks", 4) + `</article>`,
			want:   []string{"Paragraph 4 on harbours", "Paragraph 1 on docks"},
			unwant: []string{"How canals are dug", "soft ground", "Locks explained", "Read more"},
		},
		{
			name:   "a cookie banner named in one word",
			body:   `<article>` + article + `</article><div id="cookiebanner"><p>Um unsere Webseite für Sie optimal zu gestalten, verwenden wir Cookies.</p></div>`,
			unwant: []string{"verwenden wir Cookies"},
		},
		{
			name: "a wrapper named after a section still holds the article",
			body: `<div class="content-with-related-sidebar"><div class="story">` + article + `</div></div>`,
		},
		{
			name: "a heading's anchor naming a section word is not a section",
			body: `<article>` + paragraphs("harbours", 4) + `<div id="sharing-the-harbour-with-ferries"><h2>Sharing the harbour with ferries</h2>` +
				paragraphs("ferries", 4) + `</div></article>`,
			want: []string{"## Sharing the harbour with ferries", "Paragraph 4 on ferries"},
		},
		{
			name: "widgets and elements hidden from every reader",
			body: `<article>` + article + `<div role="dialog"><p>Before you go: subscribe to our podcast about the sea and its ports.</p></div>
				<p aria-hidden="true">Decorative text that no reader, sighted or not, is meant to get from this page.</p>
				<span class="sr-only">Opens in a new window</span></article>`,
			unwant: []string{"podcast", "Decorative", "new window"},
		},
		{
			name:   "byline and dateline; the headline repeating the title stays",
			body:   `<article><h1>Harbours in winter</h1><p>By Jane Doe</p><p>Oct 18, 2019 · 8 min read</p>` + article + `</article>`,
			want:   []string{"# Harbours in winter"},
			unwant: []string{"Jane Doe", "min read"},
		},
		{
			name: "a gallery set into the article",
			body: `<article>` + paragraphs("harbours", 4) + `<div class="type-gallery"><h2>Business news in pictures</h2><ul>
				<li><h3>1/3 Shipping up</h3><p>Freight volumes rose again this quarter as the ports of the north reported record traffic and new routes.</p></li>
				<li><h3>2/3 Airline merger</h3><p>Two regional airlines agreed to merge after months of talks, creating the third largest carrier of the country.</p></li>
				<li><h3>3/3 Retail slows</h3><p>Shoppers stayed home in the cold weeks of the winter and the high streets saw fewer visitors than a year ago.</p></li>
				</ul></div>` + paragraphs("winter", 4) + `</article>`,
			want:   []string{"Paragraph 4 on winter"},
			unwant: []string{"in pictures", "Freight volumes", "Airline merger", "Shoppers stayed home"},
		},
		{
			name: "a slideshow above the article, with its counter and caption",
			body: `<div class="slideshow-box"><div>1 / 5</div><h1 class="slideshow-headline">In this photo the ferry leaves the harbour at dawn ` +
				`on the first day of the winter timetable.</h1></div><article>` + article + `</article>`,
			unwant: []string{"1 / 5", "ferry leaves"},
		},
		{
			name: "a chart's labels laid over its picture go; the picture stays",
			body: `<article>` + paragraphs("harbours", 4) + `<div class="chart"><img src="/chart.png" alt="Freight by year">
				<div style="top:4.9%;margin-top:-16px;left:96.6%;width:60px">` + indent + `<p>` + indent + `$915` + indent + `</p>` + indent +
				`<p>` + indent + `billion` + indent + `</p>` + indent + `</div>
				<div style="position: absolute; top: 88%; left: 0.1%"><p>’17</p></div><div style="top:34.8%;right:95%;width:44px"><p>600</p></div></div>` + paragraphs("docks", 2) + `</article>`,
			want:   []string{"chart.png", "Paragraph 2 on docks"},
			unwant: []string{"$915", "billion", "’17", "600"},
		},
		{
			name: "a hidden banner in place of an advertisement",
			body: `<article>` + paragraphs("harbours", 4) + `<div class="mnt_history" style="display: none;"><a href="/whitelist">` +
				`<img src="/thanks.png" alt="Thank you for supporting Example News"></a></div>` + paragraphs("docks", 2) + `</article>`,
			want:   []string{"Paragraph 2 on docks"},
			unwant: []string{"Thank you for supporting", "thanks.png"},
		},
		{
			name:   "a link's note that it opens a new window",
			body:   `<article>` + article + `<p>The port authority <a href="/report">said<span class="external-link-icon">Opens a new window </span></a> that the quays reopen in March.</p></article>`,
			want:   []string{"[said](https://example.com/report) that the quays"},
			unwant: []string{"new window"},
		},
		{
			name: "a headline unlike the title stays",
			body: `<article><h1>What the tide brings</h1>` + article + `</article>`,
			want: []string{"# What the tide brings"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := convert(t, articlePage("Harbours in winter", c.body), Options{MainContentOnly: true, IncludeLinks: true})
			want := append([]string{"Paragraph 1 on harbours", "Paragraph 4 on harbours"}, c.want...)
			for _, w := range want {
				if !strings.Contains(d.Markdown, w) {
					t.Errorf("markdown lacks %q:\n%s", w, d.Markdown)
				}
			}
			for _, u := range append(c.unwant, "Home", "Terms") {
				if strings.Contains(d.Markdown, u) {
					t.Errorf("markdown holds %q:\n%s", u, d.Markdown)
				}
			}
			if n := strings.Count(d.Markdown, "Paragraph 1 on harbours"); n != 1 {
				t.Errorf("the first paragraph comes %d times:\n%s", n, d.Markdown)
			}
		})
	}
}

// TestStoryInSlides: a story told in a slideshow is the article, and stays;
// only a gallery inside the article's own container is an insert.
func TestStoryInSlides(t *testing.T) {
	var slides strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&slides, `<div class="slide"><h3>Slide %d of 4</h3><p>Slide %d tells of a harbour in winter, of its boats and crews and of the `+
			`town around it, at the length a story told in pictures gives each picture.</p></div>`, i, i)
	}
	// The introduction holds more paragraph text than any one slide.
	body := `<div class="intro">` + paragraphs("pictures", 2) + `</div><div class="slideshow">` + slides.String() + `</div>`
	d := convert(t, articlePage("Harbours", body), Options{MainContentOnly: true, IncludeLinks: true})
	for i := 1; i <= 4; i++ {
		if w := fmt.Sprintf("Slide %d tells of a harbour", i); !strings.Contains(d.Markdown, w) {
			t.Errorf("markdown lacks %q:\n%s", w, d.Markdown)
		}
	}
}

// TestNoscriptArticle: an article given only inside <noscript> is read;
// a small noscript is not.
func TestNoscriptArticle(t *testing.T) {
	body := `<div class="post"><script type="text/template"><p>template copy</p></script><noscript>` + paragraphs("harbours", 6) +
		`</noscript></div><noscript><p>Please enable JavaScript to see the comments.</p></noscript><aside><p>Archive: 2019 2020</p></aside>`
	d := convert(t, articlePage("Harbours", body), Options{MainContentOnly: true, IncludeLinks: true})
	if !strings.Contains(d.Markdown, "Paragraph 6 on harbours") || strings.Contains(d.Markdown, "enable JavaScript") || strings.Contains(d.Markdown, "template copy") {
		t.Errorf("markdown:\n%s", d.Markdown)
	}
	d = convert(t, articlePage("Harbours", body), Options{IncludeLinks: true})
	if !strings.Contains(d.Markdown, "Paragraph 6 on harbours") {
		t.Errorf("whole body lacks the noscript article:\n%s", d.Markdown)
	}
}

// TestSpacesKeptAroundInlineElements: the spaces between text and links
// stay where the page had them, and none is made inside a word.
func TestSpacesKeptAroundInlineElements(t *testing.T) {
	body := `<article>` + paragraphs("harbours", 6) + `<ol class="references"><li><span class="backlink"><b><a href="#cite-1">^</a></b></span> <span class="reference-text"><cite class="citation book">
		Ruiz, Ana (1998). <i>Ports</i> (1st ed.). Wellington: Victoria University Press. <a href="/isbn">ISBN</a>&nbsp;<a href="/b/978"><bdi>9780864733283</bdi></a>.</cite></span></li>
		<li><span class="reference-text"><cite class="citation book">Doe, Jane (2001). <i>Tides</i>. Auckland: <a href="/hm">Penguin Books</a>. p.&nbsp;82.</cite></span></li></ol>
		<p><b>T</b>he harbour master keeps a log of every ship that enters or leaves the port each day, and has done so for years.</p></article>`
	for _, links := range []bool{true, false} {
		d := convert(t, articlePage("Harbours", body), Options{MainContentOnly: true, IncludeLinks: links})
		text := strings.NewReplacer("[", "", "]", "", "(https://example.com/isbn)", "", "(https://example.com/b/978)", "",
			"(https://example.com/hm)", "", "*", "").Replace(d.Markdown)
		for _, w := range []string{"Ports (1st ed.). Wellington: Victoria University Press. ISBN 9780864733283.",
			"Auckland: Penguin Books. p. 82.", "The harbour master keeps"} {
			if !strings.Contains(text, w) {
				t.Errorf("includeLinks %v: markdown lacks %q:\n%s", links, w, d.Markdown)
			}
		}
	}
}

// TestIncludeLinksKeepsTheSameWords: whether links are kept changes only
// the links, not which blocks are the main content.
func TestIncludeLinksKeepsTheSameWords(t *testing.T) {
	body := `<article>` + paragraphs("harbours", 5) + `<p>Boats: <a href="/a">one</a>, <a href="/b">two</a>, <a href="/c">three</a>, <a href="/d">four</a> and <a href="/e">five</a> berths.</p>` +
		paragraphs("berths", 3) + `</article>`
	with := convert(t, articlePage("Harbours", body), Options{MainContentOnly: true, IncludeLinks: true})
	without := convert(t, articlePage("Harbours", body), Options{MainContentOnly: true, IncludeLinks: false})
	strip := func(md string) string {
		for _, p := range []string{"a", "b", "c", "d", "e"} {
			md = strings.ReplaceAll(md, "](https://example.com/"+p+")", "")
		}
		return strings.ReplaceAll(md, "[", "")
	}
	if strip(with.Markdown) != without.Markdown {
		t.Errorf("with links:\n%s\nwithout:\n%s", with.Markdown, without.Markdown)
	}
}

// TestProseSidebarStays: a manual's sidebar note beside a section (an
// aside of prose) stays with the section; an aside of links around the
// article goes.
func TestProseSidebarStays(t *testing.T) {
	body := `<aside class="sidebar"><ul><li><a href="/a">Chapter A</a></li><li><a href="/b">Chapter B</a></li><li><a href="/c">Chapter C</a></li></ul></aside>
<main><section id="one"><h1>Getting started</h1>` + paragraphs("starting", 6) + `</section>
<section id="two"><h2>Defining structure</h2>` + paragraphs("structure", 2) + `
<aside class="sidebar"><p class="sidebar-title">Directives</p><p>A directive is a generic block of explicit markup, with arguments, options and content of its own.</p></aside>` +
		paragraphs("directives", 2) + `</section></main>`
	d := convert(t, articlePage("Getting started", body), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "A directive is a generic block of explicit markup", "Paragraph 2 on directives")
	if strings.Contains(d.Markdown, "Chapter B") {
		t.Errorf("the aside of links stayed:\n%s", d.Markdown)
	}
}

// TestShortManualPageKeepsItsTitleBox: a manual page too short to weigh
// (its body is a synopsis and one-line options) keeps the title and
// one-line summary set in a box of their own before its body.
func TestShortManualPageKeepsItsTitleBox(t *testing.T) {
	page := `<html><head><title>tool-verify(1)</title></head><body>
<div id="header"><h1>tool-verify(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody"><p>tool-verify - Check the signature of a release</p></div></div>
<div id="content"><div class="sect1"><h2>SYNOPSIS</h2><div class="sectionbody"><pre>tool verify [-v] &lt;release&gt;</pre></div></div>
<div class="sect1"><h2>OPTIONS</h2><div class="sectionbody"><dl>` + strings.Repeat(`<dt>-v</dt><dd><p>Print the signature's details.</p></dd>`, 8) + `</dl></div></div></div>
<div id="footer"><div id="footer-text">Last updated 2024-05-31</div></div></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "# tool-verify(1) Manual Page", "tool-verify - Check the signature of a release", "## SYNOPSIS", "tool verify [-v] <release>")
}

// TestLinkedLogoBeforeTheArticleGoes: a site's logo, a picture linking
// home in a box of its own before the document, is not the article's lead.
func TestLinkedLogoBeforeTheArticleGoes(t *testing.T) {
	page := `<html><head><title>Getting started</title></head><body>
<div class="pageheader"><a href="/index.html"><img src="/static/header.png" alt="SITELOGO"></a></div>
<div class="document"><div class="body" role="main"><h1>Getting started</h1>` + paragraphs("starting", 4) + `</div></div></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "# Getting started", "Paragraph 4 on starting")
	if strings.Contains(d.Markdown, "SITELOGO") {
		t.Errorf("the linked logo stayed:\n%s", d.Markdown)
	}
}

// TestDocBookPageWithOneParagraph: a DocBook page whose text is one
// paragraph announcing a list of short items, then a line pointing
// elsewhere, between the Prev/Up/Next bars DocBook puts above and below
// it. The bars go; the paragraph keeps its list and the line after it.
func TestDocBookPageWithOneParagraph(t *testing.T) {
	bar := func(class string) string {
		return `<div class="` + class + `"><table width="100%"><tr><td><a accesskey="p" href="prev.html">Prev</a> </td><td><a accesskey="u" href="ddl.html">Up</a></td>` +
			`<td><a accesskey="n" href="next.html">Next</a></td></tr><tr><td>5.12. Foreign Data</td><td><a href="index.html">Home</a></td><td>5.14. Dependency Tracking</td></tr></table></div>`
	}
	page := `<html><head><title>5.13. Other Database Objects</title></head><body>` + bar("navheader") +
		`<div class="sect1"><div class="titlepage"><div><div><h2 class="title">5.13. Other Database Objects</h2></div></div></div>
<p>Tables are the central objects in a relational database structure, because they hold your data. But they are not the only objects that exist in a database; we give you a list here so that you are aware of what is possible:</p>
<div class="itemizedlist"><ul class="itemizedlist"><li class="listitem"><p>Views</p></li><li class="listitem"><p>Data types and domains</p></li><li class="listitem"><p>Triggers and rewrite rules</p></li></ul></div>
<p>Detailed information on these topics appears in <a class="xref" href="server-programming.html">Part V</a>.</p></div>` + bar("navfooter") + `</body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "## 5.13. Other Database Objects", "what is possible:", "- Views\n- Data types and domains\n- Triggers and rewrite rules",
		"Detailed information on these topics appears in [Part V]")
	if strings.Contains(d.Markdown, "Prev") || strings.Contains(d.Markdown, "Dependency Tracking") {
		t.Errorf("DocBook's navigation bars stayed:\n%s", d.Markdown)
	}
}

// TestShortPageTrimmed: a page too short to weigh, whose content the
// rules pick, is trimmed as an article is: its picture's credit line and
// the note that comments are closed go, its own lines stay.
func TestShortPageTrimmed(t *testing.T) {
	body := `<nav><a href="/">Home</a></nav><main><h1>Harbour hours</h1><p>The harbour office opens at eight in the morning and closes when the last boat is in.</p>
<p>Boats are weighed on Mondays.</p><p>Foto: Jane Doe</p><div>Comments are closed.</div></main>`
	d := convert(t, articlePage("Harbour hours", body), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "# Harbour hours", "The harbour office opens at eight in the morning", "Boats are weighed on Mondays.")
	if strings.Contains(d.Markdown, "Jane Doe") || strings.Contains(d.Markdown, "Comments are closed") || strings.Contains(d.Markdown, "Home") {
		t.Errorf("a short page kept what is not its own:\n%s", d.Markdown)
	}
}

// TestDocBookChapterKeepsItsTitle: a DocBook chapter page has its title,
// then the table of its sections (many entries, all links), then its
// first paragraph. The title stays, however long the table between.
func TestDocBookChapterKeepsItsTitle(t *testing.T) {
	var toc strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&toc, `<dt><span class="sect1"><a href="ddl-%d.html">5.%d. Section number %d</a></span></dt>`, i, i, i)
	}
	page := `<html><head><title>Chapter 5. Data Definition</title></head><body><div class="navheader"><a href="prev.html">Prev</a> <a href="next.html">Next</a></div>
<div class="chapter"><div class="titlepage"><div><div><h2 class="title">Chapter 5. Data Definition</h2></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">` + toc.String() + `</dl></div>
<p>This chapter covers how one creates the database structures that will hold one's data, and how tables are created and modified.</p>
<p>Subsequently, we discuss how tables can be organized into schemas, and how privileges can be assigned to tables.</p></div></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "## Chapter 5. Data Definition", "This chapter covers how one creates")
	if strings.Count(d.Markdown, "Chapter 5. Data Definition") != 1 {
		t.Errorf("the title is not there once:\n%s", d.Markdown)
	}
}

// TestModulePageKeepsItsSummary: a library's reference page for a small
// module (no <main>; the site's index of functions in an <aside>): its
// name, summary and description, then its data types, each an <article>
// of a signature and a line, then, in a block of their own after their
// heading, its functions, each an <article> of signatures, types and
// paragraphs. The weighing takes the functions' block, half of the
// page's own text; the rest is the page's own words, not links, and
// stays.
func TestModulePageKeepsItsSummary(t *testing.T) {
	dataType := func(name, text string) string {
		return `<article class="data-types-body"><h4 id="type-` + name + `"><span class="bold_code">` + name + `() = binary()</span></h4>` +
			`<div class="desc"><p>` + text + `</p></div></article>`
	}
	function := func(names []string, text ...string) string {
		var b strings.Builder
		b.WriteString(`<article class="func">`)
		for _, n := range names {
			fmt.Fprintf(&b, `<h4 id="%s-1" class="func-head"><span class="title-name">%s(Ballots) -&gt; Result</span></h4>`, n, n)
		}
		b.WriteString(`<div class="fun-types"><h3>Types</h3><div><span class="bold_code">Ballots = <a href="#type-box">box()</a></span></div></div><div class="tube">`)
		for _, p := range text {
			b.WriteString(`<p>` + p + `</p>`)
		}
		b.WriteString(`</div></article>`)
		return b.String()
	}
	var index strings.Builder
	for i := range 40 {
		fmt.Fprintf(&index, `<li><a href="m%d.html">module_%d</a></li>`, i, i)
	}
	page := `<html><head><title>tally — Stdlib</title></head><body><aside><nav><ul>` + index.String() + `</ul></nav></aside>
<div id="content"><div class="inner"><center><h1>tally</h1></center></div>
<div class="inner"><h3>Module</h3><div class="module-body">tally</div></div>
<div class="inner"><h3>Module Summary</h3><div class="summary-body">Counts the marks ballots carry, see the electoral act.</div></div>
<section class="description"><div class="inner"><h3>Description</h3><div class="description-body"><p>Counts the marks ballots carry, see <a href="act.html">the electoral act</a>.</p></div></div></section>
<div class="inner"><h3>Data Types</h3>` +
		dataType("mark", "A mark on a ballot, see the act.") +
		dataType("ward", "A ward of the district.") +
		dataType("box", "The ballots of one box.") +
		dataType("result", "Arbitrary counts of marks.") + `</div>
<div class="inner"><h3>Exports</h3></div><div class="exports-body">` +
		function([]string{"count", "count_to_list", "recount", "recount_to_list"},
			"Counts the marks of the ballots of one box and returns the totals for each candidate. See the act's second schedule.",
			"recount/1 and recount_to_list/1 count the spoilt ballots again, while count/1 and count_to_list/1 set them apart.") +
		function([]string{"check", "check_to_list"}, "Checks the ballots of one box against the register. The result lists those not handed out.") + `</div>
<div class="footer"><hr><p>Copyright © 2024 The Tally Authors. All Rights Reserved.</p></div></div></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "# tally", "### Module Summary", "Counts the marks ballots carry, see the electoral act.",
		"A mark on a ballot, see the act.", "Arbitrary counts of marks.", "Counts the marks of the ballots of one box", "Checks the ballots of one box")
	if strings.Contains(d.Markdown, "module_7") {
		t.Errorf("the site's index stayed:\n%s", d.Markdown)
	}
}
