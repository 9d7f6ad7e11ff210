package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// langchainSite is a small site for LangChain's loader: a home page, two
// pages it links, and a page that answers 404 with a page of its own.
func langchainSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Harbour notes</title></head><body><main><h1>Harbour notes</h1>
<p>Notes on the harbour through the year, for sailors who winter here.</p>
<ul><li><a href="/winter">Winter berths</a></li><li><a href="/tides">Tide tables</a></li></ul></main></body></html>`)
		case "/winter":
			fmt.Fprint(w, `<html><head><title>Winter berths</title></head><body><main><h1>Winter berths</h1>
<p>Boats winter in the north basin, where the ice seldom reaches.</p><a href="/">Home</a></main></body></html>`)
		case "/tides":
			fmt.Fprint(w, `<html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>
<p>High water comes forty minutes later each day; the tables list every tide of the season.</p><a href="/">Home</a></main></body></html>`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `<html><head><title>Not found</title></head><body><main><h1>No such note</h1><p>The harbour master moved this note.</p></main></body></html>`)
		}
	})
}

// TestLangChainLoader runs LangChain's FireCrawlLoader (@langchain/community
// on Firecrawl's SDK, as installed from the npm registry in
// tools/langchain) against the service in its three modes: scrape (also of
// a page that answers 404, which Firecrawl answers as a document with its
// status), crawl and map.
func TestLangChainLoader(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("CRAWLER_LANGCHAIN_LOADER")
	if dir == "" {
		t.Fatal("CRAWLER_LANGCHAIN_LOADER is not set: make test installs LangChain's loader (ensure_langchain_loader in scripts/lib.sh)")
	}
	site := httptest.NewServer(langchainSite())
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	report := nodeReport(ctx, t, "LangChain's loader", nil, filepath.Join(dir, "load.mjs"), env.api, env.keyA, site.URL)
	type doc struct {
		Chars    int            `json:"chars"`
		Text     string         `json:"text"`
		Metadata map[string]any `json:"metadata"`
	}
	docs := func(name string) []doc {
		t.Helper()
		var d []doc
		if err := json.Unmarshal(report[name], &d); err != nil {
			t.Fatalf("%s: %s", name, report[name])
		}
		return d
	}
	status := func(d doc) float64 { s, _ := d.Metadata["statusCode"].(float64); return s }

	if d := docs("scrape"); len(d) != 1 || !strings.Contains(d[0].Text, "sailors who winter here") || status(d[0]) != 200 ||
		d[0].Metadata["sourceURL"] != site.URL+"/" || d[0].Metadata["title"] != "Harbour notes" {
		t.Errorf("scrape: %s", report["scrape"])
	}
	if d := docs("scrapeMissing"); len(d) != 1 || !strings.Contains(d[0].Text, "harbour master moved this note") || status(d[0]) != 404 {
		t.Errorf("scrape of a page answered 404: %s", report["scrapeMissing"])
	}
	crawled := docs("crawl")
	var sources []string
	for _, d := range crawled {
		src, _ := d.Metadata["sourceURL"].(string)
		sources = append(sources, strings.TrimPrefix(src, site.URL))
		if d.Chars == 0 {
			t.Errorf("crawl: %s has no text", src)
		}
	}
	slices.Sort(sources)
	if !slices.Equal(sources, []string{"/", "/tides", "/winter"}) {
		t.Errorf("crawl: %v, want the three pages: %s", sources, report["crawl"])
	}
	var links []string
	for _, d := range docs("map") {
		var l string
		if err := json.Unmarshal([]byte(d.Text), &l); err != nil {
			t.Fatalf("map: a link %q", d.Text)
		}
		links = append(links, strings.TrimPrefix(l, site.URL))
	}
	for _, want := range []string{"/", "/winter", "/tides"} {
		if !slices.Contains(links, want) {
			t.Errorf("map: %v lacks %s: %s", links, want, report["map"])
		}
	}
}
