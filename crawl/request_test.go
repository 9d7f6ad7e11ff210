package crawl

import (
	"bytes"
	"errors"
	"reflect"
	"sort"
	"testing"
	"unicode/utf8"
)

var allServer = Server{StaticEgressProxy: true, LLM: true, Browser: true}

func ptr(n int) *int { return &n }

// fieldsOf returns the sorted field names of an EINVALID error.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != EINVALID {
		t.Fatalf("error = %v, want an EINVALID *Error", err)
	}
	var fields []string
	for _, d := range e.Details {
		if d.Message == "" {
			t.Errorf("field %s has no message", d.Field)
		}
		fields = append(fields, d.Field)
	}
	sort.Strings(fields)
	return fields
}

func TestParseRequestInvalid(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		srv    Server
		fields []string
	}{
		{"empty body", ``, allServer, []string{"body"}},
		{"malformed JSON", `{"startUrl":`, allServer, []string{"body"}},
		{"array body", `[{"startUrl":"https://a.example/"}]`, allServer, []string{"body"}},
		{"trailing data", `{"startUrl":"https://a.example/"} {}`, allServer, []string{"body"}},
		{"neither URL key", `{"maxDepth":2}`, allServer, []string{"startUrl"}},
		{"both URL keys", `{"startUrl":"https://a.example/","startUrls":["https://a.example/"],"maxDepth":1,"maxResults":1}`, allServer, []string{"startUrl", "startUrls"}},
		{"unknown field", `{"startUrl":"https://a.example/","maxPages":3}`, allServer, []string{"maxPages"}},
		{"startUrl not a string", `{"startUrl":42}`, allServer, []string{"startUrl"}},
		{"startUrl null", `{"startUrl":null}`, allServer, []string{"startUrl"}},
		{"startUrl relative", `{"startUrl":"/docs"}`, allServer, []string{"startUrl"}},
		{"startUrl ftp", `{"startUrl":"ftp://a.example/"}`, allServer, []string{"startUrl"}},
		{"startUrl no host", `{"startUrl":"https:///x"}`, allServer, []string{"startUrl"}},
		{"startUrl with credentials", `{"startUrl":"https://u:p@a.example/"}`, allServer, []string{"startUrl"}},
		{"startUrl empty", `{"startUrl":"  "}`, allServer, []string{"startUrl"}},
		// current shape ranges
		{"maxResults 0", `{"startUrl":"https://a.example/","maxResults":0}`, allServer, []string{"maxResults"}},
		{"maxResults 10001", `{"startUrl":"https://a.example/","maxResults":10001}`, allServer, []string{"maxResults"}},
		{"maxResults fraction", `{"startUrl":"https://a.example/","maxResults":1.5}`, allServer, []string{"maxResults"}},
		{"maxResults string", `{"startUrl":"https://a.example/","maxResults":"5"}`, allServer, []string{"maxResults"}},
		{"maxDepth 0", `{"startUrl":"https://a.example/","maxDepth":0}`, allServer, []string{"maxDepth"}},
		{"maxDepth 101", `{"startUrl":"https://a.example/","maxDepth":101}`, allServer, []string{"maxDepth"}},
		{"maxDepth negative", `{"startUrl":"https://a.example/","maxDepth":-1}`, allServer, []string{"maxDepth"}},
		{"timeout 59", `{"startUrl":"https://a.example/","timeout":59}`, allServer, []string{"timeout"}},
		{"timeout too large", `{"startUrl":"https://a.example/","timeout":604801}`, allServer, []string{"timeout"}},
		{"timeout bool", `{"startUrl":"https://a.example/","timeout":true}`, allServer, []string{"timeout"}},
		{"boolean as string", `{"startUrl":"https://a.example/","useSitemap":"true"}`, allServer, []string{"useSitemap"}},
		{"boolean as number", `{"startUrl":"https://a.example/","includeLinks":1}`, allServer, []string{"includeLinks"}},
		{"engineType unknown", `{"startUrl":"https://a.example/","engineType":"selenium"}`, allServer, []string{"engineType"}},
		{"origin unknown", `{"startUrl":"https://a.example/","origin":"cli"}`, allServer, []string{"origin"}},
		{"stack unknown", `{"startUrl":"https://a.example/","stack":"cobol"}`, allServer, []string{"stack"}},
		{"extraction not a string", `{"startUrl":"https://a.example/","extraction":["a"]}`, allServer, []string{"extraction"}},
		{"extraction without LLM", `{"startUrl":"https://a.example/","extraction":"prices"}`, Server{}, []string{"extraction"}},
		{"useStaticIps without proxy", `{"startUrl":"https://a.example/","useStaticIps":true}`, Server{}, []string{"useStaticIps"}},
		{"playwright without browser", `{"startUrl":"https://a.example/","engineType":"playwright"}`, Server{}, []string{"engineType"}},
		{"engine and engineType disagree", `{"startUrl":"https://a.example/","engineType":"cheerio","engine":"playwright"}`, allServer, []string{"engine"}},
		{"maxConcurrentPages 0", `{"startUrl":"https://a.example/","maxConcurrentPages":0}`, allServer, []string{"maxConcurrentPages"}},
		{"paths not an array", `{"startUrl":"https://a.example/","includeOnlyPaths":"/docs/*"}`, allServer, []string{"includeOnlyPaths"}},
		{"empty path", `{"startUrl":"https://a.example/","excludePaths":["/a",""]}`, allServer, []string{"excludePaths[1]"}},
		{"bad selector", `{"startUrl":"https://a.example/","excludeTags":["nav","[["]}`, allServer, []string{"excludeTags[1]"}},
		// older shape
		{"legacy missing maxDepth and maxResults", `{"startUrls":["https://a.example/"]}`, allServer, []string{"maxDepth", "maxResults"}},
		{"legacy empty startUrls", `{"startUrls":[],"maxDepth":1,"maxResults":1}`, allServer, []string{"startUrls"}},
		{"legacy startUrls not an array", `{"startUrls":"https://a.example/","maxDepth":1,"maxResults":1}`, allServer, []string{"startUrls"}},
		{"legacy bad item", `{"startUrls":["https://a.example/","nope"],"maxDepth":1,"maxResults":1}`, allServer, []string{"startUrls[1]"}},
		{"legacy maxDepth 51", `{"startUrls":["https://a.example/"],"maxDepth":51,"maxResults":1}`, allServer, []string{"maxDepth"}},
		{"legacy maxDepth 0", `{"startUrls":["https://a.example/"],"maxDepth":0,"maxResults":1}`, allServer, []string{"maxDepth"}},
		{"legacy maxResults 1000", `{"startUrls":["https://a.example/"],"maxDepth":1,"maxResults":1000}`, allServer, []string{"maxResults"}},
		{"legacy maxResults 0", `{"startUrls":["https://a.example/"],"maxDepth":1,"maxResults":0}`, allServer, []string{"maxResults"}},
		{"legacy engine auto", `{"startUrls":["https://a.example/"],"maxDepth":1,"maxResults":1,"engine":"auto"}`, allServer, []string{"engine"}},
		{"every field wrong", `{"startUrl":1,"maxDepth":"x","useSitemap":null,"origin":3}`, allServer, []string{"maxDepth", "origin", "startUrl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tc.body), tc.srv)
			if got := fieldsOf(t, err); !reflect.DeepEqual(got, tc.fields) {
				t.Errorf("fields = %v, want %v", got, tc.fields)
			}
		})
	}
}

func TestParseRequestValid(t *testing.T) {
	cases := []struct {
		name string
		body string
		want func(o *Options) // edits the defaults of the current shape
	}{
		{"current minimal", `{"startUrl":"https://a.example/docs/"}`, func(o *Options) {}},
		{"current lower edges", `{"startUrl":"https://a.example/docs/","maxResults":1,"maxDepth":1,"timeout":60}`, func(o *Options) {
			o.MaxResults, o.MaxDepth, o.TimeoutSeconds = ptr(1), 1, 60
		}},
		{"current upper edges", `{"startUrl":"https://a.example/docs/","maxResults":10000,"maxDepth":100,"timeout":604800}`, func(o *Options) {
			o.MaxResults, o.MaxDepth, o.TimeoutSeconds = ptr(10000), 100, 604800
		}},
		{"integral float", `{"startUrl":"https://a.example/docs/","maxDepth":3.0}`, func(o *Options) { o.MaxDepth = 3 }},
		{"nulls mean defaults", `{"startUrl":"https://a.example/docs/","maxDepth":null,"includeLinks":null,"extraction":null}`, func(o *Options) {}},
		{"every boolean flipped", `{"startUrl":"https://a.example/docs/","useSitemap":true,"entireWebsite":true,"excludeNonMainTags":false,"includeLinks":false,"deduplicateContent":false,"useStaticIps":true,"includeExternalLinks":true}`, func(o *Options) {
			o.UseSitemap, o.EntireWebsite, o.ExcludeNonMainTags, o.IncludeLinks = true, true, false, false
			o.DeduplicateContent, o.UseStaticIPs, o.IncludeExternalLinks = false, true, true
		}},
		{"engineType, origin, stack, extraction", `{"startUrl":"https://a.example/docs/","engineType":"cheerio","origin":"web","stack":"react","extraction":"  the prices  ","maxConcurrentPages":4}`, func(o *Options) {
			o.EngineType, o.Origin, o.Stack, o.Extraction, o.MaxConcurrentPages = EngineCheerio, OriginWeb, "react", "the prices", ptr(4)
		}},
		{"older-shape options in the current shape", `{"startUrl":"https://a.example/docs/","includeOnlyPaths":["/docs/**"],"excludePaths":["/docs/old/*"],"includeOnlyTags":["article"],"excludeTags":["nav",".ads"]}`, func(o *Options) {
			o.IncludeOnlyPaths, o.ExcludePaths = []string{"/docs/**"}, []string{"/docs/old/*"}
			o.IncludeOnlyTags, o.ExcludeTags = []string{"article"}, []string{"nav", ".ads"}
		}},
		{"legacy lower edges", `{"startUrls":["https://a.example/docs/"],"maxDepth":1,"maxResults":1}`, func(o *Options) {
			o.Shape, o.MaxDepth, o.MaxResults = ShapeLegacy, 1, ptr(1)
		}},
		{"legacy upper edges and engine", `{"startUrls":["https://a.example/docs/","https://b.example/"],"maxDepth":50,"maxResults":999,"engine":"playwright","includeLinks":true}`, func(o *Options) {
			o.Shape, o.MaxDepth, o.MaxResults, o.EngineType = ShapeLegacy, 50, ptr(999), EnginePlaywright
			o.StartURLs = []string{"https://a.example/docs/", "https://b.example/"}
		}},
		{"legacy with engineType agreeing", `{"startUrls":["https://a.example/docs/"],"maxDepth":2,"maxResults":5,"engine":"cheerio","engineType":"cheerio"}`, func(o *Options) {
			o.Shape, o.MaxDepth, o.MaxResults, o.EngineType = ShapeLegacy, 2, ptr(5), EngineCheerio
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest([]byte(tc.body), allServer)
			if err != nil {
				t.Fatalf("ParseRequest: %v", err)
			}
			want := Options{
				Shape: ShapeCurrent, StartURLs: []string{"https://a.example/docs/"},
				MaxDepth: DefaultMaxDepth, ExcludeNonMainTags: true, IncludeLinks: true,
				DeduplicateContent: true, EngineType: EngineAuto, TimeoutSeconds: 1800,
				Origin: OriginAPI, IncludeOnlyPaths: []string{}, ExcludePaths: []string{},
				IncludeOnlyTags: []string{}, ExcludeTags: []string{},
			}
			tc.want(&want)
			norm := func(o *Options) {
				for _, s := range []*[]string{&o.IncludeOnlyPaths, &o.ExcludePaths, &o.IncludeOnlyTags, &o.ExcludeTags} {
					if *s == nil {
						*s = []string{}
					}
				}
			}
			norm(&got)
			norm(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("options =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestOptionsBounds(t *testing.T) {
	o := Options{MaxResults: ptr(20), MaxDepth: 3}
	if got := o.PageBudget(1000); got != 20 {
		t.Errorf("PageBudget = %d, want 20", got)
	}
	if got := o.PageBudget(10); got != 10 {
		t.Errorf("PageBudget over the server cap = %d, want 10", got)
	}
	if got := o.DepthLimit(); got != 3 {
		t.Errorf("DepthLimit = %d, want 3", got)
	}
	o.EntireWebsite = true
	if got := o.PageBudget(1000); got != 1000 {
		t.Errorf("PageBudget with entireWebsite = %d, want the server cap", got)
	}
	if got := o.DepthLimit(); got != -1 {
		t.Errorf("DepthLimit with entireWebsite = %d, want -1", got)
	}
	if got := (Options{}).Concurrency(8, 32); got != 8 {
		t.Errorf("default concurrency = %d, want 8", got)
	}
	if got := (Options{MaxConcurrentPages: ptr(500)}).Concurrency(8, 32); got != 32 {
		t.Errorf("concurrency over the server limit = %d, want 32", got)
	}
}

// FuzzParseRequest: no body makes ParseRequest panic, and every accepted
// body re-encodes to JSON that Postgres stores (valid UTF-8, no NUL).
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		`{"startUrl":"https://a.example/"}`,
		`{"startUrls":["https://a.example/"],"maxDepth":1,"maxResults":1}`,
		`{"startUrl":"https://a.example/","excludePaths":["/a\u0000"]}`,
		`{"startUrl":"https://a.example/","extraction":"\ud800"}`,
		`{"startUrl":"\u0000","startUrl":"https://a.example/"}`,
		`{"startUrl":"https://a.example/","maxDepth":1e400}`,
		"{\"startUrl\":\"https://a.example/\",\"stack\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o, err := ParseRequest(body, allServer)
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("error code %q for %q", ErrorCode(err), body)
			}
			return
		}
		if len(o.StartURLs) == 0 {
			t.Fatalf("accepted %q without a start URL", body)
		}
		given, err := Given(body)
		if err != nil {
			t.Fatalf("Given(%q): %v", body, err)
		}
		if !utf8.Valid(given) || bytes.Contains(given, []byte(`\u0000`)) {
			t.Fatalf("Given(%q) = %q is not storable", body, given)
		}
	})
}
