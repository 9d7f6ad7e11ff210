// Package realdocs names the real HTML manuals the tests and the
// evaluation crawl and convert: manuals made by documentation generators
// nobody here wrote, shipped in Debian packages that the test scripts
// download (ensure_realdocs in scripts/lib.sh), and says how much of a
// page's own words its markdown keeps.
package realdocs

import (
	"hash/fnv"
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Manual is one real manual.
type Manual struct {
	Name string
	// Root is the folder served, below CRAWLER_REALDOCS; Start the page
	// a crawl starts at.
	Root, Start string
	// Region is the selector of a page's content in its source, which the
	// markdown is checked against; Furniture, the generator's navigation
	// inside it (beside what Unseen names).
	Region, Furniture string
	// Code, when set, selects the manual's code blocks that are not <pre>
	// (Doxygen's div.fragment, a div of lines its stylesheet keeps as
	// written): each child is a line. The checks read them as code, as
	// they read <pre>.
	Code string
	// MaxResults bounds a crawl of a large manual (0: the whole manual).
	MaxResults int
	// MaxRendered is the most pages a crawl of it may render: a manual
	// whose navigation its scripts draw renders a page to find its links
	// (0: every page is fetched statically). Pages, when set, is how many
	// pages the manual has to find (its HTML files but its search
	// results'): a crawl stores at least 95 % of them.
	MaxRendered, Pages int
	// Strict manuals are held to the bar on every figure (paragraphs,
	// code, tables, titles); the others, added later, to no page emptied
	// and deduplication costing nothing, their other figures reported
	// until the conversion reaches the bar on them (docs/main-content.md).
	Strict bool
}

// Manuals are the manuals, one or two of each generator.
var Manuals = []Manual{
	{Name: "mdBook (the Rust Book)", Root: "usr/share/doc/rust-doc/html", Start: "/book/", Region: "main", Strict: true},
	{Name: "rustdoc (std::collections)", Root: "usr/share/doc/rust-doc/html", Start: "/std/collections/index.html", Region: "#main-content", Strict: true},
	{Name: "Sphinx (its own manual)", Root: "usr/share/doc/sphinx-doc/html", Start: "/", Region: "div.body", Strict: true},
	{Name: "DocBook (PostgreSQL's manual)", Root: "usr/share/doc/postgresql-doc-15/html", Start: "/", Region: "body", MaxResults: 250, Strict: true},
	{Name: "Asciidoc (Git's manual)", Root: "usr/share/doc/git-doc", Start: "/git.html", Region: "body", Furniture: "#footer", MaxResults: 200, Strict: true},
	{Name: "Texinfo (GNU m4)", Root: "usr/share/doc/m4", Start: "/index.html", Region: "body", Furniture: "div.header"},
	{Name: "Javadoc (jsoup)", Root: "usr/share/doc/libjsoup-java/api", Start: "/index.html", Region: "main"},
	{Name: "Doxygen (JsonCpp)", Root: "usr/share/doc/libjsoncpp-doc", Start: "/index.html", Region: "body", Furniture: "#top, .footer, div.ttc, span.lineno", Code: "div.fragment"},
	{Name: "gtk-doc (cairo)", Root: "usr/share/gtk-doc/html/cairo", Start: "/index.html", Region: "body", Furniture: "table.navigation, div.footer"},
	{Name: "gi-docgen (JSON-GLib)", Root: "usr/share/doc/json-glib-1.0", Start: "/index.html", Region: "section#main"},
	{Name: "YARD (its own)", Root: "usr/share/doc/yard/doc", Start: "/index.html", Region: "#content"},
	{Name: "Haddock (megaparsec)", Root: "usr/share/doc/libghc-megaparsec-doc/html", Start: "/index.html", Region: "#content", Furniture: "#alphabet"},
	{Name: "odoc (an OCaml calendar library)", Root: "usr/share/doc/libcalendar-ocaml/_html", Start: "/index.html", Region: "body"},
	{Name: "Docutils (its own)", Root: "usr/share/doc/docutils-doc", Start: "/docs/index.html", Region: "div.document"},
	{Name: "Node.js's own (its API reference)", Root: "usr/share/doc/nodejs/api", Start: "/index.html", Region: "#apicontent"},
	{Name: "erl_docgen (Erlang/OTP's stdlib)", Root: "usr/share/doc/erlang-doc/lib/stdlib-4.2/doc/html", Start: "/index.html", Region: "#content", Furniture: "div.footer"},
	{Name: "MkDocs (its own)", Root: "usr/share/doc/mkdocs/html", Start: "/index.html", Region: "[role=main]"},
	{Name: "qdoc (Qt's QtNetwork)", Root: "usr/share/qt5/doc/qtnetwork", Start: "/qtnetwork-index.html", Region: "div.content", Furniture: "div.footer"},
	// The start page's only links lead off the site: its menu bar, like
	// every page's, is drawn by menu.js from menudata.js. 445 pages, one
	// (classes.html) linked from none.
	{Name: "Doxygen with a scripted menu (Mbed TLS)", Root: "usr/share/doc/libmbedtls-dev/apidoc", Start: "/index.html", Region: "body",
		Furniture: "#top, .footer, div.ttc, span.lineno", Code: "div.fragment", MaxRendered: 5, Pages: 445},
	{Name: "hand-written (SQLite)", Root: "usr/share/doc/sqlite3", Start: "/index.html", Region: "body", Furniture: "div.nosearch, div.rightsidebar", MaxResults: 250},
	// Five more generators, measured first as the four before them were.
	{Name: "doctools (Tcllib's reference)", Root: "usr/share/doc/tcllib", Start: "/index.html", Region: "body", Furniture: "#toc"},
	{Name: "grohtml (GNU pic's manual)", Root: "usr/share/doc/groff-base/html", Start: "/pic.html", Region: "body"},
	{Name: "Scribble (the Racket Guide)", Root: "usr/share/doc/racket/guide", Start: "/index.html", Region: "div.main", Furniture: "div.navsettop, div.navsetbottom"},
	{Name: "Apache httpd's XSLT (its manual)", Root: "usr/share/doc/apache2-doc/manual", Start: "/en/index.html", Region: "body",
		Furniture: "#page-header, div.up, #path, #quickview, div.toplang, div.bottomlang, #footer, div.top"},
	{Name: "LaTeX2HTML (gnuplot's manual)", Root: "usr/share/doc/gnuplot/htmldocs", Start: "/index.html", Region: "body",
		Furniture: "div.navigation, ul.ChildLinks, #CHILD_LINKS", MaxResults: 250},
}

// Unseen are the elements of any manual's region that are not its text:
// what no reader sees, navigation, DocBook's navigation bars, buttons.
const Unseen = "script, style, noscript, nav, .navheader, .navfooter, button, svg"

// OwnRegion is the page's content region with Unseen and the manual's
// furniture removed (doc is changed).
func (m Manual) OwnRegion(doc *goquery.Document) *goquery.Selection {
	region := doc.Find(m.Region).First()
	region.Find(Unseen).Remove()
	if m.Furniture != "" {
		region.Find(m.Furniture).Remove()
	}
	return region
}

// Words counts the words of sel's text, lower case; words in two blocks
// stay two words.
func Words(sel *goquery.Selection) map[string]int {
	var texts []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			texts = append(texts, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range sel.Nodes {
		walk(n)
	}
	return WordCounts(texts...)
}

// invisible are characters that only steer layout.
var invisible = strings.NewReplacer("\u200b", "", "\u00ad", "", "\ufeff", "", "\u200c", "", "\u200d", "")

// WordCounts counts the words of texts, lower case.
func WordCounts(texts ...string) map[string]int {
	counts := map[string]int{}
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(invisible.Replace(t)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			counts[w]++
		}
	}
	return counts
}

// Share is the share of the region's words that got holds, each word at
// most as often as the region has it; -1 when the region has none.
func Share(region, got map[string]int) float64 {
	total, hit := 0, 0
	for w, n := range region {
		total += n
		hit += min(n, got[w])
	}
	if total == 0 {
		return -1
	}
	return float64(hit) / float64(total)
}

// HeldOut reports whether a page (its path in the manual) is in the
// held-out half of an evaluation: decided by a hash of its name, so that
// rules are written against the other half only and judged on this one.
func HeldOut(page string) bool {
	h := fnv.New32a()
	h.Write([]byte(page))
	return h.Sum32()%2 == 1
}

var (
	mdImage      = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLinkTarget = regexp.MustCompile(`\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)`)
)

// PlainMarkdown is md without link targets and image addresses (an
// image reads as its alt text): the words a reader reads.
func PlainMarkdown(md string) string {
	return mdLinkTarget.ReplaceAllString(mdImage.ReplaceAllString(md, "$1"), "]")
}
