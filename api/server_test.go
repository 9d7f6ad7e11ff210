package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/health"
	"github.com/durablecrawl/crawler/metrics"
)

// TestAuthentication: every endpoint but /healthz needs a known key as a
// bearer token; without one the answer is 401 with the JSON error body and
// a WWW-Authenticate challenge, and nothing is done.
func TestAuthentication(t *testing.T) {
	cases := []struct {
		name, header string
		wantMessage  string // a part of the error message
	}{
		{"no header", "", "missing API key"},
		{"blank header", "   ", "missing API key"},
		{"no scheme", testKey, "malformed Authorization header"},
		{"basic scheme", "Basic " + testKey, "malformed Authorization header"},
		{"bearer without token", "Bearer ", "malformed Authorization header"},
		{"bearer with blank token", "Bearer    x", "invalid API key"},
		{"unknown key", "Bearer ck_nobody", "invalid API key"},
	}
	for _, tc := range cases {
		for _, route := range []struct{ method, path, body string }{
			{http.MethodPost, "/crawls", `{"startUrl":"https://a.example/"}`},
			{http.MethodGet, "/crawls/00000000-0000-4000-8000-000000000001", ""},
			{http.MethodPost, "/crawls/00000000-0000-4000-8000-000000000001/abort", ""},
			{http.MethodGet, "/crawl-logs/00000000-0000-4000-8000-000000000001", ""},
			{http.MethodGet, "/crawls/00000000-0000-4000-8000-000000000001/pages", ""},
		} {
			t.Run(tc.name+" "+route.method+" "+route.path, func(t *testing.T) {
				a := newTestAPI(t)
				req := httptest.NewRequest(route.method, route.path, strings.NewReader(route.body))
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				r := a.send(t, req)
				wantError(t, r, http.StatusUnauthorized, "unauthorized")
				if m := errorMessage(r); !strings.Contains(m, tc.wantMessage) {
					t.Errorf("message %q, want it to say %q", m, tc.wantMessage)
				}
				if r.Header.Get("WWW-Authenticate") == "" {
					t.Error("401 without a WWW-Authenticate header")
				}
				if len(a.store.inserted)+len(a.store.ended)+len(a.store.listed) > 0 ||
					len(a.temporal.started)+len(a.temporal.cancelled) > 0 {
					t.Errorf("an unauthenticated request did something: store %+v, temporal %+v", a.store, a.temporal)
				}
			})
		}
	}
}

// TestAuthenticationAccepts the bearer scheme in any case, and /healthz
// without a key.
func TestAuthenticationAccepts(t *testing.T) {
	a := newTestAPI(t)
	c := a.store.addCrawl(testTeam, "succeeded")
	for _, h := range []string{"Bearer " + testKey, "bearer " + testKey, "  BEARER   " + testKey + "  "} {
		req := httptest.NewRequest(http.MethodGet, "/crawls/"+c.ID.String(), nil)
		req.Header.Set("Authorization", h)
		if r := a.send(t, req); r.Status != http.StatusOK || r.Body["id"] != c.ID.String() {
			t.Errorf("Authorization %q: %d %s, want 200 with the crawl", h, r.Status, r.Raw)
		}
	}
	if r := a.do(t, http.MethodGet, "/healthz", "", ""); r.Status != http.StatusOK || r.Body["status"] != "ok" {
		t.Errorf("/healthz: %d %s", r.Status, r.Raw)
	}
}

// TestUnknownRoute is a JSON 404 for an authenticated caller.
func TestUnknownRoute(t *testing.T) {
	a := newTestAPI(t)
	wantError(t, a.do(t, http.MethodGet, "/nothing-here", testKey, ""), http.StatusNotFound, "not_found")
	wantError(t, a.do(t, http.MethodDelete, "/crawls/00000000-0000-4000-8000-000000000001", testKey, ""),
		http.StatusNotFound, "not_found")
}

// TestReadyz: ready when every check passes; 503 naming the one that
// failed otherwise. No key is needed.
func TestReadyz(t *testing.T) {
	a := newTestAPI(t)
	var pgErr error
	a.app = New(Options{Store: a.store, Temporal: a.temporal, Logger: slog.New(slog.DiscardHandler), Ready: map[string]health.Check{
		"postgres": func(context.Context) error { return pgErr },
		"temporal": func(context.Context) error { return nil },
	}})
	r := a.do(t, http.MethodGet, "/readyz", "", "")
	checks, _ := r.Body["checks"].(map[string]any)
	if r.Status != 200 || r.Body["status"] != "ok" || checks["postgres"] != "ok" || checks["temporal"] != "ok" {
		t.Errorf("ready: %d %s", r.Status, r.Raw)
	}
	pgErr = errors.New("dial tcp 127.0.0.1:5432: connection refused")
	r = a.do(t, http.MethodGet, "/readyz", "", "")
	checks, _ = r.Body["checks"].(map[string]any)
	if r.Status != 503 || r.Body["status"] != "unavailable" || checks["postgres"] != pgErr.Error() || checks["temporal"] != "ok" {
		t.Errorf("postgres down: %d %s", r.Status, r.Raw)
	}
	if r := a.do(t, http.MethodGet, "/healthz", "", ""); r.Status != 200 {
		t.Errorf("healthz while postgres is down: %d", r.Status)
	}
}

// TestMetricsAndRequestIDs: /metrics counts requests by route template
// and crawls created; every answer carries a request ID, the caller's when
// it is sane, and the log lines of the request name it.
func TestMetricsAndRequestIDs(t *testing.T) {
	a := newTestAPI(t)
	reg := metrics.NewRegistry()
	var logs bytes.Buffer
	a.app = New(Options{Store: a.store, Temporal: a.temporal, TaskQueue: testQueue, Server: allServer, Resolver: testResolver,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: metrics.NewAPI(reg, nil), MetricsHandler: metrics.Handler(reg)})
	c := a.store.addCrawl(testTeam, crawl.StatusRunning)
	a.do(t, http.MethodGet, "/crawls/"+c.ID.String(), testKey, "")
	a.do(t, http.MethodGet, "/crawls/"+uuid.NewString(), testKey, "")
	a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"https://a.example/"}`)
	a.do(t, http.MethodGet, "/no/such/route", testKey, "")

	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	resp, err := a.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	for _, line := range []string{
		`crawler_http_requests_total{code="2xx",method="GET",route="/crawls/:id"} 1`,
		`crawler_http_requests_total{code="4xx",method="GET",route="/crawls/:id"} 1`,
		`crawler_http_requests_total{code="2xx",method="POST",route="/crawls"} 1`,
		`crawler_http_requests_total{code="4xx",method="GET",route="unmatched"} 1`,
		`crawler_crawls_created_total 1`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("/metrics lacks %s in\n%s", line, text)
		}
	}

	req = httptest.NewRequest(http.MethodGet, "/crawls/"+c.ID.String(), nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("X-Request-ID", "trace-42")
	if r := a.send(t, req); r.Header.Get("X-Request-ID") != "trace-42" {
		t.Errorf("a sane caller's ID is not echoed: %q", r.Header.Get("X-Request-ID"))
	}
	req.Header.Set("X-Request-ID", strings.Repeat("x", 65))
	r := a.send(t, req)
	if id := r.Header.Get("X-Request-ID"); uuid.Validate(id) != nil {
		t.Errorf("an ID over 64 characters was not replaced by a UUID: %q", id)
	}
	if !strings.Contains(logs.String(), `"requestId":"trace-42"`) || !strings.Contains(logs.String(), `"route":"/crawls/:id"`) {
		t.Errorf("the access log does not name the request:\n%s", logs.String())
	}
}
