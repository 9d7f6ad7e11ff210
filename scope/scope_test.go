package scope

import (
	"net/url"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAllows(t *testing.T) {
	cases := []struct {
		start  string
		entire bool
		link   string
		want   bool
	}{
		{"https://example.com/", false, "https://example.com/anything/deep", true},
		{"https://example.com/docs/intro", false, "https://example.com/docs/other", true},
		{"https://example.com/docs/intro", false, "https://example.com/docs/a/b/c", true},
		{"https://example.com/docs/intro", false, "https://example.com/docs", true},
		{"https://example.com/docs/intro", false, "https://example.com/blog/post", false},
		{"https://example.com/docs/intro", false, "https://example.com/", false},
		{"https://example.com/docs/intro", true, "https://example.com/blog/post", true},
		{"https://example.com/docs/", false, "https://example.com/docsearch", false},
		{"https://example.com/", false, "https://www.example.com/x", true},
		{"https://www.example.com/", false, "https://example.com/x", true},
		{"https://example.com/", false, "http://example.com/x", true},
		{"https://example.com/", true, "https://other.example/", false},
		{"https://example.com/", true, "https://sub.example.com/", false},
		{"http://127.0.0.1:8080/", false, "http://127.0.0.1:9090/", false},
		{"https://example.com/", false, "mailto:x@example.com", false},
	}
	for _, tc := range cases {
		s := New([]*url.URL{mustURL(t, tc.start)}, tc.entire)
		if got := s.Allows(mustURL(t, tc.link)); got != tc.want {
			t.Errorf("scope(%s, entire=%v).Allows(%s) = %v, want %v", tc.start, tc.entire, tc.link, got, tc.want)
		}
	}
}

func TestSeveralStartURLs(t *testing.T) {
	s := New([]*url.URL{mustURL(t, "https://a.example/docs/"), mustURL(t, "https://b.example/blog/x")}, false)
	for link, want := range map[string]bool{
		"https://a.example/docs/1": true,
		"https://b.example/blog/2": true,
		"https://a.example/blog/2": false,
		"https://c.example/docs/1": false,
	} {
		if got := s.Allows(mustURL(t, link)); got != want {
			t.Errorf("Allows(%s) = %v, want %v", link, got, want)
		}
	}
	if !s.SameSite(mustURL(t, "https://b.example/elsewhere")) || s.SameSite(mustURL(t, "https://c.example/")) {
		t.Error("SameSite does not match the start hosts")
	}
}

func TestDir(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/": "/", "/a": "/", "/a/": "/a/", "/a/b.html": "/a/"} {
		if got := Dir(in); got != want {
			t.Errorf("Dir(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWiden: subdomains of a start host are in scope on any path, other
// hosts only when external links are followed; the start host keeps its
// directory either way.
func TestWiden(t *testing.T) {
	start, _ := url.Parse("https://example.com:8443/docs/intro")
	base := New([]*url.URL{start}, false)
	cases := []struct {
		url                         string
		plain, subdomains, external bool
	}{
		{"https://example.com:8443/docs/a", true, true, true},
		{"https://example.com:8443/blog/a", false, false, false},
		{"https://api.example.com:8443/any/path", false, true, true},
		{"https://api.example.com/any/path", false, false, true},
		{"https://notexample.com:8443/docs/a", false, false, true},
		{"https://other.org/x", false, false, true},
	}
	for _, c := range cases {
		u, _ := url.Parse(c.url)
		if got := base.Allows(u); got != c.plain {
			t.Errorf("plain %s: %v", c.url, got)
		}
		if got := base.Widen(true, false).Allows(u); got != c.subdomains {
			t.Errorf("subdomains %s: %v", c.url, got)
		}
		if got := base.Widen(false, true).Allows(u); got != c.external {
			t.Errorf("external %s: %v", c.url, got)
		}
	}
	sub, _ := url.Parse("https://api.example.com:8443/")
	if base.SameSite(sub) || !base.Widen(true, false).SameSite(sub) || base.Widen(false, true).SameSite(sub) || !base.Widen(false, true).Reaches(sub) {
		t.Error("SameSite and Reaches of a subdomain")
	}
}
