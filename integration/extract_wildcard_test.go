package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/schema"
)

// TestExtractWildcard: an extraction of https://site/catalog/* crawls
// that part of the site (199 item pages and its index, 200 pages, found
// through its links; the site's other pages are not read), asks the LLM
// once a page, and answers the pages' products merged, valid against
// its schema, with the pages each field came from.
func TestExtractWildcard(t *testing.T) {
	t.Parallel()
	const items = 199
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/catalog/":
			fmt.Fprint(w, "<html><head><title>Catalog</title></head><body><main><h1>Catalog</h1><ul>")
			for i := 1; i <= items; i++ {
				fmt.Fprintf(w, `<li><a href="/catalog/item-%d">Item %d</a></li>`, i, i)
			}
			fmt.Fprint(w, `</ul><a href="/about">About us</a></main></body></html>`)
		case strings.HasPrefix(r.URL.Path, "/catalog/item-"):
			n := strings.TrimPrefix(r.URL.Path, "/catalog/item-")
			fmt.Fprintf(w, `<html><head><title>Item %s</title></head><body><main><h1>Item %s</h1><p>A product of the catalog, number %s.</p><a href="/catalog/">Back</a> <a href="/about">About</a></main></body></html>`, n, n, n)
		case r.URL.Path == "/about":
			fmt.Fprint(w, "<html><body><main><h1>About</h1><p>Not part of the catalog.</p></main></body></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	productSchema := `{"type":"object","required":["products"],"properties":{"products":{"type":"array","items":{"type":"string"}}}}`
	var started struct {
		Success bool   `json:"success"`
		ID      string `json:"id"`
	}
	body := fmt.Sprintf(`{"urls":[%q],"prompt":"The catalog's products.","schema":%s,"showSources":true,"limit":200}`, site.URL+"/catalog/*", productSchema)
	if code, raw := call(t, "POST", env.llmAPI+"/v2/extract", env.keyA, body, &started); code != 200 || !started.Success {
		t.Fatalf("start the extraction: %d %s", code, raw)
	}
	var st struct {
		Status    string              `json:"status"`
		Data      json.RawMessage     `json:"data"`
		Sources   map[string][]string `json:"sources"`
		ExpiresAt string              `json:"expiresAt"`
	}
	deadline := time.Now().Add(4 * time.Minute)
	for {
		call(t, "GET", env.llmAPI+"/v2/extract/"+started.ID, env.keyA, nil, &st)
		if st.Status != "processing" || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st.Status != "completed" || st.ExpiresAt == "" {
		t.Fatalf("the extraction ended %q", st.Status)
	}
	sch, err := schema.Compile(json.RawMessage(productSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(st.Data); err != nil {
		t.Errorf("the answer does not validate against its schema: %v", err)
	}
	var data struct {
		Products []string `json:"products"`
	}
	_ = json.Unmarshal(st.Data, &data)
	if len(data.Products) != items || data.Products[0] != "product 1" {
		t.Errorf("%d products merged, want %d: %.200s", len(data.Products), items, st.Data)
	}
	if len(st.Sources["products"]) != items {
		t.Errorf("the products' sources name %d pages, want %d", len(st.Sources["products"]), items)
	}
	// One call an item page (each fits the model's context whole), a few
	// for the index (its 199 links are sent in parts); the site's other
	// page was not read.
	calls, itemCalls, indexCalls, about := 0, 0, 0, 0
	for _, c := range env.llm.Calls() {
		m := pageURLInPrompt.FindStringSubmatch(c.User)
		if m == nil || !strings.HasPrefix(m[1], site.URL) {
			continue
		}
		calls++
		switch {
		case strings.HasSuffix(m[1], "/about"):
			about++
		case strings.HasSuffix(m[1], "/catalog/"):
			indexCalls++
		default:
			itemCalls++
		}
	}
	if itemCalls != items || indexCalls < 1 || indexCalls > 5 || about != 0 {
		t.Errorf("the LLM was called %d times for the items, %d for the index, %d for /about; want %d, 1 to 5, 0", itemCalls, indexCalls, about, items)
	}
	t.Logf("a 200-page wildcard: %d LLM calls (%d for the index, in parts), %d products", calls, indexCalls, len(data.Products))
}
