package maincontent

import "github.com/durablecrawl/crawler/pagekind"

// What the main content is, by the kind of page. A page's kind is what it
// declares (package pagekind: schema.org types, Open Graph), or, where it
// declares nothing, what its structure shows. Each principle below is
// one rule of this package, named where it lives; none reads a site's
// name or the page's wording.
//
// Every page
//   - Its own region: the first <main> or role=main that holds text,
//     else its body (ownRegion). What the page names or lays out as
//     furniture (nav, aside, footer, forms, dialogs, menus, cookie and
//     newsletter boxes; classes and ids that say so) is not content
//     (pruneSections, furnitureBy); a block so named that holds prose and
//     is not mostly links is (an aside, a sidebar note, a page builder's
//     widget). A furniture word that names the blocks around the
//     article level after level is the page builder's layout, not
//     furniture (layoutWords).
//   - What its styles or attributes hide is not content (styleHidden;
//     dropUnseen in package markdown); a tab a script shows is
//     (unfoldTabs in package markdown), and so is a panel a control
//     folds away (an accordion's, opened by a button that says what it
//     controls: unfoldDisclosures in package markdown).
//   - Text laid out twice (a copy for phones, one for wide screens) is
//     read once (dropRepeats).
//   - A reference (code blocks, definition terms, signatures in numbers
//     prose does not have) is its region whole (regionStats.reference).
//
// Article (declared, or found by the weighing: score.go)
//   - The article, its headline, standfirst, figures, code and tables
//     (choose.go), its sections side by side (keepSiblingSections), a
//     list it holds whole, items before and after its span included
//     (keepWholeLists), the sentences that close its <article>
//     (keepArticleEnd).
//   - Not its author's card: an element the page declares its author
//     (microdata) is never where the article is (declaredAuthor).
//   - Not what follows it: other stories' teasers, "related" runs, a
//     comment thread, a newsletter box (trim.go); where independent
//     extractors agree an edge block is not the article, it goes
//     (outvote.go).
//   - When what the weighing found is a sliver of the region (a list
//     page's introduction), the page is its region whole (partForWhole).
//
// Discussion (a forum thread or a Q&A page, declared)
//   - Every post in order, with its author and time: each <article> its
//     software names a comment is a post, and what is below it (its
//     author's aside) is its own; its signature is not (inDiscussion).
//   - What the page declares a post's text in microdata (itemprop
//     "text" of a Question, an Answer, a forum's posting, and of its
//     Comments where it is a forum) is a post, however the weighing
//     found the rest: a question built unlike its answers stays with
//     them (declaredPosts).
//   - A poster's card (when they joined, their counts of posts and likes,
//     where they live: a short definition list in a post) is not content;
//     their name is (posterCard).
//
// Posts built alike (a thread, a feed, declared or not)
//   - When the block of most prose is one of several siblings the page
//     builds alike, every one of them is content, not the longest alone
//     (posts.go).
//
// Product (one product, declared)
//   - Its buy box (a form of its options, its price, its cart button) is
//     content, not furniture (ofProduct).
//
// Listing (a collection page, a list of items or several products,
// declared)
//   - Every item in order: its region whole, not the one item the weighing
//     finds longest (wholeRegion).
//   - A word every item of a listing carries in its class (a shop's
//     "subscription-eligible" products) says what the items are, not
//     that they are a section to remove (listings.item).

// kindRules are what a page's declared kind changes in the selection.
type kindRules struct {
	// names say which names mark sections that are not content, on the
	// article's path and on the region's.
	names, regionNames naming
	// whole is set when the page is its region whole.
	whole bool
}

// rulesOf is the rules for a page of kind k.
func rulesOf(k pagekind.Kind) kindRules {
	r := kindRules{names: pageNaming, regionNames: referenceNaming}
	switch k {
	case pagekind.Discussion:
		r.names, r.regionNames = pageNamingInDiscussion, referenceNamingInDiscussion
	case pagekind.Product:
		r.names, r.regionNames = r.names.ofProduct(), r.regionNames.ofProduct()
	case pagekind.Listing:
		r.whole = true
	}
	return r
}
