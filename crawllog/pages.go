package crawllog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/markdown"
)

// Pages returns the entries of a page in a final state: the page's own,
// and for a result page whose extraction failed or never finished, an
// error entry saying why. A page in any other state has none.
func Pages(c *crawl.Crawl, p crawl.Page) []crawl.CrawlLog {
	e, ok := pageEntry(c, p)
	if !ok {
		return nil
	}
	logs := []crawl.CrawlLog{e}
	if p.State != crawl.PageStored || c.Extraction == "" {
		return logs
	}
	why := deref(p.ExtractionError)
	if p.ExtractedAt == nil {
		why = "the extraction did not finish (the LLM task queue did not answer, or the crawl ended first)"
	}
	if why == "" {
		return logs
	}
	return append(logs, entry(c, fmt.Sprintf("extraction:%d", p.ID), Error, "Extraction failed",
		fmt.Sprintf("The extraction instructions could not be run on %s: %s. The page is kept without an extraction.", p.URL, why),
		map[string]any{"url": p.URL, "statusCode": derefInt(p.StatusCode), "error": why}))
}

// pageEntry returns the entry of a page in a final state.
func pageEntry(c *crawl.Crawl, p crawl.Page) (crawl.CrawlLog, bool) {
	status := derefInt(p.StatusCode)
	data := map[string]any{"url": p.URL, "statusCode": status, "depth": p.Depth}
	if p.FinalURL != nil && *p.FinalURL != p.URL {
		data["finalUrl"] = *p.FinalURL
	}
	key := fmt.Sprintf("page:%d", p.ID)
	note := strings.TrimSpace(deref(p.Error))
	switch p.State {
	case crawl.PageStored:
		return storedEntry(c, p, key, data, note), true
	case crawl.PageFailed:
		// Every page counted as failed (a 404 too) is an error entry, so
		// that the crawl's failed figure and its errors are the same pages.
		level := Error
		if p.Attempts > 0 {
			data["attempts"] = p.Attempts + 1
		}
		data["error"] = note
		return entry(c, key, level, "Page failed", fmt.Sprintf("Could not crawl %s: %s.", p.URL, note), data), true
	case crawl.PageSkipped:
		data["reason"] = note
		return entry(c, key, Info, "Page skipped", fmt.Sprintf("Skipped %s: %s.", p.URL, note), data), true
	case crawl.PageDuplicate:
		data["reason"] = note
		if p.DuplicateOf != nil {
			data["duplicateOf"] = *p.DuplicateOf
		}
		return entry(c, key, Info, "Page repeats another", fmt.Sprintf("Fetched %s: %s.", p.URL, note), data), true
	}
	return crawl.CrawlLog{}, false
}

// storedEntry is the entry of a result page: what was fetched, what
// deduplication removed, and a note (a cut-off body) as a warning.
func storedEntry(c *crawl.Crawl, p crawl.Page, key string, data map[string]any, note string) crawl.CrawlLog {
	desc := fmt.Sprintf("Fetched %s (depth %d, status %d, %d ms) and stored its markdown.",
		p.URL, p.Depth, derefInt(p.StatusCode), derefInt(p.FetchMS))
	if t := deref(p.Title); t != "" {
		data["title"] = t
	}
	if w, ok := wordsOf(p.Words); ok {
		data["words"] = w
		desc += " " + wordsSentence(w)
	}
	if removed := derefInt(p.FragmentsRemoved); removed > 0 {
		total := derefInt(p.Fragments)
		data["fragments"], data["fragmentsRemoved"] = total, removed
		if removed == total {
			desc += fmt.Sprintf(" All of its %d text fragments already appeared on other pages of the crawl:"+
				" its deduplicated markdown is empty (the page still counts as a result, and its raw markdown is kept).", total)
		} else {
			desc += fmt.Sprintf(" %d of its %d text fragments already appeared on other pages of the crawl and were removed.", removed, total)
		}
	}
	if p.ExtractedAt != nil && p.ExtractionError == nil {
		data["extracted"] = true
	}
	level := Info
	if note != "" {
		level = Warn
		desc += " Note: " + note + "."
	}
	return entry(c, key, level, "Page crawled", desc, data)
}

// wordsOf reads a page's word counts (markdown.Words as JSON), when it
// has them.
func wordsOf(raw json.RawMessage) (markdown.Words, bool) {
	var w markdown.Words
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return w, false
	}
	return w, true
}

// wordsSentence says where a page's words went, each reason named.
func wordsSentence(w markdown.Words) string {
	var went []string
	for _, r := range []struct {
		n    int
		what string
	}{
		{w.Sections, "in sections named or laid out as the site's furniture (navigation, header, footer, comments, related stories)"},
		{w.Outside, "outside the article its main content weighed"},
		{w.Around, "around the article (asides, bylines, credits, other stories after it)"},
		{w.Outvoted, "that neither independent extractor took for the article (what followed it, short lines in it)"},
		{w.Repeated, "that said word for word what the content had already said"},
		{w.Hidden, "hidden from readers or excluded by excludeTags"},
		{w.Unconverted, "lost in conversion"},
	} {
		if r.n > 0 {
			went = append(went, fmt.Sprintf("%d %s", r.n, r.what))
		}
	}
	s := fmt.Sprintf("Its markdown holds %d words", w.Kept)
	if len(went) == 0 {
		return s + "; none of the page's went."
	}
	return s + "; of the page's others, " + strings.Join(went, ", ") + "."
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// Deduplicated is the entry of a result page that deduplication took
// text from when the crawl settled it: how many of its fragments went
// (and their words), and the first of them.
func Deduplicated(c *crawl.Crawl, p crawl.Page, fragments, removed, words int, samples []string) crawl.CrawlLog {
	data := map[string]any{"url": p.URL, "statusCode": derefInt(p.StatusCode), "depth": p.Depth,
		"fragments": fragments, "fragmentsRemoved": removed, "wordsRemoved": words, "removed": samples}
	quoted := make([]string, len(samples))
	for i, s := range samples {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	desc := fmt.Sprintf("%d of the %d text fragments of %s (%d words) also appear on other pages of the crawl and were removed from its markdown"+
		" (its raw markdown is kept): %s", removed, fragments, p.URL, words, strings.Join(quoted, ", "))
	if removed > len(samples) {
		desc += ", …"
	}
	return entry(c, fmt.Sprintf("dedupe:%d", p.ID), Info, "Page deduplicated", desc+".", data)
}

// DeduplicationSettled is the entry that closes deduplication: how many
// result pages lost text repeated elsewhere, and how many fragments.
func DeduplicationSettled(c *crawl.Crawl, pages, changed, removed int) crawl.CrawlLog {
	return entry(c, "dedupe", Info, "Deduplication settled",
		fmt.Sprintf("Deduplicated the crawl's %d result pages: %d of them held text that other pages of the crawl also hold, "+
			"and %d text fragments were removed in all. Each text is kept on one page: boilerplate on the page closest to the start, "+
			"a page's own text on that page rather than on a page that gathers others (a print version, an archive).", pages, changed, removed),
		crawlData(c, "pages", pages, "pagesChanged", changed, "fragmentsRemoved", removed))
}
