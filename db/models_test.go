package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/webhook"
)

// everyOption returns options whose every field is set, each to a value
// of its own, so that a field without a column (or two fields sharing
// one) does not read back as it was stored.
func everyOption(t *testing.T) crawl.Options {
	t.Helper()
	var o crawl.Options
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Kind() == reflect.Int:
			f.SetInt(int64(100 + i))
		case f.Kind() == reflect.String:
			f.SetString("value of " + name)
		case f.Type() == reflect.TypeFor[*int]():
			n := 100 + i
			f.Set(reflect.ValueOf(&n))
		case f.Type() == reflect.TypeFor[[]string]():
			f.Set(reflect.ValueOf([]string{"first of " + name, "second of " + name}))
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			// As Postgres writes jsonb back: a space after the colon.
			f.Set(reflect.ValueOf(json.RawMessage(`{"title": "` + name + `"}`)))
		case f.Type() == reflect.TypeFor[map[string]string]():
			f.Set(reflect.ValueOf(map[string]string{"X-Name": name}))
		case f.Type() == reflect.TypeFor[*webhook.Config]():
			f.Set(reflect.ValueOf(&webhook.Config{URL: "https://hooks.example/" + name, Headers: map[string]string{"Authorization": "t"},
				Metadata: map[string]any{"n": "v"}, Events: []string{"page"}, Kind: webhook.KindBatchScrape}))
		default:
			t.Fatalf("the test cannot set %s of type %s; teach it", name, f.Type())
		}
	}
	o.Shape = crawl.ShapeLegacy // the column's CHECK allows the shapes only
	return o
}

// insertCrawl stores a crawl with options o for a new team.
func insertCrawl(t testing.TB, o crawl.Options) *crawl.Crawl {
	t.Helper()
	ctx := context.Background()
	key, err := store.CreateAPIKey(ctx, "team-"+uuid.NewString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	c := crawl.NewCrawl(id, p.TeamID, nil, "crawl-"+id.String(), o, json.RawMessage(`{}`), time.Now())
	if err := store.InsertCrawl(ctx, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCrawlStoresEveryOption: every field of crawl.Options has a column
// of its own and reads back as stored.
func TestCrawlStoresEveryOption(t *testing.T) {
	want := everyOption(t)
	c := insertCrawl(t, want)
	got, err := store.CrawlByID(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Options, want) {
		t.Errorf("options read back =\n%+v\nwant\n%+v", got.Options, want)
	}
}

// TestCrawlStoresNilListsEmpty: the list columns are NOT NULL, so a nil
// list is stored, and reads back, as an empty one.
func TestCrawlStoresNilListsEmpty(t *testing.T) {
	c := insertCrawl(t, crawl.Options{Shape: crawl.ShapeCurrent, StartURLs: []string{"https://example.com/"}})
	got, err := store.CrawlByID(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(got.Options)
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[[]string]() && (f.IsNil() || f.Len() != 0) && v.Type().Field(i).Name != "StartURLs" {
			t.Errorf("%s reads back as %s, want an empty list", v.Type().Field(i).Name, fmt.Sprintf("%#v", f.Interface()))
		}
	}
}
