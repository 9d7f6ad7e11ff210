package markdown

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// FuzzConvert: no page, however broken, makes Convert panic, whichever
// options choose its content.
func FuzzConvert(f *testing.F) {
	pages, _ := filepath.Glob("testdata/golden/*.html")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(docPage(`<h2><a href="x">Card</a></h2><p>` + paragraphs("cards", 2) + `</p>`))
	f.Add(`<main><table><tr><td><h3><a href="/a">A</a></h3><p>teaser text that is long enough to weigh as prose in a card</p></td></tr></table></main>`)
	f.Add(`<body><div style="display:none"><p>hidden prose that is long enough to be weighed as a paragraph of it</p></div><a><div><p>x</p></div></a></body>`)
	// An article page the independent extractors are asked about, its
	// comments after it (outvote.go).
	f.Add(newsPage("<article>" + story(3) + "</article>" + commentThread(2)))
	pageURL, _ := url.Parse("https://example.com/docs/page.html")
	f.Fuzz(func(t *testing.T, page string) {
		for _, o := range []Options{
			{PageURL: pageURL, MainContentOnly: true, IncludeLinks: true},
			{PageURL: pageURL, MainContentOnly: true},
			{PageURL: pageURL, IncludeLinks: true},
		} {
			if _, err := Convert([]byte(page), o); err != nil {
				t.Logf("convert: %v", err)
			}
		}
	})
}
