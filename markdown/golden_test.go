package markdown

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// TestGolden converts each hand-written page of testdata/golden (one
// construct per page: headings, tables, code, nested lists, images,
// links, line breaks, entities, quotes) as the page
// https://example.com/docs/guide.html, whole body with links kept, and
// compares the markdown with the hand-written .md beside it.
func TestGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/golden/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no golden pages: %v", err)
	}
	pageURL, _ := url.Parse("https://example.com/docs/guide.html")
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		t.Run(name, func(t *testing.T) {
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(page, ".html") + ".md")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Convert([]byte("<html><head><title>Guide</title></head><body>"+string(html)+"</body></html>"),
				Options{PageURL: pageURL, IncludeLinks: true})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Markdown != string(want) {
				t.Errorf("markdown of %s:\n%s\n--- want:\n%s", name, doc.Markdown, want)
			}
		})
	}
}

// TestCodeBlockOfExtractedContent: a <pre> without <code> in nodes
// built without an atom is wrapped without a
// parser, keeping its text (without the blank line it ends with) and
// language.
func TestCodeBlockOfExtractedContent(t *testing.T) {
	pre := &html.Node{Type: html.ElementNode, Data: "pre", Attr: []html.Attribute{{Key: "class", Val: "highlight go"}}}
	span := &html.Node{Type: html.ElementNode, Data: "span"}
	span.AppendChild(&html.Node{Type: html.TextNode, Data: "x := 1"})
	pre.AppendChild(span)
	pre.AppendChild(&html.Node{Type: html.TextNode, Data: "\n\ty := 2\n"})
	root := &html.Node{Type: html.ElementNode, Data: "div"}
	root.AppendChild(pre)
	codeLanguages(goquery.NewDocumentFromNode(root).Selection)
	code := pre.FirstChild
	if code == nil || code.Data != "code" || code.NextSibling != nil || code.FirstChild.Data != "x := 1\n\ty := 2" {
		t.Fatalf("pre's children: %+v", code)
	}
	if len(code.Attr) != 1 || code.Attr[0].Val != "language-go" {
		t.Errorf("code attributes %v, want class language-go", code.Attr)
	}
}

// TestGoldenMainContent: the same constructs inside an article between
// a navigation bar and a footer, with main content only (the default),
// come out as they do from the whole body. Images are the exception: the
// main content keeps no images.
func TestGoldenMainContent(t *testing.T) {
	pages, _ := filepath.Glob("testdata/golden/*.html")
	pageURL, _ := url.Parse("https://example.com/docs/guide.html")
	filler := "<p>" + strings.Repeat("This article explains the construct below in plain words for its reader. ", 6) + "</p>"
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		if name == "images" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			html, _ := os.ReadFile(page)
			want, _ := os.ReadFile(strings.TrimSuffix(page, ".html") + ".md")
			body := `<nav><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/blog/">Blog</a></nav><main><article><h1>Guide</h1>` +
				filler + string(html) + filler + `</article></main><footer><p>© Example. <a href="/terms">Terms</a></p></footer>`
			doc, err := Convert([]byte("<html><head><title>Guide</title></head><body>"+body+"</body></html>"),
				Options{PageURL: pageURL, IncludeLinks: true, MainContentOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(doc.Markdown, string(want)) {
				t.Errorf("main content of %s:\n%s\n--- want it to hold:\n%s", name, doc.Markdown, want)
			}
			if strings.Contains(doc.Markdown, "Terms") || strings.Contains(doc.Markdown, "[Blog]") {
				t.Errorf("boilerplate kept:\n%s", doc.Markdown)
			}
		})
	}
}
