package maincontent

import (
	"net/url"
	"regexp"
	"strings"

	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/durablecrawl/crawler/htmlnode"
)

// This file makes the main content out of the page's own elements: the
// page is cut into units (blocks of text), score.go marks those of the
// article, the rules here add what an article holds by its kind
// (captions, code, pictures, its headline), and keepChosen removes
// everything else. Each block kept stays as the page has it: its words in
// order around inline markup, code with its lines and language, tables as
// tables.

// unit is a block of the page: an element that is not inline and holds
// text or images of its own (directly or through inline elements). A
// code block or a table is one unit with everything below it.
type unit struct {
	n *html.Node
	// total counts the unit's own text, spaces aside.
	total int
	// links counts the part of total that is inside links.
	links int
	// media is set when the unit holds an image of its own, linkedMedia
	// when that image is a link.
	media, linkedMedia bool
	// linkLed is set when the unit's text starts inside a link, inLink
	// when the whole unit is inside one, card when a heading that is all
	// a link heads it (see isCard), hidden when a style hides it.
	linkLed, inLink, card, hidden bool
	kept                          bool
	// tokens counts the unit's own words and the tokens among them that
	// are code (see wordy), read with its text.
	tokens tokenCount
}

// atomicUnit reports whether element n is kept or dropped whole: a code
// block's lines, a table's rows and a definition's term and description
// are not taken apart.
func atomicUnit(n *html.Node) bool {
	switch n.Data {
	case "pre", "table":
		return true
	}
	return false
}

// chosen is the outcome of choosing a page's content blocks.
type chosen struct {
	units  []*unit
	unitOf map[*html.Node]*unit
	// removed counts the words keepChosen takes out (each text's own).
	removed int
}

// choose marks the units of body that make its main content, as its
// own weighing picks them (see score) and extended by their kind (see
// extend). It reports false when the weighing cannot tell an article
// from the rest. It changes nothing; keepChosen applies it.
func choose(body *html.Node, title string, posts map[*html.Node]bool) (*chosen, bool) {
	c := collect(body)
	if !c.score(body) {
		return c, false
	}
	c.extend(title, posts)
	return c, true
}

// collect cuts body into its units, in the page's order.
func collect(body *html.Node) *chosen {
	c := &chosen{unitOf: map[*html.Node]*unit{}}
	// block is the element whose unit the text met belongs to, and at
	// where it stands; atomic, when set, the code block or table it is
	// inside; link is set inside a link, hidden inside an element a
	// style hides.
	var walk func(n, block *html.Node, at standing, atomic *unit, link, hidden bool)
	walk = func(n, block *html.Node, at standing, atomic *unit, link, hidden bool) {
		owner := func() *unit {
			u := c.ownerOf(block, atomic)
			if u.total == 0 && !u.media && atomic == nil {
				u.inLink, u.hidden = at.link, at.hidden
			}
			return u
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch k.Type {
			case html.TextNode:
				if size := htmlnode.SpacelessLen(k.Data); size > 0 {
					owner := owner()
					owner.tokens.read(k.Data)
					if owner.total == 0 && link {
						owner.linkLed = true
					}
					owner.total += size
					if link {
						owner.links += size
					}
				}
			case html.ElementNode:
				h := hidden || styleHidden(k)
				a := link || k.Data == "a" && !ownAnchor(k)
				switch {
				case htmlnode.NeverTags[k.Data] || k.Data == "math":
					// A formula's symbols (MathML left without its TeX)
					// are not prose; they stay with the unit.
				case k.Data == "img":
					owner := owner()
					owner.media = true
					owner.linkedMedia = owner.linkedMedia || link
				case atomic != nil:
					walk(k, block, at, atomic, a, h)
				case atomicUnit(k):
					u := c.newUnit(k)
					u.inLink, u.hidden = link, h
					walk(k, k, at, u, a, h)
				case htmlnode.IsInline(k):
					walk(k, block, at, nil, a, h) // its text is its block's
				default:
					walk(k, k, standing{link, h}, nil, a, h)
				}
			}
		}
	}
	walk(body, body, standing{}, nil, false, false)
	for _, u := range c.units {
		u.card = !u.inLink && isCard(u.n)
	}
	return c
}

// extend adds to the units kept those inside the article's span that
// are content by their kind (code blocks, tables, figure captions,
// pictures, paragraphs, the headings of what stays, captions of
// listings) and the article's headline.
func (c *chosen) extend(title string, posts map[*html.Node]bool) {
	// The article's span runs from the first unit kept to the last; a
	// block that is all a link's content (a card: another story's
	// teaser, a tile of a landing page) does not stretch it, and goes
	// when it stands outside.
	first, last := -1, -1
	for i, u := range c.units {
		if u.kept {
			if u.inLink {
				continue
			}
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return
	}
	for i, u := range c.units {
		if u.kept && (i < first || i > last) && u.inLink {
			u.kept = false
		}
	}
	span := lowestCommonAncestor(c.units[first].n, c.units[last].n)
	for i := first + 1; i < last; i++ {
		u := c.units[i]
		if !u.kept && inside(u.n, span) && (contentByKind(u) || proseUnit(u) || linkedSentence(u) || !u.inLink && inNamedContents(u.n, span)) {
			u.kept = true
		}
	}
	c.keepWholeLists(first, last)
	c.keepArticleEnd(last, span)
	// A heading not yet kept stays when what follows it stays: it heads
	// a section of the article.
	for i := last - 1; i > first; i-- {
		u := c.units[i]
		if !u.kept && htmlnode.IsHeading(u.n) && !u.inLink && inside(u.n, span) && c.units[i+1].kept {
			u.kept = true
		}
	}
	c.keepCaptions(first, last, span)
	c.keepSiblingSections(span)
	c.keepPosts(posts)
	c.keepNamedContents(last)
	c.keepNumberedContents(last)
	c.keepSectionRest(last)
	c.keepHeadline(first, title)
}

// keepWholeLists keeps every item of a list one of whose items is kept
// inside the article's span, and, inside the span, every item of a list
// that stands under a heading of its own: a list is one block of the
// article, and the entries that are only a link (a project's name)
// belong to it as much as those with a note beside it. The items before
// and after the span stay too: the span may open in the middle of the
// list (a shop's grid of products, where a tile of prose among them
// weighed most; a Javadoc package's summaries of its interfaces, classes
// and exceptions, each in an item of one list, of which the weighing
// chose the longest).
func (c *chosen) keepWholeLists(first, last int) {
	lists := map[*html.Node]bool{}
	for _, u := range c.units[first : last+1] {
		if u.kept {
			if l := ownList(u.n); l != nil {
				lists[l] = true
			}
		}
	}
	for i, u := range c.units {
		l := ownList(u.n)
		if u.kept || u.inLink || u.total == 0 || l == nil {
			continue
		}
		if lists[l] || i >= first && i <= last && headedList(l) {
			u.kept = true
		}
	}
}

// headedList reports whether list stands right after a heading of its
// own that does not open a tail of other pages ("Related", "More").
func headedList(list *html.Node) bool {
	h := htmlnode.PrevElement(list)
	if h == nil || !htmlnode.IsHeading(h) {
		return false
	}
	text := strings.Join(strings.Fields(htmlnode.Text(h)), " ")
	return !tailHeading.MatchString(text) && !hasWord(nameWords(text), threadWords)
}

// ownList is the list (ul, ol) whose item n is or is inside, if any.
func ownList(n *html.Node) *html.Node {
	for p := n; p != nil && p.Data != "body"; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "li" {
			if p.Parent != nil && (p.Parent.Data == "ul" || p.Parent.Data == "ol") {
				return p.Parent
			}
			return nil
		}
	}
	return nil
}

// keepSiblingSections keeps the sections beside the one that holds the
// article's span, when the page sets its parts side by side as sections
// alike (see alikeSections), at each level, and the rest of the section
// the span is in: a man page's Name, Synopsis, Description and API, each
// a div of one class opening with its heading, and the subsections alike
// inside its API. The
// weighing chose the section with the most prose; the others are the
// page's as much, and so are the title over them and the chosen
// section's heading. In each, its heading and the blocks that are not
// mostly links to other pages stay; a section headed by a link to
// another page (a teaser's headline) or by a tail heading ("Related",
// "Comments") does not.
func (c *chosen) keepSiblingSections(span *html.Node) {
	for n := span; n != nil && n.Parent != nil && n.Data != "body"; n = n.Parent {
		if n.Type == html.ElementNode && alikeSections(n) {
			c.keepSectionsBeside(n)
		}
	}
}

// keepSectionsBeside keeps what keepSiblingSections keeps of the sections
// alike to sec beside it.
func (c *chosen) keepSectionsBeside(sec *html.Node) {
	parent := sec.Parent
	skip := map[*html.Node]bool{} // sections left out, by their node
	for _, u := range c.units {
		if u.kept || u.total == 0 && !u.media || u.inLink || u.hidden {
			continue
		}
		if htmlnode.IsHeading(u.n) && (u.n.Parent == parent || u.n == sectionHeading(sec)) {
			u.kept = true // the title over the parts, and the chosen part's own heading
			continue
		}
		s := u.n
		for s != nil && s.Parent != parent {
			s = s.Parent
		}
		if s == nil || s != sec && !alike(s, sec) {
			continue
		}
		if _, seen := skip[s]; !seen {
			h := sectionHeading(s)
			text := strings.Join(strings.Fields(htmlnode.Text(h)), " ")
			skip[s] = h == nil || linksAway(h) || tailHeading.MatchString(text) || hasWord(nameWords(text), threadWords)
		}
		if skip[s] {
			continue
		}
		if htmlnode.IsHeading(u.n) || contentByKind(u) || 2*u.links < u.total || !linksAway(u.n) {
			u.kept = true // a list of the page's own anchors (a synopsis of its commands) is its text
		}
	}
}

// linksAway reports whether n holds a link to another page (a fragment of
// its own page, or an anchor without a target, is none).
func linksAway(n *html.Node) bool {
	return htmlnode.FirstBelow(n, func(a *html.Node) bool {
		href := strings.TrimSpace(htmlnode.Attr(a, "href"))
		return a.Data == "a" && href != "" && !strings.HasPrefix(href, "#")
	}) !=
		nil
}

// alikeSections reports whether n opens with a heading and stands beside
// another element alike (alike): one of the page's parts, set side by
// side.
func alikeSections(n *html.Node) bool {
	if sectionHeading(n) == nil {
		return false
	}
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s != n && alike(s, n) && htmlnode.HasText(s) {
			return true
		}
	}
	return false
}

// alike reports whether elements a and b are parts of one kind: the same
// tag and class, each opening with a heading of the same level.
func alike(a, b *html.Node) bool {
	if a.Type != html.ElementNode || a.Data != b.Data || htmlnode.Attr(a, "class") != htmlnode.Attr(b, "class") {
		return false
	}
	ha, hb := sectionHeading(a), sectionHeading(b)
	return ha != nil && hb != nil && ha.Data == hb.Data
}

// sectionHeading is the heading n opens with: its first element, or the
// first element of that, down a few levels (a title page's wrappers
// around it), if it is a heading.
func sectionHeading(n *html.Node) *html.Node {
	for depth := 0; n != nil && depth < 4; depth++ {
		n = firstElementChild(n)
		if n != nil && htmlnode.IsHeading(n) {
			return n
		}
	}
	return nil
}

// firstElementChild is n's first child element, if any.
func firstElementChild(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// keepNumberedContents keeps the list of the chapter's own sections that
// follows the article's last block, when the article's heading is
// numbered ("16 Macros", "3.2. Options") and the entries after it are
// links numbered below that number ("16.1 Pattern-Based Macros",
// "16.1.1 …"): a manual's chapter page, its introduction, then the
// contents of the chapter (Scribble's, LaTeX2HTML's), however it marks
// them up.
func (c *chosen) keepNumberedContents(last int) {
	number := ""
	for _, u := range c.units[:last+1] {
		if u.kept && htmlnode.IsHeading(u.n) {
			if m := sectionNumbered.FindStringSubmatch(strings.TrimSpace(htmlnode.Text(u.n))); m != nil {
				number = strings.TrimSuffix(m[1], ".")
			}
			break
		}
	}
	if number == "" {
		return
	}
	for j := last + 1; j < len(c.units); j++ {
		u := c.units[j]
		if u.total == 0 {
			continue
		}
		m := sectionNumbered.FindStringSubmatch(strings.TrimSpace(htmlnode.Text(u.n)))
		if m == nil || !strings.HasPrefix(m[1], number+".") || !linked(u.n) {
			return
		}
		u.kept = true
	}
}

// sectionNumbered matches a section's number at the start of a heading
// or an entry of contents ("16", "16.1", "3.2."), before its title.
var sectionNumbered = regexp.MustCompile(`^(\d+(?:\.\d+)*\.?)[\s\x{00a0}]*[^\d\s.]`)

// keepNamedContents keeps the table of contents that follows the
// article's last block, when the page names it one (a class or id of
// "toc", "toctree", "contents": Texinfo's section-toc, Sphinx's
// toctree-wrapper): a chapter's introduction, then the list of its
// sections.
func (c *chosen) keepNamedContents(last int) {
	var toc *html.Node
	for n := c.units[last].n; n != nil && toc == nil; n = n.Parent {
		if next := htmlnode.NextElement(n); next != nil && namesContents(next) {
			toc = next
		}
		if n.Parent != nil && n.Parent.Data == "body" {
			break
		}
	}
	if toc == nil {
		return
	}
	for j := last + 1; j < len(c.units) && inside(c.units[j].n, toc); j++ {
		if !c.units[j].inLink {
			c.units[j].kept = true
		}
	}
}

// keepSectionRest keeps, after the article's last block, the rest of the
// <section> that holds it: its headings, paragraphs and blocks that are
// content by their kind. The page marks that section as one part of
// itself (a reference's description, then its lists of constructors and
// methods, each a heading and a line, which read as cards). It stays
// only when it opens with a heading of its own, not a link: a story's
// section that goes on with another story's linked headline keeps to
// the story.
func (c *chosen) keepSectionRest(last int) {
	var sec *html.Node
	for n := c.units[last].n.Parent; n != nil && n.Data != "body"; n = n.Parent {
		if n.Type == html.ElementNode && n.Data == "section" {
			sec = n
			break
		}
	}
	if sec == nil {
		return
	}
	// The rest opens with a heading of its own, not a link to
	// another page.
	next := last + 1
	for next < len(c.units) && c.units[next].total == 0 {
		next++
	}
	if next == len(c.units) || !inside(c.units[next].n, sec) || !htmlnode.IsHeading(c.units[next].n) || 2*c.units[next].links >= c.units[next].total {
		return
	}
	for j := next; j < len(c.units) && inside(c.units[j].n, sec); j++ {
		u := c.units[j]
		if u.total == 0 {
			continue
		}
		if htmlnode.IsHeading(u.n) || contentByKind(u) || u.n.Data == "p" && !u.inLink && 2*u.links < u.total {
			u.kept = true
		}
	}
}

// contentsWords name a table of contents by a word of a class or id.
var contentsWords = map[string]bool{"toc": true, "toctree": true, "contents": true}

// namesContents reports whether a word of n's class or id names a table
// of contents.
func namesContents(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "class" || a.Key == "id" {
			if hasWord(wordsOf(a.Val), contentsWords) {
				return true
			}
		}
	}
	return false
}

// maxAnnouncement is the longest line, in characters, that announces the
// list after it ("76 Methods:", "The options are:").
const maxAnnouncement = 80

// announcement reports whether a line's text announces a list of the
// article's: it ends with a colon and does not point elsewhere (other
// stories, related ones, comments).
func announcement(text string) bool {
	return strings.HasSuffix(text, ":") && !pointerStart.MatchString(text) && !tailHeading.MatchString(strings.TrimSuffix(text, ":")) &&
		!hasWord(nameWords(text), threadWords)
}

// namedContents reports whether n is, or is the only element of, a
// block the page names its table of contents (namesContents).
func namedContents(n *html.Node) bool {
	for ; n != nil && n.Data != "body"; n = n.Parent {
		if namesContents(n) {
			return true
		}
		if n.Parent == nil || onlyChildElement(n.Parent) != n {
			return false
		}
	}
	return false
}

// announces reports whether block b, a short line, announces list, the
// element after it (see announcement).
func announces(b block, list *html.Node) bool {
	return b.runes <= maxAnnouncement && announcedList(b.n) == list && announcement(b.text)
}

// announcedList is the list (ul, ol, dl) right after n, or the list a
// wrapper right after n holds as its only child (a block laying the list
// out in columns).
func announcedList(n *html.Node) *html.Node {
	next := htmlnode.NextElement(n)
	for next != nil {
		switch next.Data {
		case "ul", "ol", "dl":
			return next
		}
		only := onlyChildElement(next)
		if only == nil {
			return nil
		}
		next = only
	}
	return nil
}

// onlyChildElement is n's one child element when n holds no other
// element and no text beside it.
func onlyChildElement(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		case c.Type == html.ElementNode && only != nil:
			return nil
		case c.Type == html.ElementNode:
			only = c
		}
	}
	return only
}

// standing is where a block stands: inside a link, inside an element a
// style hides.
type standing struct{ link, hidden bool }

// ownerOf is the unit that text met inside block belongs to: the atomic
// unit u it is inside, or block's own.
func (c *chosen) ownerOf(n *html.Node, u *unit) *unit {
	if u != nil {
		return u
	}
	if own, ok := c.unitOf[n]; ok {
		return own
	}
	return c.newUnit(n)
}

func (c *chosen) newUnit(n *html.Node) *unit {
	u := &unit{n: n}
	c.unitOf[n] = u
	c.units = append(c.units, u)
	return u
}

// contentByKind reports whether a unit the weighing left out is content
// anyway when it stands inside the article: a code block, a table, a
// figure's caption, or a block made of pictures only.
func contentByKind(u *unit) bool {
	switch u.n.Data {
	case "pre", "table", "figcaption", "caption":
		return true
	}

	if u.total == 0 && u.media {
		// A picture that is a link is an advertisement or a story's
		// teaser, not the article's figure.
		return !linked(u.n)
	}
	return u.n.Parent != nil && u.n.Parent.Data == "figure" && linkShare(u.n) < 0.5
}

// ownAnchor reports whether a, a link, is a heading's link to itself:
// inside an h1–h6 (its block) whose id the link's target names, as its
// fragment ("#usage") or as the query parameter a client-rendered manual
// routes headings by ("?id=usage"). It leads nowhere else, and weighs as
// the heading's own text.
func ownAnchor(a *html.Node) bool {
	h := a.Parent
	for h != nil && !htmlnode.IsHeading(h) && htmlnode.IsInline(h) {
		h = h.Parent
	}
	if h == nil || !htmlnode.IsHeading(h) {
		return false
	}
	id := htmlnode.Attr(h, "id")
	if id == "" {
		return false
	}
	u, err := url.Parse(htmlnode.Attr(a, "href"))
	return err == nil && (u.Fragment == id || u.Query().Get("id") == id)
}

// inLink reports whether n is inside a link.
func inLink(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "a" {
			return true
		}
	}
	return false
}

// linked reports whether n is inside a link or holds one.
func linked(n *html.Node) bool {
	if n.Type == html.ElementNode && n.Data == "a" || inLink(n) {
		return true
	}
	var holds func(n *html.Node) bool
	holds = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "a" || holds(c)) {
				return true
			}
		}
		return false
	}
	return holds(n)
}

// proseUnit reports whether u is a paragraph of a sentence at least
// (minSentence), mostly not links and not a link's content. One inside
// the article is the article's, however short.
func proseUnit(u *unit) bool {
	return u.n.Data == "p" && u.total >= minSentence && 2*u.links < u.total && !u.inLink
}

// linkedSentence reports whether u is a paragraph that reads as a
// sentence, however much of it is links ("See the API reference and the
// changelog."): words of its own around its links, and a sentence's end.
// Inside the article it is the article's.
func linkedSentence(u *unit) bool {
	if u.n.Data != "p" || u.inLink || u.card || u.total < minSentence || u.total-u.links < minOwnWords {
		return false
	}
	text := strings.TrimSpace(htmlnode.Text(u.n))
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".!?…。", r)
}

// keepArticleEnd keeps the sentences that close the <article> element the
// span is in, after its last unit kept, up to a heading: a sentence of
// the article is the article's, whatever stands between (an
// advertisement's slot) and however much of it is links.
func (c *chosen) keepArticleEnd(last int, span *html.Node) {
	article := span
	for article != nil && article.Data != "article" {
		article = article.Parent
	}
	if article == nil {
		return
	}
	for _, u := range c.units[last+1:] {
		if !inside(u.n, article) || htmlnode.IsHeading(u.n) {
			return
		}
		if !u.kept && !u.hidden && sentenceBlock(u) {
			u.kept = true
		}
	}
}

// sentenceBlock reports whether u is a block of text (a paragraph, or
// text set in a <div> or straight in its section) that reads as a
// sentence: prose, or a linked sentence.
func sentenceBlock(u *unit) bool {
	if u.inLink || u.card || u.total < minSentence || u.total-u.links < minOwnWords {
		return false
	}
	if u.n.Data != "p" && !(htmlnode.BlockTags[u.n.Data] && !htmlnode.IsHeading(u.n) && u.n.Data != "li" && u.n.Data != "td" && u.n.Data != "th") {
		return false
	}
	text := strings.TrimSpace(ownText(u))
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".!?…。", r)
}

// ownText is the text of u's own block: its text and its inline
// elements', not that of the blocks inside it.
func ownText(u *unit) string {
	var b strings.Builder
	var add func(n *html.Node)
	add = func(n *html.Node) {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch {
			case k.Type == html.TextNode:
				b.WriteString(k.Data)
			case k.Type == html.ElementNode && htmlnode.IsInline(k) && !htmlnode.NeverTags[k.Data]:
				add(k)
			}
		}
	}
	add(u.n)
	return b.String()
}

// minOwnWords is the least text outside links, spaces aside, of a
// linked sentence: "See the … and an …".
const minOwnWords = 8

// minSentence is the least text, spaces aside, of a paragraph that
// stays inside the article for being one.
const minSentence = 30

// maxCaption is the longest caption of a listing, in characters.
const maxCaption = 300

// keepCaptions keeps, inside the article's span, the short lines that
// stand right beside a code block or a picture and say what it is
// ("Listing 3-1: …", "Filename: src/main.rs", "Figure 15-4: …"): they
// are too short to weigh as prose.
func (c *chosen) keepCaptions(first, last int, span *html.Node) {
	for i := first; i <= last; i++ {
		u := c.units[i]
		if u.kept || u.total == 0 || u.total > maxCaption || !inside(u.n, span) || linkShare(u.n) >= 0.5 || inLink(u.n) {
			continue
		}
		if besideListing(u.n) {
			u.kept = true
		}
	}
}

// besideListing reports whether the element just before or after n
// (spaces aside) is, or wraps, a code block, or holds pictures only.
func besideListing(n *html.Node) bool {
	for _, s := range []*html.Node{htmlnode.PrevElement(n), htmlnode.NextElement(n)} {
		if s != nil && (s.Data == "pre" || htmlnode.FirstBelow(s, func(c *html.Node) bool { return c.Data == "pre" }) != nil || picturesOnly(s)) {
			return true
		}
	}
	return false
}

// picturesOnly reports whether n holds images and no text.
func picturesOnly(n *html.Node) bool {
	if n.Data == "img" {
		return true
	}
	images := false
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
				return false
			case c.Type == html.ElementNode && c.Data == "img":
				images = true
			case c.Type == html.ElementNode && !walk(c):
				return false
			}
		}
		return true
	}
	return walk(n) && images
}

// maxHeadlineGap is how many units may stand between the article's
// headline and its first kept block (a byline, a date, share buttons).
const maxHeadlineGap = 8

// keepHeadline keeps the page's headline just before the first kept unit
// when no heading before it is kept: a headline may stand outside the
// article's container, or further before its first paragraph than a
// byline and a picture.
// The headline is the nearest <h1>, or a heading whose words are all in
// the page's title; it is at most maxHeadlineGap units away, or further
// with only links between.
func (c *chosen) keepHeadline(first int, title string) {
	for _, u := range c.units[:first+1] {
		if u.kept && htmlnode.IsHeading(u.n) {
			return
		}
	}
	for i := first - 1; i >= 0; i-- {
		u := c.units[i]
		if htmlnode.IsHeading(u.n) && u.total > 0 {
			if u.n.Data == "h1" || repeatsTitle(htmlnode.Text(u.n), title) {
				u.kept = true
				if i < first-maxHeadlineGap {
					c.keepContents(i, first)
				}
			}
			return
		}
		// Past the gap, only a table of contents (units that are links,
		// labels or nothing) may stand between: a manual's chapter page
		// has its title, then the list of its sections, then its first
		// paragraph.
		if i < first-maxHeadlineGap && u.total >= minSentence && 2*u.links < u.total {
			return
		}
	}
}

// keepContents keeps the table of contents that stands between the
// page's headline (unit headline) and its first paragraph (unit first):
// the entries of the lists there, when the headline, the lists and the
// paragraph share one container below the body (a manual's chapter page;
// a news page's menus stand outside its story's container).
func (c *chosen) keepContents(headline, first int) {
	box := lowestCommonAncestor(c.units[headline].n, c.units[first].n)
	if box == nil || box.Data == "body" {
		return
	}
	// Only a table of contents stands between: entries that are
	// links, in lists, and short labels ("Table of Contents").
	var entries []*unit
	for j := headline + 1; j < first; j++ {
		u := c.units[j]
		switch {
		case u.total == 0 || u.inLink:
		case inList(u.n, box) && 2*u.links >= u.total:
			entries = append(entries, u)
		case u.total >= minSentence:
			return
		}
	}
	for _, u := range entries {
		u.kept = true
	}
}

// inNamedContents reports whether n is inside an element below box that
// the page names a table of contents (namesContents): inside the
// article's span, a chapter's list of its sections.
func inNamedContents(n, box *html.Node) bool {
	for p := n.Parent; p != nil && p != box; p = p.Parent {
		if namesContents(p) {
			return true
		}
	}
	return false
}

// inList reports whether n is inside a list (ul, ol, dl) below box.
func inList(n, box *html.Node) bool {
	for p := n.Parent; p != nil && p != box; p = p.Parent {
		switch p.Data {
		case "ul", "ol", "dl":
			return true
		}
	}
	return false
}

// inside reports whether n is below (or is) ancestor.
func inside(n, ancestor *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == ancestor {
			return true
		}
	}
	return false
}

// lowestCommonAncestor is the deepest element holding both a and b.
func lowestCommonAncestor(a, b *html.Node) *html.Node {
	above := map[*html.Node]bool{}
	for n := a; n != nil; n = n.Parent {
		above[n] = true
	}
	for n := b; n != nil; n = n.Parent {
		if above[n] {
			return n
		}
	}
	return nil
}

// keepChosen removes below n what was not chosen: units not kept lose
// their own text and inline elements, and elements left with nothing to
// show go. It reports whether anything below n stays.
func (c *chosen) keepChosen(n *html.Node) bool {
	u := c.unitOf[n]
	if u != nil && atomicUnit(n) {
		return u.kept
	}
	own := u != nil && u.kept
	if own && n.Data == "div" && onlyInline(n) {
		// A block of text set in a <div> is a paragraph, for the rules
		// that trim the article and for the converter.
		n.Data, n.DataAtom = "p", atom.P
	}
	stays := false
	for k := n.FirstChild; k != nil; {
		next := k.NextSibling
		switch {
		case k.Type == html.TextNode:
			if own {
				stays = stays || strings.TrimSpace(k.Data) != ""
			} else {
				c.removed += htmlnode.CountWords(k.Data)
				n.RemoveChild(k)
			}
		case k.Type != html.ElementNode:
			n.RemoveChild(k)
		case htmlnode.IsInline(k):
			if own {
				stays = true
			} else if !c.keepChosen(k) {
				c.removed += htmlnode.Words(k) // what stripping left: a code block's, a table's
				n.RemoveChild(k)
			} else {
				stays = true
			}
		default:
			if c.keepChosen(k) {
				stays = true
			} else {
				c.removed += htmlnode.Words(k)
				n.RemoveChild(k)
			}
		}
		k = next
	}
	return stays
}

// onlyInline reports whether every element below n is inline.
func onlyInline(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (!htmlnode.IsInline(c) || !onlyInline(c)) {
			return false
		}
	}
	return true
}
