package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
	"github.com/durablecrawl/crawler/markdown"
	"github.com/durablecrawl/crawler/officedoc"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/pdfdoc"
)

// MaxParseBytes bounds an uploaded file (the API's body limit bounds the
// whole request a little above it).
const MaxParseBytes = 7 << 20

// parseTimeout bounds the reading of one uploaded file.
const parseTimeout = 60 * time.Second

// The kinds of file a parse reads.
const (
	parseHTML = "html"
	parseText = "text"
	parsePDF  = "pdf"
)

// fcParse handles POST /v2/parse: a file uploaded as multipart/form-data
// (the file in "file", the scrape options as JSON in "options") read as
// a scrape reads a page — HTML, plain text and markdown, PDF, and Word,
// OpenDocument and Excel documents — and answered as a scrape's
// document. The file is read in memory while the request lasts: nothing
// of it, nor of its document, is kept after the answer.
func (s *server) fcParse(c *fiber.Ctx) error {
	fh, err := c.FormFile("file")
	if err != nil {
		return parseError("file", "is required: the file to parse, as the multipart field file")
	}
	if fh.Size > MaxParseBytes {
		return &crawl.Error{Code: codeTooLarge, Message: fmt.Sprintf("the file is %d bytes; at most %d MB are parsed", fh.Size, MaxParseBytes>>20),
			Details: []crawl.FieldError{{Field: "file", Message: fmt.Sprintf("is larger than %d MB", MaxParseBytes>>20)}}}
	}
	name := path.Base(strings.ReplaceAll(fh.Filename, "\\", "/"))
	if strings.TrimSpace(name) == "" || name == "." || name == "/" {
		return parseError("file", "needs a file name")
	}
	opts, err := firecrawl.ParseOptionsOf([]byte(c.FormValue("options")), s.Server)
	if err != nil {
		return err
	}
	f, err := fh.Open()
	if err != nil {
		return parseError("file", "could not be read: "+err.Error())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxParseBytes+1))
	f.Close()
	if err != nil {
		return parseError("file", "could not be read: "+err.Error())
	}
	p := principal(c)
	ctx, cancel := context.WithTimeout(c.UserContext(), parseTimeout)
	defer cancel()
	if err := s.withinQuota(ctx, p.TeamID, false); err != nil {
		return err
	}
	page, err := s.parseFile(ctx, name, fh.Header.Get("Content-Type"), data, opts)
	if err != nil {
		return err
	}
	page.Base = c.BaseURL()
	doc := firecrawl.DocumentOf(page)
	doc.Metadata["fileName"] = name
	return c.JSON(fiber.Map{"success": true, "data": doc})
}

// parseError is a 400 naming the parse request's field.
func parseError(field, msg string) error {
	return &crawl.Error{Code: crawl.EINVALID, Message: "invalid parse request", Details: []crawl.FieldError{{Field: field, Message: msg}}}
}

// codeUnreadable is a file the parse cannot read (422, as a page that
// could not be scraped); codeTooLarge one past MaxParseBytes (413).
const (
	codeUnreadable = "PARSE_UNREADABLE"
	codeTooLarge   = "PARSE_FILE_TOO_LARGE"
)

// kindOf tells what the file is from its bytes first (a PDF's header, an
// office document's parts), then from its type and name: HTML, or text
// when it reads as UTF-8 text; "" when it is none of them.
func kindOf(name, contentType string, data []byte) string {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return parsePDF
	}
	if k := officedoc.Kind(data); k != "" {
		return k
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	ext := strings.ToLower(path.Ext(name))
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || ext == ".html" || ext == ".htm" || ext == ".xhtml" || sniffed == "text/html":
		return parseHTML
	case utf8.Valid(data) && !bytes.ContainsRune(data, 0):
		return parseText
	}
	return ""
}

// parseFile reads an uploaded file into a page.
func (s *server) parseFile(ctx context.Context, name, contentType string, data []byte, opts firecrawl.ParseOptions) (firecrawl.Page, error) {
	pageURL := &url.URL{Scheme: "file", Path: "/" + name}
	out := firecrawl.Page{URL: pageURL.String(), StatusCode: http.StatusOK, Formats: append([]string{pageformats.Markdown}, opts.Formats...)}
	unreadable := func(format string, args ...any) error {
		return &crawl.Error{Code: codeUnreadable, Message: fmt.Sprintf("the file %s could not be parsed: ", name) + fmt.Sprintf(format, args...)}
	}
	kind := kindOf(name, contentType, data)
	switch kind {
	case parsePDF:
		if opts.SkipPDFs {
			return out, parseError("parsers", "leaves PDFs out, and the file is one")
		}
		limits := pdfdoc.Limits{MaxPages: opts.PDFMaxPages, Timeout: parseTimeout}
		if limits.MaxPages == 0 {
			limits.MaxPages = 10000
		}
		doc, err := s.pdf.Convert(ctx, data, limits)
		switch {
		case errors.Is(err, pdfdoc.ErrNoText):
			return out, unreadable("it holds no text (a scan: text in images is not read here)")
		case err != nil:
			return out, unreadable("%v", err)
		}
		out.Markdown, out.Title, out.ContentType = doc.Markdown, doc.Title, "application/pdf"
		return out, nil
	case officedoc.DOCX, officedoc.ODT, officedoc.XLSX:
		page, err := officedoc.HTML(data, kind)
		if err != nil {
			return out, unreadable("%v", err)
		}
		out.ContentType = map[string]string{officedoc.DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			officedoc.ODT: "application/vnd.oasis.opendocument.text", officedoc.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}[kind]
		err = convertInto(&out, []byte(page), pageURL, opts)
		if out.Title == "" {
			out.Title = strings.TrimSuffix(name, path.Ext(name))
		}
		return out, err
	case parseHTML:
		out.ContentType = "text/html"
		return out, convertInto(&out, data, pageURL, opts)
	case parseText:
		out.ContentType, out.Markdown = "text/plain", strings.TrimSpace(string(data))
		return out, nil
	}
	return out, unreadable("its kind is not one read here (HTML, text, PDF, .docx, .odt, .xlsx)")
}

// convertInto makes the page's markdown and formats of an HTML page.
func convertInto(out *firecrawl.Page, page []byte, pageURL *url.URL, opts firecrawl.ParseOptions) error {
	doc, err := markdown.Convert(page, markdown.Options{PageURL: pageURL, MainContentOnly: opts.MainContentOnly, IncludeLinks: true,
		IncludeOnlyTags: opts.IncludeTags, ExcludeTags: opts.ExcludeTags, HTML: slices.Contains(opts.Formats, pageformats.HTML)})
	if err != nil {
		return &crawl.Error{Code: codeUnreadable, Message: "the file could not be converted: " + err.Error()}
	}
	out.Markdown, out.Title = doc.Markdown, doc.Title
	extra, err := pageformats.Make(page, pageURL, out.Formats, doc.HTML, pageformats.Media{})
	if err != nil {
		return &crawl.Error{Code: codeUnreadable, Message: "the file could not be converted: " + err.Error()}
	}
	out.Extra = extra
	return nil
}
