package maincontent

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/durablecrawl/crawler/htmlnode"
)

// trimArticle removes from the chosen content what surrounds the
// article rather than belongs to it. The article's span runs from its
// first paragraph of prose to its last (see prose).
//   - Before the span go a heading that repeats one before it (the
//     headline stays once), bylines and datelines, and lists of links or
//     of icons.
//   - After it go lists of links (related stories, tags, "more from"),
//     paragraphs that are all a link (other stories' teasers) and
//     headings left with nothing to head ("Comments", "Related videos").
//   - A heading that opens the page's tail ("More from …", "Comments",
//     see tailHeading) goes with everything after it, when that is short
//     or only stories' teasers.
//   - Anywhere go short paragraphs that are one link ("Reuse content",
//     "Read more") or point to another page ("Related: …" with its link),
//     pictures' credit lines
//     and copyright notices, calls to subscribe, follow or comment,
//     affiliate disclosures, labels left where an advertisement stood, and a paragraph that repeats an earlier one
//     word for word.
//
// A list of links between two paragraphs of prose is the article's own
// (its sources, a changelog) and stays; so is one the line before it
// announces (see announces).
func trimArticle(content *html.Node, title string) (removed int) {
	return trimBlocks(content, title, nil, false)
}

// trimRuled trims what the rules took (see mainContent) from page: as an
// article when it holds a paragraph of prose; else it is a list, whose
// entries, each a link, are what it says. No block stands before or after
// an article there, lines of one link and labels ("Table of Contents") are
// entries, not asides, and entries may repeat; the rest of trimArticle's
// rules hold, a heading that opens the page's tail ("You may also like")
// still cuts what follows it, and a list that only outlines the page's own
// headings goes (dropOwnOutlines).
func trimRuled(content *html.Node, title string, page *url.URL) {
	trimBlocks(content, title, page, true)
}

// trimBlocks is trimArticle, or trimRuled when ruled is set. It returns
// the words of the blocks it removed (not those of credits cut from a
// caption).
func trimBlocks(content *html.Node, title string, page *url.URL, ruled bool) (removed int) {
	dropCredits(content)
	blocks := blocksOf(content)
	first, last := proseSpan(blocks)
	list := ruled && first > last
	if list {
		if dropOwnOutlines(content, page) {
			blocks = blocksOf(content)
		}
		first, last = -1, -1
	}
	drop := make([]bool, len(blocks))
	seen := map[string]bool{}
	headings := map[string]bool{}
	for i, b := range blocks {
		before, after := i < first, i > last && !list
		switch {
		case paragraph(b) && aside(b) && !(list && (shortLink(b) || pointer(b) || label(b.text))):
			drop[i] = true
		case htmlnode.IsHeading(b.n) && callToAction(b.text):
			drop[i] = true // "Share your thoughts and debate the big issues"
		case b.n.Data == "figcaption" && credit(b.text):
			drop[i] = true // a caption that only credits the picture
		case (before || after) && (b.n.Data == "ul" || b.n.Data == "ol") && (b.share >= 0.8 || icons(b.n)) && !(i > 0 && (announces(blocks[i-1], b.n) || htmlnode.IsHeading(blocks[i-1].n) || closingContents(blocks[i-1].n) == b.n)) && !namedContents(b.n):
			drop[i] = true
		case i > first && i >= last && paragraph(b) && copyrightLine(b.text):
			drop[i] = true // the site's, in its footer; a manual's title page may say it before its text
		case after && paragraph(b) && b.share >= 0.9:
			drop[i] = true // another story's teaser, all of it a link
		case before && htmlnode.IsHeading(b.n) && headings[strings.ToLower(b.text)]:
			drop[i] = true // the headline stays once
		case before && paragraph(b) && kicker(b.text):
			drop[i] = true // a section's name over the article ("Promis", "Artikel")
		case before && !htmlnode.IsHeading(b.n) && byline(b.text):
			drop[i] = true
		case i == first && paragraph(b) && b.runes <= maxMetaLine && metaLine(b.text):
			drop[i] = true // long enough to read as the first paragraph
		case !list && paragraph(b) && repeats(b.text, seen):
			drop[i] = true
		}
		if htmlnode.IsHeading(b.n) && !drop[i] {
			headings[strings.ToLower(b.text)] = true
			// A paragraph repeated under another heading documents
			// that section's own subject (an overload's description).
			clear(seen)
		}
	}
	if t := tail(blocks, first, last); t >= 0 {
		for i := t; i < len(blocks); i++ {
			drop[i] = true
		}
	}
	if !list {
		dropEmptyHeadings(blocks, drop, last)
	}
	for i, b := range blocks {
		if drop[i] && b.n.Parent != nil {
			removed += htmlnode.Words(b.n)
			b.n.Parent.RemoveChild(b.n)
		}
	}
	return removed
}

// dropEmptyHeadings marks in drop the headings after the span (after
// blocks[last]) that head nothing: no block kept follows before the
// next heading of their level or above (a section's heading heads the
// entries under it, each a lower heading and a line), unless one labels
// a group of headings of its own level right under it.
func dropEmptyHeadings(blocks []block, drop []bool, last int) {
	// heads[k] is whether a block kept follows before the next heading
	// of level k or above.
	var heads [7]bool
	for i := len(blocks) - 1; i > last; i-- {
		switch {
		case drop[i]:
		case htmlnode.IsHeading(blocks[i].n):
			level := int(blocks[i].n.Data[1] - '0')
			// A heading right over a kept heading of its own level, its
			// next sibling, labels a group of them ("Member Function
			// Documentation", then each function's heading).
			label := i+1 < len(blocks) && !drop[i+1] && blocks[i+1].n.Data == blocks[i].n.Data && blocks[i+1].n == htmlnode.NextElement(blocks[i].n)
			drop[i] = !heads[level] && !label
			for k := range heads {
				heads[k] = k < level && (heads[k] || !drop[i])
			}
		default:
			heads = [7]bool{true, true, true, true, true, true, true}
		}
	}
}

// dropCredits cuts the credit that ends a picture's alt text or a
// caption ("… Foto: Galli/Malteser", "(Photo: Getty)"): the picture and
// what it shows stay.
func dropCredits(content *html.Node) {
	var walk func(n *html.Node, caption bool)
	walk = func(n *html.Node, caption bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.ElementNode && c.Data == "img":
				for i, a := range c.Attr {
					if a.Key == "alt" {
						c.Attr[i].Val = cutCredit(a.Val)
					}
				}
			case c.Type == html.ElementNode:
				if c.Data == "figcaption" {
					dropCreditChild(c)
				}
				walk(c, caption || c.Data == "figcaption")
			case c.Type == html.TextNode && caption && c.NextSibling == nil:
				c.Data = cutCredit(c.Data)
			}
		}
	}
	walk(content, false)
}

// dropCreditChild removes the last element of a caption when it only
// credits the picture and the caption says more before it: "<span>What
// it shows.</span><span>Kuva: A. Name</span>".
func dropCreditChild(caption *html.Node) {
	last := caption.LastChild
	for last != nil && last.Type == html.TextNode && strings.TrimSpace(last.Data) == "" {
		last = last.PrevSibling
	}
	if last == nil || last.Type != html.ElementNode || last.PrevSibling == nil {
		return
	}
	if text := strings.Join(strings.Fields(htmlnode.Text(last)), " "); credit(text) {
		caption.RemoveChild(last)
	}
}

// creditTail ends a text with a picture's credit: "Foto: …", "(Photo:
// …)", "Bild: …", "Image: …", "Credit: …", after a sentence or a space.
var creditTail = regexp.MustCompile(`(?i)(^|[.!?]\s+|\s+)\(?(` + creditWords + `)\s*:\s*[^!?:()]{1,60}\)?\s*$`)

// creditWords label a picture's credit: "Photo", "Bild", "Kuva",
// "Imagen", "Crédito", "Quelle" (its source)…
const creditWords = `image|` + creditLabelWords

// creditLabelWords open a line that credits a picture; "Image:" does
// not, as documentation lists settings that way ("Image: the container
// image to run").
const creditLabelWords = `photo|photos|photograph|picture|foto|fotos|bild|titelbild|bildquelle|quelle|credit|crédit photo|crédits? photos?|photo credit|` +
	`kuva|imagen|crédito|créditos|fotografía|fuente|fonte|zdjęcie|fot\.`

// cutCredit removes the credit that ends text, if one does and text is
// more than that credit.
func cutCredit(text string) string {
	loc := creditTail.FindStringIndex(text)
	if loc == nil || loc[0] == 0 {
		return text
	}
	end := loc[0]
	if m := creditTail.FindStringSubmatch(text); len(m) > 1 && m[1] != "" && strings.TrimSpace(m[1]) != "" {
		end += len(strings.TrimRight(m[1], " \t\n")) // keep the sentence's full stop
	}
	return strings.TrimRight(text[:end], " \t\n,;–-")
}

// aside reports whether paragraph p is, wherever it stands, a line the
// page adds to the article: one link, a pointer, a label, tags, a
// credit, a call to action or a disclosure.
func aside(p block) bool {
	// Every other line is at most a note's length.
	return p.runes <= maxNote && (shortLink(p) || pointer(p) || label(p.text) ||
		credit(p.text) || copyrightNotice(p.text) || callToAction(p.text) || disclosure(p.text) || postNote.MatchString(p.text) ||
		placeholderNote.MatchString(p.text))
}

// creditLabel starts a picture's credit line.
var creditLabel = regexp.MustCompile(`(?i)^\(?(` + creditLabelWords + `|(photo|image|picture) credit|image (source|courtesy))s?\s*:`)

// creditEnd ends a line with a credit or copyright notice: "©" opening
// the line or a sentence of it, and running to its end without a comma.
var creditEnd = regexp.MustCompile(`(^|[.!?|]\s+)©[^,;!?]*$`)

// credit reports whether text is a short line crediting a picture
// ("Photo: …", "… © AFP / A. Name") or a copyright notice.
func credit(text string) bool {
	if utf8.RuneCountInString(text) > maxByline {
		return false
	}
	text = strings.TrimLeft(text, " .,;–-") // ". Imagen: Télam" after an empty caption's full stop
	return creditLabel.MatchString(text) || strings.Contains(text, "©") && creditEnd.MatchString(text)
}

// rightsReserved are the phrases that say a text is under copyright:
// "All rights reserved", in a few languages.
var rightsReserved = []string{"all rights reserved", "alle rechte vorbehalten", "urheberrechtlich geschützt", "wszelkie prawa zastrzeżone",
	"chroniony prawem autorskim", "todos los derechos reservados", "tous droits réservés", "tutti i diritti riservati", "todos os direitos reservados",
	// and the site's licence
	"except where otherwise noted", "content on this site is licensed", "inhalte dieser website unter", "inhalte dieser seite unter"}

// copyrightNotice reports whether text is a short notice of the site's
// copyright ("Materiał chroniony prawem autorskim - wszelkie prawa
// zastrzeżone. …"), which may be longer than a credit.
func copyrightNotice(text string) bool {
	return utf8.RuneCountInString(text) <= maxNote && mentionsAny(text, rightsReserved)
}

// mentionsAny reports whether text holds one of phrases (lower case),
// in any case.
func mentionsAny(text string, phrases []string) bool {
	lower := strings.ToLower(text)
	for _, p := range phrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// A call to action asks the reader to subscribe, follow or comment, or
// to take their questions to the site's forum: it starts like one and
// speaks of the site (its newsletter, "follow us", "what you think of
// this article", "the Community"), so that a line of documentation
// ("Subscribe to events with …", "Get started by signing up") is not
// taken for one.
var (
	ctaStart = regexp.MustCompile(`(?i)^(never miss|don'?t miss|get|sign up|subscribe|join|follow|want|do you want|like (this|what)|enjoy(ed)?|if you (enjoyed|liked|like)|we want to hear|share your thoughts|click here|` +
		`help us|support (us|our)|please (support|donate)|` +
		`zum newsletter|melde dich|abonnier|unterstütze|jede (kleine )?spende|spenden sie|wenn ihnen (unser|dieser) (artikel|beitrag|text) gefallen hat|gefällt (dir|ihnen) unser|` +
		`zapraszamy|wesprzyj|suscr[ií]bete|inscr[ií]bete|apoya|puede escribirnos|s[ií]guenos|abonnez|soutenez|` +
		`(do you )?(still )?have (any |more )?questions)\b`)
	ctaWords = regexp.MustCompile(`(?i)(newsletter|inbox|follow us|us on (twitter|facebook|instagram|linkedin|youtube)|what you think|your thoughts|this (post|article|story)|our (magazine|site|blog|channel|podcast|journalism|work)|abonn|subskrypcj|suscr|inscr|` +
		`journalis|spende|donat|unterstütz|magazin|wesprzyj|nas\b|soutien|apoy|community|forum|find answers)`)
)

// callToAction reports whether text is a short call to action.
func callToAction(text string) bool {
	return utf8.RuneCountInString(text) <= maxCallToAction && ctaStart.MatchString(text) && ctaWords.MatchString(text)
}

// copyrightLine reports whether text is a short line that starts with
// the site's copyright ("Copyright © 2020 by: … • Design by: …").
func copyrightLine(text string) bool {
	if utf8.RuneCountInString(text) > maxNote {
		return false
	}
	lower := strings.ToLower(text)
	return strings.HasPrefix(lower, "copyright ©") || strings.HasPrefix(lower, "© copyright") || strings.HasPrefix(lower, "copyright (c)")
}

// placeholderNote starts what a page shows in place of something it
// has not loaded or listed: an embed waiting for consent ("Klicken Sie
// auf den unteren Button, um den Inhalt von … zu laden"), a prompt for
// browser notifications, a count of the items listed ("Es werden die
// Weine 1 bis 10 von insgesamt 19 angezeigt", "Showing 1–10 of 19"), a
// widget still loading ("Like Loading...").
var placeholderNote = regexp.MustCompile(`(?i)^(klicken sie auf den (unteren )?button,? um den inhalt|click (on )?the button( below)? to load the content|` +
	`mit dem laden de(s|r) (inhalts?|videos|karte) akzeptieren sie|` +
	`(push-)?benachrichtigung(en)? aktivieren|dürfen wir sie in ihrem browser|(allow|enable|turn on) (push )?notifications|` +
	`(es werden (die )?\S+ )?\d+ (bis|-|–) \d+ von (insgesamt )?\d+|showing \d+ ?(to|-|–) ?\d+ of \d+|` +
	`(\S+ )?loading ?(\.\.\.|…)$)`)

// postNote starts a line a blog adds to each post, not its text: when
// and where it was filed ("This entry was posted on … and is filed under
// …", "Der Beitrag wurde am … veröffentlicht") or that it speaks for its
// author only.
var postNote = regexp.MustCompile(`(?i)^(this (entry|post) was posted (on|in)|(der|dieser) beitrag wurde am|erstellt am .{5,60} (und )?abgelegt unter|` +
	`(this|the) (article|post|piece|column) (reflects|represents|expresses) (only )?the (views|opinions?) of|the views expressed (in|here)|` +
	`(dieser|der) (beitrag|artikel|text) gibt (die|allein die|ausschließlich die) meinung|bei diesem beitrag handelt es sich um ein blog)`)

// maxCallToAction is the longest call to action, in characters.
const maxCallToAction = 200

// disclosureWords tell that a paragraph discloses the site's affiliate
// earnings rather than says something of the subject.
var disclosureWords = regexp.MustCompile(`(?i)(affiliate[- ]?links?|affiliate commission|contains? (references to products|affiliate)|we recommend the best products|` +
	`(we|i|the site|this site)( may| might| will| could)? (earn|receive|get|make) (a |an )?(small )?(share of sales|commission|compensation)|` +
	`(links|verlinkungen|käufen?|kauf)\b.{0,80}\bprovision)`)

// disclosure reports whether text is a short affiliate disclosure.
func disclosure(text string) bool {
	// The expression backtracks over every paragraph; a disclosure names
	// one of the hints first.
	return utf8.RuneCountInString(text) <= maxNote && mentionsAny(text, disclosureHints) && disclosureWords.MatchString(text)
}

// disclosureHints are words every match of disclosureWords holds.
var disclosureHints = []string{"affiliate", "commission", "compensation", "share of sales", "provision", "recommend the best", "references to products"}

// maxNote is the longest note after an article, in characters.
const maxNote = 400

// icons reports whether most items of list n have no text: buttons drawn
// as icons (share on this, share on that).
func icons(n *html.Node) bool {
	items, empty := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "li" {
			items++
			if strings.TrimSpace(htmlnode.Text(c)) == "" {
				empty++
			}
		}
	}
	return items > 0 && 2*empty > items
}

// repeatsTitle reports whether every word of a heading's text is in the
// title.
func repeatsTitle(heading, title string) bool {
	words := wordsOf(heading)
	if len(words) == 0 {
		return false
	}
	in := map[string]bool{}
	for _, w := range wordsOf(title) {
		in[w] = true
	}
	for _, w := range words {
		if !in[w] {
			return false
		}
	}
	return true
}

// wordsOf is s's words, lower case: runs of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Bylines and datelines: a block that starts with a byline's words or a
// date.
var (
	bylineStart = regexp.MustCompile(`(?i)^(by|posted by|written by|from|published|updated|posted|last updated|last modified|` +
		`von|verfasst von|aktualisiert|veröffentlicht|erstellt am|publikacja|aktualizacja|autor|publicado|actualizado|publié|mis à jour|par|pubblicato|aggiornato|atualizado)\b`)
	dateStart = regexp.MustCompile(`(?i)^((mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(st|nd|rd|th)?\.?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+\d{4}|` +
		`\d{1,2}[.\s]*(` + monthWords + `)\p{L}{0,6}\.?[\s./-]*\d{4})`)
)

// monthWords are the first letters of months' names in the languages
// of Europe's larger sites beside English ("21.dez.2018", "3 juin 2021",
// "5. März 2020").
const monthWords = `jan|fe[bv]|fév|mär|mar|abr|avr|apr|ma[iyg]|jun|juin|jul|juil|ago|aoû|aug|set|sep|out|ott|okt|oct|nov|de[cz]|déc|dic|ene|gen|giu|lug|` +
	`sty|lut|kwi|cze|lip|sie|wrz|paź|lis|gru`

// maxByline is the longest byline or dateline, in characters.
const maxByline = 120

// byline reports whether a block's text is a byline or a dateline.
func byline(text string) bool {
	if text == "" {
		return false
	}
	if n := utf8.RuneCountInString(text); n > maxByline {
		return n <= maxMetaLine && metaLine(text)
	}
	return bylineStart.MatchString(text) || mayStartWithDate(text) && dateStart.MatchString(text) ||
		metaLine(text)
}

// maxMetaLine is the longest line of particulars (see metaLine), in
// characters: it may name several authors.
const maxMetaLine = 200

// metaLine reports whether text is a line of the article's particulars
// parted by bars or bullets, one of them a date ("Le Monde | 04.05.2015 à
// 13h36 • Mis à jour le 05.05.2015 | Par …").
func metaLine(text string) bool {
	return strings.ContainsAny(text, "|•·") && dateWithin.MatchString(text)
}

// dateWithin matches a date given in figures anywhere in a line.
var dateWithin = regexp.MustCompile(`\b(\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{4}-\d{2}-\d{2})\b`)

// kicker reports whether text is one word without a sentence's stop: a
// label standing before the article (its section, a breadcrumb's last
// step).
func kicker(text string) bool {
	if text == "" || len(strings.Fields(text)) != 1 || utf8.RuneCountInString(text) > 30 || strings.ContainsAny(text, ".!?:") {
		return false
	}
	// Chinese, Japanese, Korean and Thai write a sentence without
	// spaces: one "word" there may say anything.
	for _, r := range text {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
			return false
		}
	}
	return true
}

// dateWords are the first three letters of the words a date can start
// with: days and months.
var dateWords = map[string]bool{"mon": true, "tue": true, "wed": true, "thu": true, "fri": true, "sat": true, "sun": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "may": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"oct": true, "nov": true, "dec": true}

// mayStartWithDate reports whether text starts with a digit or with the
// first letters of a day or a month: a cheap test before dateStart.
func mayStartWithDate(text string) bool {
	if text[0] >= '0' && text[0] <= '9' {
		return true
	}
	return len(text) >= 3 && dateWords[strings.ToLower(text[:3])]
}

// pointerStart starts a paragraph that points elsewhere ("Read more: …",
// "Related: …", and the same in a few other languages) rather than says
// something.
var pointerStart = regexp.MustCompile(`(?i)^(read more|read also|also read|related|see also|recommended|more on this|more from|watch|listen|` +
	`lesen sie (auch|mehr|hier)|mehr zum thema|auch interessant|siehe auch|` +
	`(le|te) puede interesar|lea también|lee también|ver también|puedes ver|` +
	`(à )?lire aussi|voir aussi|leggi anche|(leia|veja) também|czytaj (też|także)|zobacz (też|także))\s*[:›»>|-]`)

// tailHeading is the text of a heading that opens what follows an
// article: other stories ("More from …", "You may also like", "Das
// könnte Sie auch interessieren"), comments and calls to subscribe. A
// phrase may start a longer heading ("More from the harbour desk"); a
// word that also heads an article's own section ("Popular varieties")
// counts only as the whole heading ("Related", "Comments").
var tailHeading = regexp.MustCompile(`(?i)^((` +
	`more (from|on|stories|news|articles|in)|other .*(stories|articles|columns|news)|` +
	`(you|we think you) (may|might|will) (also )?(like|enjoy|be interested)|most (read|popular|viewed|shared)|read next|what to read next|` +
	`(featured|recent|latest|popular|related|recommended|trending) (news|stories|articles|posts|videos|content|links|reading|slide ?shows)|` +
	`\d+ comments?|leave a (reply|comment)|join the (conversation|discussion)|` +
	`(das|dies) (könnte|dürfte) sie auch interessieren|weitere (aktuelle )?(artikel|beiträge|themen|nachrichten|meldungen)|mehr (themen|zum thema|aus|von|zu)|ähnliche (artikel|beiträge)|` +
	`zum weiterlesen|lesen sie auch|verwandte (artikel|beiträge|themen)|schon gelesen|neueste (artikel|beiträge|nachrichten)|videos? zum thema|entdecke weitere|kommentierte artikel|\d+ kommentare?|` +
	`(le|te) puede interesar|también te puede interesar|más (sobre|noticias|de)|noticias relacionadas|lo más (leído|visto)|\d+ comentarios?|` +
	`(à )?lire aussi|sur le même (sujet|thème)|articles? similaires|\d+ commentaires?|` +
	`leggi anche|articoli correlati|potrebbe interessarti|\d+ commenti|` +
	`(leia|veja) também|notícias relacionadas|\d+ comentários|` +
	`czytaj (też|także)|zobacz (też|także)|\d+ komentarze|` +
	`(ihr(e)? )?ansprechpartner(in)?|pressekontakt|kontakt für (die )?(presse|medien)|fragen zu diese(m|r) (artikel|beitrag|meldung)|` +
	`weitere informationen|mehr informationen|weiterführende (informationen|links)|(press|media) (contacts?|enquiries|inquiries)|` +
	`share your thoughts|mehr zum|więcej informacji|aktuelle (news|nachrichten|meldungen|beiträge|artikel))\b|` +
	`(tags|schlagworte|schlagwörter|topics|etiquetas|mots-clés|argomenti|tagi)[\s:]*$|` +
	`(related|recommended|popular|trending|comments?|share this|subscribe|sign up|` +
	`about the author|comments are closed|was this (article|page|post) (helpful|useful)|contact|kontakt|` +
	`über (den|die) autor(in)?|ähnliche themen|war (der|dieser) (artikel|beitrag) (hilfreich|nützlich)|` +
	`vous aimerez aussi|` +
	`kommentare?|meistgelesen|comentarios?|commentaires?|commenti|comentários|komentarze|polecane)[\s:!?.…]*$)`)

// maxTeaser is the longest paragraph under a tail heading inside the
// article's span that is still a story's teaser, in characters.
const maxTeaser = 320

// tail is the index of the block from which the rest of the answer is
// what follows the article, or -1. That is a tail heading after the
// article's first paragraph of prose when what follows it is no prose
// (it is after the span), is little text (slight), or is stories'
// teasers: headings that are mostly a link, each with at most a teaser
// paragraph ("Other columns" inside the span because teasers read like
// prose).
func tail(blocks []block, first, last int) int {
	// A reference repeats its headings ("Parameters", "Example") on
	// every entry: each text is matched once.
	opens := map[string]bool{}
	for i := first + 1; i < len(blocks); i++ {
		b := blocks[i]
		open, ok := opens[b.text]
		if !ok || !htmlnode.IsHeading(b.n) {
			open = opensTail(b)
		}
		if !ok && htmlnode.IsHeading(b.n) {
			opens[b.text] = open
		}
		if !open {
			continue
		}
		if i > last || teasers(blocks[i+1:]) || slight(blocks, i) {
			return i
		}
	}
	return -1
}

// maxTail is the most text, in characters, that a tail heading can head
// and still take it along whatever it is (a comment form, a date).
const maxTail = 600

// slight reports whether the blocks after blocks[i] hold little text: at
// most maxTail characters and a quarter of the text before it.
func slight(blocks []block, i int) bool {
	before, after := 0, 0
	for j, b := range blocks {
		n := b.runes
		switch {
		case j < i:
			before += n
		case j > i:
			after += n
		}
	}
	return after <= maxTail && 4*after <= before
}

// opensTail reports whether b is a tail heading, or a short paragraph
// that reads as one ("Weitere Artikel zum Thema" set in bold).
func opensTail(b block) bool {
	switch {
	case htmlnode.IsHeading(b.n):
	case paragraph(b) && b.runes <= maxTailLabel && !pointsOn(b.text):
	default:
		return false
	}
	return tailHeading.MatchString(b.text)
}

// pointsOn reports whether text goes on after a colon ("Related: Chicago
// is …"): a pointer to one story, not a label over what follows.
func pointsOn(text string) bool {
	i := strings.IndexByte(text, ':')
	return i >= 0 && strings.TrimSpace(text[i+1:]) != ""
}

// maxTailLabel is the longest paragraph that can stand for a tail
// heading, in characters.
const maxTailLabel = 60

// teasers reports whether blocks are at least two linked headings, each
// followed by no more than short paragraphs.
func teasers(blocks []block) bool {
	linked := 0
	for _, b := range blocks {
		switch {
		case htmlnode.IsHeading(b.n):
			if b.share < 0.5 {
				return false
			}
			linked++
		case !paragraph(b) || b.runes > maxTeaser:
			return false
		}
	}
	return linked >= 2
}

// pointer reports whether p is a short paragraph that points to another
// page: it starts like one and holds a link.
func pointer(p block) bool {
	if p.runes > maxByline || p.share == 0 || links(p.n) != 1 {
		return false
	}
	m := pointerStart.FindStringIndex(p.text)
	return m != nil && len(strings.Fields(p.text[m[1]:])) >= minPointerWords
}

// minPointerWords is the fewest words that follow a pointer's label: a
// story's headline. One word after "See also:" names a page of a manual
// (lang_dropindex.html) or a function.
const minPointerWords = 3

// links counts the links below n.
func links(n *html.Node) int {
	count := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "a" {
			count++
		} else if c.Type == html.ElementNode {
			count += links(c)
		}
	}
	return count
}

// labels are paragraphs that only label what stood there.
var labels = map[string]bool{"advertisement": true, "advertising": true, "sponsored": true, "sponsored content": true, "continue reading": true,
	"anzeige": true, "werbung": true, "publicidad": true, "publicité": true, "pubblicità": true, "publicidade": true, "reklama": true,
	"continue reading below": true, "story continues below": true, "story continues below advertisement": true,
	"no comments yet": true, "bisher keine kommentare": true, "noch keine kommentare": true, "keine kommentare": true,
	"external content": true, "externer inhalt": true, "be sociable, share!": true, "share this": true, "print": true, "drucken": true,
	"table of contents": true, "inhaltsverzeichnis": true, "spis treści": true, "índice": true, "sommaire": true, "indice": true,
	"rezept drucken": true, "print recipe": true, "bild anzeigen bild schließen": true}

// maxLabel is the longest label, in bytes, dots and spaces around it
// included.
const maxLabel = 64

// label reports whether a paragraph's text is only such a label.
func label(text string) bool {
	if len(text) > maxLabel {
		return false
	}
	return labels[strings.ToLower(strings.Trim(text, " .:…-"))]
}

// repeats reports whether a paragraph's text, long enough to be written
// once (minProse), says word for word what an earlier one in seen (its
// section's) said, and adds it to seen.
func repeats(text string, seen map[string]bool) bool {
	if utf8.RuneCountInString(text) < minProse {
		return false
	}
	if seen[text] {
		return true
	}
	seen[text] = true
	return false
}

// block is a block of the chosen content and its text, every run of
// white space (ASCII spaces and no-break spaces) one space.
type block struct {
	n     *html.Node
	text  string
	runes int     // characters of text
	share float64 // linkShare(n), read in the same walk
	loose bool    // a div of text alone, read as a paragraph
}

// paragraph reports whether b is a paragraph: a p, or a div that holds only
// text and inline elements, as many pages set their lines.
func paragraph(b block) bool {
	return b.n.Data == "p" || b.loose
}

// looseText reports whether div n holds text of its own and nothing but
// text and inline elements.
func looseText(n *html.Node) bool {
	text := false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			text = text || strings.TrimSpace(c.Data) != ""
		case c.Type == html.ElementNode && c.Data == "br":
		case c.Type == html.ElementNode && htmlnode.InlineTags[c.Data]:
			if htmlnode.FirstBelow(c, func(d *html.Node) bool { return !htmlnode.InlineTags[d.Data] && d.Data != "br" }) != nil {
				return false
			}
			text = text || strings.TrimSpace(htmlnode.Text(c)) != ""
		case c.Type == html.ElementNode:
			return false
		}
	}
	return text
}

// blocksOf lists the blocks below n in document order: paragraphs,
// headings, lists (as a whole), tables, code, quotes and captions.
func blocksOf(n *html.Node) []block {
	var out []block
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "p", "ul", "ol", "dl", "table", "pre", "blockquote", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6":
				out = append(out, readBlock(c))
			case "div":
				if looseText(c) {
					b := readBlock(c)
					b.loose = true
					out = append(out, b)
					continue
				}
				walk(c)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return out
}

// readBlock reads block n's text, white space squeezed and trimmed,
// and the share of it inside links, in one walk.
func readBlock(n *html.Node) block {
	var b []byte
	space := false
	all, linked := 0, 0
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		if n.Type == html.TextNode {
			s, k := n.Data, 0
			for i := 0; i < len(s); {
				if c := s[i]; c < utf8.RuneSelf && htmlnode.ASCIISpace[c] == 1 || c == 0xc2 && i+1 < len(s) && s[i+1] == 0xa0 { // U+00A0
					space = true
					i += 1 + int(c>>7)
					continue
				}
				// A run of bytes up to the next space is copied at once.
				j, ascii := i, true
				for ; j < len(s); j++ {
					c := s[j]
					if c < utf8.RuneSelf {
						if htmlnode.ASCIISpace[c] == 1 {
							break
						}
						continue
					}
					if c == 0xc2 && j+1 < len(s) && s[j+1] == 0xa0 {
						break
					}
					ascii = false
				}
				if space && len(b) > 0 {
					b = append(b, ' ')
				}
				space = false
				b = append(b, s[i:j]...)
				if ascii {
					k += j - i
				} else {
					for _, r := range s[i:j] {
						if !unicode.IsSpace(r) {
							k++
						}
					}
				}
				i = j
			}
			all += k
			if inLink {
				linked += k
			}
		}
		inLink = inLink || n.Type == html.ElementNode && n.Data == "a"
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink)
		}
	}
	walk(n, false)
	text := strings.TrimSpace(string(b))
	out := block{n: n, text: text, runes: utf8.RuneCountInString(text)}
	if all > 0 {
		out.share = float64(linked) / float64(all)
	}
	return out
}

// prose reports whether b is a paragraph of writing: a sentence's worth
// of text, mostly not links.
func prose(b block) bool {
	switch b.n.Data {
	case "table":
		return b.runes >= minProse && b.share < 0.5
	case "p", "blockquote", "pre":
		return b.runes >= minProse && b.share < 0.5
	}
	return false
}

// minProse is the least text of a paragraph of prose, in characters.
const minProse = 80

// shortLink reports whether p is a short paragraph that is one link. A
// link that shows its own address (a reference, a footnote's source) says
// something and is not one.
func shortLink(p block) bool {
	return p.text != "" && p.runes < minProse && p.share >= 0.9 &&
		!strings.HasPrefix(p.text, "http://") && !strings.HasPrefix(p.text, "https://")
}

// linkShare is the share of n's text, spaces aside, that is inside links.
func linkShare(n *html.Node) float64 {
	var all, linked int
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		if n.Type == html.TextNode {
			k := 0
			for _, r := range n.Data {
				if !unicode.IsSpace(r) {
					k++
				}
			}
			all += k
			if inLink {
				linked += k
			}
		}
		inLink = inLink || (n.Type == html.ElementNode && n.Data == "a")
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink)
		}
	}
	walk(n, false)
	if all == 0 {
		return 0
	}
	return float64(linked) / float64(all)
}

// trimTail removes from content the page's tail (see tail): a heading
// that opens it after a paragraph of prose ("Latest articles", "More
// from …") with everything after it, when that is no prose, little text
// or other stories' teasers. A page taken whole (region.go) keeps the
// rest of what trimArticle would remove: its lists and labels are its
// content.
func trimTail(content *html.Node) {
	blocks := blocksOf(content)
	first, last := proseSpan(blocks)
	if first > last {
		return
	}
	if t := tail(blocks, first, last); t >= 0 {
		for _, b := range blocks[t:] {
			if b.n.Parent != nil {
				b.n.Parent.RemoveChild(b.n)
			}
		}
	}
}

// proseSpan is the article's span among blocks: the indexes of its first
// and last paragraphs of prose (see prose); first > last when there is
// none.
func proseSpan(blocks []block) (first, last int) {
	first, last = len(blocks), -1
	for i, b := range blocks {
		if prose(b) {
			first = min(first, i)
			last = i
		}
	}
	return first, last
}
