package sitemap

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"testing"
	"time"
)

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.com/a</loc><lastmod>2026-01-01</lastmod></url>
  <url><loc>
     https://example.com/b?x=1&amp;y=2
  </loc><image:image><image:loc>https://example.com/img.png</image:loc></image:image></url>
</urlset>`

const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/sitemap-1.xml</loc></sitemap>
  <sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>
</sitemapindex>`

func TestURLSet(t *testing.T) {
	f, err := Parse([]byte(urlset), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://example.com/a", "https://example.com/b?x=1&y=2"}
	if !reflect.DeepEqual(f.Pages, want) || len(f.Sitemaps) != 0 {
		t.Errorf("got %+v, want pages %v (image locs are not pages)", f, want)
	}
}

func TestIndex(t *testing.T) {
	f, err := Parse([]byte(index), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Pages) != 0 || len(f.Sitemaps) != 2 || f.Sitemaps[1] != "https://example.com/sitemap-2.xml.gz" {
		t.Errorf("got %+v", f)
	}
}

func TestGzipped(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(urlset))
	zw.Close()
	f, err := Parse(buf.Bytes(), 100)
	if err != nil || len(f.Pages) != 2 {
		t.Errorf("gzipped sitemap: %+v, %v", f, err)
	}
}

func TestTruncated(t *testing.T) {
	f, err := Parse([]byte(urlset[:len(urlset)/2+60]), 100)
	if err != nil || len(f.Pages) != 1 {
		t.Errorf("truncated sitemap: %+v, %v; want the first page", f, err)
	}
}

func TestNotASitemap(t *testing.T) {
	for _, body := range []string{"<html><body>Not found</body></html>", "plain text", ""} {
		if _, err := Parse([]byte(body), 100); err == nil {
			t.Errorf("Parse(%q) succeeded", body)
		}
	}
}

func TestEntryCap(t *testing.T) {
	f, err := Parse([]byte(urlset), 1)
	if err != nil || len(f.Pages) != 1 || f.Pages[0] != "https://example.com/a" {
		t.Errorf("capped at 1: %+v, %v", f, err)
	}
}

func TestParseReadsLastMod(t *testing.T) {
	f, err := Parse([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a</loc><lastmod>2026-01-01</lastmod></url>
  <url><lastmod>2026-02-03T10:20:30+01:00</lastmod><loc>https://example.com/b</loc></url>
  <url><loc>https://example.com/c</loc><lastmod>last week</lastmod></url>
  <url><loc>https://example.com/d</loc></url>
</urlset>`), 10)
	if err != nil || len(f.Pages) != 4 {
		t.Fatalf("parse: %v, %v", f, err)
	}
	want := map[string]time.Time{
		// A date alone may be its last hour anywhere: UTC−12's day ends
		// at noon UTC the next day (two hours more are allowed).
		"https://example.com/a": time.Date(2026, 1, 2, 14, 0, 0, 0, time.UTC),
		"https://example.com/b": time.Date(2026, 2, 3, 9, 20, 31, 0, time.UTC),
	}
	if len(f.LastMod) != len(want) {
		t.Fatalf("lastmod = %v, want %v", f.LastMod, want)
	}
	for u, at := range want {
		if !f.LastMod[u].Equal(at) {
			t.Errorf("%s: lastmod %v, want %v", u, f.LastMod[u], at)
		}
	}
}
