package firecrawl

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// parseAs sends body, as a request of where, through the parser of that
// request.
func parseAs(where Where, body map[string]any) error {
	srv := crawl.Server{Browser: true, LLM: true, ObeyRobots: true}
	switch where {
	case InScrape:
		body["url"] = "https://example.com/"
		raw, _ := json.Marshal(body)
		_, _, err := ScrapeOptionsOf(raw, srv)
		return err
	case InBatch:
		body["urls"] = []string{"https://example.com/"}
		raw, _ := json.Marshal(body)
		_, _, err := BatchOptionsOf(raw, srv, false)
		return err
	case InCrawl:
		body["url"] = "https://example.com/"
		raw, _ := json.Marshal(body)
		_, err := CrawlOptions(raw, srv)
		return err
	case InMap:
		body["url"] = "https://example.com/"
		raw, _ := json.Marshal(body)
		_, _, err := MapOptionsOf(raw, srv)
		return err
	case InExtract:
		body["urls"] = []string{"https://example.com/"}
		if _, ok := body["prompt"]; ok {
			body["schema"] = map[string]any{"type": "object"}
		} else {
			body["prompt"] = "The page's title."
		}
		raw, _ := json.Marshal(body)
		_, _, err := ExtractOptionsOf(raw, srv)
		return err
	case InScrapeOptions:
		raw, _ := json.Marshal(map[string]any{"url": "https://example.com/", "scrapeOptions": body})
		_, err := CrawlOptions(raw, srv)
		return err
	}
	panic("no such request")
}

// TestFieldsAtTheirDefaults walks Fields: each field, in each request it
// belongs to, is accepted at Firecrawl's default and at each value the
// service accepts of it.
func TestFieldsAtTheirDefaults(t *testing.T) {
	for _, f := range Fields {
		values := slices.Clone(f.Accept)
		if f.Default != "" && json.Valid([]byte(f.Default)) {
			values = append(values, f.Default)
		}
		values = append(values, "null")
		for _, where := range []Where{InScrape, InBatch, InCrawl, InMap, InScrapeOptions, InExtract} {
			if f.In&where == 0 {
				continue
			}
			for _, v := range values {
				if f.Name == "url" || f.Name == "urls" {
					continue // every request sets its own
				}
				body := map[string]any{f.Name: json.RawMessage(v)}
				if err := parseAs(where, body); err != nil {
					t.Errorf("%s = %s in %v: %v", f.Name, v, where, err)
				}
			}
		}
	}
}

// TestFieldsRefusedOtherwise: a field whose values the service restricts
// is refused, naming it, at a value it does not accept.
func TestFieldsRefusedOtherwise(t *testing.T) {
	for _, f := range Fields {
		if f.Accept == nil {
			continue
		}
		other := `"something else"`
		if slices.Contains(f.Accept, "false") {
			other = "true"
		}
		for _, where := range []Where{InScrape, InBatch, InCrawl, InMap, InScrapeOptions, InExtract} {
			if f.In&where == 0 {
				continue
			}
			err := parseAs(where, map[string]any{f.Name: json.RawMessage(other)})
			if !names(err, f.Name) {
				t.Errorf("%s = %s in %v: %v, want it refused naming the field", f.Name, other, where, err)
			}
		}
	}
}

// names reports whether err is a 400 whose details name field (in a
// crawl's scrapeOptions or not).
func names(err error, field string) bool {
	var e *crawl.Error
	if !errors.As(err, &e) || e.Code != crawl.EINVALID {
		return false
	}
	for _, d := range e.Details {
		if d.Field == field || d.Field == "scrapeOptions."+field {
			return true
		}
	}
	return false
}

// jsonNames are the JSON names of t's fields, those of embedded structs
// included.
func jsonNames(t reflect.Type) map[string]bool {
	m := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			for k := range jsonNames(sf.Type) {
				m[k] = true
			}
			continue
		}
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}

// TestFieldsAreDecoded: each request's struct holds exactly the fields
// Fields gives it, so that every one is decoded with its type.
func TestFieldsAreDecoded(t *testing.T) {
	for where, typ := range map[Where]reflect.Type{InScrape: reflect.TypeFor[ScrapeRequest](), InBatch: reflect.TypeFor[BatchRequest](),
		InCrawl: reflect.TypeFor[CrawlRequest](), InMap: reflect.TypeFor[MapRequest](), InScrapeOptions: reflect.TypeFor[ScrapeOptions](),
		InExtract: reflect.TypeFor[ExtractRequest]()} {
		got, want := jsonNames(typ), FieldsIn(where)
		for k := range want {
			if !got[k] {
				t.Errorf("%v: %s is in Fields, not in %s", where, k, typ)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("%v: %s is in %s, not in Fields", where, k, typ)
			}
		}
	}
}

// TestFieldTableInDocs: docs/firecrawl.md holds the table of Fields as it
// is.
func TestFieldTableInDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/firecrawl.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), FieldTable()) {
		if os.Getenv("UPDATE_DOCS") != "" {
			t.Log(FieldTable())
		}
		t.Errorf("docs/firecrawl.md does not hold the table of firecrawl.Fields as it is now; its table should read:\n%s", FieldTable())
	}
}
