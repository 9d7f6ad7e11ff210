package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/internal/apispec"
)

// testSpec is the API's OpenAPI document, compiled once for every test of
// the package: send checks each answer against it.
var testSpec = sync.OnceValues(func() (*apispec.Spec, error) { return apispec.New(OpenAPI()) })

func spec(t *testing.T) *apispec.Spec {
	t.Helper()
	s, err := testSpec()
	if err != nil {
		t.Fatalf("api/openapi.json: %v", err)
	}
	return s
}

// TestOpenAPIDescribesEveryRoute: the document is OpenAPI 3.1 with every
// schema compiling (apispec.New checks both), and its operations are
// exactly the routes New registers with every optional route on (GET
// /metrics), apart from Fiber's HEAD twins of GET routes and the catch-all
// that answers 404.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	s := spec(t)
	app := New(Options{Logger: slog.New(slog.DiscardHandler), MetricsHandler: http.NotFoundHandler()})
	param := regexp.MustCompile(`:([A-Za-z0-9_]+)`)
	var routes []apispec.Operation
	for _, r := range app.GetRoutes(true) {
		if r.Method == http.MethodHead || strings.Contains(r.Path, "*") {
			continue
		}
		op := apispec.Operation{Method: r.Method, Path: param.ReplaceAllString(r.Path, "{$1}")}
		if !slices.Contains(routes, op) {
			routes = append(routes, op)
		}
	}
	documented := s.Operations()
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s %s is not in api/openapi.json", r.Method, r.Path)
		}
	}
	for _, op := range documented {
		if !slices.Contains(routes, op) {
			t.Errorf("api/openapi.json describes %s %s, which the API does not route", op.Method, op.Path)
		}
	}
	if len(routes) < 8 {
		t.Errorf("found only %d routes: %v", len(routes), routes)
	}
}

// TestOpenAPIServed: GET /openapi.json answers the document, without an
// API key.
func TestOpenAPIServed(t *testing.T) {
	a := newTestAPI(t)
	resp, err := a.app.Test(httptest.NewRequest(http.MethodGet, "/openapi.json", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if string(body) != string(OpenAPI()) {
		t.Errorf("GET /openapi.json answered %d bytes that are not the document", len(body))
	}
	if err := spec(t).Validate(http.MethodGet, "/openapi.json", resp.StatusCode, resp.Header.Get("Content-Type"), body); err != nil {
		t.Error(err)
	}
}

// TestOpenAPIRequestSchema holds the document's request schema to
// crawl.ParseRequest: bodies the parser accepts validate, and bodies it
// refuses for a reason a schema can state do not.
func TestOpenAPIRequestSchema(t *testing.T) {
	s := spec(t)
	cases := []struct {
		name, body string
		valid      bool
	}{
		{"current, minimal", `{"startUrl":"https://a.example/"}`, true},
		{"current, every option", `{"startUrl":"https://a.example/docs/","maxResults":10000,"maxDepth":100,"useSitemap":false,
			"entireWebsite":false,"excludeNonMainTags":false,"includeLinks":false,"deduplicateContent":false,"includeExternalLinks":true,
			"useStaticIps":true,"extraction":"titles","engineType":"cheerio","timeout":604800,"origin":"web","stack":"hugo",
			"maxConcurrentPages":1000,"includeOnlyPaths":["/docs/**"],"excludePaths":["/docs/old/*"],"includeOnlyTags":["main"],"excludeTags":["nav",".ad"]}`, true},
		{"current, nulls take defaults", `{"startUrl":"https://a.example/","maxDepth":null,"timeout":null,"stack":null,"excludePaths":null}`, true},
		{"current, engine as the older name", `{"startUrl":"https://a.example/","engine":"cheerio"}`, true},
		{"older", `{"startUrls":["https://a.example/","https://b.example/"],"maxResults":999,"maxDepth":50,"engine":"playwright","stack":"react"}`, true},
		{"older, engineType", `{"startUrls":["https://a.example/"],"maxResults":1,"maxDepth":1,"engineType":"auto"}`, true},
		{"both shapes", `{"startUrl":"https://a.example/","startUrls":["https://a.example/"]}`, false},
		{"neither shape", `{"maxDepth":3}`, false},
		{"unknown field", `{"startUrl":"https://a.example/","colour":"red"}`, false},
		{"maxDepth 0", `{"startUrl":"https://a.example/","maxDepth":0}`, false},
		{"maxDepth 101", `{"startUrl":"https://a.example/","maxDepth":101}`, false},
		{"maxDepth a string", `{"startUrl":"https://a.example/","maxDepth":"3"}`, false},
		{"maxResults 10001", `{"startUrl":"https://a.example/","maxResults":10001}`, false},
		{"timeout under a minute", `{"startUrl":"https://a.example/","timeout":59}`, false},
		{"timeout over a week", `{"startUrl":"https://a.example/","timeout":604801}`, false},
		{"unknown engine", `{"startUrl":"https://a.example/","engineType":"chrome"}`, false},
		{"unknown stack", `{"startUrl":"https://a.example/","stack":"cobol"}`, false},
		{"unknown origin", `{"startUrl":"https://a.example/","origin":"cli"}`, false},
		{"maxConcurrentPages 0", `{"startUrl":"https://a.example/","maxConcurrentPages":0}`, false},
		{"empty path glob", `{"startUrl":"https://a.example/","excludePaths":[""]}`, false},
		{"startUrl null", `{"startUrl":null}`, false},
		{"older without maxResults", `{"startUrls":["https://a.example/"],"maxDepth":2}`, false},
		{"older without maxDepth", `{"startUrls":["https://a.example/"],"maxResults":2}`, false},
		{"older, maxResults 1000", `{"startUrls":["https://a.example/"],"maxResults":1000,"maxDepth":2}`, false},
		{"older, maxDepth 51", `{"startUrls":["https://a.example/"],"maxResults":10,"maxDepth":51}`, false},
		{"older, no URLs", `{"startUrls":[],"maxResults":10,"maxDepth":2}`, false},
		{"a JSON array", `["https://a.example/"]`, false},
	}
	srv := crawl.Server{StaticEgressProxy: true, LLM: true, Browser: true}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, parseErr := crawl.ParseRequest([]byte(tc.body), srv)
			schemaErr := s.ValidateSchema("CreateCrawlRequest", []byte(tc.body))
			if (parseErr == nil) != tc.valid {
				t.Fatalf("ParseRequest: %v, want valid %v", parseErr, tc.valid)
			}
			if (schemaErr == nil) != tc.valid {
				t.Errorf("the schema says %v, want valid %v", schemaErr, tc.valid)
			}
		})
	}
}
