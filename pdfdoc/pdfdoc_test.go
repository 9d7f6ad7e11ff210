package pdfdoc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

var converter = &Converter{Instances: 1}

func TestMain(m *testing.M) {
	code := m.Run()
	converter.Close()
	os.Exit(code)
}

// document writes a two-page PDF: a title, a section heading, a
// paragraph wrapped over several lines with a hyphenated word, a list,
// and a page number at the foot of each page.
func document(t *testing.T, protect bool) []byte {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	if protect {
		f.SetProtection(fpdf.CnProtectPrint, "user-secret", "owner-secret")
	}
	f.SetFooterFunc(func() {
		f.SetY(-15)
		f.SetFont("Helvetica", "", 9)
		f.CellFormat(0, 10, "3"+string(rune('0'+f.PageNo())), "", 0, "C", false, 0, "")
	})
	f.AddPage()
	f.SetFont("Helvetica", "B", 22)
	f.MultiCell(0, 10, "Annual report", "", "L", false)
	f.SetFont("Helvetica", "B", 15)
	f.MultiCell(0, 8, "Results of the year", "", "L", false)
	f.SetFont("Helvetica", "", 11)
	f.MultiCell(60, 5, "The crawler fetched every page of the site and stored its markdown in the data-", "", "L", false)
	f.MultiCell(60, 5, "base without a single failure.", "", "L", false)
	f.Ln(4)
	f.MultiCell(0, 5, "- first item of the list", "", "L", false)
	f.MultiCell(0, 5, "- second item of the list", "", "L", false)
	f.AddPage()
	f.SetFont("Helvetica", "B", 15)
	f.MultiCell(0, 8, "Plans", "", "L", false)
	f.SetFont("Helvetica", "", 11)
	f.MultiCell(0, 5, "Next year the crawler reads documents too.", "", "L", false)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestConvert(t *testing.T) {
	doc, err := converter.Convert(context.Background(), document(t, false), Limits{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 2 || doc.Read != 2 {
		t.Errorf("pages %d, read %d, want 2", doc.Pages, doc.Read)
	}
	want := "<!-- page 1 -->\n\n# Annual report\n\n## Results of the year\n\n" +
		"The crawler fetched every page of the site and stored its markdown in the database without a single failure.\n\n" +
		"- first item of the list\n\n- second item of the list\n\n<!-- page 2 -->\n\n## Plans\n\nNext year the crawler reads documents too.\n"
	if doc.Markdown != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

func TestPageLimit(t *testing.T) {
	doc, err := converter.Convert(context.Background(), document(t, false), Limits{MaxPages: 1})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 2 || doc.Read != 1 || strings.Contains(doc.Markdown, "Plans") || !strings.Contains(doc.Markdown, "1 more pages not read") {
		t.Errorf("%d pages, %d read:\n%s", doc.Pages, doc.Read, doc.Markdown)
	}
}

func TestEncryptedAndBroken(t *testing.T) {
	if _, err := converter.Convert(context.Background(), document(t, true), Limits{}); !errors.Is(err, ErrEncrypted) {
		t.Errorf("a password-protected PDF: %v, want ErrEncrypted", err)
	}
	data := document(t, false)
	for name, broken := range map[string][]byte{
		"cut in half": data[:len(data)/2],
		"not a PDF":   []byte("<html>not a pdf</html>"),
		"empty":       nil,
	} {
		if _, err := converter.Convert(context.Background(), broken, Limits{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// The converter still works after them.
	if _, err := converter.Convert(context.Background(), data, Limits{}); err != nil {
		t.Errorf("after broken documents: %v", err)
	}
}

// TestRealManual converts a real manual when the Debian PDFs are there
// (scripts/lib.sh ensure_realpdfs) and checks what a reader sees first.
func TestRealManual(t *testing.T) {
	dir := os.Getenv("CRAWLER_REALPDFS")
	if dir == "" {
		t.Skip("CRAWLER_REALPDFS is not set")
	}
	data, err := os.ReadFile(filepath.Join(dir, "maint-guide.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := converter.Convert(context.Background(), data, Limits{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages, %d bytes of markdown; its start:\n%s", doc.Pages, len(doc.Markdown), doc.Markdown[:min(1500, len(doc.Markdown))])
	if doc.Pages < 50 || !strings.Contains(doc.Markdown, "Debian New Maintainers") || strings.Count(doc.Markdown, "<!-- page ") != doc.Pages {
		t.Errorf("%d pages, markers %d", doc.Pages, strings.Count(doc.Markdown, "<!-- page "))
	}
}

func TestTable(t *testing.T) {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddPage()
	f.SetFont("Helvetica", "", 11)
	f.MultiCell(0, 5, "The manuals read so far:", "", "L", false)
	f.Ln(3)
	for _, row := range [][]string{{"Manual", "Pages", "State"}, {"maint-guide", "63", "read"}, {"policy", "193", "read"}} {
		for _, cell := range row {
			f.CellFormat(45, 7, cell, "1", 0, "L", false, 0, "")
		}
		f.Ln(-1)
	}
	f.Ln(3)
	f.MultiCell(0, 5, "Both were read in full.", "", "L", false)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := converter.Convert(context.Background(), buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := "The manuals read so far:\n\n| Manual | Pages | State |\n|---|---|---|\n| maint-guide | 63 | read |\n| policy | 193 | read |\n\nBoth were read in full.\n"
	if doc.Markdown != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// twoColumns writes a page set in two columns under a title and an
// abstract that run across both, with a centred page number: each column
// holds paragraphs of numbered sentences, so reading order can be
// checked.
func twoColumns(t *testing.T) (pdf []byte, left, right []string) {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	f.SetFooterFunc(func() {
		f.SetY(-15)
		f.SetFont("Helvetica", "", 9)
		f.CellFormat(0, 10, "7", "", 0, "C", false, 0, "")
	})
	f.AddPage()
	f.SetFont("Helvetica", "B", 20)
	f.MultiCell(0, 10, "Crawling in two columns", "", "C", false)
	f.SetFont("Helvetica", "", 10)
	f.MultiCell(0, 5, "Abstract: a paper whose text is set in two columns, as many papers and reports are, read in the order its author wrote it.", "", "L", false)
	f.Ln(4)
	top := f.GetY()
	para := func(col string, n int) string {
		var words []string
		for i := range n {
			words = append(words, fmt.Sprintf("%s column sentence number %d reads on.", col, i+1))
		}
		return strings.Join(words, " ")
	}
	// The left column's last paragraph goes on at the top of the right
	// one, with a word hyphenated across.
	left = []string{para("Left", 8), para("Western", 6) + " This paragraph goes on in the next col-"}
	right = []string{"umn, where it ends. " + para("Right", 8), para("Eastern", 6)}
	f.SetLeftMargin(10)
	for _, p := range left {
		f.MultiCell(90, 5, p, "", "L", false)
		f.Ln(3)
	}
	f.SetY(top)
	f.SetLeftMargin(110)
	f.SetX(110)
	for _, p := range right {
		f.MultiCell(90, 5, p, "", "L", false)
		f.Ln(3)
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), left, right
}

func TestTwoColumns(t *testing.T) {
	data, left, right := twoColumns(t)
	doc, err := converter.Convert(context.Background(), data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Crawling in two columns\n\n" +
		"Abstract: a paper whose text is set in two columns, as many papers and reports are, read in the order its author wrote it.\n\n" +
		left[0] + "\n\n" + strings.TrimSuffix(left[1], "-") + right[0] + "\n\n" + right[1] + "\n"
	if doc.Markdown != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// A table of two columns with many rows stays a table: its cells are
// short, not columns of text.
func TestLongTableIsNotColumns(t *testing.T) {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddPage()
	f.SetFont("Helvetica", "", 11)
	var want strings.Builder
	want.WriteString("| Option | Meaning |\n|---|---|")
	f.CellFormat(80, 7, "Option", "", 0, "L", false, 0, "")
	f.CellFormat(100, 7, "Meaning", "", 1, "L", false, 0, "")
	for i := range 20 {
		opt, meaning := fmt.Sprintf("option-%d", i), fmt.Sprintf("what option %d does", i)
		f.CellFormat(80, 7, opt, "", 0, "L", false, 0, "")
		f.CellFormat(100, 7, meaning, "", 1, "L", false, 0, "")
		fmt.Fprintf(&want, "\n| %s | %s |", opt, meaning)
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := converter.Convert(context.Background(), buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Markdown != want.String()+"\n" {
		t.Errorf("markdown:\n%s\nwant:\n%s", doc.Markdown, want.String())
	}
}

// A document without text (a scan: images only) is ErrNoText, not a page
// of markers.
func TestNoText(t *testing.T) {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddPage()
	f.Rect(20, 20, 100, 60, "F")
	f.AddPage()
	f.Line(10, 10, 100, 100)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	if doc, err := converter.Convert(context.Background(), buf.Bytes(), Limits{}); !errors.Is(err, ErrNoText) {
		t.Errorf("a document of drawings: %v, want ErrNoText; markdown %q", err, doc.Markdown)
	}
}

// A page that cannot be read is marked and the others kept.
func TestUnreadablePage(t *testing.T) {
	md := Markdown([]Page{
		{Width: 600, Height: 800, Spans: []Span{{Text: "First page.", Left: 50, Right: 120, Bottom: 700, Top: 710, Size: 10}}},
		{Unreadable: true},
		{Width: 600, Height: 800, Spans: []Span{{Text: "Third page.", Left: 50, Right: 120, Bottom: 700, Top: 710, Size: 10}}},
	})
	want := "<!-- page 1 -->\n\nFirst page.\n\n<!-- page 2 -->\n\n<!-- this page could not be read -->\n\n<!-- page 3 -->\n\nThird page.\n"
	if md != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", md, want)
	}
}

// A conversion ends with its context, and Close waits for conversions and
// refuses new ones.
func TestCancelAndClose(t *testing.T) {
	c := &Converter{Instances: 1}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Convert(ctx, document(t, false), Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled conversion: %v, want context.Canceled", err)
	}
	// The only instance is held, so the conversion started next waits in
	// Convert until it is given back.
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
	held, err := c.pool.GetInstanceWithContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data := document(t, false)
	converted := make(chan error, 1)
	go func() {
		_, err := c.Convert(context.Background(), data, Limits{})
		converted <- err
	}()
	time.Sleep(200 * time.Millisecond) // it is waiting for the instance
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a conversion was waiting for its instance")
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := c.Convert(context.Background(), data, Limits{}); !errors.Is(err, ErrClosed) {
		t.Errorf("a conversion asked for while closing: %v, want ErrClosed", err)
	}
	_ = held.Close() // back to the pool
	if err := <-converted; err != nil {
		t.Errorf("the conversion Close waited for: %v", err)
	}
	<-closed
}

func TestEscapeStart(t *testing.T) {
	for in, want := range map[string]string{
		"# of pages read":          `\# of pages read`,
		"> 5 pages":                `\> 5 pages`,
		"+ one more":               `\+ one more`,
		"2024. A year of crawling": `2024\. A year of crawling`,
		"===":                      `\===`,
		"```go":                    "\\```go",
		"- - -":                    `\- - -`,
		"Plain text.":              "Plain text.",
		"-5 degrees":               "-5 degrees",
		"12 items":                 "12 items",
	} {
		if got := escapeStart(in); got != want {
			t.Errorf("escapeStart(%q) = %q, want %q", in, got, want)
		}
	}
}

// A page in one column whose every word is a text object of its own (as
// some producers write them) is not taken for columns: the gaps between
// words are no gutter.
func TestWordsAreNotColumns(t *testing.T) {
	f := fpdf.New("P", "mm", "A4", "")
	f.AddPage()
	f.SetFont("Helvetica", "", 11)
	var paras []string
	for p := range 4 {
		var words []string
		for i := range 60 {
			words = append(words, fmt.Sprintf("word%d.%d", p, i))
		}
		words = append(words, "end.")
		for _, w := range words {
			f.Write(5, w+" ")
		}
		f.Ln(9)
		paras = append(paras, strings.Join(words, " "))
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := converter.Convert(context.Background(), buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(paras, "\n\n") + "\n"; doc.Markdown != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}
