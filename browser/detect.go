package browser

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// appRoots are the mount points of client-side frameworks.
const appRoots = `#root, #app, #__next, #__nuxt, #___gatsby, #svelte, [data-reactroot], [ng-app], [ng-version], app-root`

// NeedsJavaScript reports whether a statically fetched page only gets its
// content from its scripts, and says why: an almost empty body with a
// framework's mount point, a <noscript> asking for JavaScript, or text much
// smaller than the script payload.
func NeedsJavaScript(html []byte) (bool, string) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(html))
	if err != nil {
		return false, ""
	}
	scripts := doc.Find("script")
	scriptBytes, external := 0, 0
	scripts.Each(func(_ int, s *goquery.Selection) {
		scriptBytes += len(s.Text())
		if _, ok := s.Attr("src"); ok {
			external++
		}
	})
	noscript := strings.ToLower(doc.Find("noscript").Text())
	body := doc.Find("body").Clone()
	body.Find("script, style, noscript, template").Remove()
	text := len(strings.Join(strings.Fields(body.Text()), " "))

	switch {
	case text < 200 && doc.Find(appRoots).Length() > 0 && scripts.Length() > 0:
		return true, fmt.Sprintf("the body holds %d characters of text and a client-side app's mount point", text)
	case text < 200 && strings.Contains(noscript, "javascript"):
		return true, "the page asks for JavaScript in <noscript> and has almost no text without it"
	case text < 500 && scriptBytes+external*5000 > 20*max(text, 1):
		return true, fmt.Sprintf("the page has %d characters of text for %d scripts (%d bytes inline)", text, scripts.Length(), scriptBytes)
	}
	return false, ""
}
