package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// pdfOf writes a PDF of two pages with a title, a heading and known
// paragraphs; protect encrypts it with a password.
func pdfOf(t *testing.T, protect bool) []byte { return reportPDF(t, protect, "Next steps") }

// reportPDF is pdfOf's document with its second page's heading given.
func reportPDF(t *testing.T, protect bool, heading string) []byte {
	t.Helper()
	f := fpdf.New("P", "mm", "A4", "")
	if protect {
		f.SetProtection(fpdf.CnProtectPrint, "user-secret", "owner-secret")
	}
	f.AddPage()
	f.SetFont("Helvetica", "B", 22)
	f.MultiCell(0, 10, "Quarterly crawl report", "", "L", false)
	f.SetFont("Helvetica", "", 11)
	f.MultiCell(0, 5, strings.Repeat("The durable crawler stored every page of the shop. ", 6), "", "L", false)
	f.AddPage()
	f.SetFont("Helvetica", "B", 15)
	f.MultiCell(0, 8, heading, "", "L", false)
	f.SetFont("Helvetica", "", 11)
	f.MultiCell(0, 5, "Documents are pages too.", "", "L", false)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPDFPages crawls a site that links PDFs: a generated one and a real
// manual (Debian's maint-guide, when CRAWLER_REALPDFS has it) become
// pages with their text as markdown, their type and page count; an
// encrypted one and a broken one fail, each alone, a scan without text is
// skipped, and the crawl succeeds. Firecrawl's scrape of the PDF answers its markdown.
func TestPDFPages(t *testing.T) {
	t.Parallel()
	good, locked := pdfOf(t, false), pdfOf(t, true)
	// A scan: pages of images and drawings, no text.
	f := fpdf.New("P", "mm", "A4", "")
	f.AddPage()
	f.Rect(20, 20, 120, 80, "F")
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	scan := buf.Bytes()
	var manual []byte
	if dir := os.Getenv("CRAWLER_REALPDFS"); dir != "" {
		var err error
		if manual, err = os.ReadFile(filepath.Join(dir, "maint-guide.pdf")); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Reports</title></head><body><main><h1>Reports</h1><p>Our reports, as PDF documents.</p>
				<a href="/report.pdf">Report</a> <a href="/files/download?id=7">Report (as bytes)</a>
				<a href="/locked.pdf">Locked</a> <a href="/broken.pdf">Broken</a> <a href="/manual.pdf">Manual</a>
				<a href="/scan.pdf">Scan</a></main></body></html>`)
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(good)
		case "/files/download":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(good)
		case "/locked.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(locked)
		case "/broken.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(good[:len(good)/3])
		case "/scan.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(scan)
		case "/manual.pdf":
			if manual == nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(manual)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{"deduplicateContent": false}, "succeeded")
	for _, path := range []string{"/report.pdf", "/files/download?id=7"} {
		p, ok := c.pages[path]
		if !ok {
			t.Errorf("%s not stored; stored %v", path, c.paths())
			continue
		}
		if !strings.Contains(p.Markdown, "# Quarterly crawl report") || !strings.Contains(p.Markdown, "## Next steps") ||
			!strings.Contains(p.Markdown, "The durable crawler stored every page of the shop. The durable crawler") ||
			!strings.Contains(p.Markdown, "<!-- page 2 -->") {
			t.Errorf("%s markdown:\n%s", path, p.Markdown)
		}
		if p.DocumentPages != 2 || !strings.HasPrefix(p.ContentType, "application/") || p.Title != "Quarterly crawl report" {
			t.Errorf("%s: documentPages %d, contentType %q, title %q", path, p.DocumentPages, p.ContentType, p.Title)
		}
	}
	for path, says := range map[string]string{"/locked.pdf": "encrypted", "/broken.pdf": "could not read the PDF"} {
		if e, ok := c.entry(path); !ok || e.Message != "Page failed" || !strings.Contains(e.Description, says) {
			t.Errorf("%s: entry %+v, want a failed page saying %q", path, e, says)
		}
	}
	if e, ok := c.entry("/scan.pdf"); !ok || e.Message != "Page skipped" || !strings.Contains(e.Description, "no text") {
		t.Errorf("/scan.pdf: entry %+v, want a skipped page saying it has no text", e)
	}
	if manual != nil {
		p, ok := c.pages["/manual.pdf"]
		if !ok || p.DocumentPages < 50 || !strings.Contains(p.Markdown, "Debian New Maintainers") ||
			!strings.Contains(p.Markdown, "dh_make") || strings.Count(p.Markdown, "<!-- page ") != p.DocumentPages {
			t.Errorf("the real manual: stored %v, %d pages, %d bytes of markdown", ok, p.DocumentPages, len(p.Markdown))
		}
	}

	var scraped struct {
		Data struct {
			Markdown string `json:"markdown"`
		} `json:"data"`
	}
	if status, raw := call(t, "POST", env.api+"/v2/scrape", env.keyA, map[string]any{"url": srv.URL + "/report.pdf"}, &scraped); status != http.StatusOK {
		t.Fatalf("scrape of a PDF = %d %s", status, raw)
	}
	if !strings.Contains(scraped.Data.Markdown, "Documents are pages too.") {
		t.Errorf("scrape of a PDF: %q", scraped.Data.Markdown)
	}
	// Firecrawl's parsers: a page bound; a parser that is not one.
	scraped.Data.Markdown = ""
	if status, raw := call(t, "POST", env.api+"/v2/scrape", env.keyA, map[string]any{"url": srv.URL + "/report.pdf",
		"parsers": []any{map[string]any{"type": "pdf", "maxPages": 1}}}, &scraped); status != http.StatusOK {
		t.Fatalf("scrape of a PDF with maxPages 1 = %d %s", status, raw)
	}
	if md := scraped.Data.Markdown; !strings.Contains(md, "Quarterly crawl report") || strings.Contains(md, "Documents are pages too.") {
		t.Errorf("scrape with maxPages 1: %q", md)
	}
	status, raw := call(t, "POST", env.api+"/v2/scrape", env.keyA, map[string]any{"url": srv.URL + "/report.pdf", "parsers": []string{"docx"}}, nil)
	if status != http.StatusBadRequest || !strings.Contains(string(raw), "parsers") {
		t.Errorf("parsers [docx] = %d %s, want 400 naming parsers", status, raw)
	}
	// parsers [] leaves PDFs out of a crawl.
	var started struct {
		ID string `json:"id"`
	}
	if status, raw := call(t, "POST", env.api+"/v2/crawl", env.keyA, map[string]any{"url": srv.URL + "/", "limit": 10,
		"scrapeOptions": map[string]any{"parsers": []any{}}}, &started); status != http.StatusOK {
		t.Fatalf("crawl with parsers [] = %d %s", status, raw)
	}
	waitStatus(t, env.api, env.keyA, started.ID, 2*time.Minute, "succeeded")
	for _, l := range allLogs(t, env.api, env.keyA, started.ID, 200) {
		if l.Data["url"] == srv.URL+"/report.pdf" && strings.HasPrefix(l.Message, "Page") &&
			(l.Message != "Page skipped" || !strings.Contains(l.Description, "parsers")) {
			t.Errorf("the PDF of a crawl with parsers []: %s: %s", l.Message, l.Description)
		}
	}
}

// TestPDFChangeTracking crawls a site of PDFs twice with change
// tracking: a document answered 304 (served as bytes, so known only by
// its first bytes the first time) and one sent again unchanged are the same,
// keep their markdown, type and page count; an edited one is changed.
func TestPDFChangeTracking(t *testing.T) {
	t.Parallel()
	doc := pdfOf(t, false)
	var mu sync.Mutex
	edited, notModified := false, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Documents</title></head><body><main><h1>Documents</h1><p>The documents of the year.</p>
				<a href="/validated">Validated</a> <a href="/plain.pdf">Plain</a> <a href="/edited.pdf">Edited</a></main></body></html>`)
		case "/validated":
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				mu.Lock()
				notModified++
				mu.Unlock()
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream") // known by its first bytes
			w.Write(doc)
		case "/plain.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(doc)
		case "/edited.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			mu.Lock()
			e := edited
			mu.Unlock()
			if e {
				w.Write(reportPDF(t, false, "Next steps, revised"))
				return
			}
			w.Write(reportPDF(t, false, "Next steps"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	body := map[string]any{"startUrl": srv.URL + "/", "changeTracking": true, "deduplicateContent": false}
	first := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, first.ID, 2*time.Minute, "succeeded")
	_, pages1, _ := readTracked(t, env.api, env.keyA, first.ID, srv.URL)
	mu.Lock()
	edited = true
	mu.Unlock()
	second := create(t, env.api, env.keyA, body)
	waitStatus(t, env.api, env.keyA, second.ID, 2*time.Minute, "succeeded")
	_, pages2, _ := readTracked(t, env.api, env.keyA, second.ID, srv.URL)
	mu.Lock()
	if notModified != 1 {
		t.Errorf("/validated answered 304 %d times, want once", notModified)
	}
	mu.Unlock()
	for path, status := range map[string]string{"/validated": "same", "/plain.pdf": "same", "/edited.pdf": "changed"} {
		p, before := pages2[path], pages1[path]
		if p.ChangeStatus != status || p.DocumentPages != 2 || p.ContentType != before.ContentType || before.DocumentPages != 2 {
			t.Errorf("%s: %s with %d pages typed %q (first crawl: %d pages, %q); want %s, 2 pages, the same type",
				path, p.ChangeStatus, p.DocumentPages, p.ContentType, before.DocumentPages, before.ContentType, status)
		}
		if status == "same" && (p.Markdown != before.Markdown || !strings.Contains(p.Markdown, "Documents are pages too.")) {
			t.Errorf("%s is the same but its markdown is not:\n%s", path, p.Markdown)
		}
	}
	if md := pages2["/edited.pdf"].Markdown; !strings.Contains(md, "Next steps, revised") {
		t.Errorf("/edited.pdf's new markdown:\n%s", md)
	}
}

// TestPDFInBrowserCrawl: a crawl rendered in Chromium reads the PDFs it
// links like the static engine does (Chromium's viewer holds none of the
// document's text: the document is fetched as served).
func TestPDFInBrowserCrawl(t *testing.T) {
	t.Parallel()
	good := pdfOf(t, false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Reports</title></head><body><main><h1>Reports</h1><p>Our reports, as PDF documents.</p>
				<a href="/report.pdf">Report</a></main></body></html>`)
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(good)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{"engineType": "playwright", "deduplicateContent": false}, "succeeded")
	p, ok := c.pages["/report.pdf"]
	if !ok || p.DocumentPages != 2 || !strings.Contains(p.Markdown, "Documents are pages too.") {
		e, _ := c.entry("/report.pdf")
		t.Errorf("the PDF of a browser crawl: stored %v, %d pages, markdown %q; its entry %+v", ok, p.DocumentPages, p.Markdown, e)
	}
	if e, ok := c.entry("/report.pdf"); !ok || e.Message != "Page crawled" {
		t.Errorf("the PDF's entry: %+v", e)
	}
}
