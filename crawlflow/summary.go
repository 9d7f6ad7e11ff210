package crawlflow

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/durablecrawl/crawler/crawl"
)

// SummaryBytes bounds the one-line summary; the UI shows it in lists.
const SummaryBytes = 200

// StartText returns the static summary and details of a crawl's workflow:
// its start URL and the options that shape the crawl. Extraction
// instructions are a user's text and stay out: only whether there are any.
func StartText(crawlID, teamID string, o crawl.Options) (summary, details string) {
	limit := "no page limit"
	if o.MaxResults != nil {
		limit = fmt.Sprintf("up to %d pages", *o.MaxResults)
	}
	depth := fmt.Sprintf("depth %d", o.MaxDepth)
	if o.DepthLimit() < 0 {
		depth = "any depth"
	}
	summary = Clip(fmt.Sprintf("Crawl of %s, %s, %s", o.StartURLs[0], limit, depth), SummaryBytes)
	var b strings.Builder
	fmt.Fprintf(&b, "**Crawl** `%s` of team `%s`\n\n", crawlID, teamID)
	for i, u := range o.StartURLs {
		if i == maxDetailURLs {
			fmt.Fprintf(&b, "- and %d more start URLs\n", len(o.StartURLs)-i)
			break
		}
		fmt.Fprintf(&b, "- start URL: %s\n", Clip(u, 300))
	}
	fmt.Fprintf(&b, "- %s, %s, engine %s, timeout %d s\n", limit, depth, o.EngineType, o.TimeoutSeconds)
	if o.Shape == crawl.ShapeFirecrawl {
		b.WriteString("- started through the Firecrawl-compatible API\n")
	}
	fmt.Fprintf(&b, "- main content only: %t, links kept: %t, deduplicated: %t\n", o.ExcludeNonMainTags, o.IncludeLinks, o.DeduplicateContent)
	if o.UseSitemap || o.EntireWebsite {
		fmt.Fprintf(&b, "- sitemaps: %t, entire website: %t\n", o.UseSitemap, o.EntireWebsite)
	}
	if o.Extraction != "" {
		b.WriteString("- with LLM extraction instructions\n")
	}
	if o.MapOnly {
		b.WriteString("- a map: pages fetched for their links only\n")
	}
	if len(o.Formats) > 0 {
		fmt.Fprintf(&b, "- formats: %s\n", strings.Join(o.Formats, ", "))
	}
	if o.Webhook != nil {
		// The receiver's host only: its path or headers may hold secrets.
		host := "its receiver"
		if u, err := url.Parse(o.Webhook.URL); err == nil && u.Host != "" {
			host = u.Host
		}
		fmt.Fprintf(&b, "- webhook events to %s, delivered after the crawl ends too\n", host)
	}
	return summary, b.String()
}

// maxDetailURLs bounds the start URLs a crawl's details list (a batch
// scrape may have a thousand).
const maxDetailURLs = 10

// MaxStartURLAttr bounds the start URL kept in the CrawlStartUrl search
// attribute: Temporal refuses to start a workflow with an attribute value
// over 2 KiB, and a start URL may be 2,048 bytes.
const MaxStartURLAttr = 1024

// StartURLAttr is the value of CrawlStartUrl for a start URL: the URL, cut
// to MaxStartURLAttr bytes when longer.
func StartURLAttr(u string) string { return Clip(u, MaxStartURLAttr) }

// Clip cuts s to at most n bytes on a character boundary, with "…"
// marking a cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
