package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/frontier"
	"github.com/durablecrawl/crawler/markdown"
	"github.com/durablecrawl/crawler/pageaction"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/pdfdoc"
)

// converters bounds the HTML pages a worker converts at once, in fetch
// activities and ConvertPages together, to its cores: a conversion is
// CPU work and holds the page's tree, so converting more at once (a batch
// has up to its parallelism of pages in hand) would only hold more
// memory. Documents (PDFs) are bounded apart, by the PDF converter's
// instances.
var converters = make(chan struct{}, runtime.GOMAXPROCS(0))

// convertBudget bounds the HTML, in bytes, a worker converts at once. A
// page's tree and its markdown hold about twenty times its HTML while it
// converts (Node.js's one-page manual, 5.6 MB, holds ~120 MB), so a few
// pages near the size cap converting together would hold more than the
// worker's memory limit. Ordinary pages (tens to hundreds of kilobytes)
// never wait on it; a page larger than the budget converts alone.
var convertBudget = semaphore.NewWeighted(ConvertBudgetBytes)

// ConvertBudgetBytes is the HTML a worker converts at once, at most.
const ConvertBudgetBytes = 8 << 20

// convertWeight is what a page of n bytes takes of convertBudget.
func convertWeight(n int) int64 {
	return min(max(int64(n), 1), ConvertBudgetBytes)
}

// Conversion is how a crawl's pages are converted: into markdown, and
// into the other formats the crawl asked for.
type Conversion struct {
	markdown.Options
	Formats []string
	// MapOnly skips the conversion: the crawl wants the pages' links only.
	MapOnly bool
}

// ConversionOf is how a crawl's pages (options o) become markdown, and
// which other formats they are kept in.
func ConversionOf(o crawl.Options) (Conversion, error) {
	mo := markdown.Options{
		MainContentOnly: o.ExcludeNonMainTags,
		IncludeLinks:    o.IncludeLinks,
		IncludeOnlyTags: o.IncludeOnlyTags,
		ExcludeTags:     o.ExcludeTags,
	}
	if !o.IncludeExternalLinks {
		rules, err := frontier.RulesOf(o)
		if err != nil {
			return Conversion{}, permanent(err)
		}
		mo.KeepLink = rules.SameSite
	}
	return Conversion{Options: mo, Formats: o.Formats, MapOnly: o.MapOnly}, nil
}

// Convert turns a page's HTML, fetched from pageURL, into markdown (and
// the other formats o asks for; media are its screenshot's address and
// its actions' results, if it has them). It waits for room in the worker's budget of HTML in
// conversion (convertBudget), then for one of its converters (see
// converters). It runs on goroutines of its own, where a panic in the
// HTML libraries would end the worker: it ends this page instead.
func Convert(pageURL string, html []byte, o Conversion, media pageformats.Media) (out db.Converted, err error) {
	if o.MapOnly {
		return db.Converted{}, nil
	}
	weight := convertWeight(len(html))
	_ = convertBudget.Acquire(context.Background(), weight) // fails only on a done context
	defer convertBudget.Release(weight)
	converters <- struct{}{}
	defer func() { <-converters }()
	defer func() {
		if r := recover(); r != nil {
			out, err = db.Converted{}, fmt.Errorf("the converter failed: %v", r)
		}
	}()
	o.PageURL, _ = url.Parse(pageURL)
	o.HTML = slices.Contains(o.Formats, pageformats.HTML)
	began := time.Now()
	doc, err := markdown.Convert(html, o.Options)
	if err != nil {
		return db.Converted{}, err
	}
	formats, err := pageformats.Make(html, o.PageURL, o.Formats, doc.HTML, media)
	if err != nil {
		return db.Converted{}, err
	}
	words, err := json.Marshal(doc.Words)
	if err != nil {
		return db.Converted{}, err
	}
	return db.Converted{Title: doc.Title, Markdown: doc.Markdown, NoIndex: doc.NoIndex, Formats: formats, Words: words,
		ConvertMS: int(time.Since(began) / time.Millisecond)}, nil
}

// convert turns a fetched page into markdown in the outcome rec (its
// HTML is never saved); a page the converter fails on is skipped and
// says why.
func (b *Batch) convert(ctx context.Context, rec *db.FetchOutcome, pageURL string, r fetch.Result) {
	if r.FinalURL != "" {
		pageURL = r.FinalURL
	}
	var media pageformats.Media
	if len(r.Screenshot) > 0 {
		rec.Screenshot = &db.Screenshot{Token: newScreenshotToken(), ContentType: "image/jpeg", Data: r.Screenshot}
		media.Screenshot = screenshotPath + rec.Screenshot.Token
	}
	media.Actions = keepActions(rec, r.Actions)
	if r.IsPDF() {
		b.convertPDF(ctx, rec, r)
		return
	}
	conv := *b.markdown
	if r.Rendered {
		conv.Stylesheet = nil // the browser wrote the styles that count into the page (package browser)
	}
	c, err := Convert(pageURL, r.Body, conv, media)
	if err != nil {
		rec.State, rec.Error, rec.Cause = crawl.PageSkipped, crawllog.ConvertFailed(err), crawl.PageConvertFailed
		return
	}
	c.PageID = rec.PageID
	rec.State, rec.Converted = crawl.PageConverted, &c
}

// convertPDF turns a fetched PDF into markdown in the outcome rec. A
// document cut at the size cap, encrypted, broken or too slow to read
// fails its page, and only its page; one without text is skipped. When
// ctx ends first the page is left claimed (rec's state PageClaimed), for
// the batch's retry.
func (b *Batch) convertPDF(ctx context.Context, rec *db.FetchOutcome, r fetch.Result) {
	switch {
	case b.skipPDFs:
		rec.State, rec.Error, rec.Cause = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFLeftOut)), crawl.PagePDFLeftOut
		return
	case b.pdf == nil:
		rec.State, rec.Error, rec.Cause = crawl.PageSkipped, crawllog.Reason(crawl.Because(crawl.PagePDFNoReader)), crawl.PagePDFNoReader
		return
	case r.Truncated:
		rec.State, rec.Error, rec.Cause = crawl.PageFailed, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFTooLarge, Bytes: len(r.Body)}), crawl.PagePDFTooLarge
		return
	}
	doc, err := b.pdf.Convert(ctx, r.Body, b.pdfLimits)
	switch {
	case err != nil && ctx.Err() != nil:
		rec.State = crawl.PageClaimed
		return
	case errors.Is(err, pdfdoc.ErrNoText):
		rec.State, rec.Error, rec.Cause = crawl.PageSkipped, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFNoText, Detail: err.Error()}), crawl.PagePDFNoText
		return
	case err != nil:
		rec.State, rec.Error, rec.Cause = crawl.PageFailed, crawllog.Reason(crawl.PageCause{Kind: crawl.PagePDFUnreadable, Detail: err.Error()}), crawl.PagePDFUnreadable
		return
	}
	title := doc.Title
	if title == "" {
		for _, l := range strings.Split(doc.Markdown, "\n") {
			if t, ok := strings.CutPrefix(l, "# "); ok {
				title = t
				break
			}
		}
	}
	rec.State = crawl.PageConverted
	rec.Converted = &db.Converted{PageID: rec.PageID, Title: title, Markdown: doc.Markdown,
		ConvertMS: int(doc.Took / time.Millisecond), DocumentPages: doc.Pages}
}

// keepActions records in rec the files a page's actions made (their
// screenshots and PDFs, stored as its screenshot is and served by token)
// and answers what the page's formats say of them; nil when the page had
// no actions.
func keepActions(rec *db.FetchOutcome, res *pageaction.Results) *pageaction.Document {
	if res == nil {
		return nil
	}
	doc := &pageaction.Document{Screenshots: []string{}, Scrapes: res.Scrapes, JavascriptReturns: res.JavascriptReturns, PDFs: []string{}}
	if doc.Scrapes == nil {
		doc.Scrapes = []pageaction.Scraped{}
	}
	if doc.JavascriptReturns == nil {
		doc.JavascriptReturns = []pageaction.Return{}
	}
	keep := func(data []byte, contentType string) string {
		f := db.Screenshot{Token: newScreenshotToken(), ContentType: contentType, Data: data}
		rec.Files = append(rec.Files, f)
		return screenshotPath + f.Token
	}
	for _, img := range res.Screenshots {
		doc.Screenshots = append(doc.Screenshots, keep(img, "image/jpeg"))
	}
	for _, pdf := range res.PDFs {
		doc.PDFs = append(doc.PDFs, keep(pdf, "application/pdf"))
	}
	return doc
}

// screenshotPath is where the API serves a screenshot, by its token.
const screenshotPath = "/screenshots/"

// newScreenshotToken names a screenshot: 128 random bits, so that its URL
// can be given out without a key.
func newScreenshotToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
