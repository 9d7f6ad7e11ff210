package maincontent

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// This file holds the rules that take out of a page, before its units
// are weighed, what is never part of an article: the sections a
// page names for what they are (comment threads, related stories,
// newsletter and share boxes), the elements no reader sees and the
// widgets, and outside the article's core the page's furniture. trim.go
// holds those applied to the article once chosen.

// sectionWords are words of a class or id that name a section which is
// not the page's article, whatever it holds: the thread words (below)
// and these.
var sectionWords = func() map[string]bool {
	m := map[string]bool{
		"recirc": true, "recirculation": true, "trending": true,
		"newsletter": true, "subscribe": true, "subscription": true, "signup": true,
		"share": true, "sharing": true, "sharebar": true, "social": true,
		"breadcrumb": true, "breadcrumbs": true,
		"advert": true, "advertisement": true, "ad": true, "ads": true, "sponsored": true, "promo": true,
	}
	for w := range threadWords {
		m[w] = true
	}
	for w := range labelWords {
		m[w] = true
	}
	return m
}()

// labelWords are the section words that name a label set beside a news
// story (its byline, a picture's caption or credit, its list of tags, the
// author's card). Generators of manuals use the same words for parts of
// the content: YARD's "tags" hold a method's parameters and examples,
// odoc's "at-tags" what a function raises, Haddock's "caption" a module's
// name. On a reference page (structuralContent) they name nothing to
// remove.
var labelWords = map[string]bool{
	"byline": true, "caption": true, "credit": true, "credits": true,
	"tags": true, "bio": true, "author": true,
}

// regionSectionWords are the section words without the label words.
var regionSectionWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range sectionWords {
		if !labelWords[w] {
			m[w] = true
		}
	}
	return m
}()

// galleryWords name a gallery of pictures and their captions. Inside the
// article's own container it is an insert ("Business news in pictures"),
// not the article; elsewhere it may be the article itself (a story told
// in slides), so there it goes only when it holds less than half as much
// text as the article's core (see insetGallery).
var galleryWords = map[string]bool{
	"gallery": true, "slideshow": true, "carousel": true,
}

// hiddenClasses are whole class names that frameworks use to hide an
// element, or to show it to screen readers only.
var hiddenClasses = map[string]bool{
	"sr-only": true, "visually-hidden": true, "visuallyhidden": true,
	"screen-reader-text": true, "screen-reader-only": true, "element-invisible": true,
}

// widgetRoles are ARIA roles of page furniture: menus, dialogs, toolbars
// and the landmarks around the content.
var widgetRoles = map[string]bool{
	"menu": true, "menubar": true, "menuitem": true, "menuitemcheckbox": true, "menuitemradio": true,
	"dialog": true, "alertdialog": true, "toolbar": true, "tooltip": true,
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true,
}

// pruneSections removes below body the elements that are hidden from
// every reader (hidden, aria-hidden, screen-reader-only classes; not those
// hidden by a style, which are mostly tabs and slides a script shows), are
// widgets by their role, or are named as a section other than the
// article (by a word of their class or id), and outside the article's
// core the page's furniture (see furniture). The element that holds most
// of the page's paragraph text, and every element around it, stay
// whatever their names: a page whose whole layout sits in a div called
// "content-with-related" still has its article. nm says what names a
// section. It returns the words it removed, and the page's posts when
// the core is one of them (repeatedPosts).
func pruneSections(body *html.Node, nm naming) (words int, posts map[*html.Node]bool) {
	core := articleCore(body)
	layout := layoutWords(body, core)
	keep := map[*html.Node]bool{}
	for n := core; n != nil; n = n.Parent {
		keep[n] = true
	}
	// When the core is one of the page's posts (posts.go), every post
	// stays, and what their software names them is theirs.
	posts = repeatedPosts(core)
	for p := range posts {
		keep[p] = true
	}
	// On a page that declares itself a discussion, every post it
	// declares (declaredPosts), with the elements around it.
	var declared map[*html.Node]bool
	if nm.discussion {
		declared = declaredPosts(body)
	}
	for p := range declared {
		if posts == nil {
			posts = map[*html.Node]bool{}
		}
		posts[p] = true
		for n := p; n != nil && !keep[n]; n = n.Parent {
			keep[n] = true
		}
	}
	// A block named as a section stays when it is an item of a listing
	// and only words that every item may carry name it (listings.item).
	itemNames, itemPostNames := itemWords(nm.words), itemWords(nm.post)
	items := listings{}
	var walk func(n *html.Node, inCore, inPost bool)
	walk = func(n *html.Node, inCore, inPost bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				names, post := nm.at(c, inPost || posts[c])
				itemNames := itemNames
				if post {
					itemNames = itemPostNames
				}
				if !keep[c] && (notArticleBy(c, names) && (notArticleBy(c, itemNames) || !items.item(c)) || inCore && linkBox(c) && !authorPane(c, post) || !inCore && furnitureBesides(c, nm.furniture, layout) && !authorPane(c, post) || namesGallery(c) && (inCore || insetGallery(c, core))) {
					words += htmlnode.Words(c)
					n.RemoveChild(c)
				} else {
					if inPost && c.Data == "dl" && posterCard(c) {
						words += stripPosterCard(c)
					}
					walk(c, inCore || c == core, post)
				}
			}
			c = next
		}
	}
	walk(body, false, false)
	return words, posts
}

// furnitureTags are the elements of a page's furniture: navigation,
// asides, footers, menus, dialogs and forms.
var furnitureTags = map[string]bool{"nav": true, "aside": true, "footer": true, "menu": true, "dialog": true, "form": true, "select": true}

// furnitureWords are words of a class or id that name the furniture
// around an article: sidebars, widgets, menus, cookie and consent banners,
// pop-ups, skip links, and the Prev/Up/Next bars DocBook puts above and
// below each page (navheader, navfooter).
var furnitureWords = map[string]bool{
	"sidebar": true, "widget": true, "widgets": true, "footer": true, "nav": true, "navbar": true, "navigation": true,
	"menu": true, "cookie": true, "cookies": true, "consent": true, "dsgvo": true, "gdpr": true, "cmp": true,
	"popup": true, "modal": true, "skip": true, "navheader": true, "navfooter": true,
}

// furniture reports whether block n is page furniture by its tag or by a
// word of its class or id. It is removed only outside the article's core.
// An aside, a sidebar or a widget that is prose, not links (a manual's
// sidebar note beside a section; a page builder's widget, which is what
// it calls every block it sets, the article's paragraphs included), is
// not furniture.
func furniture(n *html.Node) bool {
	return furnitureBy(n, furnitureTags)
}

// buyBoxTags are the furniture tags of a product page: its forms and
// selects are its buy box (the product's options, its quantity, the
// button that puts it in the cart), which holds its price and variants.
var buyBoxTags = without(furnitureTags, map[string]bool{"form": true, "select": true})

// furnitureBy is furniture with the given furniture tags.
func furnitureBy(n *html.Node, tags map[string]bool) bool {
	return furnitureBesides(n, tags, nil)
}

// layoutWords are the furniture words (furnitureWords) that name at
// least two of the elements around the article's core inside the page's
// own region: there they name how the page lays out its blocks, level
// after level (a page builder's "widget" around every one, the
// article's included), not furniture, and they name none elsewhere on
// the page. A word that names one element there (a wrapper's
// "hidden-contents-menu") still names furniture.
func layoutWords(body, core *html.Node) map[string]bool {
	region := ownRegion(body)
	var count map[string]int
	for n := core; n != nil && n != region && n != body; n = n.Parent {
		var here map[string]bool
		for _, a := range n.Attr {
			if a.Key != "class" && a.Key != "id" {
				continue
			}
			for _, w := range wordsOf(a.Val) {
				if furnitureWords[w] && !here[w] {
					if here == nil {
						here = map[string]bool{}
					}
					here[w] = true
				}
			}
		}
		for w := range here {
			if count == nil {
				count = map[string]int{}
			}
			count[w]++
		}
	}
	var words map[string]bool
	for w, c := range count {
		if c >= 2 {
			if words == nil {
				words = map[string]bool{}
			}
			words[w] = true
		}
	}
	return words
}

// furnitureBesides is furnitureBy, the words of layout aside.
func furnitureBesides(n *html.Node, tags, layout map[string]bool) bool {
	named, sidebar := tags[n.Data], n.Data == "aside"
	if !htmlnode.InlineTags[n.Data] {
		for _, a := range n.Attr {
			if a.Key != "class" && a.Key != "id" {
				continue
			}
			// An id of the words of the element's heading is an anchor
			// ("output-structure-and-navigation"), as in notArticle.
			if a.Key == "id" && headingAnchor(n, a.Val) {
				continue
			}
			for _, w := range wordsOf(a.Val) {
				named = named || furnitureWords[w] && !layout[w] || strings.HasPrefix(w, "cookie")
				sidebar = sidebar || w == "sidebar" || w == "widget" || w == "widgets"
			}
		}
	}
	return named && !(sidebar && proseBox(n))
}

// linkBox reports whether n is an aside inside the article that is
// mostly links: other stories' teasers set in the text ("Related: …"
// with their titles, pictures and "Read more"), not a note beside it.
func linkBox(n *html.Node) bool {
	return n.Data == "aside" && (linkShare(n) >= maxInsetLinks || onlyTeasers(n))
}

// onlyTeasers reports whether every paragraph below n is part of a card
// (another page's teaser: a linked title before it, or a read-more link
// after it), and there is one.
func onlyTeasers(n *html.Node) bool {
	found, other := false, false
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		for k := c.FirstChild; k != nil && !other; k = k.NextSibling {
			if k.Type != html.ElementNode {
				continue
			}
			if k.Data == "p" && strings.TrimSpace(htmlnode.Text(k)) != "" {
				if isCard(k) {
					found = true
				} else {
					other = true
				}
				continue
			}
			walk(k)
		}
	}
	walk(n)
	return found && !other
}

// maxInsetLinks is the share of an aside's text in links from which,
// inside the article, it is other stories' teasers.
const maxInsetLinks = 0.5

// proseBox reports whether n holds a paragraph of prose (see minProse)
// and is mostly not links.
func proseBox(n *html.Node) bool {
	if linkShare(n) >= maxBoxLinks {
		return false
	}
	return htmlnode.FirstBelow(n, func(c *html.Node) bool {
		return c.Data == "p" && utf8.RuneCountInString(strings.TrimSpace(htmlnode.Text(c))) >= minProse
	}) !=
		nil
}

// maxBoxLinks is the share of an aside's text in links from which it is
// navigation.
const maxBoxLinks = 0.3

// namesGallery reports whether a word of n's class or id names a gallery.
func namesGallery(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		if hasWord(nameWords(a.Val), galleryWords) {
			return true
		}
	}
	return false
}

// insetGallery reports whether gallery n, outside the article's core,
// holds less than half as much text as the core, and the core is not in
// a gallery itself: a slideshow set above or beside the story ("1 / 5"
// and a caption), not another slide of a story told in slides.
func insetGallery(n, core *html.Node) bool {
	if core == nil || 2*htmlnode.TrimmedLen(n) >= htmlnode.TrimmedLen(core) {
		return false
	}
	for a := core; a != nil; a = a.Parent {
		if namesGallery(a) {
			return false
		}
	}
	return true
}

// notArticle reports whether n is hidden, a widget or a section named as
// other than the article. Names count on blocks only: a word inside a
// sentence (<span class="author">) is part of it.
func notArticle(n *html.Node) bool {
	return notArticleBy(n, sectionWords)
}

// notArticleBy is notArticle with the given section words.
func notArticleBy(n *html.Node, words map[string]bool) bool {
	if newWindowLabel(n) {
		return true
	}
	block := !htmlnode.InlineTags[n.Data]
	for _, a := range n.Attr {
		v := strings.ToLower(strings.TrimSpace(a.Val))
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "role":
			if widgetRoles[v] {
				return true
			}
		case "class":
			// Names keep their case here: a camel-cased one is cut into
			// its words.
			for _, c := range strings.Fields(a.Val) {
				if hiddenClasses[strings.ToLower(c)] || block && namesSection(c, 0, words) {
					return true
				}
			}
		case "itemprop":
			// A block marked as the author (schema.org's Person) is the
			// byline's card: name, picture, handle.
			if block && v == "author" && words["author"] {
				return true
			}
		case "style":
			if block && (chartLabel(n, v) || hiddenBanner(n, v)) {
				return true
			}
		case "id":
			// An id of many words is a heading's anchor
			// ("sharing-with-a-single-developer"), not a name; so is
			// one made of the words of the heading the element starts
			// with (a manual's section "Comments & Proposals").
			if block && namesSection(strings.TrimSpace(a.Val), maxIDWords, words) && !headingAnchor(n, v) {
				return true
			}
		}
	}
	return false
}

// maxChartLabel is the most characters of text, white space aside, a
// block laid on a picture may hold and still be one of its labels.
const maxChartLabel = 60

// moreText reports whether the text below n holds more than max
// characters other than white space (a page's indentation between a
// label's lines does not count). It stops counting past max.
func moreText(n *html.Node, max int) bool {
	count := 0
	var walk func(c *html.Node) bool
	walk = func(c *html.Node) bool {
		if c.Type == html.TextNode {
			for _, r := range c.Data {
				if !unicode.IsSpace(r) {
					if count++; count > max {
						return true
					}
				}
			}
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			if walk(k) {
				return true
			}
		}
		return false
	}
	return walk(n)
}

// chartLabel reports whether block n, with style (lower case), is laid
// over a picture at a share of its height and width (top: 4.9%; left:
// 96.6%; or from the bottom and right) and holds a few words: a label of a chart or a map drawn as
// HTML over its image ("$915 billion", "'17"). Without the picture the
// labels are numbers out of place; the picture itself stays.
func chartLabel(n *html.Node, style string) bool {
	return (percentOffset(style, "top") || percentOffset(style, "bottom")) && (percentOffset(style, "left") || percentOffset(style, "right")) &&
		!moreText(n, maxChartLabel)
}

// hiddenBanner reports whether block n, with style (lower case), is
// hidden by its style and holds no text, only pictures that are links:
// a banner shown in place of a blocked advertisement ("Thank you for
// supporting …"). A hidden tab with text is left to the weighing.
func hiddenBanner(n *html.Node, style string) bool {
	if !strings.Contains(strings.ReplaceAll(style, " ", ""), "display:none") || htmlnode.TrimmedLen(n) > 0 {
		return false
	}
	linked := false
	var walk func(c *html.Node, inLink bool) bool
	walk = func(c *html.Node, inLink bool) bool {
		if c.Type == html.ElementNode && c.Data == "img" {
			if !inLink {
				return false
			}
			linked = true
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			if !walk(k, inLink || c.Type == html.ElementNode && c.Data == "a") {
				return false
			}
		}
		return true
	}
	return walk(n, false) && linked
}

// percentOffset reports whether style sets the property name (top,
// left, …; not margin-top) to a percentage.
func percentOffset(style, name string) bool {
	for _, decl := range strings.Split(style, ";") {
		prop, value, ok := strings.Cut(decl, ":")
		if ok && strings.TrimSpace(prop) == name {
			return strings.HasSuffix(strings.TrimSpace(value), "%")
		}
	}
	return false
}

// newWindowNote is the text a link carries for screen readers to say
// where it opens ("Opens a new window", "(opens in new tab)", "external
// link"); shown as text, it runs into the link's words ("saidOpens a new
// window").
var newWindowNote = regexp.MustCompile(`(?i)^\(?\s*(?:(?:this )?(?:link )?opens? (?:in )?(?:a )?new (?:window|tab)|external link)\s*\)?\.?$`)

// maxNewWindowNote is the longest such note, in characters.
const maxNewWindowNote = 40

// newWindowLabel reports whether n is a span inside a link that holds
// only such a note.
func newWindowLabel(n *html.Node) bool {
	return n.Data == "span" && n.Parent != nil && n.Parent.Data == "a" && htmlnode.TrimmedLen(n) <= maxNewWindowNote &&
		newWindowNote.MatchString(strings.TrimSpace(htmlnode.Text(n)))
}

// headingAnchor reports whether id is made of the words of n, a heading,
// or of the first heading inside n, as documentation generators make a
// section's id (a method "comments", h3 id="comments"), or n is a
// numbered section of a manual ("4.1.5. Comments").
func headingAnchor(n *html.Node, id string) bool {
	h := n
	if !htmlnode.IsHeading(n) {
		h = htmlnode.FirstBelow(n, htmlnode.IsHeading)
	}
	if h == nil {
		return false
	}
	text := strings.TrimSpace(htmlnode.Text(h))
	return strings.Join(wordsOf(text), "-") == strings.Join(wordsOf(id), "-") || sectionNumber.MatchString(text)
}

// sectionNumber starts the heading of a numbered section.
var sectionNumber = regexp.MustCompile(`^(\d+\.)+\d*[\s\x{00a0}]`)

// maxIDWords is the most words an id naming a section has.
const maxIDWords = 3

// namesSection reports whether one of name's words (runs of letters and
// digits) is one of the section words given, and name has at most
// maxWords words (0: any number).
func namesSection(name string, maxWords int, sectionWords map[string]bool) bool {
	words := wordsOf(name)
	if maxWords > 0 && len(words) > maxWords {
		return false
	}
	if hasWord(words, sectionWords) {
		return true
	}
	for _, w := range nameWords(name) {
		if threadWords[w] && sectionWords[w] {
			return true
		}
	}
	return false
}

// commentWords are the thread words that name comments and replies, and
// the label word that names an author. On a page that declares itself a
// discussion (a forum thread: pagekind) each post is an <article> (a
// self-contained part of the page, as HTML means it) its software names
// a comment, with its author's name and picture beside it: there, and
// below it, these words name the post, not a section to remove.
var commentWords = map[string]bool{
	"comment": true, "comments": true, "commentlist": true, "disqus": true, "replies": true,
	"kommentar": true, "kommentare": true, "commentaire": true, "commentaires": true, "comentario": true,
	"comentarios": true, "comentários": true, "commento": true, "commenti": true, "reacties": true, "komentarze": true,
	"author": true,
}

// naming is how a page names and lays out what is not its content: the
// words of sections' names, inside a post those words less the ones that
// name comments (post; see commentWords), and the tags of its furniture.
// On a discussion (discussion), every <article> is a post.
type naming struct {
	words, post, furniture map[string]bool
	discussion             bool
}

// namingOf is the naming of section words words and furniture tags
// furniture, its words inside a post worked out once.
func namingOf(words, furniture map[string]bool) naming {
	return naming{words: words, post: without(words, commentWords), furniture: furniture}
}

var (
	// pageNaming is any page's; referenceNaming a reference's, whose
	// labels are content (labelWords); the discussion ones are theirs on a
	// page that declares itself a discussion (inDiscussion).
	pageNaming                  = namingOf(sectionWords, furnitureTags)
	referenceNaming             = namingOf(regionSectionWords, furnitureTags)
	pageNamingInDiscussion      = pageNaming.inDiscussion()
	referenceNamingInDiscussion = referenceNaming.inDiscussion()
)

// ofProduct is nm on a page that declares itself a product (buyBoxTags).
func (nm naming) ofProduct() naming {
	nm.furniture = buyBoxTags
	return nm
}

// signatureWords name what a poster's software adds below each of their
// posts. Only on a discussion: a manual's "func_signature" is a function's.
var signatureWords = map[string]bool{"signature": true, "signatures": true}

// inDiscussion is nm on a page that declares itself a discussion.
func (nm naming) inDiscussion() naming {
	nm = namingOf(with(nm.words, signatureWords), nm.furniture)
	nm.discussion = true
	return nm
}

// with is words and those of add.
func with(words, add map[string]bool) map[string]bool {
	m := without(words, nil)
	for w := range add {
		m[w] = true
	}
	return m
}

// authorPane reports whether n is the aside of a discussion's post
// (inPost): its author's name, picture and standing, not furniture.
func authorPane(n *html.Node, inPost bool) bool {
	return inPost && n.Data == "aside"
}

// at is the section words for n, below a post or not (inPost); post
// reports whether n's children are.
func (nm naming) at(n *html.Node, inPost bool) (words map[string]bool, post bool) {
	if inPost || nm.discussion && n.Data == "article" {
		return nm.post, true
	}
	return nm.words, false
}

// without is words less the ones of drop.
func without(words, drop map[string]bool) map[string]bool {
	m := map[string]bool{}
	for w := range words {
		if !drop[w] {
			m[w] = true
		}
	}
	return m
}

// threadWords are the section words that name a comment thread or other
// stories also as a part of a camel-cased name ("kommentarModul",
// "relatedPosts"); the others count only as whole words, since a part
// ("imageCaption", "postAuthorCard") names a piece of the article.
var threadWords = map[string]bool{
	"comment": true, "comments": true, "commentlist": true, "disqus": true, "replies": true,
	// the same in German, French, Spanish, Portuguese, Italian, Dutch and Polish
	"kommentar": true, "kommentare": true, "commentaire": true, "commentaires": true, "comentario": true,
	"comentarios": true, "comentários": true, "commento": true, "commenti": true, "reacties": true, "komentarze": true,
	"related": true, "recommended": true, "recommendations": true, "outbrain": true, "taboola": true,
}

// nameWords are the words of a class or id: runs of letters and digits,
// a camel-cased name cut where a capital follows a small letter
// ("kommentarModul", "relatedPosts"), in lower case.
func nameWords(name string) []string {
	var words []string
	start, prevLower := -1, false
	for i, r := range name {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !word:
			if start >= 0 {
				words = append(words, strings.ToLower(name[start:i]))
			}
			start = -1
		case start < 0:
			start = i
		case prevLower && unicode.IsUpper(r):
			words = append(words, strings.ToLower(name[start:i]))
			start = i
		}
		prevLower = unicode.IsLower(r)
	}
	if start >= 0 {
		words = append(words, strings.ToLower(name[start:]))
	}
	return words
}

// hasWord reports whether one of words is in set.
func hasWord(words []string, set map[string]bool) bool {
	for _, w := range words {
		if set[w] {
			return true
		}
	}
	return false
}

// articleCore is the element whose paragraphs hold the most text: the
// article's own container on a page that has one. A page's footer is
// never it, however long its copyright notice.
func articleCore(body *html.Node) *html.Node {
	score := map[*html.Node]int{}
	var best *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || pageFooter(c) || declaredAuthor(c) {
				continue
			}
			if (c.Data == "p" || c.Data == "pre") && c.Parent != nil {
				score[c.Parent] += htmlnode.TrimmedLen(c)
				if best == nil || score[c.Parent] > score[best] {
					best = c.Parent
				}
			}
			walk(c)
		}
	}
	walk(body)
	return best
}

// pageFooter reports whether n is a footer by its tag, its role or a
// word of its class or id.
func pageFooter(n *html.Node) bool {
	if n.Data == "footer" || attrIs(n, "role", "contentinfo") {
		return true
	}
	for _, a := range n.Attr {
		// Most names hold no "footer" at all: only those are split.
		if (a.Key == "class" || a.Key == "id") && containsFold(a.Val, "footer") && hasWord(wordsOf(a.Val), footerWords) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds word, an ASCII lower-case word, in
// any case, without allocating.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// footerWords name a page's footer.
var footerWords = map[string]bool{"footer": true}

// posterCard reports whether dl, a definition list inside a post, is its
// poster's card (when they joined, how many posts and likes they have,
// where they live): label and value pairs, short, no paragraph, not text
// the poster wrote.
func posterCard(dl *html.Node) bool {
	values := 0
	for c := dl.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "dd" {
			values++
		}
	}
	return values > 0 && htmlnode.SpacelessLen(htmlnode.Text(dl)) <= maxPosterCard &&
		htmlnode.FirstBelow(dl, func(n *html.Node) bool { return n.Data == "p" || n.Data == "pre" || n.Data == "blockquote" }) == nil
}

// maxPosterCard is the most text of a poster's card, spaces aside.
const maxPosterCard = 400

// stripPosterCard removes from a poster's card its values and the labels
// that are not links (a label that is a link is the poster's name, as
// some forums set it), and returns the words it removed.
func stripPosterCard(dl *html.Node) (words int) {
	for c := dl.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (c.Data == "dd" || c.Data == "dt" && !linked(c)) {
			words += htmlnode.Words(c)
			dl.RemoveChild(c)
		}
		c = next
	}
	return words
}

// itemWords are the section words that name a section however many
// items of a listing carry them: a comment thread's, and the labels'.
func itemWords(words map[string]bool) map[string]bool {
	m := map[string]bool{}
	for w := range words {
		if threadWords[w] || labelWords[w] {
			m[w] = true
		}
	}
	return m
}

// minItems is the least number of items of a listing (listings.item).
const minItems = 4

// listings remembers, for the siblings of one tag and class under one
// parent, whether they are items of a listing that carry a class
// (item), so that a page of many such items reads each list once.
type listings map[listingKey]bool

// listingKey is a run of siblings (parent, tag and class) and the class
// its items carry.
type listingKey struct {
	parent            *html.Node
	tag, class, carry string
}

// item reports whether block n is the whole of an item of a listing: n,
// or the element it fills (nothing else beside it holds text), is one of
// at least minItems siblings of one tag and class that make most of
// their parent's elements, n's class is on an element of at least
// minItems of them, and n holds a heading or text of its own outside
// links. A word of a name that every item of a listing carries
// ("subscription-eligible" on each product of a shop's grid) says what
// the items are, not that they are a section beside the page's content.
func (l listings) item(n *html.Node) bool {
	class := htmlnode.Attr(n, "class")
	if class == "" || htmlnode.FirstBelow(n, htmlnode.IsHeading) == nil && plainText([]*html.Node{n}) < minSentence {
		return false
	}
	item := n
	for i := 0; i < 2 && item.Parent.Data != "body" && aloneWithText(item); i++ {
		item = item.Parent
	}
	key := listingKey{parent: item.Parent, tag: item.Data, class: htmlnode.Attr(item, "class"), carry: class}
	if is, seen := l[key]; seen {
		return is
	}
	alike, all, carry := 0, 0, 0
	for s := item.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s.Type != html.ElementNode {
			continue
		}
		all++
		if s.Data != key.tag || htmlnode.Attr(s, "class") != key.class {
			continue
		}
		alike++
		if s == item || htmlnode.FirstBelow(s, func(e *html.Node) bool { return e.Type == html.ElementNode && htmlnode.Attr(e, "class") == class }) != nil {
			carry++
		}
	}
	l[key] = alike >= minItems && 2*alike > all && carry >= minItems
	return l[key]
}

// aloneWithText reports whether n is the only child of its parent that
// holds text. It stops at the first other child that does.
func aloneWithText(n *html.Node) bool {
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s == n {
			continue
		}
		if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" || s.Type == html.ElementNode && !htmlnode.NeverTags[s.Data] && htmlnode.HasText(s) {
			return false
		}
	}
	return true
}

// declaredAuthor reports whether n is the card of the author the page
// declares in microdata (itemprop "author"): their name, picture and
// biography, not the article.
func declaredAuthor(n *html.Node) bool {
	return strings.EqualFold(strings.TrimSpace(htmlnode.Attr(n, "itemprop")), "author") && !htmlnode.InlineTags[n.Data]
}
