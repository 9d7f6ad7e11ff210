package markdown

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
