package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
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
	c := crawl.NewCrawl(uuid.MustParse("6f1c7d3e-0000-4000-8000-000000000001"), uuid.New(), &brand, "wf", o, json.RawMessage(body), now)
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
				"includeLinks": true, "deduplicateContent": true, "extraction": "", "extractionSchema": null, "engineType": "auto",
				"useStaticIps": false, "timeout": 1800, "origin": "api", "brandId": "brand-a", "staticIp": null,
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": [], "excludePaths": [], "includeOnlyTags": [],
				"excludeTags": [], "formats": [], "webhook": null, "maxConcurrentPages": null, "stack": null,
				"changeTracking": false, "scheduleId": null, "previousCrawlId": null, "paused": false
			}`},
		{"older shape with every kind of option", `{"startUrls":["https://a.example/","https://b.example/"],"maxDepth":3,"maxResults":9,"engine":"playwright","stack":"react","includeOnlyPaths":["/docs/**"],"excludeTags":["nav"],"maxConcurrentPages":4,"useStaticIps":true,"extraction":"prices","timeout":120,"origin":"web"}`,
			`{
				"id": "6f1c7d3e-0000-4000-8000-000000000001", "status": "running",
				"startUrl": "https://a.example/", "startUrls": ["https://a.example/", "https://b.example/"],
				"maxResults": 9, "maxDepth": 3, "useSitemap": false, "entireWebsite": false,
				"excludeNonMainTags": true, "includeLinks": true, "deduplicateContent": true,
				"extraction": "prices", "extractionSchema": null, "engineType": "playwright", "engine": "playwright", "useStaticIps": true,
				"timeout": 120, "origin": "web", "brandId": "brand-a", "staticIp": "203.0.113.7",
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": ["/docs/**"], "excludePaths": [],
				"includeOnlyTags": [], "excludeTags": ["nav"], "formats": [], "webhook": null, "maxConcurrentPages": 4, "stack": "react",
				"changeTracking": false, "scheduleId": null, "previousCrawlId": null, "paused": false
			}`},
		{"older shape without engine", `{"startUrls":["https://a.example/"],"maxDepth":3,"maxResults":9}`,
			`{
				"id": "6f1c7d3e-0000-4000-8000-000000000001", "status": "running",
				"startUrl": "https://a.example/", "startUrls": ["https://a.example/"], "maxResults": 9,
				"maxDepth": 3, "useSitemap": false, "entireWebsite": false, "excludeNonMainTags": true,
				"includeLinks": true, "deduplicateContent": true, "extraction": "", "extractionSchema": null, "engineType": "auto",
				"useStaticIps": false, "timeout": 1800, "origin": "api", "brandId": "brand-a", "staticIp": null,
				"totalPages": 3, "durationInSeconds": 90, "createdAt": "2026-11-21T10:00:00Z",
				"updatedAt": "2026-11-21T10:00:00Z", "completedAt": "2026-11-21T10:01:30Z",
				"includeExternalLinks": false, "includeOnlyPaths": [], "excludePaths": [], "includeOnlyTags": [],
				"excludeTags": [], "formats": [], "webhook": null, "maxConcurrentPages": null, "stack": null,
				"changeTracking": false, "scheduleId": null, "previousCrawlId": null, "paused": false
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
	c := &crawl.Crawl{Options: crawl.Options{
		Shape: crawl.ShapeLegacy, StartURLs: []string{"https://a.example/"}, MaxResults: new(int), Stack: "vue",
	}}
	v := reflect.ValueOf(&c.Options).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.IsZero() {
			if f.Type() == reflect.TypeFor[json.RawMessage]() {
				f.Set(reflect.ValueOf(json.RawMessage(`{"type":"object"}`)))
				continue
			}
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

// TestListCrawls: a team sees its own crawls, newest first, optionally of
// one status, a page at a time with the URL of the next page.
func TestListCrawls(t *testing.T) {
	a := newTestAPI(t)
	var mine []*crawl.Crawl
	for i := range 25 {
		status := crawl.StatusSucceeded
		if i%5 == 0 {
			status = crawl.StatusRunning
		}
		c := a.store.addCrawl(testTeam, status)
		c.CreatedAt = time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)
		mine = append(mine, c)
	}
	a.store.addCrawl(otherTeam, crawl.StatusRunning)

	ids := func(r response) []string {
		var out []string
		for _, x := range r.Body["results"].([]any) {
			out = append(out, x.(map[string]any)["id"].(string))
		}
		return out
	}
	r := a.do(t, http.MethodGet, "/crawls", testKey, "")
	if r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	got := ids(r)
	if len(got) != 20 || got[0] != mine[24].ID.String() || got[19] != mine[5].ID.String() {
		t.Errorf("first page lists %d crawls from %v to %v, want 20 newest first", len(got), got[0], got[len(got)-1])
	}
	if r.Body["totalResults"] != float64(25) || r.Body["next"] != "http://example.com/crawls?limit=20&page=2" {
		t.Errorf("totalResults %v, next %v", r.Body["totalResults"], r.Body["next"])
	}
	if _, ok := r.Body["results"].([]any)[0].(map[string]any)["progress"]; ok {
		t.Errorf("a listed crawl carries progress: %s", r.Raw)
	}
	r = a.do(t, http.MethodGet, "/crawls?limit=20&page=2", testKey, "")
	if got := ids(r); len(got) != 5 || got[4] != mine[0].ID.String() || r.Body["next"] != nil {
		t.Errorf("second page lists %v, next %v", got, r.Body["next"])
	}
	r = a.do(t, http.MethodGet, "/crawls?status=running&limit=2", testKey, "")
	if got := ids(r); len(got) != 2 || got[0] != mine[20].ID.String() || got[1] != mine[15].ID.String() ||
		r.Body["totalResults"] != float64(5) || r.Body["next"] != "http://example.com/crawls?limit=2&page=2&status=running" {
		t.Errorf("running crawls: %v, total %v, next %v", got, r.Body["totalResults"], r.Body["next"])
	}
	if r := a.do(t, http.MethodGet, "/crawls?status=aborted", testKey, ""); r.Status != http.StatusOK || len(ids(r)) != 0 {
		t.Errorf("no aborted crawls: %d %s", r.Status, r.Raw)
	}
	if r := a.do(t, http.MethodGet, "/crawls", otherKey, ""); len(ids(r)) != 1 {
		t.Errorf("the other team lists %d crawls, want its 1", len(ids(r)))
	}
	wantError(t, a.do(t, http.MethodGet, "/crawls?status=done", testKey, ""), http.StatusBadRequest, crawl.EINVALID, "status")
	wantError(t, a.do(t, http.MethodGet, "/crawls?limit=101", testKey, ""), http.StatusBadRequest, crawl.EINVALID, "limit")
	wantError(t, a.do(t, http.MethodGet, "/crawls?page=0", testKey, ""), http.StatusBadRequest, crawl.EINVALID, "page")
	wantError(t, a.do(t, http.MethodGet, "/crawls", "", ""), http.StatusUnauthorized, crawl.EUNAUTHORIZED)
}

// TestCrawlProgress: the answers about one crawl count its pages by state.
func TestCrawlProgress(t *testing.T) {
	a := newTestAPI(t)
	c := a.store.addCrawl(testTeam, crawl.StatusRunning)
	a.store.pages = map[uuid.UUID]map[crawl.PageState]int{c.ID: {
		crawl.PageQueued: 7, crawl.PageClaimed: 3, crawl.PageFetched: 2, crawl.PageConverted: 1,
		crawl.PageStored: 40, crawl.PageFailed: 4, crawl.PageSkipped: 5, crawl.PageDuplicate: 8,
	}}
	want := map[string]any{"queued": 7.0, "inProgress": 6.0, "stored": 40.0, "failed": 4.0, "skipped": 5.0, "duplicates": 8.0}
	a.temporal.onCancel = func(string) { a.store.crawls[c.ID].Status = crawl.StatusAborted }
	for _, req := range [][2]string{{http.MethodGet, ""}, {http.MethodDelete, ""}, {http.MethodPost, "/abort"}} {
		r := a.do(t, req[0], "/crawls/"+c.ID.String()+req[1], testKey, "")
		p, _ := r.Body["progress"].(map[string]any)
		if r.Status != http.StatusOK || !maps.Equal(p, want) {
			t.Errorf("%s: %d, progress %v, want %v", req[0]+req[1], r.Status, p, want)
		}
	}
	if a.store.crawls[c.ID].Status != crawl.StatusAborted || len(a.temporal.cancelled) != 1 {
		t.Errorf("DELETE did not abort: status %s, cancelled %v", a.store.crawls[c.ID].Status, a.temporal.cancelled)
	}
	empty := a.store.addCrawl(testTeam, crawl.StatusRunning)
	r := a.do(t, http.MethodGet, "/crawls/"+empty.ID.String(), testKey, "")
	if p, _ := r.Body["progress"].(map[string]any); len(p) != 6 || p["queued"] != 0.0 || p["duplicates"] != 0.0 {
		t.Errorf("a crawl without pages: progress %v, want six zero counts", p)
	}
}
