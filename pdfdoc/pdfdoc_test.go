package pdfdoc

import (
	"bytes"
	"context"
	"errors"
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
