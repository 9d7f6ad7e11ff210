package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
)

// TestPaginationRejectsOutOfRange: page and limit out of range, or not
// integers, are a 400 naming each parameter at fault, and nothing is
// listed.
func TestPaginationRejectsOutOfRange(t *testing.T) {
	cases := []struct {
		name, base, query string
		fields            []string // sorted
	}{
		{"logs page 0", "/crawl-logs/", "page=0", []string{"page"}},
		{"logs page negative", "/crawl-logs/", "page=-3", []string{"page"}},
		{"logs page not a number", "/crawl-logs/", "page=two", []string{"page"}},
		{"logs page beyond int", "/crawl-logs/", "page=99999999999999999999999", []string{"page"}},
		{"logs page too large for the limit", "/crawl-logs/", "page=10000001&limit=100", []string{"page"}},
		{"logs limit 0", "/crawl-logs/", "limit=0", []string{"limit"}},
		{"logs limit over 1200", "/crawl-logs/", "limit=1201", []string{"limit"}},
		{"logs limit a fraction", "/crawl-logs/", "limit=1.5", []string{"limit"}},
		{"logs page and limit", "/crawl-logs/", "page=0&limit=5000", []string{"limit", "page"}},
		{"logs level unknown", "/crawl-logs/", "level=warning", []string{"level"}},
		{"logs url too long", "/crawl-logs/", "url=https://example.com/" + strings.Repeat("a", 2048), []string{"url"}},
		{"pages limit over 100", "/crawls/", "limit=101", []string{"limit"}},
		{"pages page 0", "/crawls/", "page=0", []string{"page"}},
		{"pages raw not a boolean", "/crawls/", "raw=maybe", []string{"raw"}},
		{"pages markdown not a boolean", "/crawls/", "markdown=no&raw=1", []string{"markdown"}},
		{"pages search too long", "/crawls/", "q=" + strings.Repeat("é", 201), []string{"q"}},
		{"pages search with NUL", "/crawls/", "q=a%00b", []string{"q"}},
		{"pages search not UTF-8", "/crawls/", "q=%ff%fe", []string{"q"}},
		{"logs url with NUL", "/crawl-logs/", "url=https://example.com/%00", []string{"url"}},
		{"pages markdown and search", "/crawls/", "markdown=maybe&q=" + strings.Repeat("a", 201), []string{"markdown", "q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t)
			c := a.store.addCrawl(testTeam, crawl.StatusSucceeded)
			path := tc.base + c.ID.String()
			if tc.base == "/crawls/" {
				path += "/pages"
			}
			wantError(t, a.do(t, http.MethodGet, path+"?"+tc.query, testKey, ""), http.StatusBadRequest, crawl.EINVALID, tc.fields...)
			if len(a.store.listed) != 0 {
				t.Errorf("listed %+v on a bad request", a.store.listed)
			}
		})
	}
}

// TestPagination passes page and limit (defaults 1 and 100) to the store
// and answers them with the total.
func TestPagination(t *testing.T) {
	cases := []struct {
		name, path                   string
		want                         listCall
		wantTotalPages, wantTotalRes float64
		// wantNext is the URL of the next page, "" for none.
		wantNext string
	}{
		{"logs defaults", "/crawl-logs/{id}", listCall{What: "logs", Page: 1, Limit: 100}, 3, 250,
			"http://example.com/crawl-logs/{id}?limit=100&page=2"},
		{"logs page and limit", "/crawl-logs/{id}?page=2&limit=1200", listCall{What: "logs", Page: 2, Limit: 1200}, 1, 250, ""},
		{"logs limit 1", "/crawl-logs/{id}?limit=1&page=250", listCall{What: "logs", Page: 250, Limit: 1}, 250, 250, ""},
		{"logs before the last", "/crawl-logs/{id}?limit=1&page=249", listCall{What: "logs", Page: 249, Limit: 1}, 250, 250,
			"http://example.com/crawl-logs/{id}?limit=1&page=250"},
		{"logs of a level and a page", "/crawl-logs/{id}?level=error&url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&limit=10",
			listCall{What: "logs", Page: 1, Limit: 10, Level: "error", URL: "https://example.com/a?b=1"}, 25, 250,
			"http://example.com/crawl-logs/{id}?level=error&limit=10&page=2&url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1"},
		{"pages defaults", "/crawls/{id}/pages", listCall{What: "results", Page: 1, Limit: 100}, 3, 250,
			"http://example.com/crawls/{id}/pages?limit=100&page=2"},
		{"pages raw", "/crawls/{id}/pages?raw=true&limit=7&page=3", listCall{What: "results", Page: 3, Limit: 7, Raw: true}, 36, 250,
			"http://example.com/crawls/{id}/pages?limit=7&page=4&raw=true"},
		{"pages searched without markdown", "/crawls/{id}/pages?q=%20Guide%25%20&markdown=false&limit=100",
			listCall{What: "results", Page: 1, Limit: 100, Search: "Guide%", NoMarkdown: true}, 3, 250,
			"http://example.com/crawls/{id}/pages?limit=100&markdown=false&page=2&q=+Guide%25+"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t)
			a.store.listTotal = 250
			c := a.store.addCrawl(testTeam, crawl.StatusSucceeded)
			r := a.do(t, http.MethodGet, replaceID(tc.path, c.ID), testKey, "")
			if r.Status != http.StatusOK {
				t.Fatalf("status %d; body %s", r.Status, r.Raw)
			}
			want := tc.want
			want.Crawl = c.ID
			if len(a.store.listed) != 1 || a.store.listed[0] != want {
				t.Errorf("listed %+v, want %+v", a.store.listed, want)
			}
			for k, v := range map[string]any{"page": float64(want.Page), "limit": float64(want.Limit),
				"totalPages": tc.wantTotalPages, "totalResults": tc.wantTotalRes} {
				if r.Body[k] != v {
					t.Errorf("%s = %v, want %v", k, r.Body[k], v)
				}
			}
			var wantNext any
			if tc.wantNext != "" {
				wantNext = replaceID(tc.wantNext, c.ID)
			}
			if next, ok := r.Body["next"]; !ok || next != wantNext {
				t.Errorf("next = %v (present %v), want %v", next, ok, wantNext)
			}
			if res, ok := r.Body["results"].([]any); !ok || len(res) != 0 {
				t.Errorf("results = %v, want []", r.Body["results"])
			}
		})
	}
}

// TestPaginationOfAnotherTeamsCrawl is a 404, listing nothing.
func TestPaginationOfAnotherTeamsCrawl(t *testing.T) {
	a := newTestAPI(t)
	c := a.store.addCrawl(otherTeam, crawl.StatusSucceeded)
	for _, path := range []string{"/crawl-logs/{id}", "/crawls/{id}/pages", "/crawl-logs/not-an-id"} {
		wantError(t, a.do(t, http.MethodGet, replaceID(path, c.ID), testKey, ""), http.StatusNotFound, crawl.ENOTFOUND)
	}
	if len(a.store.listed) != 0 {
		t.Errorf("listed %+v of another team's crawl", a.store.listed)
	}
}

func replaceID(path string, id uuid.UUID) string {
	return strings.Replace(path, "{id}", id.String(), 1)
}
