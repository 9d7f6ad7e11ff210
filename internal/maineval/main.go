// Command maineval scores the main-content extraction (excludeNonMainTags)
// on two public evaluation sets that ship in Go modules the service
// already depends on:
//
//   - trafilatura's comparison set (go-trafilatura module): for each page,
//     snippets the main content must hold and snippets it must not;
//     precision and recall count snippets.
//   - the readability test pages (go-readability module): real article
//     pages with the article's expected HTML; precision and recall count
//     word tokens of the markdown's text against the expected text, per
//     page, and are averaged over pages (the pages under 10 KB are unit
//     tests of the readability library, not pages, and are left out).
//
// For each it prints this service's markdown (default options: links
// kept, and with links dropped) and go-trafilatura alone on the same
// pages.
//
//	go run ./internal/maineval [-set snippets|tokens|both|newer] [-diff] [-n N] [-page NAME] [-worst N [-recall]]
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
	set := flag.String("set", "both", "which set to score: snippets, tokens, both, or newer (readability pages added since, downloaded)")
	limit := flag.Int("n", 0, "score only the first n pages of each set (0: all)")
	diff := flag.Bool("diff", false, "print where this service and the expectation disagree")
	worst := flag.Int("worst", 0, "list the n pages where this service's precision is lowest")
	flag.BoolVar(&byRecall, "recall", false, "with -worst, list the pages where recall is lowest instead")
	flag.BoolVar(&versus, "versus", false, "list the pages where this service's precision or recall is below go-trafilatura's")
	flag.BoolVar(&headlines, "headlines", false, "score the headline as the article's (token sets): the expected text starts with the page's title, go-trafilatura's with the title it found")
	flag.StringVar(&only, "page", "", "score only the pages whose name holds this")
	flag.Parse()
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
	elapsed time.Duration
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

func (t total) String() string {
	n := float64(t.pages)
	p, r := t.sum.precision(), t.sum.recall()
	return fmt.Sprintf("per page: precision %.3f recall %.3f F1 %.3f | pooled: precision %.3f recall %.3f F1 %.3f | %v",
		t.p/n, t.r/n, t.f/n, p, r, f1(p, r), t.elapsed.Round(time.Millisecond))
}

func scoreSet(title string, pages []page, extractors []extractor, limit int, diff bool, worst int) {
	if only != "" {
		var some []page
		for _, p := range pages {
			if strings.Contains(p.name, only) {
				some = append(some, p)
			}
		}
		pages = some
	}
	if limit > 0 && len(pages) > limit {
		pages = pages[:limit]
	}
	fmt.Printf("%s: %d pages\n", title, len(pages))
	var first, last []scored
	for i, x := range extractors {
		var t total
		for _, p := range pages {
			start := time.Now()
			text := x.run(p.html)
			t.elapsed += time.Since(start)
			s := p.score(text)
			t.add(s)
			if i == 0 {
				first = append(first, scored{p.name, s})
				if diff {
					p.diff(text)
				}
			}
			if i == len(extractors)-1 {
				last = append(last, scored{p.name, s})
			}
		}
		fmt.Printf("  %s %s\n", x.name, t)
	}
	if versus {
		printVersus(first, last)
	}
	printWorst(first, worst)
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
