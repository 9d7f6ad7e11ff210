package browser

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/durablecrawl/crawler/crawl"
)

// appRoots are the mount points of client-side frameworks.
const appRoots = `#root, #app, #__next, #__nuxt, #___gatsby, #svelte, [data-reactroot], [ng-app], [ng-version], app-root`

// NeedsJavaScript reports whether a statically fetched page gets its
// content only from its scripts, and says why: a framework's mount point
// left empty, or a body with no text without its scripts (beside a
// <noscript> asking for JavaScript, or scripts); package crawllog words
// the sign. A page
// whose text is in its HTML is static however short it is and however many
// scripts it loads (search, settings, analytics): it is never sent to the
// browser for its scripts alone.
func NeedsJavaScript(html []byte) (crawl.JavaScriptSign, bool) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		return crawl.JavaScriptSign{}, false
	}
	scripts := doc.Find("script").Length()
	noscript := strings.ToLower(doc.Find("noscript").Text())
	text := visibleText(doc.Find("body"))

	emptyRoot := false
	doc.Find(appRoots).EachWithBreak(func(_ int, root *goquery.Selection) bool {
		emptyRoot = visibleText(root) < emptyMountPoint
		return !emptyRoot
	})
	switch {
	case emptyRoot && scripts > 0 && text < smallPage:
		return crawl.JavaScriptSign{Kind: crawl.SignEmptyMountPoint, Text: text, Scripts: scripts}, true
	case strings.Contains(noscript, "javascript") && text < emptyMountPoint:
		return crawl.JavaScriptSign{Kind: crawl.SignNoscript, Text: text, Scripts: scripts}, true
	case scripts > 0 && text < emptyMountPoint:
		return crawl.JavaScriptSign{Kind: crawl.SignNoTextScripts, Text: text, Scripts: scripts}, true
	}
	return crawl.JavaScriptSign{}, false
}

// ScriptedLinks reports whether a page whose text is in its HTML gets its
// links from its scripts: its HTML offers at most maxScriptedLinks links
// to follow (inScope, the page itself aside) while it runs scripts, which
// may draw its navigation (a documentation generator's menu bar and side
// tree, built from a script's data), at least one of them loaded from a
// file. Rendering it once finds them; the pages they lead to are fetched
// as any other. It also names the scripts (the addresses of those it
// loads, resolved against pageURL, in order): pages running the same
// scripts draw the same navigation, and one render finds it for all.
func ScriptedLinks(html []byte, pageURL string, inScope int) (sign crawl.JavaScriptSign, scripts string, ok bool) {
	if inScope > maxScriptedLinks {
		return crawl.JavaScriptSign{}, "", false
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		return crawl.JavaScriptSign{}, "", false
	}
	base, _ := url.Parse(pageURL)
	n := 0
	var srcs []string
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		kind := strings.ToLower(strings.TrimSpace(s.AttrOr("type", "")))
		if kind != "" && !strings.Contains(kind, "javascript") && kind != "module" {
			return // data (JSON, JSON-LD, templates), not code
		}
		src, ok := s.Attr("src")
		if !ok && strings.TrimSpace(s.Text()) == "" {
			return
		}
		n++
		if ok && base != nil {
			if u, err := base.Parse(strings.TrimSpace(src)); err == nil {
				srcs = append(srcs, u.String())
			}
		}
	})
	// A menu is drawn from files (its data, its code); a page with inline
	// scripts alone (a table of contents, a theme switch) keeps its
	// navigation in its HTML.
	if len(srcs) == 0 {
		return crawl.JavaScriptSign{}, "", false
	}
	scripts = strings.Join(srcs, " ")
	return crawl.JavaScriptSign{Kind: crawl.SignScriptedLinks, Links: inScope, Scripts: n}, scripts, true
}

// maxScriptedLinks is the most links to follow a page's HTML offers when
// its scripts are taken to draw its navigation: a page of a site has more
// (the start page of a script-drawn manual links only to itself, or to
// its generator's home elsewhere).
const maxScriptedLinks = 1

const (
	// emptyMountPoint is the most text, in characters, of a mount point
	// or a page that is still empty ("Loading…").
	emptyMountPoint = 25
	// smallPage is the most text of a page whose empty mount point is its
	// content; a long page with an empty one has a widget there.
	smallPage = 1000
)

// visibleText counts the characters of s's text outside scripts, styles,
// noscripts and templates, runs of spaces counting one.
func visibleText(s *goquery.Selection) int {
	c := s.Clone()
	c.Find("script, style, noscript, template").Remove()
	return len(strings.Join(strings.Fields(c.Text()), " "))
}
