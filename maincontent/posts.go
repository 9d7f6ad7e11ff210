package maincontent

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// This file keeps the posts of a thread, the entries of a feed, the
// items of a listing set out in full: when what the weighing chose is one
// of several elements the page builds alike (the same element, the same
// class, the same shape of elements below), each holding prose of its
// own, the content is all of them, not the one that happened to weigh
// most. A thread's comments are its content however long its longest.

// minRepeats is the least number of elements built alike, the chosen one
// among them, that makes them the page's posts.
const minRepeats = 3

// minShapeShare is the least share of the element paths below two
// elements they must have in common to be built alike (shapeAlike).
const minShapeShare = 0.6

// shapeDepth is how deep below an element its shape is read.
const shapeDepth = 4

// keepPosts keeps, when the article's core is one of the page's posts
// (repeatedPosts, as pruneSections found them), the prose of each of
// them: its paragraphs, the blocks that are content by their kind, and
// blocks mostly of their own words.
func (c *chosen) keepPosts(posts map[*html.Node]bool) {
	for _, u := range c.units {
		if u.kept || u.total == 0 || u.inLink || u.hidden || u.card {
			continue
		}
		p := u.n
		for p != nil && !posts[p] {
			p = p.Parent
		}
		if p != nil && (contentByKind(u) || proseUnit(u) || 2*u.links < u.total && u.total-u.links >= minSentence) {
			u.kept = true
		}
	}
}

// repeatedPosts is, for the lowest element from n up to the body that
// stands among at least minRepeats-1 siblings built alike (postsAlike),
// it and those siblings; nil when there is none.
func repeatedPosts(n *html.Node) map[*html.Node]bool {
	for ; n != nil && n.Parent != nil && n.Data != "body"; n = n.Parent {
		if n.Type != html.ElementNode {
			continue
		}
		if posts := postsAlike(n); len(posts) >= minRepeats {
			return posts
		}
	}
	return nil
}

// postsAlike is n and its siblings built alike to it (same element, same
// class, shapes alike) that hold prose of their own, when n is one of
// them; nil otherwise.
func postsAlike(n *html.Node) map[*html.Node]bool {
	// The siblings of one tag and class are counted first: most
	// elements have none, and the rest is read only where there are
	// enough of them (a page of 100,000 nested elements walks each
	// level once).
	class, alike := htmlnode.Attr(n, "class"), 1
	for s := n.Parent.FirstChild; s != nil && alike < minRepeats; s = s.NextSibling {
		if s != n && s.Type == html.ElementNode && s.Data == n.Data && htmlnode.Attr(s, "class") == class {
			alike++
		}
	}
	if alike < minRepeats || !holdsProse(n) {
		return nil
	}
	shape := shapeOf(n)
	posts := map[*html.Node]bool{n: true}
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s == n || s.Type != html.ElementNode || s.Data != n.Data || htmlnode.Attr(s, "class") != class {
			continue
		}
		if shapeAlike(shape, shapeOf(s)) && holdsProse(s) {
			posts[s] = true
		}
	}
	return posts
}

// holdsProse reports whether n holds a run of text outside links of a
// sentence at least.
func holdsProse(n *html.Node) bool {
	return plainText([]*html.Node{n}) >= minSentence
}

// shapeOf is the set of element paths below n, down to shapeDepth.
func shapeOf(n *html.Node) map[string]bool {
	shape := map[string]bool{}
	var walk func(n *html.Node, path string, depth int)
	walk = func(n *html.Node, path string, depth int) {
		if depth == shapeDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			p := path + "/" + c.Data
			shape[p] = true
			walk(c, p, depth+1)
		}
	}
	walk(n, "", 0)
	return shape
}

// shapeAlike reports whether two shapes share minShapeShare of their
// paths.
func shapeAlike(a, b map[string]bool) bool {
	common := 0
	for p := range a {
		if b[p] {
			common++
		}
	}
	union := len(a) + len(b) - common
	return union == 0 || float64(common) >= minShapeShare*float64(union)
}

// postTypes are the schema.org types whose text (itemprop "text" or
// "articleBody") is a post of a discussion: a question and its answers,
// a forum's posting and its replies.
var postTypes = map[string]bool{"Question": true, "Answer": true, "DiscussionForumPosting": true, "SocialMediaPosting": true}

// declaredPosts are the elements below body that the page declares, in
// microdata, the text of one of its posts (postTypes); a comment's text
// is a post where the page declares a forum's posting (replies), not
// where it declares a question (remarks under a question or an answer).
func declaredPosts(body *html.Node) map[*html.Node]bool {
	var posts map[*html.Node]bool
	var walk func(n *html.Node, item string, forum bool)
	walk = func(n *html.Node, item string, forum bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			it, fm := item, forum
			if t := htmlnode.Attr(c, "itemtype"); t != "" {
				it = t[strings.LastIndexAny(t, "/#")+1:]
				fm = fm || it == "DiscussionForumPosting"
			}
			if p := htmlnode.Attr(c, "itemprop"); (p == "text" || p == "articleBody") && (postTypes[it] || it == "Comment" && fm) {
				if posts == nil {
					posts = map[*html.Node]bool{}
				}
				posts[c] = true
				continue
			}
			walk(c, it, fm)
		}
	}
	walk(body, "", false)
	return posts
}
