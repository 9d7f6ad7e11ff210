// Command doceval converts every page of the real manuals (package
// realdocs; make test downloads them) with the default options and prints,
// per manual and for the tuning and held-out halves of its pages, how
// much of each page's own words its markdown keeps: pages emptied, pages
// under 80 %, the mean share. It is conversion alone, without a crawl or
// deduplication (TestRealManuals measures both), and takes seconds.
//
//	go run ./internal/doceval [-docs DIR] [-manual NAME] [-half tuning|held-out|both] [-worst N] [-page PATH]
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
	"regexp"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/realdocs"
	"github.com/durablecrawl/crawler/markdown"
)

func main() {
	docs := flag.String("docs", os.Getenv("CRAWLER_REALDOCS"), "the folder holding usr/share/doc (default $CRAWLER_REALDOCS, else .data/realdocs)")
	only := flag.String("manual", "", "only the manuals whose name holds this")
	half := flag.String("half", "both", "which pages to list with -worst: tuning, held-out or both")
	worst := flag.Int("worst", 0, "list the n pages of each manual that keep the least of their words")
	page := flag.String("page", "", "print the markdown of the pages whose path holds this")
	flag.Parse()
	if *docs == "" {
		*docs = ".data/realdocs"
	}
	if *half != "both" && *half != "tuning" && *half != "held-out" {
		log.Fatalf("-half %q: want tuning, held-out or both", *half)
	}
	fmt.Println("| manual | half | pages | emptied | under 80 % | mean share |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	var total [2]tally
	for _, m := range realdocs.Manuals {
		if !strings.Contains(m.Name, *only) {
			continue
		}
		root := filepath.Join(*docs, m.Root)
		pages, err := convertAll(m, root, *page)
		if err != nil {
			log.Fatalf("%s: %v (make test downloads the manuals)", m.Name, err)
		}
		var halves [2]tally
		for _, p := range pages {
			h := 0
			if realdocs.HeldOut(p.path) {
				h = 1
			}
			halves[h].add(p)
			total[h].add(p)
		}
		for h, t := range halves {
			fmt.Printf("| %s | %s | %s |\n", m.Name, halfName[h], t)
		}
		if *worst > 0 {
			sort.Slice(pages, func(i, j int) bool { return pages[i].share < pages[j].share })
			shown := 0
			for _, p := range pages {
				if shown == *worst {
					break
				}
				if *half != "both" && (*half == "held-out") != realdocs.HeldOut(p.path) {
					continue
				}
				fmt.Printf("    %.2f %s (%d words)\n", p.share, p.path, p.words)
				shown++
			}
		}
	}
	for h, t := range total {
		fmt.Printf("| all | %s | %s |\n", halfName[h], t)
	}
}

var halfName = [2]string{"tuning", "held-out"}

// converted is one page's figure.
type converted struct {
	path    string
	share   float64
	words   int
	emptied bool
}

type tally struct {
	pages, emptied, under80 int
	sum                     float64
}

func (t *tally) add(p converted) {
	t.pages++
	t.sum += p.share
	if p.emptied {
		t.emptied++
	}
	if p.share < 0.8 {
		t.under80++
	}
}

func (t tally) String() string {
	mean := 0.0
	if t.pages > 0 {
		mean = t.sum / float64(t.pages)
	}
	return fmt.Sprintf("%d | %d | %d | %.3f", t.pages, t.emptied, t.under80, mean)
}

var mdImage = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
var mdLinkTarget = regexp.MustCompile(`\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)`)

// convertAll converts every HTML page below root whose region has words.
func convertAll(m realdocs.Manual, root, show string) ([]converted, error) {
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
		region := realdocs.Words(m.OwnRegion(doc))
		pageURL := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: rel}
		md, err := markdown.Convert(fetch.TextUTF8(raw, "text/html"), markdown.Options{PageURL: pageURL, MainContentOnly: true, IncludeLinks: true})
		if err != nil {
			return err
		}
		got := realdocs.WordCounts(mdLinkTarget.ReplaceAllString(mdImage.ReplaceAllString(md.Markdown, "$1"), "]"))
		share := realdocs.Share(region, got)
		if share < 0 {
			return nil
		}
		words := 0
		for _, n := range region {
			words += n
		}
		if show != "" && strings.Contains(rel, show) {
			fmt.Printf("----- %s (%.2f of %d words)\n%s\n", rel, share, words, md.Markdown)
		}
		out = append(out, converted{path: rel, share: share, words: words, emptied: len(got) == 0})
		return nil
	})
	return out, err
}
