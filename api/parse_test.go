package api

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/internal/officetest"
)

// upload is a POST /v2/parse of a file named name holding data, with
// options (JSON, "" for none).
func upload(t *testing.T, a *testAPI, name string, data []byte, options string) response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if name != "" {
		part, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = part.Write(data)
	}
	if options != "" {
		_ = w.WriteField("options", options)
	}
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, "/v2/parse", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+testKey)
	return a.send(t, req)
}

// TestParse reads each kind of file into a document, with the formats
// asked for, and stores nothing.
func TestParse(t *testing.T) {
	a := newTestAPI(t)
	html := []byte(`<html><head><title>Ferries</title></head><body><nav><a href="/">Home</a> <a href="/x">Other</a></nav>` +
		`<main><h1>Ferries</h1><p>The ferry leaves at nine each morning for the island and returns at six.</p><a href="https://example.com/t">Timetable</a></main></body></html>`)
	for _, c := range []struct {
		name    string
		data    []byte
		options string
		want    []string
		title   string
	}{
		{"ferries.html", html, `{"formats":["markdown","links"],"onlyMainContent":true}`, []string{"# Ferries", "The ferry leaves at nine"}, "Ferries"},
		{"notes.txt", []byte("Notes on ferries.\nThe first one leaves at nine."), "", []string{"Notes on ferries.\nThe first one leaves at nine."}, ""},
		{"report.docx", officetest.DOCX(), "", []string{"# Harbour report", "## Ferries", "**nine**", "[the timetable](https://example.com/harbour)",
			"- Tickets at the pier", "| Route | Minutes |", "| Island | 40 |"}, "Harbour report"},
		{"report.odt", officetest.ODT(), "", []string{"# Harbour report", "- Tickets at the pier", "| Island | 40 |"}, ""},
		{"ferries.xlsx", officetest.XLSX(), "", []string{"## Ferries", "| Lighthouse | | Summer only |"}, ""},
	} {
		r := upload(t, a, c.name, c.data, c.options)
		if r.Status != 200 {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
			continue
		}
		doc, _ := r.Body["data"].(map[string]any)
		md, _ := doc["markdown"].(string)
		flat := strings.Join(strings.Fields(md), " ") // tables are padded
		for _, w := range c.want {
			if !strings.Contains(md, w) && !strings.Contains(flat, w) {
				t.Errorf("%s: the markdown lacks %q:\n%s", c.name, w, md)
			}
		}
		meta, _ := doc["metadata"].(map[string]any)
		if meta["fileName"] != c.name || meta["statusCode"] != float64(200) || (c.title != "" && meta["title"] != c.title) {
			t.Errorf("%s: metadata %v", c.name, meta)
		}
		if c.name == "ferries.html" {
			if strings.Contains(md, "Home") {
				t.Errorf("the main content kept the navigation:\n%s", md)
			}
			if links, _ := doc["links"].([]any); len(links) == 0 {
				t.Errorf("the links format: %v", doc["links"])
			}
		}
	}
	if len(a.store.inserted) != 0 || len(a.temporal.started) != 0 {
		t.Errorf("a parse stored %d crawls and started %d workflows", len(a.store.inserted), len(a.temporal.started))
	}
}

// TestParseRefusals: no file, a file too large, one no reader takes, and
// options that need the web or a browser, each a clear error.
func TestParseRefusals(t *testing.T) {
	a := newTestAPI(t)
	if r := upload(t, a, "", nil, `{"formats":["markdown"]}`); r.Status != 400 || r.Body["success"] != false || !strings.Contains(r.Raw, `"field":"file"`) {
		t.Errorf("no file: %d %s", r.Status, r.Raw)
	}
	if r := upload(t, a, "big.txt", bytes.Repeat([]byte("a"), MaxParseBytes+1), ""); r.Status != http.StatusRequestEntityTooLarge ||
		!strings.Contains(r.Raw, "file") {
		t.Errorf("a file too large: %d %s", r.Status, r.Raw)
	}
	if r := upload(t, a, "noise.bin", []byte{0, 1, 2, 0xff, 0xfe, 0, 7}, ""); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, "noise.bin") {
		t.Errorf("bytes no reader takes: %d %s", r.Status, r.Raw)
	}
	if r := upload(t, a, "broken.pdf", []byte("%PDF-1.7 and then nothing"), ""); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a broken PDF: %d %s", r.Status, r.Raw)
	}
	for options, field := range map[string]string{
		`{"actions":[{"type":"scrape"}]}`:            "actions",
		`{"waitFor":1000}`:                           "waitFor",
		`{"formats":["screenshot"]}`:                 "formats[0]",
		`{"formats":[{"type":"json","prompt":"x"}]}`: "formats[0]",
		`{"colour":"blue"}`:                          "colour",
		`[1]`:                                        "options",
	} {
		r := upload(t, a, "a.txt", []byte("text"), options)
		if r.Status != 400 || !strings.Contains(r.Raw, field) {
			t.Errorf("options %s: %d %s, want a 400 naming %s", options, r.Status, r.Raw, field)
		}
	}
}

// TestParsePDF reads a real manual's PDF (Debian's, from make test).
func TestParsePDF(t *testing.T) {
	dir := os.Getenv("CRAWLER_REALPDFS")
	if dir == "" {
		t.Fatal("CRAWLER_REALPDFS is not set: make test downloads Debian's PDF manuals (ensure_realpdfs in scripts/lib.sh)")
	}
	data, err := os.ReadFile(filepath.Join(dir, "maint-guide.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t)
	r := upload(t, a, "maint-guide.pdf", data, `{"parsers":[{"type":"pdf","maxPages":5}]}`)
	doc, _ := r.Body["data"].(map[string]any)
	md, _ := doc["markdown"].(string)
	if r.Status != 200 || !strings.Contains(md, "Debian") || len(md) < 1000 {
		t.Errorf("a PDF: %d, %d characters of markdown: %.300s", r.Status, len(md), r.Raw)
	}
}
