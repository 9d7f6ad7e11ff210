package firecrawl

import (
	"encoding/json"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/pageformats"
)

// ParseOptions are how an uploaded file is read (POST /v2/parse's
// options field): its formats, main content and tag rules, PDF pages.
type ParseOptions struct {
	Formats         []string
	MainContentOnly bool
	IncludeTags     []string
	ExcludeTags     []string
	SkipPDFs        bool
	PDFMaxPages     int
}

// ParseOptionsOf reads a parse request's options (scrape options, as
// JSON; empty: the defaults). Options that need a page on the web or a
// browser (actions, waitFor, mobile, location, headers, screenshots,
// change tracking) are refused with a 400 naming them, as Firecrawl's
// parse refuses them; so are the LLM's formats (json, summary), not
// done here yet for uploads.
func ParseOptionsOf(options []byte, srv crawl.Server) (ParseOptions, error) {
	var top map[string]json.RawMessage
	if t := strings.TrimSpace(string(options)); t != "" {
		if err := json.Unmarshal(options, &top); err != nil || top == nil {
			return ParseOptions{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid parse request",
				Details: []crawl.FieldError{{Field: "options", Message: "must be a JSON object of scrape options"}}}
		}
	}
	var bad fieldErrors
	for _, name := range []string{"actions", "waitFor", "mobile", "location", "geolocation", "headers", "maxAge", "minAge"} {
		if v, ok := top[name]; ok && given(v) {
			bad.add(name, "does not apply to an uploaded file")
		}
	}
	var so ScrapeOptions
	if len(top) > 0 {
		raw, _ := json.Marshal(top)
		if err := decodeStrict(raw, &so, InScrape); err != nil {
			return ParseOptions{}, err
		}
	}
	for i, f := range so.Formats {
		name, err := formatName(f)
		switch {
		case err != nil:
			bad.add("formats", "%v", err)
		case name == "screenshot" || name == "screenshot@fullPage" || name == "changeTracking":
			bad.add(formatField(i), "%s does not apply to an uploaded file", name)
		case name == "json" || name == "summary" || name == "extract":
			bad.add(formatField(i), "the %s format is not supported here yet for uploads (scrape the file's URL instead)", name)
		}
	}
	if len(bad) > 0 {
		return ParseOptions{}, &crawl.Error{Code: crawl.EINVALID, Message: "invalid parse request", Details: bad}
	}
	// The scrape request the options make, for a page that is not on the
	// web: its formats and conversion rules.
	body := map[string]json.RawMessage{}
	for k, v := range top {
		body[k] = v
	}
	body["url"] = json.RawMessage(`"https://upload.example/"`)
	raw, _ := json.Marshal(body)
	o, _, err := ScrapeOptionsOf(raw, srv)
	if err != nil {
		return ParseOptions{}, err
	}
	out := ParseOptions{MainContentOnly: o.ExcludeNonMainTags, IncludeTags: o.IncludeOnlyTags, ExcludeTags: o.ExcludeTags,
		SkipPDFs: o.SkipPDFs, PDFMaxPages: o.PDFMaxPages}
	for _, f := range o.Formats {
		if f != pageformats.Screenshot && f != pageformats.ScreenshotFullPage {
			out.Formats = append(out.Formats, f)
		}
	}
	return out, nil
}

func formatField(i int) string {
	b, _ := json.Marshal(i)
	return "formats[" + string(b) + "]"
}
