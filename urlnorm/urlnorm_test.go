package urlnorm

import (
	"net/url"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		in, fetch, key string
	}{
		{"HTTP://Example.COM", "http://example.com/", "//example.com/"},
		{"https://example.com:443/a", "https://example.com/a", "//example.com/a"},
		{"http://example.com:80/a", "http://example.com/a", "//example.com/a"},
		{"http://example.com:8080/a", "http://example.com:8080/a", "//example.com:8080/a"},
		{"https://example.com/a/#section", "https://example.com/a/", "//example.com/a"},
		{"https://example.com/a/b/../c/./d", "https://example.com/a/c/d", "//example.com/a/c/d"},
		{"https://example.com/docs/", "https://example.com/docs/", "//example.com/docs"},
		{"https://example.com/?utm_source=x&b=2&a=1&utm_medium=y", "https://example.com/?a=1&b=2", "//example.com/?a=1&b=2"},
		{"https://example.com/?gclid=1&fbclid=2", "https://example.com/", "//example.com/"},
		{"https://example.com/%7Euser", "https://example.com/~user", "//example.com/~user"},
		{"https://user:pw@example.com/", "https://example.com/", "//example.com/"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/", "//xn--bcher-kva.example/"},
		{"https://[::1]:443/", "https://[::1]/", "//[::1]/"},
	}
	for _, tc := range cases {
		fetch, key, err := Normalize(tc.in)
		if err != nil {
			t.Errorf("Normalize(%q): %v", tc.in, err)
			continue
		}
		if fetch != tc.fetch || key != tc.key {
			t.Errorf("Normalize(%q) = %q, %q; want %q, %q", tc.in, fetch, key, tc.fetch, tc.key)
		}
	}
}

func TestNormalizeRejects(t *testing.T) {
	for _, in := range []string{"mailto:a@example.com", "javascript:void(0)", "ftp://example.com/", "/relative", "http://"} {
		if _, _, err := Normalize(in); err == nil {
			t.Errorf("Normalize(%q) succeeded, want an error", in)
		}
	}
}

func TestCleanResolvesRelative(t *testing.T) {
	base, _ := url.Parse("https://example.com/docs/intro.html")
	cases := map[string]string{
		"next.html":           "https://example.com/docs/next.html",
		"../about":            "https://example.com/about",
		"/":                   "https://example.com/",
		"//other.example/x":   "https://other.example/x",
		"?page=2#top":         "https://example.com/docs/intro.html?page=2",
		"https://EXAMPLE.com": "https://example.com/",
	}
	for ref, want := range cases {
		u, err := Clean(base, ref)
		if err != nil {
			t.Errorf("Clean(%q): %v", ref, err)
			continue
		}
		if u.String() != want {
			t.Errorf("Clean(%q) = %q, want %q", ref, u, want)
		}
	}
}

func TestKeyFoldsVariants(t *testing.T) {
	variants := []string{
		"https://example.com/docs",
		"http://www.example.com/docs",
		"https://example.com/docs/",
		"https://EXAMPLE.com:443/docs#x",
		"https://example.com/docs/?utm_campaign=z",
	}
	var first string
	for i, v := range variants {
		_, key, err := Normalize(v)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = key
		} else if key != first {
			t.Errorf("key of %q = %q, want %q", v, key, first)
		}
	}
}

// TestCleanRoute: a rendered page's links keep a route fragment, which
// names a page on a site that routes by it, and lose an anchor; Clean
// loses both.
func TestCleanRoute(t *testing.T) {
	base, _ := url.Parse("https://example.com/docs/#/guide")
	for _, c := range []struct{ ref, route, routeKey, plain string }{
		{"#/api/server", "https://example.com/docs/#/api/server", "//example.com/docs#/api/server", "https://example.com/docs/"},
		{"#/api/server?id=routes", "https://example.com/docs/#/api/server?id=routes", "//example.com/docs#/api/server?id=routes", "https://example.com/docs/"},
		{"#!/api/server/", "https://example.com/docs/#!/api/server", "//example.com/docs#!/api/server", "https://example.com/docs/"},
		{"#/", "https://example.com/docs/", "//example.com/docs", "https://example.com/docs/"},
		{"#install", "https://example.com/docs/", "//example.com/docs", "https://example.com/docs/"},
		{"/blog/?utm_source=x#/post", "https://example.com/blog/#/post", "//example.com/blog#/post", "https://example.com/blog/"},
	} {
		u, err := CleanRoute(base, c.ref)
		if err != nil || u.String() != c.route || Key(u) != c.routeKey {
			t.Errorf("CleanRoute(%q) = %v, %q (%v); want %q, %q", c.ref, u, Key(u), err, c.route, c.routeKey)
		}
		if u, err := Clean(base, c.ref); err != nil || u.String() != c.plain {
			t.Errorf("Clean(%q) = %v (%v); want %q", c.ref, u, err, c.plain)
		}
	}
}
