package maincontent

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
)

// TestTrimArticle runs trimArticle on chosen content such as pages give
// and lists the blocks left, by their first words.
func TestTrimArticle(t *testing.T) {
	const p1 = `<p>First paragraph of the story, long enough to be read as prose by the rules of the trim.</p>`
	const p2 = `<p>Second paragraph of the story, also long enough to count as a paragraph of prose here.</p>`
	long := p1 + p2 + `<p>Third paragraph of the story, where the crews tell of the winter nights on the water and the cold.</p>` +
		`<p>Fourth paragraph of the story, where the harbour master explains the new rules for the moorings.</p>` +
		`<p>Fifth paragraph of the story, where the boats are made ready for the season, one after the other.</p>` +
		`<p>Sixth paragraph of the story, which ends it with the first boats leaving in the spring light.</p>`
	links := `<ul><li><a href="/a">Ports of the north</a></li><li><a href="/b">Ships and crews</a></li><li><a href="/c">Lighthouses</a></li></ul>`
	cases := []struct {
		name, title, content string
		kept                 []string
	}{
		{"links and orphan headings after the prose", "Story",
			p1 + p2 + `<h3>Read next</h3>` + links + `<h3>Comments</h3>`,
			[]string{"First", "Second"}},
		{"links before the prose", "Story",
			links + p1 + p2,
			[]string{"First", "Second"}},
		{"links between paragraphs of prose", "Story",
			p1 + links + p2,
			[]string{"First", "Ports", "Second"}},
		{"a heading after the prose heading a list", "Story",
			p1 + p2 + `<h2>Ingredients</h2><ul><li>salt </li><li>water</li></ul>`,
			[]string{"First", "Second", "Ingredients", "salt"}},
		{"a link showing its own address is a reference", "Story",
			p1 + `<p><a href="https://en.wikipedia.org/wiki/SipHash">https://en.wikipedia.org/wiki/SipHash</a></p>` + p2,
			[]string{"First", "https://en.wikipedia.org/wiki/SipHash", "Second"}},
		{"the headline repeating the title, once", "Harbours in winter - Example News",
			`<h1>Harbours in winter</h1><h2>Harbours in winter</h2>` + p1 + p2,
			[]string{"Harbours", "First", "Second"}},
		{"a headline unlike the title", "Example News",
			`<h1>Harbours in winter</h1>` + p1,
			[]string{"Harbours", "First"}},
		{"bylines and datelines before the prose", "Story",
			`<p>By Jane Doe</p><p>Updated: 3 March 2021</p><p>Tuesday 15 October 2019 by A. Writer</p><p>Oct 18, 2019 · 8 min read</p><p>08.04.2015 12:46</p>` +
				`<p>Verfasst von: Jane | 31. Dezember 2008</p>` + p1,
			[]string{"First"}},
		{"a byline's words inside the prose", "Story",
			p1 + `<p>By the end of it all, nobody was left.</p>` + p2,
			[]string{"First", "By", "Second"}},
		{"a one-word label before the article goes; a line of Chinese stays", "Story",
			`<p>Promis</p><p>港股收市</p>` + p1 + p2,
			[]string{"港股收市", "First", "Second"}},
		{"a dated lead paragraph is prose", "Story",
			`<p>Feb. 23, 2015 -- Life in the harbour changed that week, for the boats and for the town around them.</p>` + p2,
			[]string{"Feb.", "Second"}},
		{"a short one-link paragraph, anywhere", "Story",
			p1 + `<p><a href="/reuse">Reuse content</a></p>` + p2,
			[]string{"First", "Second"}},
		{"pointers to other pages and advertisement labels", "Story",
			p1 + `<p>Read more: <a href="/x">Ports of the north</a></p><p>ADVERTISEMENT</p><p>Related: the <a href="/y">ship registry</a> explained</p>` + p2,
			[]string{"First", "Second"}},
		{"a sentence that starts like a pointer", "Story",
			p1 + `<p>Related matters were left for the next meeting.</p>` + p2,
			[]string{"First", "Related", "Second"}},
		{"a paragraph repeated word for word", "Story",
			p1 + p2 + p1,
			[]string{"First", "Second"}},
		{"a tail heading and everything short after it", "Story",
			p1 + p2 + `<h3>Das könnte Sie auch interessieren!</h3><p>18. Feb 2021 // Sonstiges</p><h3>3 Kommentare</h3><p>Sie sind aktuell nicht eingeloggt.</p>`,
			[]string{"First", "Second"}},
		{"other stories' teasers under a tail heading", "Story",
			p1 + p2 + `<h2>Other Opinion Columns</h2>` +
				`<h4><b>Editorial</b> <a href="/a">A lasting legacy of the harbour</a></h4><p>The harbour master leaves after thirty years, and the town is not sure what comes next for it.</p>` +
				`<h4><b>Shipping</b> <a href="/b">Ports of the north</a></h4><p>The northern ports were busier than ever this winter, and the crews are asking for more help.</p>`,
			[]string{"First", "Second"}},
		{"a section whose heading reads like a tail, with the article's own words", "Story",
			p1 + `<h2>Related work</h2>` + p2,
			[]string{"First", "Related", "Second"}},
		{"a tail heading followed by sections that are not teasers", "Story",
			p1 + `<h2>More from the harbour</h2><h3>The boats</h3>` + p2 + `<h3>The crews</h3><p>Third paragraph, about the crews, again long enough to be read as prose by the trim.</p>`,
			[]string{"First", "More", "The", "Second", "The", "Third"}},
		{"a comment form under a tail heading, little text after a long article", "Story",
			long + `<h3>3 Kommentare</h3><p>Sie sind aktuell nicht eingeloggt.</p><p>Beim Absenden Ihres Kommentars ist ein Fehler aufgetreten. Bitte versuchen Sie es später noch einmal.</p>`,
			[]string{"First", "Second", "Third", "Fourth", "Fifth", "Sixth"}},
		{"a last section whose heading starts with a tail word", "Story",
			p1 + p2 + `<h3>Popular varieties</h3><p>Glabra, the familiar magenta one.</p>`,
			[]string{"First", "Second", "Popular", "Glabra,"}},
		{"a pointer to one story before the last paragraph", "Story",
			long + `<p>Mehr zum Thema: die Häfen im Norden</p><p>Last paragraph of the story, after the pointer, still the story's own words.</p>`,
			[]string{"First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Mehr", "Last"}},
		{"share buttons drawn as icons before the prose", "Story",
			`<ul><li><a href="/s">Share</a></li><li><a href="/f"></a></li><li><a href="/t"></a></li></ul>` + p1,
			[]string{"First"}},
		{"a line of particulars parted by bars, long enough to read as the first paragraph", "Story",
			`<p>Example News | 04.05.2015 à 13h36 • Mis à jour le 05.05.2015 à 20h13 | Par Jeanne Dupont (avec Pierre Martin et Marie Durand)</p>` + p1 + p2,
			[]string{"First", "Second"}},
		{"pictures' credit lines and a copyright notice", "Story",
			p1 + `<p>Photo: Jane Doe</p><p>The harbour at dawn. © AFP / JANE DOE</p>` + p2 + `<p>© 2020 Example News. All rights reserved.</p>`,
			[]string{"First", "Second"}},
		{"a sign that is not a credit", "Story",
			p1 + `<p>Fish &amp; chips, © 2024, café, €5.</p>` + p2,
			[]string{"First", "Fish", "Second"}},
		{"calls to subscribe and to comment", "Story",
			p1 + `<p>Never miss the latest news by signing up to our <a href="/nl">newsletter</a>.</p>` + p2 + `<p>We want to hear what you think about this article.</p>`,
			[]string{"First", "Second"}},
		{"a call to take one's questions to the site's forum; a question in the text stays", "Story",
			p1 + `<p>Have questions about the new moorings? The harbour master answers them on Mondays.</p>` + p2 +
				`<p>Do you still have questions? Head over to the Harbour Community to find answers.</p>`,
			[]string{"First", "Have", "Second"}},
		{"sentences of documentation that start like calls to action", "Story",
			p1 + `<p>Subscribe to events with the client's subscribe method.</p><p>Get started by signing up for an account.</p><p>Image: the container image to run.</p>` + p2,
			[]string{"First", "Subscribe", "Get", "Image:", "Second"}},
		{"an affiliate disclosure, and a sentence about a commission", "Story",
			p1 + `<p>This post contains references to products from one or more of our advertisers. We may receive compensation when you click on links to those products.</p>` +
				`<p>The harbour commission met on Monday and agreed on the new fees.</p><p>Crews who lost boats will receive compensation from the town.</p>` +
				`<p>Following this article's first edition, the harbour master answered.</p>` + p2,
			[]string{"First", "The", "Crews", "Following", "Second"}},
		{"a caption that only credits its picture goes; one that says more keeps all but the credit", "Story",
			p1 + `<figure><img src="a.jpg" alt="Boats. Foto: Jane Doe"><figcaption>Foto: Sascha Klahn</figcaption></figure>` +
				`<figure><img src="b.jpg"><figcaption>The harbour at dawn, before the crews arrive. (Photo: Getty)</figcaption></figure>` + p2,
			[]string{"First", "The", "Second"}},
		{"an author box and a press contact after the article", "Story",
			p1 + p2 + `<h3>Über den Autor</h3><p>Jane Doe writes about harbours.</p><h4>Ansprechpartner</h4><p>Tel.: 0123 456</p>`,
			[]string{"First", "Second"}},
		{"credit lines in other languages, and a source", "Story",
			p1 + `<p>Kuva: Alexander Becher</p><p>(Foto: ABr)</p><p>. Imagen: Télam</p><p>Quelle: Landesregierung</p>` + p2,
			[]string{"First", "Second"}},
		{"contacts and further information after the article", "Story",
			p1 + p2 + `<h3>Ansprechpartner Presse bei Nordex SE</h3><p>Felix Losada, Telefon: 040 300</p>` +
				`<h2>Weitere Informationen</h2><ul><li><a href="/a">Die Stellungnahme</a></li></ul><h2>Kontakt</h2><p>Hafenstraße 1, 20457 Hamburg</p>`,
			[]string{"First", "Second"}},
		{"a contact heading heading the article's own prose stays", "Story",
			strings.Replace(long, p2, `<h2>Kontakt mit dem Hafenamt</h2>`+p2, 1),
			[]string{"First", "Kontakt", "Second", "Third", "Fourth", "Fifth", "Sixth"}},
		{"labels, datelines, copyright notices and calls for support in other languages", "Story",
			`<p>Aktualisiert: 11.04.2020, 10:27</p><p>Publikacja: 04.05.2021</p><p>21.dez.2018 às 12h55</p><p>3 juin 2021</p>` + p1 +
				`<p>Inhaltsverzeichnis</p><p>Externer Inhalt</p><p>ADVERTISING</p><p>Anzeige</p>` + p2 +
				`<p>Materiał chroniony prawem autorskim - wszelkie prawa zastrzeżone. Dalsze rozpowszechnianie artykułu za zgodą wydawcy.</p>` +
				`<p>Wenn Ihnen unser Artikel gefallen hat: Unterstützen Sie diese Form des Journalismus.</p><p>Jede kleine Spende hilft den Menschen!</p><p>Bisher keine Kommentare</p>`,
			[]string{"First", "Second"}},
		{"a blog's notes on each post and the site's copyright", "Story",
			p1 + p2 + `<p>Der Beitrag wurde am Mittwoch, den 27. November 2019 um 15:21 Uhr veröffentlicht und wurde unter <a href="/c">Allgemein</a> abgelegt.</p>` +
				`<p>Dieser Beitrag gibt die Meinung des Autors wieder, nicht notwendigerweise die der Redaktion.</p>` +
				`<p>Copyright © 2020 by: example.com • Design by: <a href="/d">A Designer</a> • Lizenz: <a href="/l">Creative Commons BY-NC-SA</a>, for every page of the site.</p>`,
			[]string{"First", "Second"}},
		{"a manual's title page keeps its copyright", "PostgreSQL 15 Documentation",
			`<h3>The PostgreSQL Global Development Group</h3><p>Copyright © 1996–2026 The PostgreSQL Global Development Group</p>` + links,
			[]string{"The", "Copyright"}},
		{"placeholders: an embed waiting for consent, a notification prompt, a count of items, a licence", "Story",
			p1 + `<p>Klicken Sie auf den unteren Button, um den Inhalt von www.komoot.de zu laden.</p>` +
				`<p>Benachrichtigung aktivieren Dürfen wir Sie in Ihrem Browser über die wichtigsten Nachrichten informieren?</p>` +
				`<p>Es werden die Weine 1 bis 10 von insgesamt 19 angezeigt!</p><p>Showing 1–10 of 19</p>` + p2 +
				`<p>Sofern nicht anders ausgewiesen, stehen Inhalte dieser Website unter <a href="/cc">CC-BY</a></p>`,
			[]string{"First", "Second"}},
		{"a heading that calls to comment or support goes; one that heads the article's text stays", "Story",
			p1 + `<h4>Wenn Ihnen unser Artikel gefallen hat: Unterstützen Sie diese Form des Journalismus.</h4>` + p2 +
				`<h3>Share your thoughts and debate the big issues</h3><h2>Subscribe to events with the client</h2>` + strings.Replace(p1, "First", "Third", 1),
			[]string{"First", "Second", "Subscribe", "Third"}},
		{"a tags label after the article takes what follows", "Story",
			long + `<p>Schlagworte</p><h2><a href="/issue">Ausgabe 2/2022</a></h2><p>Unsere neue Rubrik. Zum Auftakt fragen wir einen Winzer, wie es um den Weinbau steht, und was kommt.</p>`,
			[]string{"First", "Second", "Third", "Fourth", "Fifth", "Sixth"}},
		{"pointers in other languages", "Story",
			p1 + `<p>Le puede interesar: <a href="/x">Otra historia del puerto</a></p><p>Lesen Sie auch: <a href="/y">Häfen im Norden</a></p>` +
				`<p>Lesen Sie hier: <a href="/z">Spielabbruch in der Kreisliga</a></p>` + p2,
			[]string{"First", "Second"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := fragment(t, c.content)
			trimArticle(root, c.title)
			var kept []string
			for _, b := range blocksOf(root) {
				kept = append(kept, strings.Fields(b.text)[0])
			}
			if strings.Join(kept, " ") != strings.Join(c.kept, " ") {
				t.Errorf("kept %q, want %q", kept, c.kept)
			}
		})
	}
}

// TestLooseDivsTrimmed: a div holding only text is trimmed as a
// paragraph is (it is looked for in the rendered text: blocksOf lists
// such divs only because of the rule under test).
func TestLooseDivsTrimmed(t *testing.T) {
	const p1 = `<p>First paragraph of the story, long enough to be read as prose by the rules of the trim.</p>`
	const p2 = `<p>Second paragraph of the story, also long enough to count as a paragraph of prose here.</p>`
	root := fragment(t, p1+p2+`<div><a href="/reuse">Reuse content</a></div><div>Harbour line, <em>kept</em>.</div><div>Comments are closed.</div>`)
	trimArticle(root, "Story")
	got := htmlnode.Text(root)
	if strings.Contains(got, "Comments are closed") || strings.Contains(got, "Reuse content") || !strings.Contains(got, "Harbour line, kept.") {
		t.Errorf("after trimming: %q", got)
	}
}

// fragment parses markup as the content of a div and returns that div.
func fragment(t *testing.T, markup string) *html.Node {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(markup), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatal(err)
	}
	root := &html.Node{Type: html.ElementNode, Data: "div"}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return root
}

// TestCutCredit: the credit that ends a caption or an alt text goes, the
// rest stays; a text that is only a credit, or has none, is left as it is.
func TestCutCredit(t *testing.T) {
	for in, want := range map[string]string{
		"Help after the flood in the Eifel. Foto: Galli/Malteser":                    "Help after the flood in the Eifel.",
		"An overview. (Photo: Getty)":                                                "An overview.",
		"Masks are worn at services. Foto: ccnull/Marco Verch/cc by sa 2.0":          "Masks are worn at services.",
		"Roman Prymula, photo: ČTK":                                                  "Roman Prymula",
		"Merkel und Marin in Berlin. Kuva: ALEXANDER BECHER":                         "Merkel und Marin in Berlin.",
		"Foto: Sascha Klahn":                                                         "Foto: Sascha Klahn",
		"A chart of the sales by month":                                              "A chart of the sales by month",
		"Image: the container image to run, which the registry serves to the nodes.": "Image: the container image to run, which the registry serves to the nodes.",
	} {
		if got := cutCredit(in); got != want {
			t.Errorf("cutCredit(%q) = %q, want %q", in, got, want)
		}
	}
	root := fragment(t, `<figure><img src="a.jpg" alt="Boats at dawn. Foto: Jane Doe"><figcaption>The harbour. Foto: Jane Doe</figcaption></figure>`)
	root.AppendChild(&html.Node{Type: html.ElementNode, Data: "figure"})
	caption, err := html.ParseFragment(strings.NewReader(`<figcaption><span>Boats leave the harbour. </span><span>Kuva: <!-- -->Jane Doe</span></figcaption>`),
		&html.Node{Type: html.ElementNode, Data: "figure", DataAtom: atom.Figure})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range caption {
		root.LastChild.AppendChild(n)
	}
	dropCredits(root)
	img := htmlnode.FirstBelow(root, func(n *html.Node) bool { return n.Data == "img" })
	if got := htmlnode.Text(root); img == nil || htmlnode.Attr(img, "alt") != "Boats at dawn." || !strings.Contains(got, "The harbour.") ||
		!strings.Contains(got, "Boats leave the harbour.") || strings.Contains(got, "Jane") || strings.Contains(got, "Kuva") {
		t.Errorf("credits left in the picture or its caption: %q", got)
	}
}
