package markdown

import (
	"index/suffixarray"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// This file makes the main content out of the page's own elements. The
// article extractor decides what is content, but the tree it answers with
// is rebuilt: it moves words around inline markup, drops code inside
// figures, captions and images, loses code blocks' languages and flattens
// tables. So its answer is used only as a text: each block of the page
// whose words it holds, in the page's order, is kept as the page has it,
// and everything else is removed.

// unit is a block of the page: an element that is not inline and holds
// text or images of its own (directly or through inline elements). A
// code block or a table is one unit with everything below it.
type unit struct {
	n *html.Node
	// total and matched count the unit's own text, spaces aside, and how
	// much of it was found in the extractor's answer.
	total, matched int
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
}

// blockTags are the elements that start a block of their own. Every
// other element, custom ones included (<mjx-container>, <my-widget>),
// flows inside the block around it, as a browser lays it out.
var blockTags = map[string]bool{"address": true, "article": true, "aside": true, "blockquote": true, "body": true,
	"caption": true, "center": true, "dd": true, "details": true, "dialog": true, "dir": true, "div": true, "dl": true,
	"dt": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hgroup": true, "hr": true,
	"html": true, "legend": true, "li": true, "listing": true, "main": true, "menu": true, "nav": true, "ol": true,
	"optgroup": true, "option": true, "p": true, "plaintext": true, "pre": true, "search": true, "section": true,
	"summary": true, "table": true, "tbody": true, "td": true, "tfoot": true, "th": true, "thead": true, "tr": true,
	"ul": true, "xmp": true, "video": true, "audio": true}

// isInline reports whether element n flows inside the block around it.
func isInline(n *html.Node) bool {
	return !blockTags[n.Data]
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
}

// choose marks the units of body that make its main content: those the
// extractor's answer holds (see align) when answer is given, else those
// its own weighing picks (see score). It reports false when neither can
// tell (the rules choose then). It changes nothing; keepChosen applies it.
func choose(body *html.Node, answer *string, title string) (*chosen, bool) {
	c, texts := collect(body)
	if answer != nil {
		align(c.units, texts, *answer)
		for _, u := range c.units {
			u.kept = u.total > 0 && 2*u.matched >= u.total
		}
	} else if !c.score(body) {
		return c, false
	}
	c.extend(title)
	return c, true
}

// collect cuts body into its units, in the page's order, with the text
// nodes each holds.
func collect(body *html.Node) (*chosen, []textAt) {
	c := &chosen{unitOf: map[*html.Node]*unit{}}
	var texts []textAt
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
				if key := spaceless(k.Data); key != "" {
					owner := owner()
					texts = append(texts, textAt{key, owner})
					if owner.total == 0 && link {
						owner.linkLed = true
					}
					owner.total += len(key)
					if link {
						owner.links += len(key)
					}
				}
			case html.ElementNode:
				h := hidden || styleHidden(k)
				a := link || k.Data == "a"
				switch {
				case neverTags[k.Data] || k.Data == "math":
					// A formula's symbols are not in the extractor's
					// answer (it drops MathML); they stay with the unit.
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
				case isInline(k):
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
	return c, texts
}

// extend adds to the units kept those inside the article's span that
// are content by their kind (code blocks, tables, figure captions,
// pictures, paragraphs, the headings of what stays, captions of
// listings) and the article's headline.
func (c *chosen) extend(title string) {
	// The article's span runs from the first unit kept to the last; a
	// block that is all a link's content (a card: another story's
	// teaser, a tile of a landing page) does not stretch it, and goes
	// when it stands outside.
	first, last := -1, -1
	for i, u := range c.units {
		if u.kept {
			if inLink(u.n) {
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
		if u.kept && (i < first || i > last) && inLink(u.n) {
			u.kept = false
		}
	}
	span := lowestCommonAncestor(c.units[first].n, c.units[last].n)
	for i := first + 1; i < last; i++ {
		u := c.units[i]
		if !u.kept && inside(u.n, span) && (contentByKind(u) || proseUnit(u)) {
			u.kept = true
		}
	}
	// A heading the extractor dropped stays when what follows it stays:
	// it heads a section of the article.
	for i := last - 1; i > first; i-- {
		u := c.units[i]
		if !u.kept && heading(u.n) && !inLink(u.n) && inside(u.n, span) && c.units[i+1].kept {
			u.kept = true
		}
	}
	c.keepCaptions(first, last, span)
	c.keepHeadline(first, title)
}

// standing is where a block stands: inside a link, inside an element a
// style hides.
type standing struct{ link, hidden bool }

// textAt is a text node's text without spaces and the unit it belongs to.
type textAt struct {
	key string
	u   *unit
}

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

// contentByKind reports whether a unit the extractor dropped is content
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
// (minSentence), mostly not links and not a link's content. One the
// extractor dropped from inside the article is the article's: it drops
// paragraphs for their footnote references or inline code, a section
// whose id names comments, text that repeats within the page.
func proseUnit(u *unit) bool {
	return u.n.Data == "p" && u.total >= minSentence && linkShare(u.n) < 0.5 && !inLink(u.n)
}

// minSentence is the least text, spaces aside, of a paragraph the
// extractor dropped that stays inside the article.
const minSentence = 30

// maxCaption is the longest caption of a listing, in characters.
const maxCaption = 300

// keepCaptions keeps, inside the article's span, the short lines that
// stand right beside a code block or a picture and say what it is
// ("Listing 3-1: …", "Filename: src/main.rs", "Figure 15-4: …"): the
// extractor takes them for image captions.
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
	for _, s := range []*html.Node{prevElement(n), nextElement(n)} {
		if s != nil && (s.Data == "pre" || firstBelow(s, func(c *html.Node) bool { return c.Data == "pre" }) != nil || picturesOnly(s)) {
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

// firstBelow is the first element below n (in document order) for which
// match holds, if any.
func firstBelow(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if match(c) {
			return c
		}
		if f := firstBelow(c, match); f != nil {
			return f
		}
	}
	return nil
}

// prevElement and nextElement are the element just before or after n,
// spaces aside, or nil when text stands between.
func prevElement(n *html.Node) *html.Node {
	return adjacentElement(n.PrevSibling, func(s *html.Node) *html.Node { return s.PrevSibling })
}

func nextElement(n *html.Node) *html.Node {
	return adjacentElement(n.NextSibling, func(s *html.Node) *html.Node { return s.NextSibling })
}

func adjacentElement(s *html.Node, step func(*html.Node) *html.Node) *html.Node {
	for ; s != nil; s = step(s) {
		if s.Type == html.ElementNode {
			return s
		}
		if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" {
			return nil
		}
	}
	return nil
}

// maxHeadlineGap is how many units may stand between the article's
// headline and its first kept block (a byline, a date, share buttons).
const maxHeadlineGap = 8

// keepHeadline keeps the page's headline just before the first kept unit
// when no heading before it is kept: the extractor drops a headline that
// repeats the page's title, and one set outside the article's container.
// The headline is the nearest <h1>, or a heading whose words are all in
// the page's title.
func (c *chosen) keepHeadline(first int, title string) {
	for _, u := range c.units[:first+1] {
		if u.kept && heading(u.n) {
			return
		}
	}
	for i := first - 1; i >= 0 && i >= first-maxHeadlineGap; i-- {
		if u := c.units[i]; heading(u.n) && u.total > 0 {
			if u.n.Data == "h1" || repeatsTitle(nodeText(u.n), title) {
				u.kept = true
			}
			return
		}
	}
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
				n.RemoveChild(k)
			}
		case k.Type != html.ElementNode:
			n.RemoveChild(k)
		case isInline(k):
			if own {
				stays = true
			} else if !c.keepChosen(k) {
				n.RemoveChild(k)
			} else {
				stays = true
			}
		default:
			if c.keepChosen(k) {
				stays = true
			} else {
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
		if c.Type == html.ElementNode && (!isInline(c) || !onlyInline(c)) {
			return false
		}
	}
	return true
}

// spaceless is s without any whitespace.
func spaceless(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// align finds which units' text the extractor's answer (its text without
// spaces) holds, in the page's order, and counts it in their matched.
//
// A text can be in the page twice: a menu entry or a table of contents
// line repeats a heading, a teaser repeats a paragraph. So each unit of at
// least minAnchor bytes is looked up in the answer (its whole text, or,
// when the extractor changed it, its longest text node), and of all the
// places found, the chain that keeps the page's order and holds the most
// text is taken (the heaviest increasing chain): a line of a table of
// contents is shorter than the paragraphs that follow its heading. The
// units between two units of the chain, short ones included, are then
// matched in order within the part of the answer between them.
func align(units []*unit, texts []textAt, answer string) {
	nodes := map[*unit][]string{}
	for _, t := range texts {
		nodes[t.u] = append(nodes[t.u], t.key)
	}
	keys := make([]string, len(units))
	for i, u := range units {
		keys[i] = strings.Join(nodes[u], "")
	}
	idx := suffixarray.New([]byte(answer))
	var cands []anchor
	for i, k := range keys {
		if len(k) < minAnchor {
			continue
		}
		whole := true
		at := idx.Lookup([]byte(k), maxPlaces)
		if len(at) == 0 {
			longest := ""
			for _, n := range nodes[units[i]] {
				if len(n) > len(longest) {
					longest = n
				}
			}
			if len(longest) < minAnchor {
				continue
			}
			k, whole = longest, false
			at = idx.Lookup([]byte(k), maxPlaces)
		}
		for _, p := range at {
			cands = append(cands, anchor{unit: i, start: p, end: p + len(k), whole: whole})
		}
	}
	chain := heaviestChain(cands)

	// Units of the chain, then the others in the gaps between them.
	anchored := map[int]anchor{}
	for _, a := range chain {
		anchored[a.unit] = a
	}
	cursor, next := 0, 0 // next: the index in chain of the next anchor
	for i, u := range units {
		if a, ok := anchored[i]; ok {
			if a.whole {
				u.matched = u.total
			} else {
				u.matched = matchedAround(nodes[u], answer, a)
			}
			cursor = a.end
			next++
			continue
		}
		limit := len(answer)
		if next < len(chain) {
			limit = chain[next].start
		}
		if k := keys[i]; k != "" && cursor < limit {
			if at := strings.Index(answer[cursor:limit], k); at >= 0 {
				u.matched = u.total
				cursor += at + len(k)
			}
		}
	}
}

const (
	// minAnchor is the least text, in bytes, that places a unit in the
	// answer on its own; shorter ones are matched between those placed.
	minAnchor = 12
	// maxPlaces is the most places in the answer looked at for a unit.
	maxPlaces = 8
)

// anchor is a place in the answer, [start, end), where unit's text (whole,
// or its longest text node) is found.
type anchor struct {
	unit, start, end int
	whole            bool
}

// matchedAround counts the bytes of a unit's text nodes found in the
// answer near the place a's text node was found (the extractor moved
// words of the unit, or dropped some).
func matchedAround(nodes []string, answer string, a anchor) int {
	total := 0
	for _, n := range nodes {
		total += len(n)
	}
	near := answer[max(0, a.start-2*total):min(len(answer), a.end+2*total)]
	matched := 0
	for _, n := range nodes {
		if strings.Contains(near, n) {
			matched += len(n)
		}
	}
	return matched
}

// heaviestChain picks among the candidates (ordered by unit) the ones
// whose units and places both go forward, without overlapping, holding
// the most text. A unit is in the chain at most once.
func heaviestChain(cands []anchor) []anchor {
	if len(cands) == 0 {
		return nil
	}
	// Places are compared by their ends: the best chain ending at or
	// before a position is a prefix maximum over the sorted ends.
	ends := make([]int, len(cands))
	for i, c := range cands {
		ends[i] = c.end
	}
	sort.Ints(ends)
	tree := make([]best, len(ends)+1) // a Fenwick tree of prefix maxima
	for i := range tree {
		tree[i].from = -1
	}
	query := func(pos int) best { // best chain ending at or before pos
		b := best{from: -1}
		for i := sort.SearchInts(ends, pos+1); i > 0; i -= i & -i {
			if tree[i].better(b) {
				b = tree[i]
			}
		}
		return b
	}
	update := func(pos int, b best) {
		for i := sort.SearchInts(ends, pos) + 1; i < len(tree); i += i & -i {
			if b.better(tree[i]) {
				tree[i] = b
			}
		}
	}
	from := make([]int, len(cands))
	weight := make([]int, len(cands))
	top := best{from: -1}
	for g := 0; g < len(cands); {
		h := g
		for h < len(cands) && cands[h].unit == cands[g].unit {
			h++
		}
		// All places of one unit are judged before any is added, so that
		// a chain holds the unit once.
		for i := g; i < h; i++ {
			b := query(cands[i].start)
			from[i], weight[i] = b.from, b.weight+cands[i].end-cands[i].start
		}
		for i := g; i < h; i++ {
			nb := best{weight: weight[i], from: i}
			update(cands[i].end, nb)
			if nb.better(top) {
				top = nb
			}
		}
		g = h
	}
	var chain []anchor
	for i := top.from; i >= 0; i = from[i] {
		chain = append(chain, cands[i])
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}

// best is the heaviest chain found ending somewhere: its weight and the
// candidate it ends with.
type best struct {
	weight, from int
}

// better reports whether b is heavier than o or, as heavy, ends with a
// later candidate: of two units with the same text (a menu entry and the
// heading it names), the one nearer what follows in the chain is taken.
func (b best) better(o best) bool {
	return b.weight > o.weight || b.weight == o.weight && b.from > o.from
}
