package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
