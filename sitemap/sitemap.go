// Package sitemap reads sitemap files (sitemaps.org): URL sets and sitemap
// indexes, plain or gzipped.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"time"
)

// File is what one sitemap file lists: pages (a <urlset>) or further
// sitemaps (a <sitemapindex>).
type File struct {
	Pages    []string
	Sitemaps []string
	// LastMod is, for each page (of Pages, by its URL) whose entry says
	// when it last changed in a form it can read, the latest time that
	// may mean (a date alone may mean its last hour, in the last time zone
	// to end it).
	LastMod map[string]time.Time
}

// lastModLayouts are the W3C datetime forms a sitemap's lastmod takes,
// each with how much later than the time it reads the change may have
// been, rounded up: to the end of a day given alone in the last time zone
// to end it (UTC−12, 36 hours after its start in UTC), and half a day for
// a time without a zone.
var lastModLayouts = []struct {
	layout string
	slack  time.Duration
}{
	{time.RFC3339Nano, time.Second},
	{"2006-01-02T15:04Z07:00", time.Minute},
	{"2006-01-02T15:04:05", 14*time.Hour + time.Second},
	{"2006-01-02T15:04", 14*time.Hour + time.Minute},
	{"2006-01-02", 38 * time.Hour},
}

// parseLastMod reads a lastmod value as the latest time the change it
// names may have happened (see lastModLayouts); ok is false for a value it
// cannot read.
func parseLastMod(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, l := range lastModLayouts {
		if t, err := time.Parse(l.layout, v); err == nil {
			return t.Add(l.slack), true
		}
	}
	return time.Time{}, false
}

// maxUnzipped bounds a gzipped sitemap once inflated (the protocol allows
// 50 MB).
const maxUnzipped = 64 << 20

// Parse reads a sitemap file, keeping at most maxEntries pages and as many
// sitemaps. Gzipped content is inflated first (up to 64 MiB). Entries read
// before a syntax error are kept: a truncated sitemap still lists pages. A
// file that is no sitemap at all is an error.
func Parse(data []byte, maxEntries int) (File, error) {
	data, err := unzipped(data)
	if err != nil {
		return File{}, err
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	r := reader{max: maxEntries}
	var readErr error
	for {
		tok, err := dec.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.start(strings.ToLower(t.Name.Local))
		case xml.CharData:
			r.text(t)
		case xml.EndElement:
			r.end(strings.ToLower(t.Name.Local))
		}
	}
	if r.root != "urlset" && r.root != "sitemapindex" {
		if readErr != nil {
			return File{}, readErr
		}
		return File{}, errors.New("not a sitemap: the root element is neither urlset nor sitemapindex")
	}
	return r.f, nil
}

// unzipped is data inflated when it is gzipped (up to maxUnzipped), or
// data as it is.
func unzipped(data []byte) ([]byte, error) {
	if len(data) <= 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxUnzipped))
	if err != nil && len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// reader is what Parse knows as it reads a sitemap's elements in order.
type reader struct {
	f    File
	max  int    // entries kept of each kind
	root string // the first element's name
	// stack holds the names of the open elements.
	stack []string
	// The <loc> being read, and the element it is in.
	inLoc  bool
	parent string
	loc    strings.Builder
	// The <url> entry being read: its page and its lastmod.
	inMod          bool
	mod            strings.Builder
	entry, entryAt string
}

func (r *reader) start(name string) {
	if r.root == "" {
		r.root = name
	}
	if name == "loc" && len(r.stack) > 0 {
		r.inLoc, r.parent = true, r.stack[len(r.stack)-1]
		r.loc.Reset()
	}
	if name == "lastmod" && len(r.stack) > 0 && r.stack[len(r.stack)-1] == "url" {
		r.inMod = true
		r.mod.Reset()
	}
	if name == "url" {
		r.entry, r.entryAt = "", ""
	}
	r.stack = append(r.stack, name)
}

func (r *reader) text(t xml.CharData) {
	if r.inLoc {
		r.loc.Write(t)
	}
	if r.inMod {
		r.mod.Write(t)
	}
}

func (r *reader) end(name string) {
	if len(r.stack) > 0 {
		r.stack = r.stack[:len(r.stack)-1]
	}
	if r.inMod && name == "lastmod" {
		r.inMod, r.entryAt = false, r.mod.String()
	}
	if name == "url" && r.entry != "" && r.entryAt != "" {
		if at, ok := parseLastMod(r.entryAt); ok {
			if r.f.LastMod == nil {
				r.f.LastMod = map[string]time.Time{}
			}
			r.f.LastMod[r.entry] = at
		}
	}
	if r.inLoc && name == "loc" {
		r.inLoc = false
		u := strings.TrimSpace(r.loc.String())
		switch {
		case u == "":
		case r.parent == "url" && len(r.f.Pages) < r.max:
			r.f.Pages = append(r.f.Pages, u)
			r.entry = u
		case r.parent == "sitemap" && len(r.f.Sitemaps) < r.max:
			r.f.Sitemaps = append(r.f.Sitemaps, u)
		}
	}
}
