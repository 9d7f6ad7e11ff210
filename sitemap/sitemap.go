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
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return File{}, err
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxUnzipped))
		if err != nil && len(data) == 0 {
			return File{}, err
		}
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var (
		f       File
		root    string
		inLoc   bool
		parent  string
		stack   []string
		loc     strings.Builder
		readErr error
		// The <url> entry being read: its page and its lastmod.
		inMod          bool
		mod            strings.Builder
		entry, entryAt string
	)
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
			name := strings.ToLower(t.Name.Local)
			if root == "" {
				root = name
			}
			if name == "loc" && len(stack) > 0 {
				inLoc, parent = true, stack[len(stack)-1]
				loc.Reset()
			}
			if name == "lastmod" && len(stack) > 0 && stack[len(stack)-1] == "url" {
				inMod = true
				mod.Reset()
			}
			if name == "url" {
				entry, entryAt = "", ""
			}
			stack = append(stack, name)
		case xml.CharData:
			if inLoc {
				loc.Write(t)
			}
			if inMod {
				mod.Write(t)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			end := strings.ToLower(t.Name.Local)
			if inMod && end == "lastmod" {
				inMod, entryAt = false, mod.String()
			}
			if end == "url" && entry != "" && entryAt != "" {
				if at, ok := parseLastMod(entryAt); ok {
					if f.LastMod == nil {
						f.LastMod = map[string]time.Time{}
					}
					f.LastMod[entry] = at
				}
			}
			if inLoc && end == "loc" {
				inLoc = false
				u := strings.TrimSpace(loc.String())
				switch {
				case u == "":
				case parent == "url" && len(f.Pages) < maxEntries:
					f.Pages = append(f.Pages, u)
					entry = u
				case parent == "sitemap" && len(f.Sitemaps) < maxEntries:
					f.Sitemaps = append(f.Sitemaps, u)
				}
			}
		}
	}
	if root != "urlset" && root != "sitemapindex" {
		if readErr != nil {
			return File{}, readErr
		}
		return File{}, errors.New("not a sitemap: the root element is neither urlset nor sitemapindex")
	}
	return f, nil
}
