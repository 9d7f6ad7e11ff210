package urlpattern

import (
	"regexp"
	"testing"
)

// TestOf: the pattern that tells a duplicate's address from its
// original's is one query parameter or one path segment added; addresses
// that differ otherwise have none.
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		dup, orig string
		want      Pattern
	}{
		{"https://docs.example.com/guide?id=install", "https://docs.example.com/guide", "query:id"},
		{"https://docs.example.com/guide?id=usage", "https://docs.example.com/guide?id=install", "query:id"},
		{"https://shop.example.com/list?page=2&sort=price", "https://shop.example.com/list?page=2", "query:sort"},
		{"https://example.com/news/story/print", "https://example.com/news/story", "suffix:/print"},
		{"https://example.com/news/story/amp", "https://example.com/news/story/", "suffix:/amp"},
		{"https://example.com/a?x=1&y=2", "https://example.com/a", ""}, // two parameters
		{"https://example.com/b", "https://example.com/a", ""},         // another page
		{"https://example.com/a/b/c", "https://example.com/a", ""},     // two segments
		{"https://example.com/a/install", "https://example.com/a", ""}, // a page of its own
		{"https://example.com/local", "https://example.com/", ""},      // a catch-all server's
		{"https://example.com/docs/index.html", "https://example.com/docs/", "suffix:/index.html"},
		{"https://example.com/index.html", "https://example.com/", "suffix:/index.html"},
		{"https://other.example.com/a?id=1", "https://example.com/a", ""},
		{"https://example.com/a/print?x=1", "https://example.com/a", ""},
		// A site routing by the fragment: the route is the path.
		{"https://example.com/#/guide?id=install", "https://example.com/#/guide", "query:id"},
		{"https://example.com/#/guide/print", "https://example.com/#/guide", "suffix:/print"},
		{"https://example.com/#/b", "https://example.com/#/a", ""},
		{"https://example.com/#/a", "https://example.com/", ""},
		{"https://example.com/#/?id=start", "https://example.com/", "query:id"},
	} {
		got, ok := Of(tc.dup, tc.orig)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Of(%s, %s) = %q %v, want %q", tc.dup, tc.orig, got, ok, tc.want)
		}
	}
}

// TestMatches: a pattern matches the addresses that have it, in Go and as
// the regular expression the database applies, alike.
func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		p    Pattern
		url  string
		want bool
	}{
		{"query:id", "https://docs.example.com/guide?id=install", true},
		{"query:id", "https://docs.example.com/guide?lang=en&id=", true},
		{"query:id", "https://docs.example.com/guide?id", true},
		{"query:id", "https://docs.example.com/guide?pid=3", false},
		{"query:id", "https://docs.example.com/id", false},
		{"query:id", "https://docs.example.com/guide#id=3", false},
		{"suffix:/print", "https://example.com/news/story/print", true},
		{"suffix:/print", "https://example.com/news/story/print?x=1", true},
		{"suffix:/print", "https://example.com/news/story/printing", false},
		{"suffix:/print", "https://example.com/a?next=/print", false},
		{"query:id", "https://docs.example.com/#/guide?id=install", true},
		{"query:id", "https://docs.example.com/#/guide?pid=install", false},
		{"suffix:/print", "https://example.com/#/news/print", true},
		{"suffix:/print", "https://example.com/#!/news/print?x=1", true},
		{"suffix:/print", "https://example.com/#/news/printing", false},
	} {
		if got := tc.p.MatchesURL(tc.url); got != tc.want {
			t.Errorf("%s matches %s: %v, want %v", tc.p, tc.url, got, tc.want)
		}
		if got := regexp.MustCompile(tc.p.Regexp()).MatchString(tc.url); got != tc.want {
			t.Errorf("%s's regexp %q matches %s: %v, want %v", tc.p, tc.p.Regexp(), tc.url, got, tc.want)
		}
	}
	if got := Pattern("query:id").String(); got != `the query parameter "id"` {
		t.Errorf("words %q", got)
	}
}

// TestSamePage: addresses of one page share their path (whatever their
// queries) or differ by a view segment; other addresses on one host are
// other pages, even when a server answers the same for all.
func TestSamePage(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://example.com/guide?id=a", "https://example.com/guide?id=b", true},
		{"https://example.com/guide?x=1&y=2", "https://example.com/guide", true},
		{"https://example.com/guide/", "https://example.com/guide", true},
		{"https://example.com/news/print", "https://example.com/news", true},
		{"https://example.com/news", "https://example.com/news/print", true},
		{"https://example.com/", "https://example.com/local", false},
		{"https://example.com/a", "https://example.com/b", false},
		{"https://example.com/a", "https://other.example.com/a", false},
		{"https://example.com/#/guide?id=a", "https://example.com/#/guide", true},
		{"https://example.com/#/guide", "https://example.com/#/api", false},
		{"https://example.com/#/guide", "https://example.com/", false},
		{"https://example.com/#/?id=start", "https://example.com/", true},
	} {
		if got := SamePage(tc.a, tc.b); got != tc.want {
			t.Errorf("SamePage(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestCleaner: of two addresses of one page, the one with fewer query
// parameters is the cleaner, then the one without the view segment.
func TestCleaner(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://example.com/guide", "https://example.com/guide?id=usage", true},
		{"https://example.com/guide?id=usage", "https://example.com/guide", false},
		{"https://example.com/news", "https://example.com/news/print", true},
		{"https://example.com/news/print", "https://example.com/news", false},
		{"https://example.com/guide?id=a", "https://example.com/guide?id=b", false},
		{"https://example.com/#/guide", "https://example.com/#/guide?id=usage", true},
		{"https://example.com/#/guide?id=usage", "https://example.com/#/guide", false},
	} {
		if got := Cleaner(tc.a, tc.b); got != tc.want {
			t.Errorf("Cleaner(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
