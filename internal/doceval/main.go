// Command doceval converts every page of the real manuals (package
// realdocs; make test downloads them) with the default options, then
// deduplicates each manual's pages as a crawl of all of them would, and
// prints, per manual and for the tuning and held-out halves of its pages,
// how much of each page's own words its markdown keeps, converted and
// deduplicated: pages emptied, pages under 80 %, the mean share. It needs
// no crawl and takes seconds (TestRealManuals crawls the manuals).
//
//	go run ./internal/doceval [-docs DIR] [-manual NAME] [-half tuning|held-out|both] [-worst N] [-page PATH [-missing]] [-removed]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"

	"github.com/durablecrawl/crawler/dedupe"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/realdocs"
	"github.com/durablecrawl/crawler/markdown"
	"github.com/durablecrawl/crawler/pagestyle"
)

func main() {
	docs := flag.String("docs", os.Getenv("CRAWLER_REALDOCS"), "the folder holding usr/share/doc (default $CRAWLER_REALDOCS, else .data/realdocs)")
	only := flag.String("manual", "", "only the manuals whose name holds this")
	half := flag.String("half", "both", "which pages to list with -worst: tuning, held-out or both")
	worst := flag.Int("worst", 0, "list the n pages of each manual that keep the least of their words (deduplicated)")
	page := flag.String("page", "", "print the markdown of the pages whose path holds this, converted and deduplicated")
	removed := flag.Bool("removed", false, "list the fragments deduplication takes, with how many pages lose each")
	missing := flag.Bool("missing", false, "with -page, print only the words each page's region holds that its deduplicated markdown lacks")
	flag.BoolVar(&readStyles, "styles", true, "read the pages' linked stylesheets (markdown.Options.Stylesheet), as a crawl does")
	flag.BoolVar(&sharedSections, "shared-sections", true, "keep the sections whose heading a third of the pages hold (dedupe.Decision.SharedSections)")
	flag.Parse()
	if *docs == "" {
		*docs = ".data/realdocs"
	}
	if *half != "both" && *half != "tuning" && *half != "held-out" {
		log.Fatalf("-half %q: want tuning, held-out or both", *half)
	}
	fmt.Println("| manual | half | pages | emptied | under 80 % | mean share | emptied (dedup) | under 80 % (dedup) | mean share (dedup) |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|")
	var total [2][2]tally
	for _, m := range realdocs.Manuals {
		if !strings.Contains(m.Name, *only) {
			continue
		}
		pages, err := convertAll(m, filepath.Join(*docs, m.Root))
		if err != nil {
			log.Fatalf("%s: %v (make test downloads the manuals)", m.Name, err)
		}
		deduplicate(pages, *removed)
		var halves [2][2]tally
		for _, p := range pages {
			h := halfOf(p.path)
			for i := range p.share {
				halves[h][i].add(p, i)
				total[h][i].add(p, i)
			}
			if *page != "" && strings.Contains(p.path, *page) {
				if *missing {
					fmt.Printf("----- %s (%.2f, deduplicated %.2f, of %d words) misses: %s\n", p.path, p.share[0], p.share[1], p.words, p.missing(1))
				} else {
					fmt.Printf("----- %s (%.2f, deduplicated %.2f, of %d words)\n%s\n----- deduplicated\n%s\n", p.path, p.share[0], p.share[1], p.words, p.markdown[0], p.markdown[1])
				}
			}
		}
		for h, t := range halves {
			fmt.Printf("| %s | %s | %s | %s |\n", m.Name, halfName[h], t[0], t[1].figures())
		}
		if *worst > 0 {
			sort.Slice(pages, func(i, j int) bool { return pages[i].share[1] < pages[j].share[1] })
			shown := 0
			for _, p := range pages {
				if shown == *worst {
					break
				}
				if *half != "both" && halfName[halfOf(p.path)] != *half {
					continue
				}
				fmt.Printf("    %.2f %.2f %s (%d words)\n", p.share[0], p.share[1], p.path, p.words)
				shown++
			}
		}
	}
	for h, t := range total {
		fmt.Printf("| all | %s | %s | %s |\n", halfName[h], t[0], t[1].figures())
	}
}

var halfName = [2]string{"tuning", "held-out"}

// sharedSections is -shared-sections.
var sharedSections bool

func halfOf(path string) int {
	if realdocs.HeldOut(path) {
		return 1
	}
	return 0
}

// converted is one page: its region's words, and its markdown and the
// share of those words it keeps, converted (0) and deduplicated (1).
type converted struct {
	path     string
	region   map[string]int
	words    int
	markdown [2]string
	share    [2]float64
	emptied  [2]bool
}

type tally struct {
	pages, emptied, under80 int
	sum                     float64
}

func (t *tally) add(p converted, i int) {
	t.pages++
	t.sum += p.share[i]
	if p.emptied[i] {
		t.emptied++
	}
	if p.share[i] < 0.8 {
		t.under80++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("%d | %s", t.pages, t.figures())
}

func (t tally) figures() string {
	mean := 0.0
	if t.pages > 0 {
		mean = t.sum / float64(t.pages)
	}
	return fmt.Sprintf("%d | %d | %.3f", t.emptied, t.under80, mean)
}

// missing lists the words of the page's region that markdown i lacks,
// with how many times each is missing, most missed first.
func (p *converted) missing(i int) string {
	got := realdocs.WordCounts(realdocs.PlainMarkdown(p.markdown[i]))
	type miss struct {
		word string
		n    int
	}
	var ms []miss
	for w, n := range p.region {
		if d := n - got[w]; d > 0 {
			ms = append(ms, miss{w, d})
		}
	}
	sort.Slice(ms, func(a, b int) bool {
		if ms[a].n != ms[b].n {
			return ms[a].n > ms[b].n
		}
		return ms[a].word < ms[b].word
	})
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s×%d ", m.word, m.n)
	}
	return b.String()
}

// measure sets page's share of its words that md keeps, as figure i.
func (p *converted) measure(i int, md string) {
	got := realdocs.WordCounts(realdocs.PlainMarkdown(md))
	p.markdown[i], p.share[i], p.emptied[i] = md, realdocs.Share(p.region, got), len(got) == 0
}

// convertAll converts every HTML page below root whose region has words.
func convertAll(m realdocs.Manual, root string) ([]converted, error) {
	var out []converted
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil // a dangling link among the files
		}
		rel := "/" + filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		c := converted{path: rel, region: realdocs.Words(m.OwnRegion(doc))}
		for _, n := range c.region {
			c.words += n
		}
		if c.words == 0 {
			return nil
		}
		pageURL := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: rel}
		o := markdown.Options{PageURL: pageURL, MainContentOnly: true, IncludeLinks: true}
		if readStyles {
			o.Stylesheet = localSheets(root)
		}
		md, err := markdown.Convert(fetch.TextUTF8(raw, "text/html"), o)
		if err != nil {
			return err
		}
		c.measure(0, md.Markdown)
		out = append(out, c)
		return nil
	})
	return out, err
}

// deduplicate decides deduplication over all the pages, as at the end of
// a crawl of them with main content on (depth: the folders of a page's
// path), and measures what each keeps.
func deduplicate(pages []converted, listRemoved bool) {
	site := make([]dedupe.SitePage, len(pages))
	for i, p := range pages {
		site[i] = dedupe.SitePage{ID: int64(i + 1), Depth: strings.Count(p.path, "/"), Rank: p.path, URL: p.path,
			Hashes: dedupe.Hashes(dedupe.Split(p.markdown[0])), Headings: dedupe.HeadingHashes(dedupe.Split(p.markdown[0]))}
	}
	d := dedupe.Decide(site)
	d.SharedSections = sharedSections
	taken := map[string]int{}
	for i := range pages {
		k := d.Assemble(int64(i+1), pages[i].markdown[0], dedupe.Split(pages[i].markdown[0]))
		pages[i].measure(1, k.Markdown)
		for _, s := range k.Samples {
			taken[s]++
		}
	}
	if listRemoved {
		for s, n := range taken {
			fmt.Printf("    taken from %d pages: %q\n", n, s)
		}
	}
}

// readStyles is -styles.
var readStyles bool

// localSheets reads a manual's linked stylesheets from its files, as a
// crawl of it reads them from its server (a page's address is its path
// below root).
func localSheets(root string) func(*url.URL) *pagestyle.Sheet {
	var mu sync.Mutex
	sheets := map[string]*pagestyle.Sheet{}
	return func(u *url.URL) *pagestyle.Sheet {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := sheets[u.Path]; ok {
			return s
		}
		var s *pagestyle.Sheet
		if text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(u.Path))); err == nil {
			s = pagestyle.Parse(text)
		}
		sheets[u.Path] = s
		return s
	}
}
