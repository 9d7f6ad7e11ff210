package browser

import (
	"strings"
	"testing"
)

func TestNeedsJavaScript(t *testing.T) {
	article := "<p>" + strings.Repeat("A sentence of a real article. ", 40) + "</p>"
	cases := []struct {
		name string
		html string
		want bool
	}{
		{"react root", `<html><body><div id="root"></div><script src="/static/js/main.js"></script></body></html>`, true},
		{"next root", `<html><body><div id="__next"><div>Loading…</div></div><script src="/_next/app.js"></script></body></html>`, true},
		{"angular", `<html><body><app-root></app-root><script src="main.js"></script></body></html>`, true},
		{"noscript", `<html><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="x"></div></body></html>`, true},
		{"script heavy", `<html><body><p>Hi</p><script>` + strings.Repeat("var x = 1;", 500) + `</script></body></html>`, true},
		{"article", `<html><body><main>` + article + `</main><script src="/analytics.js"></script></body></html>`, false},
		{"short static page", `<html><body><main><p>About us: a small team.</p></main></body></html>`, false},
		{"short page with analytics", `<html><body><main><p>` + strings.Repeat("Opening hours and address. ", 10) + `</p></main><script src="/ga.js"></script></body></html>`, false},
		{"article in an app root", `<html><body><div id="root">` + article + `</div><script src="/hydrate.js"></script></body></html>`, false},
		// An API reference page: little text, but all of it in the HTML;
		// its scripts add search and settings.
		{"short page with many scripts", `<html><body><nav><a href="../index.html">std</a></nav><main><h1>Module std::char</h1>` +
			`<p>Utilities for the char primitive type.</p><noscript><section>You need to enable JavaScript to use search.</section></noscript></main>` +
			strings.Repeat(`<script src="/static/search.js"></script>`, 5) + `<script>` + strings.Repeat("var settings = {};", 300) + `</script></body></html>`, false},
		{"long page with an empty widget root", `<html><body><main>` + article + `</main><div id="app"></div><script src="/comments.js"></script></body></html>`, false},
	}
	for _, tc := range cases {
		sign, got := NeedsJavaScript([]byte(tc.html))
		if got != tc.want {
			t.Errorf("%s: NeedsJavaScript = %v (%+v), want %v", tc.name, got, sign, tc.want)
		}
		if got && sign.Kind == "" {
			t.Errorf("%s: no sign given", tc.name)
		}
	}
}
