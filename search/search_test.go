package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/internal/fakesearx"
)

// TestSearch asks a SearXNG-shaped backend for each source, across its
// pages, with domain and date filters.
func TestSearch(t *testing.T) {
	backend := fakesearx.New()
	defer backend.Close()
	var web []fakesearx.Hit
	for i := range 25 {
		host := "docs.example.org"
		if i%5 == 4 {
			host = "spam.example.net"
		}
		web = append(web, fakesearx.Hit{URL: fmt.Sprintf("https://%s/page/%d", host, i), Title: fmt.Sprintf("Page %d", i), Content: "About durable crawls."})
	}
	web = append(web, web[0]) // the same page twice
	backend.Add("durable crawls", "general", web...)
	backend.Add("durable crawls", "news",
		fakesearx.Hit{URL: "https://news.example.org/old", Title: "Old", PublishedDate: "2024-01-02T10:00:00"},
		fakesearx.Hit{URL: "https://news.example.org/new", Title: "New", PublishedDate: "2026-12-06T10:00:00Z"},
		fakesearx.Hit{URL: "https://news.example.org/undated", Title: "Undated"})
	backend.Add("durable crawls", "images", fakesearx.Hit{URL: "https://img.example.org/p", Title: "A diagram", ImgSrc: "https://img.example.org/p.png", Resolution: "800 x 600"})
	c, err := New(backend.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Search(context.Background(), Request{Query: "Durable crawls", Sources: []string{Web, News, Images}, Limit: 15,
		ExcludeDomains: []string{"example.net"}, Language: "de-CH", Since: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// Web results have no dates: with a date filter, none is kept.
	if len(got[Web]) != 0 {
		t.Errorf("undated web results passed a date filter: %d", len(got[Web]))
	}
	if n := got[News]; len(n) != 1 || n[0].Title != "New" {
		t.Errorf("news: %+v", n)
	}
	got, err = c.Search(context.Background(), Request{Query: "durable crawls", Sources: []string{Web, Images}, Limit: 15, ExcludeDomains: []string{"example.net"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := got[Web]; len(w) != 15 || w[0].URL != "https://docs.example.org/page/0" || w[0].Description != "About durable crawls." {
		t.Errorf("web: %d results, first %+v", len(w), w)
	}
	for _, r := range got[Web] {
		if r.URL == "https://spam.example.net/page/4" {
			t.Errorf("an excluded domain's result: %s", r.URL)
		}
	}
	if im := got[Images]; len(im) != 1 || im[0].ImageURL != "https://img.example.org/p.png" || im[0].ImageWidth != 800 || im[0].ImageHeight != 600 {
		t.Errorf("images: %+v", im)
	}
	got, err = c.Search(context.Background(), Request{Query: "durable crawls", Limit: 100, IncludeDomains: []string{"example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got[Web]) != 20 {
		t.Errorf("includeDomains: %d results, want the 20 distinct ones on example.org", len(got[Web]))
	}
	reqs := backend.Requests()
	first := reqs[0]
	if first.Get("q") != "Durable crawls -site:example.net" || first.Get("language") != "de-CH" || first.Get("categories") != "general" || first.Get("pageno") != "1" {
		t.Errorf("the first request: %v", first)
	}
	last := reqs[len(reqs)-1]
	if last.Get("q") != "durable crawls site:example.org" {
		t.Errorf("the last request: %v", last)
	}
}

// TestBackendFails: an unreachable backend, an error status and an
// answer that is not JSON are each ErrBackend.
func TestBackendFails(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }))
	defer html.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) }))
	defer forbidden.Close()
	for _, u := range []string{html.URL, forbidden.URL, "http://127.0.0.1:1"} {
		c, err := New(u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Search(context.Background(), Request{Query: "x"}); !errors.Is(err, ErrBackend) {
			t.Errorf("%s: %v, want ErrBackend", u, err)
		}
	}
	if _, err := New("ftp://x", nil); err == nil {
		t.Error("an ftp backend was taken")
	}
}
