// Package modernweb is an evaluation set of 468 pages of every kind saved
// from the web in 2026 (articles, forum threads, product pages, service
// pages, listings, collections, documentation), each with the text a
// reader calls its main content, and the way the set is scored.
//
// The pages and their expected texts are in data/ (see data/README.md for
// where they come from and their licence). A page is scored by shingles:
// the expected text and the extracted text (markdown with links reduced
// to their text and images dropped) are each cut into tokens, runs of Unicode
// letters, digits and marks with case kept; the tokens into overlapping
// four-token shingles, counted as multisets. Shared shingles are true
// positives, extracted-only ones false positives, expected-only ones
// false negatives. A set of pages is summed up by the mean precision over
// the pages that extracted something, the mean recall over the pages that
// expect something, and the F1 of those two means.
//
// Every page belongs to one of two halves, fixed by the FNV-1a hash of its
// id: rules are tuned on the tuning half, and the held-out half shows
// whether they carry over to pages they were not written for.
package modernweb

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"unicode"
)

// Page is one page of the set.
type Page struct {
	ID   string
	URL  string // where it was served
	Kind string // article, forum, service, product, documentation, listing, collection, blog
	// Title is the page's title as the set records it.
	Title string
	// Expected is the main content a reader sees, as plain text.
	Expected string
	// With holds sentences the main content must keep; Without, text of
	// the page's chrome it must not.
	With, Without []string
	// HTML is the page as served, in UTF-8.
	HTML []byte
}

// Dir is the directory of the set's data, beside this file.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "data")
}

// Load reads the set from dir (Dir() for the set in the repository), in
// the order of its ids.
func Load(dir string) ([]Page, error) {
	f, err := os.Open(filepath.Join(dir, "truth.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("truth.jsonl.gz: %w", err)
	}
	var pages []Page
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var t struct {
			ID, URL, Kind, Title string
			MainContent          string   `json:"main_content"`
			With                 []string `json:"with"`
			Without              []string `json:"without"`
		}
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("truth.jsonl.gz line %d: %w", len(pages)+1, err)
		}
		html, err := readGzip(filepath.Join(dir, "pages", t.ID+".html.gz"))
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{ID: t.ID, URL: t.URL, Kind: t.Kind, Title: t.Title, Expected: t.MainContent, With: t.With, Without: t.Without, HTML: html})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].ID < pages[j].ID })
	return pages, nil
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(z)
}

// Halves of the set.
const (
	Tuning  = "tuning"
	HeldOut = "held-out"
)

// Half is the half the page with this id belongs to: the FNV-1a 32-bit
// hash of the id, even for the tuning half, odd for the held-out one.
func Half(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return Tuning
	}
	return HeldOut
}

// Text is what is scored of a markdown document: a link's text stays and
// its target goes; an image goes whole (the expected texts hold no alt
// texts).
func Text(md string) string {
	md = mdImage.ReplaceAllString(md, "")
	return mdLink.ReplaceAllString(md, "$1")
}

// mdImage matches a markdown image; mdLink a markdown link, keeping its
// text. Link texts may hold escaped brackets, targets one level of
// parentheses and a title.
var (
	mdImage = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)`)
	mdLink  = regexp.MustCompile(`\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)`)
)

// Tokens cuts text into runs of word characters (letters, digits, marks
// and connector punctuation such as '_'), case kept.
func Tokens(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r))
	})
}

// shingleSize is the number of tokens of a shingle.
const shingleSize = 4

// Shingles counts text's overlapping four-token shingles; a text of fewer
// tokens is one shingle of them all.
func Shingles(text string) map[string]int {
	toks := Tokens(text)
	out := map[string]int{}
	if len(toks) == 0 {
		return out
	}
	if len(toks) < shingleSize {
		out[strings.Join(toks, " ")]++
		return out
	}
	for i := 0; i+shingleSize <= len(toks); i++ {
		out[strings.Join(toks[i:i+shingleSize], " ")]++
	}
	return out
}

// Score is one page's outcome: shingles shared, extracted only and
// expected only.
type Score struct{ TP, FP, FN int }

// Compare scores an extracted text against the expected one.
func Compare(expected, extracted string) Score {
	want, got := Shingles(expected), Shingles(extracted)
	var s Score
	for sh, n := range got {
		m := want[sh]
		s.TP += min(n, m)
		s.FP += max(n-m, 0)
	}
	for sh, m := range want {
		s.FN += max(m-got[sh], 0)
	}
	return s
}

// Precision is tp/(tp+fp), and ok is false when nothing was extracted.
func (s Score) Precision() (p float64, ok bool) {
	if s.TP+s.FP == 0 {
		return 0, false
	}
	return float64(s.TP) / float64(s.TP+s.FP), true
}

// Recall is tp/(tp+fn), and ok is false when nothing was expected.
func (s Score) Recall() (r float64, ok bool) {
	if s.TP+s.FN == 0 {
		return 0, false
	}
	return float64(s.TP) / float64(s.TP+s.FN), true
}

// Total sums up pages: mean precision over the pages that extracted
// something, mean recall over those that expect something.
type Total struct {
	sumP, sumR float64
	nP, nR, N  int
	Empty      int // pages that extracted nothing
	TP, FP, FN int
}

// Add counts one page.
func (t *Total) Add(s Score) {
	t.N++
	t.TP += s.TP
	t.FP += s.FP
	t.FN += s.FN
	if p, ok := s.Precision(); ok {
		t.sumP += p
		t.nP++
	} else {
		t.Empty++
	}
	if r, ok := s.Recall(); ok {
		t.sumR += r
		t.nR++
	}
}

// P is the mean precision.
func (t Total) P() float64 { return mean(t.sumP, t.nP) }

// R is the mean recall.
func (t Total) R() float64 { return mean(t.sumR, t.nR) }

// F1 is the F1 of the mean precision and the mean recall.
func (t Total) F1() float64 {
	p, r := t.P(), t.R()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Kinds are the kinds of page of the set, most pages first.
var Kinds = []string{"article", "documentation", "service", "forum", "listing", "product", "collection", "blog"}

// Checked is how a page's extracted text fares on the set's own checks:
// the lines of the page's With (sentences its main content must keep)
// it misses, and those of its Without (the page's chrome) it holds. A
// line is held when its tokens, in lower case, stand in the text in that
// order, one after the other.
type Checked struct {
	Missed, Kept []string
}

// Check checks an extracted text (plain, or markdown reduced by Text)
// against page p's With and Without.
func Check(p Page, extracted string) Checked {
	text := " " + strings.ToLower(strings.Join(Tokens(extracted), " ")) + " "
	holds := func(line string) bool {
		toks := Tokens(line)
		return len(toks) > 0 && strings.Contains(text, " "+strings.ToLower(strings.Join(toks, " "))+" ")
	}
	var c Checked
	for _, l := range p.With {
		if !holds(l) {
			c.Missed = append(c.Missed, l)
		}
	}
	for _, l := range p.Without {
		if holds(l) {
			c.Kept = append(c.Kept, l)
		}
	}
	return c
}

// Checks sums up Check over pages: the lines of With and Without there
// were, those missed and those kept.
type Checks struct {
	With, Missed, Without, Kept int
}

// Add counts page p's lines and how text c fared on them.
func (t *Checks) Add(p Page, c Checked) {
	t.With += len(p.With)
	t.Without += len(p.Without)
	t.Missed += len(c.Missed)
	t.Kept += len(c.Kept)
}
