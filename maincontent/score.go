package maincontent

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// This file chooses a page's main content by weighing its units (see
// collect).
//
// Each unit weighs for or against being the article (weigh): prose,
// code and data tables for it, blocks that are mostly links and the
// teasers of other pages against it, everything else nothing. The
// article's container is the element with the best balance; it is
// narrowed to the part that holds nearly all its prose, unless the rest
// of it holds sections of the same document. Inside it, what stands
// before the first paragraph or after the last one stays only when it is
// the kind of thing an article has there.

const (
	// minProseBytes is the least text of a unit, outside links and
	// spaces aside, that makes it a paragraph of prose.
	minProseBytes = 60
	// linkDiscount divides the weight of link text against a container:
	// an article may carry a few links' worth of navigation around it
	// rather than be cut short.
	linkDiscount = 4
	// narrowShare is the share of a container's prose (in tenths) that
	// one of its children must hold for the article to be that child.
	narrowShare = 9
	// maxLead is how many units before the first paragraph may belong
	// to the article (a headline, a byline, a lead picture), and
	// maxLeadRegion the most units of a region there (more are a
	// player's settings, a form, a menu).
	maxLead       = 8
	maxLeadRegion = 3
	// maxTrailer is how many units after the last paragraph a code block
	// or a picture may stand and still close the article.
	maxTrailer = 2
)

// weigh is what unit u counts for being the article (pro) and against
// it (con), in bytes of text.
func (u *unit) weigh() (pro, con int) {
	if u.hidden {
		return 0, 0
	}
	own := u.total - u.links
	switch u.n.Data {
	case "pre":
		return u.total, 0
	case "table":
		if 2*u.links < u.total {
			return own, 0
		}
		return 0, u.links
	}
	switch {
	case u.inLink || u.card:
		// A block that is a link's content, or that a heading made of a
		// link heads: a teaser of another page.
		return 0, u.total
	case u.links > 0 && 2*u.links >= u.total:
		return 0, u.links
	case u.linkLed && (u.n.Data == "li" || u.n.Data == "dt" || u.n.Data == "dd"):
		// An entry that starts with a link (a table of contents, "name —
		// what it does") describes another page.
		return 0, 0
	case own >= minProseBytes && u.tokens.wordy():
		return own, 0
	}
	return 0, 0
}

// wordy reports whether at least half of the tokens (runs without
// spaces) of a unit's own text read as words rather than as paths, names
// of code or addresses: prose is made of words, a list of source files
// ("lib/yard/cli/yri.rb, lib/yard/cli/diff.rb") is not. A token is code
// when it holds a slash, a backslash, an underscore, an operator or a
// brace, "::", or a dot between two letters ("autoload.rb"). The tokens
// are counted as collect reads the unit's text.
func (t tokenCount) wordy() bool {
	t.end()
	return 2*t.code <= t.tokens
}

// tokenCount counts the tokens of a text read in pieces, and those of
// them that are code (see wordy).
type tokenCount struct {
	tokens, code int
	in, isCode   bool
	// prev is the token's last byte, and dot whether it is a dot right
	// after a letter.
	prev byte
	dot  bool
}

func (t *tokenCount) read(s string) {
	if strings.IndexAny(s, codeChars) < 0 {
		// Most text holds none of the bytes that make code (a dot
		// between letters alone does not count then): all its tokens
		// are words, counted by its spaces (runs of spaces count more
		// than once, which only adds words).
		t.end()
		t.tokens += strings.Count(s, " ") + 1
		return
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' && t.in {
			// The common case: a lower-case letter inside a word.
			t.isCode = t.isCode || t.dot
			t.dot, t.prev = false, c
			continue
		}
		if c == ' ' || c >= '\t' && c <= '\r' {
			t.end()
			continue
		}
		if !t.in {
			t.in, t.isCode, t.dot, t.prev = true, false, false, 0
			t.tokens++
		}
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
		switch {
		case codeBytes[c], c == ':' && t.prev == ':', t.dot && letter:
			t.isCode = true
		}
		t.dot = c == '.' && (t.prev >= 'a' && t.prev <= 'z' || t.prev >= 'A' && t.prev <= 'Z' || t.prev >= utf8.RuneSelf)
		t.prev = c
	}
}

// end closes the token being read, if any.
func (t *tokenCount) end() {
	if t.in && t.isCode {
		t.code++
	}
	t.in = false
}

// codeChars are the bytes that make a token code wherever they stand,
// and the colon that does when doubled; codeBytes the first as a table.
const codeChars = "/\\_=<>{}|:"

var codeBytes = func() (m [256]bool) {
	for _, c := range []byte("/\\_=<>{}|") {
		m[c] = true
	}
	return m
}()

// tally is what the units below an element weigh together.
type tally struct {
	pro, con, links, text, units int
	// contents is the part of con from the entries of a table of
	// contents the page names (namesContents).
	contents int
	// paragraphs counts the paragraphs of a sentence at least (see
	// proseUnit) that are not teasers.
	paragraphs int
}

// score marks the units of the article. It reports false when the page
// has too little prose to tell an article from the rest (a listing, a
// landing page), and leaves the choice to the rules then.
func (c *chosen) score(body *html.Node) bool {
	w := c.weighAll(body)
	container := w.container(body)
	if container == nil {
		return false
	}
	roots := c.narrow(w, container)
	var in []int // the units inside the roots, in order
	for i, u := range c.units {
		for _, r := range roots {
			if inside(u.n, r) {
				in = append(in, i)
				break
			}
		}
	}
	return c.mark(w, roots, in)
}

// weights are the units' weights (pro, by index) and what the units
// below each element weigh together.
type weights struct {
	pro     []int
	tallies map[*html.Node]*tally
}

// weighAll weighs every unit and adds its weight to each element above
// it, up to body.
func (c *chosen) weighAll(body *html.Node) weights {
	w := weights{pro: make([]int, len(c.units)), tallies: map[*html.Node]*tally{}}
	for i, u := range c.units {
		pro, con := u.weigh()
		w.pro[i] = pro
		para := proseUnit(u) && !u.card
		contents := 0
		if con > 0 && inNamedContents(u.n, nil) {
			contents = con
		}
		for n := u.n; n != nil; n = n.Parent {
			t := w.tallies[n]
			if t == nil {
				t = &tally{}
				w.tallies[n] = t
			}
			t.pro += pro
			t.con += con
			t.contents += contents
			t.links += u.links
			t.text += u.total
			t.units++
			if para {
				t.paragraphs++
			}
			if n == body {
				break
			}
		}
	}
	return w
}

// container is the element with the best balance (the outermost of
// equals), or the page's named main part around it; nil when none holds
// MinText of prose.
func (w weights) container(body *html.Node) *html.Node {
	var container *html.Node
	best := 0
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			t := w.tallies[k]
			if t == nil || t.pro == 0 || k.Data == "p" {
				continue
			}
			if s := t.pro - t.con/linkDiscount; s > best {
				container, best = k, s
			}
			find(k)
		}
	}
	if t := w.tallies[body]; t != nil && t.pro > 0 {
		container, best = body, t.pro-t.con/linkDiscount
	}
	find(body)
	if container == nil || w.tallies[container].pro < MinText {
		return nil
	}
	// A page that names its main part (<main>, role=main) has its
	// article there, lists of links between the paragraphs included.
	if m := landmark(container); m != nil {
		return m
	}
	return container
}

// narrow takes the container down to the child holding nearly all its
// prose, again and again, unless that child is one of several sections
// or the rest holds sections of the same document. It returns the
// elements the article is in: the last child, and what stands without
// links beside the children it went through: prose, and a small box right
// before one of them.
func (c *chosen) narrow(w weights, container *html.Node) []*html.Node {
	var roots []*html.Node
	if box := leadBox(w, container); box != nil {
		roots = append(roots, box)
	}
	for {
		var narrower *html.Node
		for k := container.FirstChild; k != nil; k = k.NextSibling {
			if t := w.tallies[k]; t != nil && 10*t.pro >= narrowShare*w.tallies[container].pro {
				narrower = k
			}
		}
		// A table, a code block or a paragraph is a block of the article,
		// not its container: a list page's intro and notes go with its
		// table, the list a lone paragraph announces goes with it.
		if narrower == nil || atomicUnit(narrower) || narrower.Data == "p" || oneOfSections(container, narrower) ||
			c.sectionBeside(container, narrower) && restClean(w.tallies[container], w.tallies[narrower]) {
			break
		}
		lead, closer := leadBox(w, narrower), c.closingSentence(w, narrower)
		for k := container.FirstChild; k != nil; k = k.NextSibling {
			if t := w.tallies[k]; k == lead || k == closer || k != narrower && t != nil && t.pro > 0 && t.links == 0 {
				roots = append(roots, k)
			}
		}
		container = narrower
	}
	if closer := c.closingSentence(w, container); closer != nil {
		roots = append(roots, closer)
	}
	return append(roots, container)
}

// mark keeps, of the units in (indexes of the units inside roots, in
// order), those from the first unit of prose to the last, and around them
// what an article has there (see markLead, markTail). It reports false
// when none is prose.
func (c *chosen) mark(w weights, roots []*html.Node, in []int) bool {
	a := articleUnits{w: w, roots: roots, in: in, first: -1, last: -1}
	for k, i := range in {
		if w.pro[i] > 0 {
			if a.first < 0 {
				a.first = k
			}
			a.last = k
		}
	}
	if a.first < 0 {
		return false
	}
	for _, i := range in[a.first : a.last+1] {
		c.units[i].kept = true
	}
	c.markLead(a)
	c.markTail(a)
	return true
}

// articleUnits is where the weighing found the article: the units inside its
// roots (in, indexes of c.units in order), and the first and last of them
// that are prose (indexes of in).
type articleUnits struct {
	w           weights
	roots       []*html.Node
	in          []int
	first, last int
}

// region is the outermost element holding u, below the root holding it,
// that does not hold the unit at; nil when there is none.
func (a articleUnits) region(u, at *unit) *html.Node {
	r := u.n
	for p := u.n.Parent; p != nil && !isRoot(p, a.roots) && !inside(at.n, p); p = p.Parent {
		r = p
	}
	if isRoot(r, a.roots) || inside(at.n, r) {
		return nil
	}
	return r
}

// markLead keeps, before the first paragraph, what stands near it in
// small regions (a headline, a byline, a lead picture) and what is
// content by its kind, unless its region is mostly links.
func (c *chosen) markLead(a articleUnits) {
	linky := func(r *html.Node) bool {
		t := a.w.tallies[r]
		return r != nil && t != nil && t.pro == 0 && t.links > 0 && 2*t.links >= t.text
	}
	firstUnit := c.units[a.in[a.first]]
	for k, i := range a.in[:a.first] {
		u := c.units[i]
		r := a.region(u, firstUnit)
		size := 1
		if r != nil {
			size = a.w.tallies[r].units
		}
		u.kept = !linky(r) && (a.first-k <= maxLead && size <= maxLeadRegion || proseUnit(u) || contentByKind(u)) ||
			a.first-k <= maxLead && (linkedSentence(u) || linky(r) && announcedBy(c.unitBefore(a.in[:k], r), r))
	}
}

// unitBefore is the last of the units in (indexes of c.units) outside
// region r.
func (c *chosen) unitBefore(in []int, r *html.Node) *unit {
	for j := len(in) - 1; j >= 0; j-- {
		if b := c.units[in[j]]; !inside(b.n, r) {
			return b
		}
	}
	return nil
}

// announcedBy reports whether list, a region of the units before the
// article, is the list the kept unit right before it announces ("The
// documentation is split into two categories:"): its entries are the
// article's, however much they are links.
func announcedBy(before *unit, list *html.Node) bool {
	if before == nil || !before.kept || list == nil || announcedList(before.n) != list {
		return false
	}
	text := strings.TrimSpace(htmlnode.Text(before.n))
	return utf8.RuneCountInString(text) <= maxAnnouncement && announcement(text)
}

// markTail keeps, after the last paragraph, the code and pictures that
// close it, the short paragraphs and lists that end its section ("That's
// all!", the steps of a list), and the later sections' headings and short
// paragraphs (an API page's methods and their one-line descriptions)
// where the article has sections of their level (the heading over its
// first paragraph counts), with their subsections. A region there that is
// mostly links or teasers and has no paragraph of its own (other stories,
// tags, a comment form's login) is the page's, unless what stands there is
// a sentence inside the container of the last paragraph ("See also … and
// …."): never dropped for its links. A heading that opens the page's tail
// ("You may also like") ends the article: nothing after it is kept.
func (c *chosen) markTail(a articleUnits) {
	levels := map[string]bool{} // the heading levels of the article's sections
	for _, i := range a.in[a.first : a.last+1] {
		if u := c.units[i]; htmlnode.IsHeading(u.n) {
			levels[u.n.Data] = true
		}
	}
	// The heading the first paragraph stands under heads a section of
	// the article too ("Detailed Description", then the members').
	for k := a.first - 1; k >= 0; k-- {
		if u := c.units[a.in[k]]; htmlnode.IsHeading(u.n) && u.total > 0 && !u.inLink {
			levels[u.n.Data] = true
			break
		}
	}
	lastUnit := c.units[a.in[a.last]]
	closing := lastUnit.n.Parent
	// When the article ends with a list, the lines that close it stand
	// beside the list ("1 Constructor: …", "See also …").
	besideList := closing
	if closing != nil && (closing.Data == "ul" || closing.Data == "ol") && closing.Parent != nil {
		besideList = closing.Parent
	}
	inSection, sectionLevel := false, 0
	var names *html.Node // a list of names a line after the article announces
	toc := closingContents(lastUnit.n)
	for k := a.last + 1; k < len(a.in); k++ {
		u := c.units[a.in[k]]
		r := a.region(u, lastUnit)
		sentence := closing != nil && inside(u.n, closing) && (shortSentence(u) || linkedSentence(u)) ||
			besideList != closing && inside(u.n, besideList) && linkedSentence(u)
		entry := names != nil && inside(u.n, names) && u.total > 0 || toc != nil && inside(u.n, toc)
		if !sentence && !entry && r != nil && 2*a.w.tallies[r].con >= a.w.tallies[r].text && a.w.tallies[r].paragraphs == 0 || u.inLink || u.card {
			continue
		}
		if htmlnode.IsHeading(u.n) && tailHeading.MatchString(strings.TrimSpace(htmlnode.Text(u.n))) {
			// "You may also like": what follows is the page's, not the
			// article's.
			break
		}
		switch {
		case entry:
			u.kept = true
		case besideList != nil && inside(u.n, besideList) && u.n.Data == "p" && announcesNames(u):
			// "26 Methods:", then the methods' names, each a link: a
			// reference's list of its members, not other stories.
			u.kept, names = true, announcedList(u.n)
		case htmlnode.IsHeading(u.n) && u.total > 0:
			// A later section of the article has a heading of a level
			// its sections have, and its subsections deeper ones;
			// another heading there opens the page's own boxes
			// ("Questions about this article", "Press contact").
			level := int(u.n.Data[1] - '0')
			switch {
			case levels[u.n.Data] && (inSection || 2*u.links < u.total):
				inSection, sectionLevel = true, level
			case inSection && level > sectionLevel:
			default:
				inSection = false
			}
			u.kept = inSection
		case k-a.last <= maxTrailer && (atomicUnit(u.n) || u.media && !u.linkedMedia):
			u.kept = true
		case (inSection || closing != nil && inside(u.n, closing)) && (proseUnit(u) || contentByKind(u)):
			u.kept = true
		case sentence || isRoot(u.n, a.roots) && linkedSentence(u):
			// The latter: the line that closes a list (closingSentence).
			// The article's last words, however short ("That's all.").
			u.kept = true
		case closing != nil && inside(u.n, closing) && listItem(u.n) && u.total > 0 && 2*u.links < u.total:
			// The items of a list the last paragraph announces ("… a
			// list here of what is possible:"), however short.
			u.kept = true
		}
	}
}

// closingContents is the list right after paragraph p when it ends the
// page's named main part (<main>, role=main) and holds only links: a
// section's index, its introduction and then the list of its pages; nil
// otherwise.
func closingContents(p *html.Node) *html.Node {
	list, main := htmlnode.NextElement(p), landmark(p)
	if list == nil || list.Data != "ul" && list.Data != "ol" || main == nil {
		return nil
	}
	for x := list; x != nil && x != main; x = x.Parent {
		if htmlnode.NextElement(x) != nil || hasTextAfter(x) {
			return nil
		}
	}
	if linkShare(list) < 0.99 {
		return nil
	}
	return list
}

// hasTextAfter reports whether text stands after n among its siblings.
func hasTextAfter(n *html.Node) bool {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" {
			return true
		}
	}
	return false
}

// announcesNames reports whether paragraph u is a short line that
// announces the list after it (see announcement) and that list is one of
// names: most of its entries are a token of code or two
// ("sqlite3_result_blob", "Text.Megaparsec.Byte"), where a list of other
// stories holds headlines, made of words.
func announcesNames(u *unit) bool {
	if u.total > maxAnnouncement || !announcement(strings.TrimSpace(htmlnode.Text(u.n))) {
		return false
	}
	list := announcedList(u.n)
	if list == nil {
		return false
	}
	items, named := 0, 0
	for li := list.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.Data != "li" {
			continue
		}
		items++
		var t tokenCount
		t.read(htmlnode.Text(li))
		t.end()
		if t.tokens <= 2 && t.code > 0 {
			named++
		}
	}
	return items >= 2 && 2*named > items
}

// shortSentence reports whether u is a paragraph (or a div of text, as
// many pages set their lines) that reads as a sentence (a sentence's end,
// mostly not links) however short it is.
func shortSentence(u *unit) bool {
	if u.n.Data != "p" && !(u.n.Data == "div" && onlyInline(u.n)) || u.total == 0 || u.inLink || u.card || 2*u.links >= u.total {
		return false
	}
	text := strings.TrimSpace(htmlnode.Text(u.n))
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".!?…。", r)
}

// listItem reports whether n is, or is inside, an item of a list.
func listItem(n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "li" {
			return true
		}
	}
	return false
}

// landmark is the element around n that the page names as its main
// part, if any.
func landmark(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		if p.Data == "main" {
			return p
		}
		for _, a := range p.Attr {
			if a.Key == "role" && a.Val == "main" {
				return p
			}
		}
	}
	return nil
}

// leadBox is the element right before n when it is a small box of text
// without links (at most maxLeadRegion units): a manual page's title and
// one-line summary set apart from its body, not a site's linked logo.
func leadBox(w weights, n *html.Node) *html.Node {
	box := htmlnode.PrevElement(n)
	if box == nil {
		return nil
	}
	if t := w.tallies[box]; t != nil && t.links == 0 && t.text > 0 && t.units <= maxLeadRegion {
		return box
	}
	return nil
}

// closingSentence is the paragraph right after list n (empty elements
// aside) when it reads as a sentence however much of it is links (see
// linkedSentence): the line that closes a list of changes ("A complete
// list of releases … is also available."), or nil.
func (c *chosen) closingSentence(w weights, n *html.Node) *html.Node {
	if n.Data != "ul" && n.Data != "ol" {
		return nil
	}
	for k := n.NextSibling; k != nil; k = k.NextSibling {
		if t := w.tallies[k]; k.Type == html.ElementNode && t != nil && t.text > 0 {
			if u := c.unitOf[k]; u != nil && linkedSentence(u) {
				return k
			}
			return nil
		}
		if k.Type == html.TextNode && strings.TrimSpace(k.Data) != "" {
			return nil
		}
	}
	return nil
}

// oneOfSections reports whether child is the body of one of container's
// sections: a heading stands right before it, and at least two more
// headings of its level stand among container's children (an API page's
// "Implementations", "Trait Implementations", …).
func oneOfSections(container, child *html.Node) bool {
	h := htmlnode.PrevElement(child)
	if h == nil || !htmlnode.IsHeading(h) || linkShare(h) >= 0.5 {
		return false
	}
	others := 0
	for k := container.FirstChild; k != nil; k = k.NextSibling {
		if k != h && k.Type == html.ElementNode && k.Data == h.Data {
			others++
		}
	}
	return others >= 2
}

// restClean reports whether what a container holds outside its child
// is mostly prose, or short paragraphs beside fewer links (an API
// module's items and their one-line descriptions), not links or teasers
// (a comment thread and the related stories are not sections of the
// article). The links of a table of contents the page names are the
// document's own, and do not count against it.
func restClean(container, child *tally) bool {
	pro := container.pro - child.pro
	con := container.con - container.contents - (child.con - child.contents)
	paragraphs, text := container.paragraphs-child.paragraphs, container.text-child.text
	return con*linkDiscount <= pro || paragraphs >= minRestParagraphs && 3*con < text
}

// isRoot reports whether n is one of roots.
func isRoot(n *html.Node, roots []*html.Node) bool {
	for _, r := range roots {
		if n == r {
			return true
		}
	}
	return false
}

// sectionBeside reports whether container, outside its child narrower,
// holds a section of the document: a heading (not a link) with a
// paragraph of prose after it. The article is then the whole container
// (an API page's description and the sections of its methods), not the
// part with the most prose.
func (c *chosen) sectionBeside(container, narrower *html.Node) bool {
	levels := map[string]bool{}
	for _, u := range c.units {
		if htmlnode.IsHeading(u.n) && inside(u.n, narrower) {
			levels[u.n.Data] = true
		}
	}
	headed, prose := false, false
	for _, u := range c.units {
		if !inside(u.n, container) || inside(u.n, narrower) {
			continue
		}
		if htmlnode.IsHeading(u.n) && levels[u.n.Data] && u.total > 0 && 2*u.links < u.total {
			headed = true
			continue
		}
		if pro, _ := u.weigh(); pro > 0 || proseUnit(u) && !u.card {
			prose = true
		}
	}
	return headed && prose
}

// styleHidden reports whether n's style hides it.
func styleHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "style" {
			v := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			return strings.Contains(v, "display:none") || strings.Contains(v, "visibility:hidden")
		}
	}
	return false
}

// isCard reports whether block n is part of a card: a small block (at
// most maxCardBlocks elements) in which a heading made of a link stands
// before n, as in a teaser of another page (its title links to it, a
// picture, a date or a category may come first). n may be in the card or
// in a block of it, up to maxCardDepth levels below it.
func isCard(n *html.Node) bool {
	for level := 0; level < maxCardDepth && n.Parent != nil; level++ {
		p := n.Parent
		count, titled, before, more := 0, false, true, false
		for k := p.FirstChild; k != nil && count <= maxCardBlocks; k = k.NextSibling {
			if k.Type != html.ElementNode {
				continue
			}
			count++
			if k == n {
				before = false
				continue
			}
			if before && !titled {
				// A heading that is a link, or, right before, a link
				// that holds a heading (a teaser's picture and title as
				// one link).
				titled = (htmlnode.IsHeading(k) || k.Data == "a" && k == htmlnode.PrevElement(n) && htmlnode.FirstBelow(k, htmlnode.IsHeading) != nil) && strings.TrimSpace(htmlnode.Text(k)) != "" && linkShare(k) >= minCardTitleLinks
			}
			if !before && !more {
				more = readMoreLink(k)
			}
		}
		if (titled || more) && count <= maxCardBlocks {
			return true
		}
		n = p
	}
	return false
}

// readMoreLink reports whether n is a link that reads on elsewhere
// ("Read more", "Mehr lesen…"), as a teaser of another page ends, or a
// block that holds only such a link.
func readMoreLink(n *html.Node) bool {
	a := n
	// The link, or the one element of a block (of a wrapper of it: two
	// levels at most, so that the test stays cheap).
	for level := 0; a != nil && a.Data != "a"; level++ {
		if level == 2 {
			return false
		}
		a = htmlnode.OnlyElement(a)
	}
	return a != nil && htmlnode.Attr(a, "href") != "" && readMore.MatchString(strings.TrimSpace(htmlnode.Text(a)))
}

// readMore is the whole text of a link that reads on elsewhere, in the
// languages of the pages measured.
var readMore = regexp.MustCompile(`(?i)^[»›>\s]*(read more|read on|continue reading|learn more|find out more|more|mehr|mehr lesen|mehr erfahren|mehr dazu|weiter|weiterlesen|zum artikel|zum beitrag|lire la suite|en savoir plus|leer más|seguir leyendo|ver más|leia mais|saiba mais|continua a leggere|leggi tutto|scopri di più|czytaj dalej|czytaj więcej|więcej|lees meer)[\s.…»›>•]*$`)

// maxCardBlocks is the most elements of a card.
const maxCardBlocks = 6

// maxCardDepth is how deep below a card its blocks may stand.
const maxCardDepth = 3

// minCardTitleLinks is the least share of a card's heading that is a
// link (the rest may be a category, a kicker).
const minCardTitleLinks = 0.7

// minRestParagraphs is how many short paragraphs beside the narrowed part
// make sections of the document (an API module's item descriptions)
// rather than a box or two of the page's.
const minRestParagraphs = 6
