// Command maineval scores the main-content extraction (excludeNonMainTags)
// on public evaluation sets that ship in Go modules the service already
// depends on:
//
//   - trafilatura's comparison set (go-trafilatura module): for each page,
//     snippets the main content must hold and snippets it must not;
//     precision and recall count snippets.
//   - the readability test pages (go-readability module): real article
//     pages with the article's expected HTML; precision and recall count
//     word tokens of the markdown's text against the expected text, per
//     page, and are averaged over pages (the pages under 10 KB are unit
//     tests of the readability library, not pages, and are left out).
//   - go-trafilatura's realworld mock set: saved pages and the snippets
//     its realworld test asserts each page's text holds or does not,
//     scored as the comparison set is (mock.go).
//
// For each it prints this service's markdown (default options: links
// kept, and with links dropped) and go-trafilatura alone on the same
// pages, on all pages and on each of two halves fixed by the pages'
// names (halves.go): rules are to be tuned on the tuning half and checked
// on the held-out one.
//
//   - the modern-web set (package modernweb): pages of every kind
//     (articles, forums, products, services, listings, collections,
//     documentation) scored by four-token shingles, a row per kind;
//     -versus adds go-trafilatura's and go-readability's tables, -worst
//     lists the pages of lowest F1 with the text each lost and kept.
//
//     go run ./internal/maineval [-set snippets|tokens|mock|both|newer|modern] [-kind KIND] [-half tuning|held-out|both] [-diff] [-n N] [-page NAME] [-worst N [-recall]] [-versus] [-dump DIR]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/markusmobius/go-trafilatura"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/markdown"
)

// extractor turns a page into the text that is scored.
type extractor struct {
	name string
	run  func(page []byte) string
}

func ours(links bool) extractor {
	name := "this service, includeLinks false"
	if links {
		name = "this service, includeLinks true "
	}
	return extractor{name, func(page []byte) string {
		// As the fetcher hands pages over: in UTF-8, with the address it
		// was fetched from (the sets do not keep the pages' own).
		doc, err := markdown.Convert(fetch.TextUTF8(page, "text/html"), markdown.Options{PageURL: pageURL, MainContentOnly: true, IncludeLinks: links})
		if err != nil {
			return ""
		}
		return plain(doc.Markdown)
	}}
}

// pageURL stands for the address a page was fetched from.
var pageURL = &url.URL{Scheme: "https", Host: "example.com", Path: "/articles/page.html"}

var trafilaturaAlone = extractor{"go-trafilatura + fallback        ", func(page []byte) string {
	res, err := trafilatura.Extract(strings.NewReader(string(page)), trafilatura.Options{EnableFallback: true, ExcludeComments: true})
	if err != nil || res == nil {
		return ""
	}
	if headlines && res.Metadata.Title != "" {
		return res.Metadata.Title + "\n" + res.ContentText
	}
	return res.ContentText
}}

func main() {
	set := flag.String("set", "both", "which set to score: snippets, tokens, mock, both (these three), newer (readability pages added since, downloaded), or modern (the modern-web pages of every kind)")
	limit := flag.Int("n", 0, "score only the first n pages of each set (0: all)")
	diff := flag.Bool("diff", false, "print where this service and the expectation disagree")
	worst := flag.Int("worst", 0, "list the n pages where this service's precision is lowest")
	flag.BoolVar(&byRecall, "recall", false, "with -worst, list the pages where recall is lowest instead")
	flag.BoolVar(&versus, "versus", false, "list the pages where this service's precision or recall is below go-trafilatura's")
	flag.BoolVar(&headlines, "headlines", false, "score the headline as the article's (token sets): the expected text starts with the page's title, go-trafilatura's with the title it found")
	flag.StringVar(&dumpDir, "dump", "", "with -set modern, write each page's markdown (ID.md) and expected text (ID.expected) to this directory")
	flag.StringVar(&kindOnly, "kind", "", "with -set modern, score only the pages of this kind")
	flag.StringVar(&only, "page", "", "score only the pages whose name holds this")
	flag.StringVar(&half, "half", both, "which half of each set to score and list: tuning, held-out, or both (the figures of all pages and of each half; listings of all pages)")
	flag.Parse()
	if half != tuning && half != heldOut && half != both {
		log.Fatalf("-half %q: want tuning, held-out or both", half)
	}
	switch *set {
	case "snippets", "tokens", "mock", "both", "newer":
	case "modern":
		scoreModern(*limit, *worst)
		return
	default:
		log.Fatalf("-set %q: want snippets, tokens, mock, both, newer or modern", *set)
	}
	extractors := []extractor{ours(false), ours(true), trafilaturaAlone}
	if *set == "snippets" || *set == "both" {
		dir := moduleDir("github.com/markusmobius/go-trafilatura")
		pages, err := readSnippetSet(dir)
		if err != nil {
			log.Fatal(err)
		}
		scoreSet("trafilatura's comparison set (snippets)", pages, extractors, *limit, *diff, *worst)
	}
	var older map[string]bool
	if *set == "tokens" || *set == "both" || *set == "newer" {
		dir := moduleDir("github.com/go-shiori/go-readability")
		pages, err := readTokenSet(dir, nil)
		if err != nil {
			log.Fatal(err)
		}
		older = map[string]bool{}
		for _, p := range pages {
			older[p.name] = true
		}
		if *set != "newer" {
			scoreSet("readability test pages (word tokens)", pages, extractors, *limit, *diff, *worst)
		}
	}
	if *set == "mock" || *set == "both" {
		dir := moduleDir("github.com/markusmobius/go-trafilatura")
		pages, err := readMockSet(dir)
		if err != nil {
			log.Fatal(err)
		}
		scoreSet("go-trafilatura's realworld mock set (snippets)", pages, extractors, *limit, *diff, *worst)
	}
	if *set == "newer" {
		// The pages added to the readability tests since go-shiori's copy,
		// in the readeck fork: none of the rules was tuned on them.
		pages, err := readTokenSet(downloadedDir(readeckModule), older)
		if err != nil {
			log.Fatal(err)
		}
		scoreSet("newer readability test pages (word tokens)", pages, extractors, *limit, *diff, *worst)
	}
}

// readeckModule is the readeck fork of go-readability, which has test
// pages added after go-shiori's copy. The service does not depend on it.
const readeckModule = "codeberg.org/readeck/go-readability/v2@v2.1.3"

// page is one page of an evaluation set and how its text is scored.
type page struct {
	name  string
	html  []byte
	score func(text string) score
	// diff prints what text gets wrong.
	diff func(text string)
}

// score is the outcome on one page: counts of true and false positives and
// false negatives, of snippets or tokens.
type score struct{ tp, fp, fn int }

func (s score) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s score) recall() float64    { return ratio(s.tp, s.tp+s.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// total sums page scores (micro average) and averages their ratios
// (macro average, each page counting once).
type total struct {
	sum     score
	p, r, f float64
	pages   int
}

func (t *total) add(s score) {
	t.sum.tp += s.tp
	t.sum.fp += s.fp
	t.sum.fn += s.fn
	p, r := s.precision(), s.recall()
	t.p += p
	t.r += r
	t.f += f1(p, r)
	t.pages++
}

// perPage is the precision, recall and F1 averaged over pages.
func (t total) perPage() string {
	n := float64(max(t.pages, 1))
	return fmt.Sprintf("%.3f %.3f %.3f", t.p/n, t.r/n, t.f/n)
}

// pooled is the precision, recall and F1 of the summed counts.
func (t total) pooled() string {
	p, r := t.sum.precision(), t.sum.recall()
	return fmt.Sprintf("%.3f %.3f %.3f", p, r, f1(p, r))
}

// selectPages keeps the pages scored: those named as -page asks, in the
// half -half asks, the first limit of them when limit is set.
func selectPages(pages []page, limit int) []page {
	var some []page
	for _, p := range pages {
		if strings.Contains(p.name, only) && inHalf(p.name) {
			some = append(some, p)
		}
	}
	if limit > 0 && len(some) > limit {
		some = some[:limit]
	}
	return some
}

// scoreSet scores each extractor on a set's pages and prints a table: a
// row per extractor, with the precision, recall and F1 averaged over the
// pages of each column (columns), the pooled figures of all pages scored
// and the time taken. The listings (-diff, -versus, -worst) are of the
// pages scored, so of the half -half asks.
func scoreSet(title string, pages []page, extractors []extractor, limit int, diff bool, worst int) {
	pages = selectPages(pages, limit)
	tune, held := halfSizes(pages)
	fmt.Printf("%s: %d pages (%d tuning, %d held-out)\n", title, len(pages), tune, held)
	checkBalance(title, tune, held)
	cols := columns()
	printHeader(cols, pages)
	var first, last []scored
	for i, x := range extractors {
		results, elapsed := run(x, pages, diff && i == 0)
		printRow(x.name, cols, results, elapsed)
		if i == 0 {
			first = results
		}
		last = results
	}
	if versus {
		printVersus(first, last)
	}
	printWorst(first, worst)
}

// run scores x on each page and times it; with diff it prints where the
// text and the expectation disagree.
func run(x extractor, pages []page, diff bool) ([]scored, time.Duration) {
	var elapsed time.Duration
	results := make([]scored, len(pages))
	for j, p := range pages {
		start := time.Now()
		text := x.run(p.html)
		elapsed += time.Since(start)
		results[j] = scored{p.name, p.score(text)}
		if diff {
			p.diff(text)
		}
	}
	return results, elapsed
}

// nameWidth is the width of the extractor column of a set's table.
const nameWidth = 33

func printHeader(cols []column, pages []page) {
	fmt.Printf("  %-*s", nameWidth, "per page P R F1 on:")
	for _, c := range cols {
		n := 0
		for _, p := range pages {
			if c.in(p.name) {
				n++
			}
		}
		fmt.Printf(" | %-17s", fmt.Sprintf("%s (%d)", c.name, n))
	}
	fmt.Printf(" | %-17s | time\n", "pooled P R F1")
}

func printRow(name string, cols []column, results []scored, elapsed time.Duration) {
	fmt.Printf("  %-*s", nameWidth, strings.TrimSpace(name))
	var all total
	for _, c := range cols {
		var t total
		for _, r := range results {
			if c.in(r.name) {
				t.add(r.score)
			}
		}
		fmt.Printf(" | %s", t.perPage())
	}
	for _, r := range results {
		all.add(r.score)
	}
	fmt.Printf(" | %s | %v\n", all.pooled(), elapsed.Round(time.Millisecond))
}

// versus makes scoreSet list the pages where this service's precision or
// recall is below go-trafilatura's.
var versus bool

// printVersus lists the pages where ours (the first extractor) is less
// precise, or recalls less, than theirs (the last), by how much.
func printVersus(ours, theirs []scored) {
	type gap struct {
		name       string
		dp, dr     float64
		ours, them score
	}
	var gaps []gap
	for i := range ours {
		dp, dr := ours[i].precision()-theirs[i].precision(), ours[i].recall()-theirs[i].recall()
		if dp < 0 || dr < 0 {
			gaps = append(gaps, gap{ours[i].name, dp, dr, ours[i].score, theirs[i].score})
		}
	}
	sort.SliceStable(gaps, func(i, j int) bool { return min(gaps[i].dp, gaps[i].dr) < min(gaps[j].dp, gaps[j].dr) })
	sumP, sumR := 0.0, 0.0
	for _, g := range gaps {
		sumP += min(g.dp, 0)
		sumR += min(g.dr, 0)
		fmt.Printf("    %-40s precision %+.3f recall %+.3f (ours fp %d fn %d, theirs fp %d fn %d)\n", g.name, g.dp, g.dr, g.ours.fp, g.ours.fn, g.them.fp, g.them.fn)
	}
	fmt.Printf("    %d pages behind: precision lost %.3f a page, recall lost %.3f a page\n", len(gaps), sumP/float64(len(ours)), sumR/float64(len(ours)))
}

// scored is one page's outcome.
type scored struct {
	name string
	score
}

// only, when set, keeps the pages whose name holds it.
var only string

// byRecall makes printWorst rank pages by recall.
var byRecall bool

// printWorst lists the n pages with the lowest precision (or recall, with
// byRecall), most false positives (negatives) first among equals.
func printWorst(pages []scored, n int) {
	sort.SliceStable(pages, func(i, j int) bool {
		if byRecall {
			ri, rj := pages[i].recall(), pages[j].recall()
			if ri != rj {
				return ri < rj
			}
			return pages[i].fn > pages[j].fn
		}
		pi, pj := pages[i].precision(), pages[j].precision()
		if pi != pj {
			return pi < pj
		}
		return pages[i].fp > pages[j].fp
	})
	for _, p := range pages[:min(n, len(pages))] {
		fmt.Printf("    %-40s precision %.3f recall %.3f (fp %d, fn %d)\n", p.name, p.precision(), p.recall(), p.fp, p.fn)
	}
}

// downloadedDir downloads a module (path@version) into the module cache
// and returns its directory.
func downloadedDir(module string) string {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		log.Fatalf("download %s: %v", module, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		log.Fatalf("download %s: %v", module, err)
	}
	return m.Dir
}

func moduleDir(path string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		log.Fatalf("locate %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}
