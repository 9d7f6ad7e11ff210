package pageformats

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

const page = `<!doctype html><html lang="de"><head><title> Harbours  in winter </title>
<meta name="description" content="How harbours get through the cold months.">
<meta name="keywords" content="harbour, winter"><meta name="robots" content="index, follow">
<meta property="og:title" content="Harbours (OG)"><meta name="twitter:card" content="summary">
<link rel="canonical" href="/harbours"><link rel="shortcut icon" href="/static/icon.png">
<script>var tracking = 1;</script><style>p { color: red }</style></head>
<body><h1 onclick="go()">Harbours</h1><!-- a comment --><p style="color:blue">Text with <a href="/ships#deck">ships</a>,
<a href="https://example.org/x">elsewhere</a>, <a href="#top">top</a>, <a href="mailto:a@example.com">mail</a> and <a href="/ships">ships again</a>.</p>
<img src="pics/a.jpg" alt="A"><img src="data:image/gif;base64,R0lGOD" data-src="/pics/b.jpg" alt="B"><noscript>enable scripts</noscript></body></html>`

// TestMake: every format from one page, links and images absolute and
// once, metadata from the head, the cleaned HTML without scripts.
func TestMake(t *testing.T) {
	u, _ := url.Parse("https://example.com/docs/page.html")
	raw, err := Make([]byte(page), u, []string{Markdown, HTML, RawHTML, Links, Images, Metadata}, "", Media{})
	if err != nil {
		t.Fatal(err)
	}
	var p Page
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if p.RawHTML == nil || *p.RawHTML != page {
		t.Error("rawHtml is not the page as served")
	}
	wantLinks := []string{"https://example.com/ships", "https://example.org/x"}
	if p.Links == nil || strings.Join(*p.Links, " ") != strings.Join(wantLinks, " ") {
		t.Errorf("links %v, want %v", p.Links, wantLinks)
	}
	wantImages := []string{"https://example.com/docs/pics/a.jpg", "https://example.com/pics/b.jpg"}
	if p.Images == nil || strings.Join(*p.Images, " ") != strings.Join(wantImages, " ") {
		t.Errorf("images %v, want %v", p.Images, wantImages)
	}
	m := p.Metadata
	if m == nil || m.Title != "Harbours in winter" || m.Description != "How harbours get through the cold months." || m.Language != "de" ||
		m.Canonical != "https://example.com/harbours" || m.Favicon != "https://example.com/static/icon.png" || m.Keywords != "harbour, winter" ||
		m.Robots != "index, follow" || m.Meta["og:title"] != "Harbours (OG)" || m.Meta["twitter:card"] != "summary" {
		t.Errorf("metadata %+v", m)
	}
	if p.HTML == nil || strings.Contains(*p.HTML, "tracking") || strings.Contains(*p.HTML, "color") || strings.Contains(*p.HTML, "onclick") ||
		strings.Contains(*p.HTML, "comment") || strings.Contains(*p.HTML, "enable scripts") || !strings.Contains(*p.HTML, "<h1>Harbours</h1>") {
		t.Errorf("html %v", p.HTML)
	}
}

// TestMakeOnlyWhatIsAsked: markdown alone makes nothing; one format makes
// that one only, an empty list staying a list.
func TestMakeOnlyWhatIsAsked(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	if raw, err := Make([]byte(page), u, []string{Markdown}, "", Media{}); raw != nil || err != nil {
		t.Errorf("markdown alone: %s, %v", raw, err)
	}
	raw, err := Make([]byte(`<html><body><p>No links here.</p></body></html>`), u, []string{Links}, "", Media{})
	if err != nil || string(raw) != `{"links":[]}` {
		t.Errorf("links of a page without any: %s, %v", raw, err)
	}
}

// TestMakeContentHTML: the html format is the content the markdown was
// made of when the converter gives it.
func TestMakeContentHTML(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	raw, err := Make([]byte(page), u, []string{HTML}, "<article><p>Only this.</p></article>", Media{})
	if err != nil || string(raw) != `{"html":"\u003carticle\u003e\u003cp\u003eOnly this.\u003c/p\u003e\u003c/article\u003e"}` {
		t.Errorf("%s, %v", raw, err)
	}
}
