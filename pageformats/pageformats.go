// Package pageformats makes the forms of a page other than its markdown
// that a crawl may ask for (the formats option): its metadata, its links,
// its images, its cleaned HTML and the HTML as served. They are made from
// the fetched HTML once, when the page is converted, and stored with it as
// one JSON object; a crawl that asks only for markdown makes none.
package pageformats

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
	"github.com/durablecrawl/crawler/pageaction"
)

// The formats besides markdown.
const (
	Markdown = "markdown"
	HTML     = "html"
	RawHTML  = "rawHtml"
	Links    = "links"
	Images   = "images"
	Metadata = "metadata"
	// Screenshot and ScreenshotFullPage are the rendered page, the
	// viewport or all of it, taken by the browser engine and served by URL.
	Screenshot         = "screenshot"
	ScreenshotFullPage = "screenshot@fullPage"
	// Summary is Firecrawl's summary format: the page summed up by the
	// deployment's LLM, as the crawl's extraction. Only Firecrawl's API
	// asks for it; the converter has nothing to make of it.
	Summary = "summary"
)

// Known are the formats a crawl may ask for.
var Known = []string{Markdown, HTML, RawHTML, Links, Images, Metadata, Screenshot, ScreenshotFullPage}

// ShotOf is the screenshot formats ask for: "", "viewport" or
// "fullPage" (the whole page wins when both are asked for).
func ShotOf(formats []string) string {
	shot := ""
	for _, f := range formats {
		switch f {
		case ScreenshotFullPage:
			return "fullPage"
		case Screenshot:
			shot = "viewport"
		}
	}
	return shot
}

// IsKnown reports whether name is a format a crawl may ask for.
func IsKnown(name string) bool {
	for _, k := range Known {
		if k == name {
			return true
		}
	}
	return false
}

// Extra reports whether formats asks for anything besides markdown.
func Extra(formats []string) bool {
	for _, f := range formats {
		if f != Markdown {
			return true
		}
	}
	return false
}

// Page is what Make answers: each format asked for, the others empty.
type Page struct {
	HTML     *string   `json:"html,omitempty"`
	RawHTML  *string   `json:"rawHtml,omitempty"`
	Links    *[]string `json:"links,omitempty"`
	Images   *[]string `json:"images,omitempty"`
	Metadata *Meta     `json:"metadata,omitempty"`
	// Screenshot is the path the API serves the page's screenshot at
	// (/screenshots/<token>); answers make it absolute.
	Screenshot *string `json:"screenshot,omitempty"`
	// Actions is what the page's actions gave back, their screenshots
	// and PDFs as paths like Screenshot's.
	Actions *pageaction.Document `json:"actions,omitempty"`
}

// Media are what the browser made of a page besides its HTML: the path
// of its screenshot ("" for none) and what its actions gave back (nil
// for none).
type Media struct {
	Screenshot string
	Actions    *pageaction.Document
}

// Meta is what a page's head says of it.
type Meta struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Language    string `json:"language,omitempty"`
	Canonical   string `json:"canonical,omitempty"`
	Keywords    string `json:"keywords,omitempty"`
	Robots      string `json:"robots,omitempty"`
	Favicon     string `json:"favicon,omitempty"`
	// Meta holds the og:, twitter: and other named meta tags, by name
	// (a name given twice keeps its first content).
	Meta map[string]string `json:"meta,omitempty"`
}

// Make parses page (its HTML, as fetched from pageURL) and makes the
// formats asked for; links and image addresses come out absolute. content
// is the HTML the markdown was made of (the main content, when the crawl
// asks for it only): the html format is that, or, when it is empty, the
// page's body cleaned here. media are the page's screenshot and its
// actions' results, kept whatever the formats. It answers nil when
// nothing besides markdown is asked for or made.
func Make(page []byte, pageURL *url.URL, formats []string, content string, media Media) (json.RawMessage, error) {
	if !Extra(formats) && media.Actions == nil {
		return nil, nil
	}
	shot := media.Screenshot
	want := map[string]bool{}
	for _, f := range formats {
		want[f] = true
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	base := baseURL(doc, pageURL)
	out := Page{Actions: media.Actions}
	if shot != "" {
		out.Screenshot = &shot
	}
	if want[RawHTML] {
		s := string(page)
		out.RawHTML = &s
	}
	if want[Metadata] {
		out.Metadata = metadataOf(doc, base)
	}
	if want[Links] || want[Images] {
		links, images := linksOf(doc, base)
		if want[Links] {
			l := nonNil(links)
			out.Links = &l
		}
		if want[Images] {
			i := nonNil(images)
			out.Images = &i
		}
	}
	if want[HTML] {
		s := content
		if s == "" {
			s = cleaned(doc)
		}
		out.HTML = &s
	}
	return json.Marshal(out)
}

// baseURL is the page's <base href>, resolved against pageURL, or pageURL.
func baseURL(doc *html.Node, pageURL *url.URL) *url.URL {
	var base *url.URL
	walk(doc, func(n *html.Node) bool {
		if n.DataAtom == atom.Base {
			if href := htmlnode.Attr(n, "href"); href != "" && pageURL != nil {
				if u, err := pageURL.Parse(href); err == nil {
					base = u
				}
			}
			return false
		}
		return base == nil
	})
	if base == nil {
		return pageURL
	}
	return base
}

// metadataOf reads the head's title, meta tags, canonical link and icon.
func metadataOf(doc *html.Node, base *url.URL) *Meta {
	m := &Meta{Meta: map[string]string{}}
	walk(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Html:
			m.Language = strings.TrimSpace(htmlnode.Attr(n, "lang"))
		case atom.Title:
			if m.Title == "" {
				m.Title = strings.Join(strings.Fields(htmlnode.Text(n)), " ")
			}
		case atom.Meta:
			name := strings.ToLower(strings.TrimSpace(htmlnode.Attr(n, "name")))
			if name == "" {
				name = strings.ToLower(strings.TrimSpace(htmlnode.Attr(n, "property")))
			}
			content := strings.TrimSpace(htmlnode.Attr(n, "content"))
			if name == "" || content == "" {
				break
			}
			switch name {
			case "description":
				m.Description = first(m.Description, content)
			case "keywords":
				m.Keywords = first(m.Keywords, content)
			case "robots":
				m.Robots = first(m.Robots, content)
			}
			if _, ok := m.Meta[name]; !ok {
				m.Meta[name] = content
			}
		case atom.Link:
			rel := strings.ToLower(htmlnode.Attr(n, "rel"))
			href := absolute(base, htmlnode.Attr(n, "href"))
			switch {
			case href == "":
			case hasWord(rel, "canonical"):
				m.Canonical = first(m.Canonical, href)
			case hasWord(rel, "icon"):
				m.Favicon = first(m.Favicon, href)
			}
		}
		return true
	})
	if m.Favicon == "" && base != nil {
		m.Favicon = absolute(base, "/favicon.ico")
	}
	if len(m.Meta) == 0 {
		m.Meta = nil
	}
	return m
}

// linksOf lists the page's links (a href) and images (img src, with the
// address a lazy loader reads when src is a placeholder), absolute, each
// once, in the page's order; fragments and non-web schemes are left out.
func linksOf(doc *html.Node, base *url.URL) (links, images []string) {
	seenLink, seenImage := map[string]bool{}, map[string]bool{}
	walk(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.A, atom.Area:
			if u := webURL(base, htmlnode.Attr(n, "href")); u != "" && !seenLink[u] {
				seenLink[u] = true
				links = append(links, u)
			}
		case atom.Img:
			src := htmlnode.Attr(n, "src")
			if src == "" || strings.HasPrefix(src, "data:") {
				src = first(htmlnode.Attr(n, "data-src"), htmlnode.Attr(n, "data-lazy-src"))
			}
			if u := webURL(base, src); u != "" && !seenImage[u] {
				seenImage[u] = true
				images = append(images, u)
			}
		}
		return true
	})
	return links, images
}

// dropped are the elements the cleaned HTML leaves out: scripts, styles
// and what carries no readable content.
var dropped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Link: true, atom.Meta: true, atom.Iframe: true, atom.Object: true, atom.Embed: true}

// cleaned is the page's body without scripts, styles and comments, and
// without event handler and style attributes.
func cleaned(doc *html.Node) string {
	body := find(doc, atom.Body)
	if body == nil {
		body = doc
	}
	var clean func(n *html.Node)
	clean = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.CommentNode || c.Type == html.ElementNode && dropped[c.DataAtom] {
				n.RemoveChild(c)
			} else if c.Type == html.ElementNode {
				attrs := c.Attr[:0]
				for _, a := range c.Attr {
					if !strings.HasPrefix(strings.ToLower(a.Key), "on") && a.Key != "style" {
						attrs = append(attrs, a)
					}
				}
				c.Attr = attrs
				clean(c)
			}
			c = next
		}
	}
	clean(body)
	var b bytes.Buffer
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		_ = html.Render(&b, c)
	}
	return strings.TrimSpace(b.String())
}

// walk visits n and below in document order; visit answers whether to
// go on.
func walk(n *html.Node, visit func(*html.Node) bool) bool {
	if n.Type == html.ElementNode && !visit(n) {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !walk(c, visit) {
			return false
		}
	}
	return true
}

func find(n *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) bool {
		if c.DataAtom == a {
			found = c
			return false
		}
		return true
	})
	return found
}

// absolute resolves ref against base; "" when it cannot.
func absolute(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || base == nil {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil {
		return ""
	}
	return u.String()
}

// webURL is ref made absolute when it is an http(s) address other than a
// fragment of the page; "" otherwise.
func webURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || strings.HasPrefix(ref, "#") || base == nil {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
