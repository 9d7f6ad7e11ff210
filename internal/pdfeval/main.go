// Command pdfeval measures PDF text extractors for package pdfdoc: the
// share of a document's known text each gets right, in reading order, and
// how many pages a second each reads. Two kinds of documents:
//
//   - generated here with known text (headings in larger type, paragraphs
//     wrapped across lines, a list, several pages), in fpdf's core fonts
//     and in a TrueType font embedded as Identity-H with a ToUnicode map;
//   - real manuals from Debian's packages (scripts/lib.sh ensure_realpdfs),
//     each beside the same text as the package ships it in plain text.
//
// "Characters correct" is the share of the reference's word trigrams
// (weighted by their characters) found in the extractor's text: a word
// split or run together, a wrong character or text out of order each
// loses the trigrams around it. Markdown syntax and page markers are
// removed first. The plain-text references of the real manuals are not
// the PDFs' exact text (footnotes, running heads, numbering), so their
// figures compare extractors with each other, not with perfection.
//
//	go run ./internal/pdfeval -real .data/realpdfs
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/ledongthuc/pdf"

	"github.com/durablecrawl/crawler/pdfdoc"
)

type document struct {
	name      string
	data      []byte
	reference string
}

type extractor struct {
	name string
	run  func(data []byte) (text string, pages int, err error)
}

func main() {
	real := flag.String("real", "", "directory of real PDFs, each beside NAME.txt or NAME.txt.gz with its text")
	flag.Parse()
	docs := generated()
	if *real != "" {
		more, err := realDocuments(*real)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pdfeval:", err)
			os.Exit(1)
		}
		docs = append(docs, more...)
	}
	conv := &pdfdoc.Converter{Instances: 1}
	defer conv.Close()
	start := time.Now()
	if _, err := conv.Convert(context.Background(), docs[0].data, pdfdoc.Limits{}); err != nil {
		fmt.Fprintln(os.Stderr, "pdfeval: pdfium:", err)
		os.Exit(1)
	}
	fmt.Printf("PDFium (WebAssembly) started and read its first document in %v\n\n", time.Since(start).Round(time.Millisecond))
	extractors := []extractor{
		{"pdfium (go-pdfium, WebAssembly)", func(data []byte) (string, int, error) {
			d, err := conv.Convert(context.Background(), data, pdfdoc.Limits{Timeout: time.Minute})
			return d.Markdown, d.Pages, err
		}},
		{"ledongthuc/pdf, laid out by pdfdoc", ledongthuc},
		{"ledongthuc/pdf, its own GetPlainText", ledongthucPlain},
	}
	fmt.Println("| document | pages | extractor | characters correct | pages/s |")
	fmt.Println("|---|---:|---|---:|---:|")
	type total struct {
		score, pages float64
		secs         float64
		n            int
	}
	totals := map[string]*total{}
	for _, d := range docs {
		for _, e := range extractors {
			t0 := time.Now()
			text, pages, err := e.run(d.data)
			secs := time.Since(t0).Seconds()
			if totals[e.name] == nil {
				totals[e.name] = &total{}
			}
			tot := totals[e.name]
			if err != nil {
				fmt.Printf("| %s | %d | %s | error: %v | |\n", d.name, pages, e.name, err)
				tot.n++
				continue
			}
			score := trigramRecall(d.reference, text)
			fmt.Printf("| %s | %d | %s | %.1f %% | %.1f |\n", d.name, pages, e.name, 100*score, float64(pages)/secs)
			tot.score += score
			tot.pages += float64(pages)
			tot.secs += secs
			tot.n++
		}
	}
	fmt.Println()
	fmt.Println("| extractor | mean characters correct | pages/s over all |")
	fmt.Println("|---|---:|---:|")
	names := make([]string, 0, len(totals))
	for n := range totals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := totals[n]
		fmt.Printf("| %s | %.1f %% | %.1f |\n", n, 100*t.score/float64(t.n), t.pages/t.secs)
	}
}

// ledongthuc reads every page's glyphs with ledongthuc/pdf and lays them
// out with pdfdoc, as pdfium's are.
func ledongthuc(data []byte) (text string, pages int, err error) {
	defer recovered(&err)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", 0, err
	}
	pages = r.NumPage()
	out := make([]pdfdoc.Page, 0, pages)
	for i := 1; i <= pages; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		box := p.V.Key("MediaBox")
		pg := pdfdoc.Page{Width: box.Index(2).Float64(), Height: box.Index(3).Float64()}
		for _, t := range p.Content().Text {
			pg.Spans = append(pg.Spans, pdfdoc.Span{Text: t.S, Left: t.X, Right: t.X + t.W, Bottom: t.Y, Top: t.Y + t.FontSize, Size: t.FontSize})
		}
		out = append(out, pg)
	}
	return pdfdoc.Markdown(out), pages, nil
}

// ledongthucPlain is ledongthuc/pdf's own plain text of the document.
func ledongthucPlain(data []byte) (text string, pages int, err error) {
	defer recovered(&err)
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", 0, err
	}
	rd, err := r.GetPlainText()
	if err != nil {
		return "", r.NumPage(), err
	}
	b, err := io.ReadAll(rd)
	return string(b), r.NumPage(), err
}

// recovered turns a panic of the library into the error *err.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("panic: %v", r)
	}
}

// generated makes documents whose text is known.
func generated() []document {
	rng := rand.New(rand.NewPCG(7, 11))
	vocabulary := strings.Fields(`crawl durable workflow page site manual report chapter table figure
		section result value server client request answer number letter method system network
		budget schedule change history worker queue activity temporal postgres markdown document
		reading order heading paragraph line break hyphen rejoin recover measure quality speed`)
	sentence := func() string {
		n := 6 + rng.IntN(12)
		words := make([]string, n)
		for i := range words {
			words[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
		return strings.Join(words, " ") + "."
	}
	var out []document
	for _, variant := range []struct {
		name  string
		utf8  bool
		pages int
	}{{"generated, core font, 3 pages", false, 3}, {"generated, core font, 12 pages", false, 12}, {"generated, embedded TrueType, 6 pages", true, 6}} {
		f := fpdf.New("P", "mm", "A4", "")
		family := "Helvetica"
		if variant.utf8 {
			f.SetFontLocation(fontDir())
			f.AddUTF8Font("DejaVu", "", "DejaVuSansCondensed.ttf")
			f.AddUTF8Font("DejaVu", "B", "DejaVuSansCondensed-Bold.ttf")
			family = "DejaVu"
		}
		var ref strings.Builder
		add := func(s string) { ref.WriteString(s + "\n") }
		for p := range variant.pages {
			f.AddPage()
			if p == 0 {
				title := "A generated report"
				f.SetFont(family, "B", 22)
				f.MultiCell(0, 10, title, "", "L", false)
				add(title)
			}
			for s := range 3 {
				heading := fmt.Sprintf("Section %d.%d %s", p+1, s+1, vocabulary[rng.IntN(len(vocabulary))])
				f.SetFont(family, "B", 15)
				f.MultiCell(0, 8, heading, "", "L", false)
				add(heading)
				f.SetFont(family, "", 10.5)
				for range 2 {
					var para []string
					for range 4 + rng.IntN(4) {
						para = append(para, sentence())
					}
					text := strings.Join(para, " ")
					f.MultiCell(0, 5, text, "", "L", false)
					f.Ln(2)
					add(text)
				}
			}
		}
		var buf bytes.Buffer
		if err := f.Output(&buf); err != nil {
			panic(err)
		}
		out = append(out, document{name: variant.name, data: buf.Bytes(), reference: ref.String()})
	}
	return append(out, twoColumns(sentence))
}

// twoColumns makes four pages set in two columns under a title that runs
// across them, as papers are: the text is read column by column.
func twoColumns(sentence func() string) document {
	f := fpdf.New("P", "mm", "A4", "")
	var ref strings.Builder
	for p := range 4 {
		f.AddPage()
		f.SetLeftMargin(10)
		f.SetFont("Helvetica", "B", 18)
		title := fmt.Sprintf("Part %d of a paper in two columns", p+1)
		f.MultiCell(0, 10, title, "", "L", false)
		ref.WriteString(title + "\n")
		top := f.GetY()
		f.SetFont("Helvetica", "", 9.5)
		for col := range 2 {
			f.SetLeftMargin(10 + float64(col)*100)
			f.SetXY(10+float64(col)*100, top)
			for range 3 {
				var para []string
				for range 5 {
					para = append(para, sentence())
				}
				text := strings.Join(para, " ")
				f.MultiCell(90, 4.5, text, "", "J", false)
				f.Ln(2)
				ref.WriteString(text + "\n")
			}
		}
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		panic(err)
	}
	return document{name: "generated, two columns, 4 pages", data: buf.Bytes(), reference: ref.String()}
}

// fontDir is where fpdf's module keeps its DejaVu fonts.
func fontDir() string {
	out, err := runGo("list", "-m", "-f", "{{.Dir}}", "github.com/go-pdf/fpdf")
	if err != nil {
		panic(err)
	}
	return filepath.Join(strings.TrimSpace(out), "font")
}

// realDocuments reads dir's NAME.pdf (or NAME.pdf.gz) files with their
// NAME.txt (or NAME.txt.gz) references.
func realDocuments(dir string) ([]document, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []document
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(strings.TrimSuffix(name, ".gz"), ".pdf")
		if !ok {
			continue
		}
		data, err := readMaybeGzip(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		var ref []byte
		for _, refName := range []string{base + ".txt", base + ".txt.gz"} {
			if ref, err = readMaybeGzip(filepath.Join(dir, refName)); err == nil {
				break
			}
		}
		if ref == nil {
			continue
		}
		out = append(out, document{name: base, data: data, reference: string(ref)})
	}
	return out, nil
}

func readMaybeGzip(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

var (
	markers = regexp.MustCompile(`<!--[^>]*-->`)
	syntax  = regexp.MustCompile(`(?m)^(#+|-|\\)\s*`)
)

// words is text's words for comparison: markdown syntax (heading and
// item marks, table bars) and page markers removed, punctuation kept.
func words(text string) []string {
	text = markers.ReplaceAllString(text, " ")
	text = syntax.ReplaceAllString(text, "")
	var out []string
	for _, w := range strings.Fields(text) {
		if strings.Trim(w, "|-") != "" { // a table's rules and bars are syntax too
			out = append(out, w)
		}
	}
	return out
}

// trigramRecall is the share of reference's word trigrams, weighted by
// their characters, that got has (as many times).
func trigramRecall(reference, got string) float64 {
	key := func(w []string, i int) string { return w[i] + " " + w[i+1] + " " + w[i+2] }
	have := map[string]int{}
	g := words(got)
	for i := 0; i+2 < len(g); i++ {
		have[key(g, i)]++
	}
	r := words(reference)
	var found, all int
	for i := 0; i+2 < len(r); i++ {
		k := key(r, i)
		all += len(r[i])
		if have[k] > 0 {
			have[k]--
			found += len(r[i])
		}
	}
	if all == 0 {
		return 0
	}
	return float64(found) / float64(all)
}

func runGo(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	return string(out), err
}
