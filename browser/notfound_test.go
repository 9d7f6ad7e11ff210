package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNotFound(t *testing.T) {
	const page, gone, optional = "https://x.test/docs/gone", "https://x.test/docs/gone.md", "https://x.test/config.json"
	missing := []string{optional, gone}
	for _, c := range []struct {
		missing        []string
		heading, title string
		want           string
	}{
		{missing, "404 - Not found", "Docs", gone},
		{missing, "", "Page not found · Docs", gone},
		{missing, "Oops! Page not found.", "Docs", gone},
		{missing, "This page does not exist", "Docs", gone},
		{missing, "No such page", "Docs", gone},
		{missing, "Error 404", "Docs", gone},
		{[]string{optional}, "Not Found", "", optional},
		{missing, "Getting started", "Docs", ""},     // an optional fetch that failed
		{missing, "Handling 404 errors", "Docs", ""}, // a page about 404s
		{missing, "When a file is not found in the cache", "Docs", ""},
		{missing, "This page does not support old browsers", "Docs", ""},
		{nil, "404 - Not found", "Docs", ""},           // no script was answered 404
		{missing, "Error 4040 in the log", "Docs", ""}, // not the number alone
	} {
		if got := notFound(page, c.missing, c.heading, c.title); got != c.want {
			t.Errorf("notFound(%q, %q, %q) = %q, want %q", c.missing, c.heading, c.title, got, c.want)
		}
	}
}

// TestRenderTellsANotFoundPage: on a site whose server answers every
// address with one shell, a page whose script gets 404 for its content
// and draws "not found" is told apart from a page whose script misses
// something optional and from a page about 404 errors.
func TestRenderTellsANotFoundPage(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/content/guide":
			fmt.Fprint(w, "<h1>Guide</h1><p>How to start.</p>")
		case "/content/errors":
			fmt.Fprint(w, "<h1>Handling 404 errors</h1><p>What the server answers.</p>")
		case "/content/missing", "/extra.json":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>Docs</title></head><body><main><aside><h1>Docs</h1></aside><article id="app"></article></main><script>
fetch('/extra.json').catch(() => {});
fetch('/content' + location.pathname).then(r => r.ok ? r.text() : '<h1>404 - Not found</h1>')
  .then(html => { document.getElementById('app').innerHTML = html; });
</script></body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	s := newSession(t, b)
	for path, want := range map[string]string{"/missing": srv.URL + "/content/missing", "/guide": "", "/errors": ""} {
		p, err := s.Render(context.Background(), srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		if p.StatusCode != 200 || !strings.Contains(p.HTML, "<h1>") {
			t.Fatalf("%s: status %d, not drawn:\n%s", path, p.StatusCode, p.HTML)
		}
		if p.NotFound != want {
			t.Errorf("%s: NotFound %q, want %q", path, p.NotFound, want)
		}
	}
}

func TestSameDocument(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"https://x.test/#/a", "https://x.test/#/b", true},
		{"https://x.test/", "https://x.test/#/b", true},
		{"https://x.test/#/a", "https://x.test/#/a", true},
		{"https://x.test/a", "https://x.test/a", false}, // a reload
		{"https://x.test/a#/x", "https://x.test/b#/x", false},
		{"about:blank", "https://x.test/#/b", false},
	} {
		if got := sameDocument(c.a, c.b); got != c.want {
			t.Errorf("sameDocument(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
