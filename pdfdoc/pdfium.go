package pdfdoc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Limits bound the work one document may take.
type Limits struct {
	// MaxPages is the most pages read; the rest are left out (the
	// document says how many it has).
	MaxPages int
	// Timeout bounds the whole conversion.
	Timeout time.Duration
}

// Document is a PDF converted.
type Document struct {
	Markdown string
	// Pages is how many pages the document has; Read how many were read.
	Pages, Read int
	Title       string
	// Took is the time reading it took, the wait for an instance aside.
	Took time.Duration
}

// Errors a document can fail with, besides a broken file's.
var (
	ErrEncrypted = errors.New("the PDF is encrypted with a password")
	ErrTimeout   = errors.New("the PDF took too long to read")
	// ErrNoText is a document with no text to read: scanned pages or
	// images only (text in images is not recognised).
	ErrNoText = errors.New("the PDF has no text to read (scanned pages or images only)")
	ErrClosed = errors.New("the PDF converter is closed")
)

// Converter converts documents with a pool of PDFium instances, started
// on the first document. It is safe for concurrent use.
type Converter struct {
	// Instances is the most documents read at once.
	Instances int

	once sync.Once
	pool pdfium.Pool
	err  error

	// mu guards closed; running counts the conversions Close waits for.
	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
}

// memoryPages bounds each instance's memory: 1 GiB.
const memoryPages = 16384

// start makes the pool: WebAssembly modules with no file system and no
// output.
func (c *Converter) start() error {
	c.once.Do(func() {
		n := max(c.Instances, 1)
		c.pool, c.err = webassembly.Init(webassembly.Config{
			MinIdle: 0, MaxIdle: n, MaxTotal: n,
			FSConfig: wazero.NewFSConfig(),
			Stdout:   io.Discard, Stderr: io.Discard,
			// The features the module needs (exception handling is how
			// it was built), and what lets a kill stop it: a running
			// call ends when its instance's context does; memory at most
			// memoryPages of 64 KiB.
			RuntimeConfig: wazero.NewRuntimeConfig().
				WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
				WithCloseOnContextDone(true).WithMemoryLimitPages(memoryPages),
		})
		if c.err != nil {
			c.err = fmt.Errorf("start PDFium: %w", c.err)
		}
	})
	return c.err
}

// Close refuses new documents, waits for those being read (each within
// its timeout) and stops the pool.
func (c *Converter) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.running.Wait()
	if c.pool != nil {
		_ = c.pool.Close()
	}
}

// Convert reads data as a PDF and lays its pages out as markdown. It
// fails with ctx's error when ctx ends first, with ErrTimeout past the
// limit.
func (c *Converter) Convert(ctx context.Context, data []byte, lim Limits) (Document, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return Document{}, ErrClosed
	}
	c.running.Add(1)
	c.mu.Unlock()
	defer c.running.Done()
	if err := c.start(); err != nil {
		return Document{}, err
	}
	// The wait for a free instance is not the document's time: each
	// instance is back within the timeout.
	inst, err := c.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, ctx.Err()
		}
		return Document{}, err
	}
	began := time.Now()
	parent := ctx
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	type result struct {
		doc Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("the PDF could not be read: %v", r)}
			}
		}()
		doc, err := read(inst, data, lim)
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		_ = inst.Close()
		r.doc.Took = time.Since(began)
		return r.doc, r.err
	case <-ctx.Done():
		// The instance is stuck in the document: killed, not reused.
		_ = inst.Kill()
		if err := parent.Err(); err != nil {
			return Document{}, err // the caller's end, not the document's
		}
		return Document{}, ErrTimeout
	}
}

// read extracts the pages of data with one PDFium instance.
func read(inst pdfium.Pdfium, data []byte, lim Limits) (Document, error) {
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if errors.Is(err, pdfiumerrors.ErrPassword) {
			return Document{}, ErrEncrypted
		}
		return Document{}, fmt.Errorf("not a PDF PDFium can read: %w", err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
	if err != nil {
		return Document{}, fmt.Errorf("count the PDF's pages: %w", err)
	}
	doc := Document{Pages: count.PageCount, Read: count.PageCount}
	if lim.MaxPages > 0 && doc.Read > lim.MaxPages {
		doc.Read = lim.MaxPages
	}
	if meta, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: opened.Document, Tag: "Title"}); err == nil {
		doc.Title = clean(strings.TrimSpace(meta.Value))
	}
	pages := make([]Page, 0, max(doc.Read, 0))
	var failed error // the first page that could not be read
	text := false
	for i := range doc.Read {
		p, err := readPage(inst, opened.Document, i)
		if err != nil {
			// One page PDFium cannot read is marked; the others are kept.
			failed = cmp.Or(failed, fmt.Errorf("page %d: %w", i+1, err))
			p = Page{Unreadable: true}
		}
		text = text || len(p.Spans) > 0
		pages = append(pages, p)
	}
	switch {
	case failed != nil && !text:
		return Document{}, failed
	case !text && doc.Read < doc.Pages:
		return Document{}, fmt.Errorf("%w in the %d pages read of %d", ErrNoText, doc.Read, doc.Pages)
	case !text:
		return Document{}, ErrNoText
	}
	doc.Markdown = clean(Markdown(pages))
	if doc.Read < doc.Pages {
		doc.Markdown += fmt.Sprintf("\n<!-- %d more pages not read -->\n", doc.Pages-doc.Read)
	}
	return doc, nil
}

// readPage reads the text of page i with its boxes and type sizes.
func readPage(inst pdfium.Pdfium, d references.FPDF_DOCUMENT, i int) (Page, error) {
	ref := requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: i}}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: ref})
	if err != nil {
		return Page{}, err
	}
	text, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{Page: ref,
		Mode: requests.GetPageTextStructuredModeRects, CollectFontInformation: true})
	if err != nil {
		return Page{}, err
	}
	p := Page{Width: size.Width, Height: size.Height}
	for _, r := range text.Rects {
		if strings.TrimSpace(r.Text) == "" {
			continue
		}
		s := Span{Text: r.Text, Left: r.PointPosition.Left, Right: r.PointPosition.Right,
			Top: r.PointPosition.Top, Bottom: r.PointPosition.Bottom}
		if r.FontInformation != nil {
			s.Size = r.FontInformation.Size
			if r.FontInformation.RenderedSize > 0 {
				s.Size = r.FontInformation.RenderedSize
			}
		}
		p.Spans = append(p.Spans, s)
	}
	return p, nil
}

// clean makes text storable: valid UTF-8 without NUL bytes.
func clean(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
