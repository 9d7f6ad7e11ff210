package fetch

import (
	"net/url"
	"strings"
	"testing"
)

func TestPageLinks(t *testing.T) {
	page, _ := url.Parse("https://example.com/docs/intro")
	for _, tc := range []struct {
		name, html string
		links      []string
		canonical  string
	}{
		{"relative and absolute", `<a href="a">a</a><a href="/b">b</a><a href="https://other.example/c?q=1">c</a>`,
			[]string{"https://example.com/docs/a", "https://example.com/b", "https://other.example/c?q=1"}, ""},
		{"the first base counts, wherever it is", `<a href="x">x</a><base href="/v2/"><base href="/v3/">`,
			[]string{"https://example.com/v2/x"}, ""},
		{"fragment-only and empty links are the page itself", `<a href="#top">t</a><a href="">e</a><a href=" next ">n</a>`,
			[]string{"https://example.com/docs/next"}, ""},
		{"no links in scripts, styles or comments", `<script>var s = '<a href="/js">';</script><style>a[href="/css"]{}</style><!-- <a href="/c"> --><a href="/real">r</a>`,
			[]string{"https://example.com/real"}, ""},
		{"canonical among other rels", `<link rel="stylesheet" href="/s.css"><link rel="Canonical" href="/docs/intro-2"><link rel="canonical" href="/third">`,
			nil, "https://example.com/docs/intro-2"},
		{"unparsable hrefs are left out", `<a href="http://[::1">bad</a><a href="ok">ok</a>`,
			[]string{"https://example.com/docs/ok"}, ""},
		{"anchors without href", `<a name="x">x</a><a id="y" href="/y">y</a>`, []string{"https://example.com/y"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, canonical := pageLinks([]byte("<html><head></head><body>"+tc.html+"</body></html>"), page)
			if strings.Join(links, " ") != strings.Join(tc.links, " ") || canonical != tc.canonical {
				t.Errorf("got %q, canonical %q; want %q, %q", links, canonical, tc.links, tc.canonical)
			}
		})
	}
}
