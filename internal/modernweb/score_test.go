package modernweb_test

import (
	"bufio"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/modernweb"
	"github.com/durablecrawl/crawler/markdown"
)

// TestRecordedFigures converts every page of the set as the service does
// with excludeNonMainTags (main content only, links kept) and fails when
// the F1 of any kind of page, or of all pages, falls more than 0.01 below
// the figure record.tsv holds. When a change raises a figure, raise the
// record with it (go run ./internal/maineval -set modern prints the
// figures, by half too).
func TestRecordedFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 468 pages")
	}
	pages, err := modernweb.Load(modernweb.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 468 {
		t.Fatalf("the set holds %d pages, want 468", len(pages))
	}
	totals := map[string]*modernweb.Total{"all": {}}
	for _, p := range pages {
		s := modernweb.Compare(p.Expected, modernweb.Text(Convert(t, p)))
		totals["all"].Add(s)
		if totals[p.Kind] == nil {
			totals[p.Kind] = &modernweb.Total{}
		}
		totals[p.Kind].Add(s)
	}
	record := readRecord(t)
	for _, kind := range append([]string{"all"}, modernweb.Kinds...) {
		got := totals[kind]
		if got == nil {
			t.Errorf("no page of kind %s", kind)
			continue
		}
		t.Logf("%-13s %3d pages  P %.3f  R %.3f  F1 %.3f  (recorded %.3f)", kind, got.N, got.P(), got.R(), got.F1(), record[kind])
		want, ok := record[kind]
		if !ok {
			t.Errorf("record.tsv has no figure for %s", kind)
			continue
		}
		if got.F1() < want-0.01 {
			t.Errorf("%s: F1 %.3f, more than 0.01 below the recorded %.3f", kind, got.F1(), want)
		}
	}
}

// Convert is the page's main-content markdown as the API stores it.
func Convert(t testing.TB, p modernweb.Page) string {
	u := &url.URL{Scheme: "https", Host: "pages.example", Path: "/" + p.ID + ".html"}
	doc, err := markdown.Convert(fetch.TextUTF8(p.HTML, "text/html"), markdown.Options{PageURL: u, MainContentOnly: true, IncludeLinks: true})
	if err != nil {
		t.Fatalf("page %s: %v", p.ID, err)
	}
	return doc.Markdown
}

// readRecord reads record.tsv: a kind and its F1 a line.
func readRecord(t *testing.T) map[string]float64 {
	f, err := os.Open("record.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, figure, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseFloat(strings.TrimSpace(figure), 64)
		if !ok || err != nil {
			t.Fatalf("record.tsv: %q: want a kind, a tab and a figure", line)
		}
		out[kind] = v
	}
	return out
}
