package integration

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/durablecrawl/crawler/internal/realdocs"
)

// TestRealManuals crawls real manuals with the default options (main
// content, deduplication, engine auto with a browser worker at hand), 16
// pages at a time, and checks every stored page against its source file:
// it was fetched statically, once, and not emptied; its paragraphs come
// out with their words in the page's order, its code blocks line by
// line with their language, its data tables as tables; and the text that
// is the page's own (in no other page's source but an aggregate marked
// noindex) survives deduplication.
//
// The manuals are crawled one after the other, and not beside the other
// tests: five crawls of 16 pages at a time would starve them.
func TestRealManuals(t *testing.T) {
	docs := os.Getenv("CRAWLER_REALDOCS")
	if docs == "" {
		t.Fatal("CRAWLER_REALDOCS is not set: make test downloads the manuals (ensure_realdocs in scripts/lib.sh)")
	}
	for _, m := range realdocs.Manuals {
		t.Run(m.Name, func(t *testing.T) {
			root := filepath.Join(docs, m.Root)
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m.Start))); err != nil {
				t.Fatalf("the manual is missing (make test downloads it): %v", err)
			}
			srv := httptest.NewServer(noListings(root, http.FileServer(http.Dir(root))))
			t.Cleanup(srv.Close)
			body := map[string]any{"startUrl": srv.URL + m.Start, "maxConcurrentPages": 16}
			if m.MaxResults > 0 {
				body["maxResults"] = m.MaxResults
			}
			c := crawlSite(t, env.api, srv, body, "succeeded")
			raw := map[string]string{}
			for _, p := range allPagesRaw(t, env.api, env.keyA, c.crawl.ID) {
				raw[strings.TrimPrefix(p.URL, srv.URL)] = p.Markdown
			}
			if dump := os.Getenv("CRAWLER_REALDOCS_DUMP"); dump != "" {
				dumpManual(t, filepath.Join(dump, wordsOnly(m.Name)), c, raw)
			}
			checkManual(t, m, root, c, raw)
		})
	}
	t.Log(figureTable())
}

// noListings answers 404 for a folder without an index.html, as a
// manual's web server would, instead of the file server's listing of it
// (a manual's link to a folder of pictures).
func noListings(root string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path.Clean(r.URL.Path)), "index.html")); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// dumpManual writes each page's markdown, raw and deduplicated, below
// dir, for a reader to look at (CRAWLER_REALDOCS_DUMP names the folder).
func dumpManual(t *testing.T, dir string, c crawled, raw map[string]string) {
	for p, page := range c.pages {
		name := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "/")+"/index"))
		if strings.HasSuffix(p, ".html") {
			name = filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, ".html")))
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(name+".raw.md", []byte(raw[p]), 0o644)
		_ = os.WriteFile(name+".md", []byte(page.Markdown), 0o644)
	}
}

// allPagesRaw is allPages with raw=true: the markdown before
// deduplication.
func allPagesRaw(t *testing.T, base, key, id string) []resultPage {
	t.Helper()
	var out []resultPage
	next := fmt.Sprintf("%s/crawls/%s/pages?limit=100&raw=true", base, id)
	for next != "" {
		var p pageOf[resultPage]
		if status, body := call(t, "GET", next, key, nil, &p); status != http.StatusOK {
			t.Fatalf("GET pages?raw=true = %d %s", status, body)
		}
		out = append(out, p.Results...)
		next = followNext(t, p)
	}
	return out
}

// source is a page's source file as the checks read it.
type source struct {
	paragraphs []string // each paragraph's words, as wordsOnly gives them
	code       []codeBlock
	tables     int // data tables
	noindex    bool
	// title is the words of the page's own title heading: the first
	// heading of its content that says what its <title> says.
	title string
	// words counts the words of the page's content region, without its
	// navigation: what its markdown should keep.
	words map[string]int
}

type codeBlock struct {
	lang  string
	lines string
}

// minManualPages is the fewest pages a crawl of a manual must store
// (MkDocs' own manual has 19).
const minManualPages = 15

func checkManual(t *testing.T, m realdocs.Manual, root string, c crawled, raw map[string]string) {
	if len(c.pages) < minManualPages {
		t.Fatalf("%d pages stored, want the manual", len(c.pages))
	}
	sources := map[string]source{}
	for p := range c.pages {
		sources[p] = readSource(t, m, root, p)
	}
	// Where each paragraph is, among the pages that are not aggregates.
	holders := map[string]int{}
	for _, s := range sources {
		if s.noindex {
			continue
		}
		seen := map[string]bool{}
		for _, para := range s.paragraphs {
			if !seen[para] {
				seen[para] = true
				holders[para]++
			}
		}
	}
	var paragraphs, lostWords, codes, lostCode, wrongLang, tables, lostTables, own, lostOwn, titled, lostTitles, rendered int
	var kept [2]keptWords // of the raw markdown, and of the deduplicated
	for p, page := range c.pages {
		if page.Engine != "cheerio" {
			rendered++
		}
		if page.Engine != "cheerio" && m.Strict && m.MaxRendered == 0 {
			t.Errorf("%s was sent to the browser: its text is in its HTML", p)
		}
		if strings.Contains(p, "?") && m.Strict {
			t.Errorf("%s: a page under a query string", p)
		}
		rawMD := raw[p]
		// Code inside a quote has its lines quoted: compared unquoted.
		trimmed := trailingSpaces.ReplaceAllString(dedentFences(quoteMarks.ReplaceAllString(rawMD, "")), "")
		if strings.TrimSpace(rawMD) != "" && strings.TrimSpace(page.Markdown) == "" {
			t.Errorf("%s was emptied by deduplication (%d of %d fragments removed)", p, page.FragmentsRemoved, page.Fragments)
		}
		s := sources[p]
		kept[0].add(p, s.words, rawMD)
		kept[1].add(p, s.words, page.Markdown)
		if s.title != "" {
			titled++
			if !headingSays(rawMD, s.title) {
				lostTitles++
				if lostTitles <= 5 {
					t.Logf("%s: the page's title heading is not in its markdown: %q", p, s.title)
				}
			}
		}
		text, deduped := wordsOnly(plainMarkdown(rawMD)), wordsOnly(plainMarkdown(page.Markdown))
		for _, para := range s.paragraphs {
			paragraphs++
			if !strings.Contains(text, para) {
				lostWords++
				if lostWords <= 5 || os.Getenv("CRAWLER_REALDOCS_VERBOSE") != "" {
					t.Logf("%s: a paragraph's words are not in its markdown in order: %q", p, para)
				}
			}
			if !s.noindex && holders[para] == 1 {
				own++
				if !strings.Contains(deduped, para) {
					lostOwn++
					if lostOwn <= 5 {
						t.Logf("%s: deduplication took the page's own paragraph %q", p, para)
					}
				}
			}
		}
		for _, cb := range s.code {
			codes++
			want := invisible.Replace(quoteMarks.ReplaceAllString(cb.lines, ""))
			if !strings.Contains(trimmed, want) {
				lostCode++
				if lostCode <= 5 {
					t.Logf("%s: a code block is not in its markdown line by line:\n%s", p, want)
				}
				continue
			}
			if cb.lang != "" && !strings.Contains(trimmed, "```"+cb.lang+"\n"+firstLine(want)) {
				wrongLang++
				if wrongLang <= 5 {
					t.Logf("%s: a %s code block lost its language: %q", p, cb.lang, firstLine(want))
				}
			}
		}
		tables += s.tables
		if got := len(tableDelimiter.FindAllString(rawMD, -1)); got < s.tables {
			lostTables += s.tables - got
			t.Logf("%s: %d data tables, %d in its markdown", p, s.tables, got)
		}
	}
	for i, k := range kept {
		t.Logf("%s, %s: %s", m.Name, [2]string{"converted", "deduplicated"}[i], k.String())
	}
	conserved(t, m, c, raw, sources)
	// A manual whose scripts draw its navigation is found whole, with a
	// page or a few rendered for their links and the rest fetched
	// statically (its pages hold their content in their HTML).
	if m.MaxRendered > 0 {
		t.Logf("%s: %d pages stored of %d, %d rendered", m.Name, len(c.pages), m.Pages, rendered)
		if rendered > m.MaxRendered || rendered == 0 {
			t.Errorf("%s: %d pages rendered, want 1 to %d", m.Name, rendered, m.MaxRendered)
		}
	}
	if m.Pages > 0 && 100*len(c.pages) < 95*m.Pages {
		t.Errorf("%s: %d pages stored, want at least 95 %% of its %d", m.Name, len(c.pages), m.Pages)
	}
	figures := manualFigures{name: m.Name, pages: len(c.pages), kept: kept, paragraphs: paragraphs, lostParagraphs: lostWords,
		codes: codes, lostCode: lostCode, tables: tables, lostTables: lostTables}
	realFigures.Store(m.Name, figures)
	t.Logf("%s: %d pages; paragraphs %d (%d lost or reordered), own paragraphs after deduplication %d (%d lost), "+
		"code blocks %d (%d lost, %d without their language), data tables %d (%d lost), title headings %d (%d lost)",
		m.Name, len(c.pages), paragraphs, lostWords, own, lostOwn, codes, lostCode, wrongLang, tables, lostTables, titled, lostTitles)
	// What a few pages lose of a generator's output (a link list, a
	// byline on a title page) is allowed, up to a hundredth of each kind,
	// a tenth of the tables; more is a fault of the conversion.
	// Every manual: no page emptied, converted or deduplicated, and
	// deduplication adds at most half a point of pages under 80 % of
	// their words.
	for i, k := range kept {
		if k.emptied > 0 {
			t.Errorf("%s, %s: %d pages emptied", m.Name, [2]string{"converted", "deduplicated"}[i], k.emptied)
		}
	}
	if kept[1].under80 > kept[0].under80+max(1, kept[0].pages/200) {
		t.Errorf("%s: deduplication leaves %d pages under 80 %% of their words, conversion alone %d", m.Name, kept[1].under80, kept[0].under80)
	}
	within := func(lost, total, share int) bool { return lost <= max(2, total/share) }
	if m.Code != "" && !within(lostCode, codes, 100) {
		t.Errorf("%s: %d of %d code blocks (%s and <pre>) are not as the page shows them", m.Name, lostCode, codes, m.Code)
	}
	if !m.Strict {
		return
	}
	if !within(lostWords, paragraphs, 100) || !within(lostOwn, own, 100) || !within(lostCode, codes, 100) ||
		!within(wrongLang, codes, 100) || !within(lostTables, tables, 10) || !within(lostTitles, titled, 20) {
		t.Errorf("%s: %d of %d paragraphs, %d of %d own paragraphs after deduplication, %d of %d code blocks (%d languages), %d of %d tables and %d of %d title headings are not as the page has them",
			m.Name, lostWords, paragraphs, lostOwn, own, lostCode, codes, wrongLang, lostTables, tables, lostTitles, titled)
	}
}

// conserved checks, page by page, that the words of a page's content
// region its markdown lacks went for a reason its log entry names (the
// page's furniture, what main content left outside or around the
// article, what no reader sees), and that conversion lost none of the
// words it kept in the tree (unconverted). A page failing names itself;
// a manual fails when more than a hundredth of its pages (and two) do.
func conserved(t *testing.T, m realdocs.Manual, c crawled, raw map[string]string, sources map[string]source) {
	t.Helper()
	logged := map[string]map[string]any{}
	for _, l := range c.logs {
		if url, _ := l.Data["url"].(string); l.Message == "Page crawled" && url != "" {
			if w, ok := l.Data["words"].(map[string]any); ok {
				logged[strings.TrimPrefix(url, c.base)] = w
			}
		}
	}
	num := func(w map[string]any, k string) int { f, _ := w[k].(float64); return int(f) }
	var failed, unconverted, checked int
	for p := range c.pages {
		if strings.HasSuffix(p, ".pdf") {
			continue
		}
		w, ok := logged[p]
		if !ok {
			failed++
			t.Logf("%s: its log entry does not say where its words went", p)
			continue
		}
		checked++
		kept, lost := num(w, "kept"), num(w, "unconverted")
		removed := num(w, "hidden") + num(w, "sections") + num(w, "outside") + num(w, "around") + num(w, "outvoted") + num(w, "repeated") + lost
		if lost > max(5, (kept+lost)/50) {
			unconverted++
			t.Logf("%s: %d of the words conversion kept in the page did not reach its markdown", p, lost)
		}
		region, got := sources[p].words, realdocs.WordCounts(plainMarkdown(raw[p]))
		missing, total := 0, 0
		for word, n := range region {
			total += n
			missing += max(0, n-got[word])
		}
		if missing > removed+max(10, total/20) {
			failed++
			t.Logf("%s: %d of its region's %d words are not in its markdown, and its log names %d that went", p, missing, total, removed)
		}
	}
	t.Logf("%s: %d pages' words accounted for, %d not, %d with words lost in conversion", m.Name, checked-failed, failed, unconverted)
	if limit := max(2, len(c.pages)/100); failed > limit || unconverted > limit {
		t.Errorf("%s: %d pages' words are not accounted for and %d lost words in conversion (at most %d each)", m.Name, failed, unconverted, limit)
	}
}

// readSource reads the file a page was served from.
func readSource(t *testing.T, m realdocs.Manual, root, page string) source {
	t.Helper()
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	p := u.Path
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(path.Clean(p))))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	defer f.Close()
	// Read as the workers fetched it: cut at their response size cap
	// (Node.js's all.html, the whole API on one page, is 5.8 MB).
	doc, err := goquery.NewDocumentFromReader(io.LimitReader(f, maxPageBytes))
	if err != nil {
		t.Fatal(err)
	}
	var s source
	doc.Find(`meta[name="robots"]`).Each(func(_ int, m *goquery.Selection) {
		c, _ := m.Attr("content")
		s.noindex = s.noindex || strings.Contains(strings.ToLower(c), "noindex")
	})
	pageTitle := wordSet(doc.Find("title").First().Text())
	region := doc.Find(m.Region).First()
	region.Find("h1, h2, h3").EachWithBreak(func(_ int, h *goquery.Selection) bool {
		words := wordSet(h.Text())
		if len(words) > 0 && (subset(words, pageTitle) || subset(pageTitle, words)) {
			s.title = wordsOnly(h.Text())
			return false
		}
		return true
	})
	region = m.OwnRegion(doc)
	s.words = realdocs.Words(region)
	region.Find("p").Each(func(_ int, p *goquery.Selection) {
		w := wordsOnly(p.Text())
		if len(w) < 30 || wordsOnly(p.Find("a").Text()) == w {
			return // a paragraph that is only links is a list of links
		}
		s.paragraphs = append(s.paragraphs, w)
	})
	region.Find("pre").Each(func(_ int, pre *goquery.Selection) {
		if pre.Find("pre").Length() > 0 {
			return // mdBook's wrapper; the inner one counts
		}
		pre.Find("br").ReplaceWithHtml("\n")
		// Pygments' line numbers (Sphinx's linenos) number the lines; they
		// are not the code.
		pre.Find("span.linenos, span.lineno").Remove()
		lines := strings.Split(strings.Trim(pre.Text(), "\n"), "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(strings.ReplaceAll(lines[i], "\u00a0", " "), " \t")
		}
		text := strings.Join(lines, "\n")
		if strings.TrimSpace(text) == "" {
			return
		}
		s.code = append(s.code, codeBlock{lang: languageOf(pre), lines: text})
	})
	if m.Code != "" {
		region.Find(m.Code).Each(func(_ int, block *goquery.Selection) {
			var lines []string
			block.Children().Each(func(_ int, line *goquery.Selection) {
				lines = append(lines, strings.TrimRight(strings.ReplaceAll(line.Text(), "\u00a0", " "), " \t"))
			})
			// The space between a listing's line numbers and its
			// lines is no indentation of the code: the common indent
			// goes.
			text := strings.Trim(dedentLines(lines), "\n")
			if strings.TrimSpace(text) != "" {
				s.code = append(s.code, codeBlock{lines: text})
			}
		})
	}
	region.Find("table").Each(func(_ int, table *goquery.Selection) {
		if table.Find("tr").Length() >= 2 && table.Find("table, pre, ul, ol, h1, h2, h3, h4, h5, h6, details").Length() == 0 && !gallery(table) {
			s.tables++
		}
	})
	return s
}

// dedentLines joins lines less the indent all those with text share.
func dedentLines(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		} else if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// gallery reports whether table sets pictures side by side (Sphinx's
// theme overview): at least half of the cells that hold anything hold a
// picture. It lays pictures out; it is no table of data.
func gallery(table *goquery.Selection) bool {
	filled, pictures := 0, 0
	table.Find("td, th").Each(func(_ int, cell *goquery.Selection) {
		hasPicture := cell.Find("img").Length() > 0
		if hasPicture || strings.TrimSpace(cell.Text()) != "" {
			filled++
		}
		if hasPicture {
			pictures++
		}
	})
	return filled > 0 && 2*pictures >= filled
}

// languageOf is a code block's language as the generators write it:
// mdBook's language-X on the code, Sphinx's highlight-X two levels up.
func languageOf(pre *goquery.Selection) string {
	for _, s := range []*goquery.Selection{pre.Find("code").First(), pre.Parent().Parent()} {
		class, _ := s.Attr("class")
		for _, c := range strings.Fields(class) {
			for _, prefix := range []string{"language-", "highlight-"} {
				if l, ok := strings.CutPrefix(c, prefix); ok && l != "default" && l != "none" && l != "text" {
					return l
				}
			}
		}
	}
	return ""
}

var (
	quoteMarks     = regexp.MustCompile(`(?m)^([ \t]*> ?)+`)
	trailingSpaces = regexp.MustCompile(`(?m)[ \t]+$`)
	tableDelimiter = regexp.MustCompile(`(?m)^[ \t]*(>[ \t]*)*\|[ :|-]*-[ :|-]*\|$`)
)

// invisible are the characters the markdown leaves out: they only steer
// layout.
var invisible = strings.NewReplacer("\u200b", "", "\u00ad", "", "\ufeff", "", "\u200c", "", "\u200d", "")

// dedentFences takes off the lines of each fenced code block the indent
// of its fence (a code block inside a list item is indented with it).
func dedentFences(md string) string {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		indent := len(lines[i]) - len(t)
		if indent == 0 || !strings.HasPrefix(t, "```") {
			continue
		}
		lines[i] = t
		for i++; i < len(lines); i++ {
			pad := min(indent, len(lines[i])-len(strings.TrimLeft(lines[i], " ")))
			lines[i] = lines[i][pad:]
			if strings.TrimSpace(lines[i]) == "```" {
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// wordSet is the set of text's words, lower case.
func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		set[w] = true
	}
	return set
}

// subset reports whether every word of a is in b.
func subset(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// headingSays reports whether a heading line of md has these words.
func headingSays(md, words string) bool {
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") && wordsOnly(plainMarkdown(line)) == words {
			return true
		}
	}
	return false
}

// plainMarkdown drops link targets and image addresses from markdown.
func plainMarkdown(md string) string { return realdocs.PlainMarkdown(md) }

// wordsOnly is s's letters and digits, lower case, in order: what must
// come out of a paragraph whatever the markup around its words.
func wordsOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// keptWords is how much of their own words a manual's pages keep in their
// markdown: each page's share of its content region's words (counted with
// repeats, each word at most as often as the region has it).
type keptWords struct {
	pages, emptied, under80 int
	sum                     float64
	worst                   []pageShare
}

type pageShare struct {
	page  string
	share float64
}

// maxWorstShown bounds the pages keptWords lists.
const maxWorstShown = 8

// add counts one page: its region's words and its markdown. A page whose
// region has no words says nothing of the conversion and is left out.
func (k *keptWords) add(page string, region map[string]int, md string) {
	got := realdocs.WordCounts(plainMarkdown(md))
	share := realdocs.Share(region, got)
	if share < 0 {
		return
	}
	k.pages++
	k.sum += share
	if len(got) == 0 {
		k.emptied++
	}
	if share < 0.8 {
		k.under80++
	}
	k.worst = append(k.worst, pageShare{page, share})
	slices.SortFunc(k.worst, func(a, b pageShare) int { return cmp.Compare(a.share, b.share) })
	k.worst = k.worst[:min(len(k.worst), maxWorstShown)]
}

func (k keptWords) String() string {
	var worst []string
	for _, w := range k.worst {
		if w.share < 0.9 {
			worst = append(worst, fmt.Sprintf("%s %.2f", w.page, w.share))
		}
	}
	return fmt.Sprintf("%d pages, %d emptied, %d under 80%% of their words, mean share %.3f; lowest: %s",
		k.pages, k.emptied, k.under80, k.mean(), strings.Join(worst, ", "))
}

func (k keptWords) mean() float64 {
	if k.pages == 0 {
		return 0
	}
	return k.sum / float64(k.pages)
}

// manualFigures are one manual's figures, for the table TestRealManuals
// ends with.
type manualFigures struct {
	name                                                            string
	pages                                                           int
	kept                                                            [2]keptWords
	paragraphs, lostParagraphs, codes, lostCode, tables, lostTables int
}

// realFigures holds each manual's figures by name.
var realFigures sync.Map

// figureTable is the manuals' figures as a markdown table: words kept per
// page, converted and deduplicated, and paragraphs, code blocks and tables
// as the page has them.
func figureTable() string {
	var b strings.Builder
	b.WriteString("\n| manual | pages | emptied | under 80 % | mean share | emptied (dedup) | under 80 % (dedup) | mean share (dedup) | paragraphs verbatim | code exact | tables |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	pct := func(lost, total int) string {
		if total == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f %%", 100*float64(total-lost)/float64(total))
	}
	for _, m := range realdocs.Manuals {
		v, ok := realFigures.Load(m.Name)
		if !ok {
			continue
		}
		f := v.(manualFigures)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.3f | %d | %d | %.3f | %s | %s | %s |\n", f.name, f.kept[0].pages,
			f.kept[0].emptied, f.kept[0].under80, f.kept[0].mean(), f.kept[1].emptied, f.kept[1].under80, f.kept[1].mean(),
			pct(f.lostParagraphs, f.paragraphs), pct(f.lostCode, f.codes), pct(f.lostTables, f.tables))
	}
	return b.String()
}
