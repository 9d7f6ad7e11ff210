package main

import (
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	readability "github.com/go-shiori/go-readability"
	"github.com/markusmobius/go-trafilatura"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/modernweb"
	"github.com/durablecrawl/crawler/markdown"
)

// The modern-web set (-set modern): pages of every kind with their main
// content, scored by shingles (package modernweb), a table per extractor
// with a row per kind of page and a column per half.

// modernExtractor turns a page into the text that is scored.
type modernExtractor struct {
	name string
	run  func(p modernweb.Page) string
}

var modernExtractors = []modernExtractor{
	{"this service (markdown, main content)", func(p modernweb.Page) string {
		u := &url.URL{Scheme: "https", Host: "pages.example", Path: "/" + p.ID + ".html"}
		doc, err := markdown.Convert(fetch.TextUTF8(p.HTML, "text/html"), markdown.Options{PageURL: u, MainContentOnly: true, IncludeLinks: true})
		if err != nil {
			return ""
		}
		if dumpDir != "" {
			dump(p, doc.Markdown)
		}
		return modernweb.Text(doc.Markdown)
	}},
	{"go-trafilatura (fallback, its text)", func(p modernweb.Page) string {
		res, err := trafilatura.Extract(strings.NewReader(string(p.HTML)), trafilatura.Options{EnableFallback: true, ExcludeComments: true})
		if err != nil || res == nil {
			return ""
		}
		return res.ContentText
	}},
	{"go-readability (its text)", func(p modernweb.Page) string {
		u, _ := url.Parse(p.URL)
		art, err := readability.FromReader(strings.NewReader(string(p.HTML)), u)
		if err != nil {
			return ""
		}
		return art.TextContent
	}},
}

// scoreModern prints each extractor's table on the modern-web pages of
// the half -half asks (and of -page), then with -worst the pages of
// this service's lowest F1 and what each lost and kept.
func scoreModern(limit, worst int) {
	all, err := modernweb.Load(modernweb.Dir())
	if err != nil {
		log.Fatal(err)
	}
	var pages []modernweb.Page
	for _, p := range all {
		if strings.Contains(p.ID, only) && (half == both || modernweb.Half(p.ID) == half) && (kindOnly == "" || p.Kind == kindOnly) {
			pages = append(pages, p)
		}
	}
	if limit > 0 && len(pages) > limit {
		pages = pages[:limit]
	}
	halves := []string{"all", modernweb.Tuning, modernweb.HeldOut}
	if half != both {
		halves = []string{half}
	}
	fmt.Printf("modern-web pages (shingle F1 on the main content): %d pages\n", len(pages))
	var oursText []string
	for i, x := range modernExtractors {
		if i > 0 && !versus {
			break
		}
		start := time.Now()
		type key struct{ kind, half string }
		totals := map[key]*modernweb.Total{}
		checks := map[key]*modernweb.Checks{}
		texts := make([]string, len(pages))
		for j, p := range pages {
			texts[j] = x.run(p)
			s := modernweb.Compare(p.Expected, texts[j])
			c := modernweb.Check(p, texts[j])
			for _, k := range []string{"all", p.Kind} {
				for _, h := range []string{"all", modernweb.Half(p.ID)} {
					if totals[key{k, h}] == nil {
						totals[key{k, h}] = &modernweb.Total{}
						checks[key{k, h}] = &modernweb.Checks{}
					}
					totals[key{k, h}].Add(s)
					checks[key{k, h}].Add(p, c)
				}
			}
		}
		if i == 0 {
			oursText = texts
		}
		fmt.Printf("\n  %s (%v)\n", x.name, time.Since(start).Round(time.Millisecond))
		printKinds("kind", "pages P R F1", halves, func(k, h string) (string, bool) {
			t := totals[key{k, h}]
			if t == nil {
				return "", false
			}
			return fmt.Sprintf("%3d %.3f %.3f %.3f", t.N, t.P(), t.R(), t.F1()), true
		})
		// The set's own checks: the sentences each page's main content
		// must keep (with) that the text misses, and the lines of its
		// chrome (without) that the text keeps.
		printKinds("checks", "missed kept", halves, func(k, h string) (string, bool) {
			c := checks[key{k, h}]
			if c == nil {
				return "", false
			}
			return fmt.Sprintf("%4d/%-4d %4d/%-4d", c.Missed, c.With, c.Kept, c.Without), true
		})
	}
	printModernWorst(pages, oursText, worst)
}

// printKinds prints a table of a row per kind of page (all pages first)
// and a column per half, headed by title and each half's name with what
// its cells say; cell gives a cell's text, or false where no page counts.
func printKinds(title, says string, halves []string, cell func(kind, half string) (string, bool)) {
	fmt.Printf("  %-13s", title)
	for _, h := range halves {
		fmt.Printf(" | %-26s", h+": "+says)
	}
	fmt.Println()
	for _, k := range append([]string{"all"}, modernweb.Kinds...) {
		fmt.Printf("  %-13s", k)
		for _, h := range halves {
			text, ok := cell(k, h)
			if !ok {
				text = "-"
			}
			fmt.Printf(" | %-26s", text)
		}
		fmt.Println()
	}
}

// kindOnly, when set (-kind), keeps the modern-web pages of that kind.
var kindOnly string

// dumpDir, when set (-dump), is where each page's markdown (ID.md) and
// expected text (ID.expected) are written, to read them page by page.
var dumpDir string

func dump(p modernweb.Page, md string) {
	base := filepath.Join(dumpDir, p.ID)
	if err := os.WriteFile(base+".md", []byte(md), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(base+".expected", []byte(p.Expected), 0o644); err != nil {
		log.Fatal(err)
	}
}

// printModernWorst lists the n pages of lowest F1 (of lowest recall with
// -recall), each with the longest runs of text it lost and kept.
func printModernWorst(pages []modernweb.Page, texts []string, n int) {
	if n == 0 {
		return
	}
	type row struct {
		i     int
		p, r  float64
		score modernweb.Score
	}
	var rows []row
	for i, p := range pages {
		s := modernweb.Compare(p.Expected, texts[i])
		pr, _ := s.Precision()
		rc, _ := s.Recall()
		rows = append(rows, row{i, pr, rc, s})
	}
	f := func(r row) float64 {
		if byRecall {
			return r.r
		}
		if r.p+r.r == 0 {
			return 0
		}
		return 2 * r.p * r.r / (r.p + r.r)
	}
	sort.SliceStable(rows, func(a, b int) bool { return f(rows[a]) < f(rows[b]) })
	fmt.Println()
	for _, r := range rows[:min(n, len(rows))] {
		p := pages[r.i]
		fmt.Printf("  %s %-13s %-8s P %.3f R %.3f (fp %d, fn %d) %s\n", p.ID, p.Kind, modernweb.Half(p.ID), r.p, r.r, r.score.FP, r.score.FN, p.URL)
		for _, run := range unshared(p.Expected, texts[r.i], 3) {
			fmt.Printf("      lost: %s\n", run)
		}
		for _, run := range unshared(texts[r.i], p.Expected, 3) {
			fmt.Printf("      kept: %s\n", run)
		}
		c := modernweb.Check(p, texts[r.i])
		for _, l := range c.Missed {
			fmt.Printf("      with, missed: %s\n", cut(l))
		}
		for _, l := range c.Kept {
			fmt.Printf("      without, kept: %s\n", cut(l))
		}
	}
}

// unshared is the n longest runs of a's tokens whose shingles b does not
// hold, each cut to 160 characters.
func unshared(a, b string, n int) []string {
	toks := modernweb.Tokens(a)
	have := modernweb.Shingles(b)
	miss := make([]bool, len(toks))
	for i := 0; i+4 <= len(toks); i++ {
		sh := strings.Join(toks[i:i+4], " ")
		if have[sh] > 0 {
			have[sh]--
			continue
		}
		for j := i; j < i+4; j++ {
			miss[j] = true
		}
	}
	var runs [][]string
	for i := 0; i < len(toks); {
		if !miss[i] {
			i++
			continue
		}
		j := i
		for j < len(toks) && miss[j] {
			j++
		}
		runs = append(runs, toks[i:j])
		i = j
	}
	sort.SliceStable(runs, func(i, j int) bool { return len(runs[i]) > len(runs[j]) })
	var out []string
	for _, r := range runs[:min(n, len(runs))] {
		s := fmt.Sprintf("(%d words) %s", len(r), strings.Join(r, " "))
		if len(s) > 160 {
			s = s[:160] + "…"
		}
		out = append(out, s)
	}
	return out
}

// cut is line on one line, cut to 160 characters.
func cut(line string) string {
	line = strings.Join(strings.Fields(line), " ")
	if len(line) > 160 {
		line = line[:160] + "…"
	}
	return line
}
