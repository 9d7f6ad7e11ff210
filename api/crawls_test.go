package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
)

var allServer = crawl.Server{StaticEgressProxy: true, LLM: true, Browser: true}

// viewOf returns the Crawl object of a crawl created with body, as a JSON
// value.
func viewOf(t *testing.T, body string) map[string]any {
	t.Helper()
	o, err := crawl.ParseRequest([]byte(body), allServer)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	brand, ip := "brand-a", "203.0.113.7"
	c := db.NewCrawl(uuid.MustParse("6f1c7d3e-0000-4000-8000-000000000001"), uuid.New(), &brand, "wf", o, json.RawMessage(body), now)
	if o.UseStaticIPs {
		c.StaticIP = &ip
	}
	done := now.Add(90 * time.Second)
	c.CompletedAt, c.TotalPages = &done, 3
	return decode(t, crawlView(c, now.Add(time.Hour)))
}

func decode(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCrawlViewAnswers pins the Crawl object: its keys, and null or []
// where an option is unset.
func TestCrawlViewAnswers(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"current shape, defaults", `{"startUrl":"https://a.example/"}`,
			`{
				"id": "6f1c7d3e-0000-4000-8000-000000000001", "status": "running",
				"startUrl": "https://a.example/", "startUrls": ["https://a.example/"], "maxResults": null,
				"maxDepth": 10, "useSitemap": false, "entireWebsite": false, "excludeNonMainTags": true,
				"includeLinks": true, "deduplicateContent": true, "extraction": "", "engineType": "auto",
				"useStaticIps": false, "timeout": 1800, "origin": "api", "brandId": "brand-a", "staticIp": null,
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": [], "excludePaths": [], "includeOnlyTags": [],
				"excludeTags": [], "maxConcurrentPages": null, "stack": null
			}`},
		{"older shape with every kind of option", `{"startUrls":["https://a.example/","https://b.example/"],"maxDepth":3,"maxResults":9,"engine":"playwright","stack":"react","includeOnlyPaths":["/docs/**"],"excludeTags":["nav"],"maxConcurrentPages":4,"useStaticIps":true,"extraction":"prices","timeout":120,"origin":"web"}`,
			`{
				"id": "6f1c7d3e-0000-4000-8000-000000000001", "status": "running",
				"startUrl": "https://a.example/", "startUrls": ["https://a.example/", "https://b.example/"],
				"maxResults": 9, "maxDepth": 3, "useSitemap": false, "entireWebsite": false,
				"excludeNonMainTags": true, "includeLinks": true, "deduplicateContent": true,
				"extraction": "prices", "engineType": "playwright", "engine": "playwright", "useStaticIps": true,
				"timeout": 120, "origin": "web", "brandId": "brand-a", "staticIp": "203.0.113.7",
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": ["/docs/**"], "excludePaths": [],
				"includeOnlyTags": [], "excludeTags": ["nav"], "maxConcurrentPages": 4, "stack": "react"
			}`},
		{"older shape without engine", `{"startUrls":["https://a.example/"],"maxDepth":3,"maxResults":9}`,
			`{
				"id": "6f1c7d3e-0000-4000-8000-000000000001", "status": "running",
				"startUrl": "https://a.example/", "startUrls": ["https://a.example/"], "maxResults": 9,
				"maxDepth": 3, "useSitemap": false, "entireWebsite": false, "excludeNonMainTags": true,
				"includeLinks": true, "deduplicateContent": true, "extraction": "", "engineType": "auto",
				"useStaticIps": false, "timeout": 1800, "origin": "api", "brandId": "brand-a", "staticIp": null,
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": [], "excludePaths": [], "includeOnlyTags": [],
				"excludeTags": [], "maxConcurrentPages": null, "stack": null
			}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want map[string]any
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if got := viewOf(t, tc.body); !reflect.DeepEqual(got, want) {
				t.Errorf("view =\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestCrawlViewShowsEveryOption: each option with a JSON name is in the
// Crawl object under that name, with its value.
func TestCrawlViewShowsEveryOption(t *testing.T) {
	c := &db.Crawl{Options: crawl.Options{
		Shape: crawl.ShapeLegacy, StartURLs: []string{"https://a.example/"}, MaxResults: new(int), Stack: "vue",
	}}
	v := reflect.ValueOf(&c.Options).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.IsZero() {
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int:
				f.SetInt(int64(100 + i))
			case reflect.String:
				f.SetString("value of " + v.Type().Field(i).Name)
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
			case reflect.Slice:
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			}
		}
	}
	view := decode(t, crawlView(c, time.Now()))
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		got, ok := view[name]
		if !ok {
			t.Errorf("%s is not in the view as %s", v.Type().Field(i).Name, name)
			continue
		}
		if want := decode(t, map[string]any{"v": v.Field(i).Interface()})["v"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}
