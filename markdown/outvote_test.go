package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// newsPage is an article page as a news site serves it: it calls itself
// an article (Open Graph), and body stands in one container with what the
// site sets after the article.
func newsPage(body string) string {
	return `<!doctype html><html><head><title>The harbour budget | Example News</title>
<meta property="og:type" content="article"></head><body>
<nav><a href="/">Home</a> <a href="/world/">World</a> <a href="/tech/">Tech</a></nav>
<div class="page"><div class="story">` + body + `</div></div>
<footer><p>© Example News. <a href="/terms">Terms</a></p></footer></body></html>`
}

// story is an article of n paragraphs, each its own words.
func story(n int) string {
	topics := []string{"the council's vote on dredging", "fishermen who moor at the east quay", "a ferry timetable cut in winter",
		"the old customs house and its tenants", "tides that flood the car park", "a survey of the breakwater's stones",
		"the mayor's answer to the petition", "what the port authority will spend next year"}
	var b strings.Builder
	b.WriteString("<h1>The harbour budget passes after a long night</h1>\n")
	for i := range n {
		t := topics[i%len(topics)]
		fmt.Fprintf(&b, "<p>Reporting on %s, our correspondent heard from residents who had waited since spring for an answer. "+
			"Their accounts differ on the details of %s, yet all agree the decision shapes the town for a decade.</p>\n", t, t)
	}
	return b.String()
}

// commentThread is a reader comment thread of n comments in the shape a
// news site's community software writes it (an author's heading linking
// to the profile, a time, the text, reply and report links), named by
// its own classes and with a region marked main of its own.
func commentThread(n int) string {
	var b strings.Builder
	b.WriteString(`<div class="full community page"><span class="body" role="main"><div role="region" class="sect sect_commentlinks">` +
		`<div class="secthead"><h2>Reader comments</h2></div><ul role="directory" class="sectbody directory">`)
	for i := range n {
		fmt.Fprintf(&b, `<li class="member" id="msg_%d"><a class="author person" href="/!ku%d/"><h4>reader%d</h4></a>`+
			`<time datetime="2026-01-14T13:%02d:00+01:00">14. 01. 2026, 13:%02d</time><div class="objlink nolead" role="link">`+
			`<p>I think point %d of the plan misses what the quay needs most, and the budget shows it; nobody asked the people who work there every morning.</p></div>`+
			`<ul class="toolbar"><li class="reply"><a title="reply to this comment">reply</a></li><li class="report"><a title="report this comment">report</a></li></ul></li>`,
			i, i, i, i%60, i%60, i)
	}
	b.WriteString(`</ul></div></span></div>`)
	return b.String()
}

// TestArticleTailOutvoted: on a page that says it is an article, the
// readers' comment thread after it, which the converter's own rules keep,
// goes: neither independent extractor takes it for the article. The
// article stays whole, its headline with it; the comments' authors and
// times go with their texts, and the words that went are counted as
// outvoted.
func TestArticleTailOutvoted(t *testing.T) {
	page := newsPage("<article>" + story(8) + "</article>" + commentThread(10))
	d, err := Convert([]byte(page), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# The harbour budget passes after a long night", "Reporting on the council's vote on dredging",
		"what the port authority will spend next year, yet all agree"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("the article lost %q:\n%s", want, d.Markdown)
		}
	}
	for _, gone := range []string{"misses what the quay needs", "reader3", "13:04", "report"} {
		if strings.Contains(d.Markdown, gone) {
			t.Errorf("the comment thread's %q is kept:\n%s", gone, d.Markdown)
		}
	}
	if d.Words.Outvoted < 10*25 {
		t.Errorf("outvoted words %d, want the comments' (at least %d): %+v", d.Words.Outvoted, 10*25, d.Words)
	}
	if d.Words.Kept != markdownWords(d.Markdown) {
		t.Errorf("kept words %d, the markdown has %d", d.Words.Kept, markdownWords(d.Markdown))
	}
}

// TestVoteOnlyOnArticles: the same page without saying it is an article
// (a manual's page, a forum thread) is not put to the vote.
func TestVoteOnlyOnArticles(t *testing.T) {
	page := strings.Replace(newsPage("<article>"+story(8)+"</article>"+commentThread(10)), `<meta property="og:type" content="article">`, "", 1)
	d, err := Convert([]byte(page), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Words.Outvoted != 0 || !strings.Contains(d.Markdown, "misses what the quay needs") {
		t.Errorf("a page that is no article was put to the vote: %+v\n%s", d.Words, d.Markdown)
	}
}

// TestArticleKeepsWhatTheVoteSpares: after the article's last block of
// some words an extractor keeps, what one of them keeps (a short closing
// line) and code stay; the comments go.
func TestArticleKeepsWhatTheVoteSpares(t *testing.T) {
	body := "<article>" + story(4) + `<p>Write to us.</p><pre><code>budget = 4.2e6 # pounds</code></pre></article>` + commentThread(6)
	d, err := Convert([]byte(newsPage(body)), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Write to us.", "budget = 4.2e6 # pounds", "Reporting on the old customs house"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("lost %q:\n%s", want, d.Markdown)
		}
	}
	if strings.Contains(d.Markdown, "misses what the quay needs") || d.Words.Outvoted == 0 {
		t.Errorf("the comments after the article are kept (%+v):\n%s", d.Words, d.Markdown)
	}
}

// TestShortLinesOutvoted: inside the article, short lines neither
// extractor keeps go (a country picker left without its form, an embedded
// card's heading); the article's own short heading, which they keep, and
// its paragraphs stay.
func TestShortLinesOutvoted(t *testing.T) {
	rest := strings.Replace(story(4), "<h1>The harbour budget passes after a long night</h1>", "<h2>The vote</h2>", 1)
	body := "<article>" + story(4) +
		`<div class="select"><select><option>Togo</option><option>Tunisia</option><option>Estonia</option></select></div>` +
		`<div class="embed"><h2 class="embed-subheader-text">Crossing the border</h2></div>` + rest + "</article>"
	d, err := Convert([]byte(newsPage(body)), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"Tunisia", "Crossing the border"} {
		if strings.Contains(d.Markdown, gone) {
			t.Errorf("%q is kept:\n%s", gone, d.Markdown)
		}
	}
	if !strings.Contains(d.Markdown, "## The vote") || strings.Count(d.Markdown, "Reporting on the old customs house") != 2 {
		t.Errorf("the article lost its heading or a paragraph:\n%s", d.Markdown)
	}
}

// TestVoteKeepsLastSentenceAfterAd: an article page's last sentence of
// two links, after an advertisement inside the article, stays when the
// page is put to the vote (the guarantee of the converter's own rules
// holds under the vote's short-line rule), whatever the ad's shape.
func TestVoteKeepsLastSentenceAfterAd(t *testing.T) {
	ads := []string{
		`<div class="ad">Advertisement</div>`,
		`<div class="ad"><p>Advertisement</p><a href="https://ads.example/click?id=1"><img src="https://ads.example/b.png" alt="Buy Widget Pro"></a></div>`,
		`<aside class="advertisement"><p>Advertisement</p><p>Widget Pro: the fastest widget on the market, now 20% off.</p></aside>`,
		`<div class="ad"><h4>Sponsored</h4><p><a href="https://ads.example/">Widget Pro</a></p></div>`,
		`<div class="ad-slot"><ins class="adsbygoogle" style="display:block"></ins></div>`,
	}
	for i, ad := range ads {
		page := `<!doctype html><html><head><title>Article</title><meta property="og:type" content="article"></head><body>
<header><nav><a href="/">Home</a></nav></header><main><article><h1>Article</h1>
<p>The article explains how the service reads every page of a site and turns each into markdown, page by page.</p>
<p>It keeps a log of what it did with each page, so that a reader can tell why a page is missing.</p>` + ad + `
<p>See the <a href="/api">API reference</a> and <a href="https://example.org/">an outside page</a>.</p></article></main>
<footer>Footer of the site</footer></body></html>`
		d, err := Convert([]byte(page), Options{MainContentOnly: true, IncludeLinks: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Markdown, "and [an outside page](https://example.org/).") {
			t.Errorf("ad %d: the last sentence is gone (%+v):\n%s", i, d.Words, d.Markdown)
		}
	}
}
