package frontier

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// rulesFor returns the rules of a crawl of start with its options changed
// by edit.
func rulesFor(t *testing.T, start string, edit func(*crawl.Options)) Rules {
	t.Helper()
	o := crawl.Options{StartURLs: []string{start}, MaxDepth: 2}
	if edit != nil {
		edit(&o)
	}
	r, err := RulesOf(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRulesFollowAndKeep(t *testing.T) {
	docs := rulesFor(t, "https://example.com/docs/intro", func(o *crawl.Options) { o.ExcludePaths = []string{"/docs/private/**"} })
	site := rulesFor(t, "https://example.com/docs/intro", func(o *crawl.Options) { o.EntireWebsite = true })
	only := rulesFor(t, "https://example.com/", func(o *crawl.Options) { o.IncludeOnlyPaths = []string{"/blog/**"} })
	for _, tc := range []struct {
		name          string
		rules         Rules
		url           string
		follows, keep bool
	}{
		{"under the start directory", docs, "https://example.com/docs/setup", true, true},
		{"www. is the same site", docs, "https://www.example.com/docs/setup", true, true},
		{"outside the start directory", docs, "https://example.com/blog/post", false, true},
		{"excluded path", docs, "https://example.com/docs/private/key", false, false},
		{"another site", docs, "https://other.example/docs/setup", false, true},
		{"entireWebsite follows the whole host", site, "https://example.com/blog/post", true, true},
		{"includeOnlyPaths match", only, "https://example.com/blog/post", true, true},
		{"includeOnlyPaths miss: fetched as a start page, not kept", only, "https://example.com/", false, false},
	} {
		u := mustURL(t, tc.url)
		if got := tc.rules.Follows(u); got != tc.follows {
			t.Errorf("%s: Follows(%s) = %v, want %v", tc.name, tc.url, got, tc.follows)
		}
		if got := tc.rules.Keeps(u); got != tc.keep {
			t.Errorf("%s: Keeps(%s) = %v, want %v", tc.name, tc.url, got, tc.keep)
		}
	}
}

func TestFollowsLinksOf(t *testing.T) {
	bounded := rulesFor(t, "https://example.com/", nil) // maxDepth 2
	unbounded := rulesFor(t, "https://example.com/", func(o *crawl.Options) { o.UseSitemap = true })
	for depth, want := range []bool{true, true, false} {
		if got := bounded.FollowsLinksOf(depth); got != want {
			t.Errorf("maxDepth 2: links of a page at depth %d followed = %v, want %v", depth, got, want)
		}
	}
	if !unbounded.FollowsLinksOf(1000) {
		t.Error("a crawl without depth limit stopped following links at depth 1000")
	}
}

func TestChildRank(t *testing.T) {
	for _, tc := range []struct {
		parent string
		i      int
		want   string
	}{
		{"", 0, "000"},
		{"", 37, "011"},
		{"000", 35, "00000z"},
		{"", 36 * 36 * 36, "zzz"}, // past the last rank: shares it
		{strings.Repeat("0", maxRankLength), 5, strings.Repeat("0", maxRankLength)},
	} {
		if got := ChildRank(tc.parent, tc.i); got != tc.want {
			t.Errorf("ChildRank(%q, %d) = %q, want %q", tc.parent, tc.i, got, tc.want)
		}
	}
	// Ranks sort as a breadth-first crawl visits: all children of the
	// first page before those of the second.
	if !(ChildRank(ChildRank("", 0), 999) < ChildRank(ChildRank("", 1), 0)) {
		t.Error("the last child of the first page ranks after the first child of the second")
	}
}

func TestSeeds(t *testing.T) {
	got := Seeds([]string{"https://Example.com/a#top", "ftp://example.com/b", "https://example.com/c"})
	want := []Link{
		{URL: "https://example.com/a", Key: "example.com/a", Depth: 0, Rank: "000"},
		{URL: "https://example.com/c", Key: "example.com/c", Depth: 0, Rank: "001"},
	}
	if len(got) != 2 || got[0].URL != want[0].URL || got[1].URL != want[1].URL || got[0].Rank != "000" || got[1].Rank != "001" {
		t.Errorf("Seeds = %+v, want %+v", got, want)
	}
}

func TestLinks(t *testing.T) {
	r := rulesFor(t, "https://example.com/docs/", nil)
	page := mustURL(t, "https://example.com/docs/a")
	hrefs := []string{
		"b",                                  // relative: followed
		"/docs/b#section",                    // the same page again
		"https://example.com/blog/",          // out of scope
		"https://elsewhere.example/docs/",    // another site
		"/docs/" + strings.Repeat("x", 3000), // too long
		"mailto:someone@example.com",
		"/docs/c?utm_source=feed",
	}
	got := r.Links(page, hrefs, 2, "001")
	want := []Link{
		{URL: "https://example.com/docs/b", Depth: 2, Rank: "001000"},
		{URL: "https://example.com/docs/c", Depth: 2, Rank: "001001"},
	}
	if len(got) != len(want) {
		t.Fatalf("Links = %+v, want %d links", got, len(want))
	}
	for i := range want {
		if got[i].URL != want[i].URL || got[i].Depth != want[i].Depth || got[i].Rank != want[i].Rank || got[i].Key == "" {
			t.Errorf("link %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCanonicalAndListed(t *testing.T) {
	r := rulesFor(t, "https://example.com/", nil)
	page := mustURL(t, "https://example.com/a")
	for _, tc := range []struct {
		href string
		want string // "" for none
	}{
		{"", ""},
		{"/a?utm_source=feed#top", ""}, // the page itself
		{"https://example.com/b", "https://example.com/b"},
		{"https://other.example/b", ""},
	} {
		u, ok := r.Canonical(page, tc.href)
		if got := ""; ok {
			got = u.String()
			if got != tc.want {
				t.Errorf("Canonical(%q) = %s, want %q", tc.href, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("Canonical(%q) = none, want %s", tc.href, tc.want)
		}
	}
	if l, ok := r.Listed("https://example.com/x", 2); !ok || l.Depth != 1 || l.Rank != "000002" {
		t.Errorf("Listed = %+v %v, want depth 1 rank 000002", l, ok)
	}
	if _, ok := r.Listed("https://other.example/x", 0); ok {
		t.Error("a sitemap page on another site was taken")
	}
}

func TestOriginsAndApplyRobots(t *testing.T) {
	urls := []string{"https://a.example/x", "https://a.example/private/y", "http://b.example/z", "https://a.example/w"}
	if got := Origins(urls); !reflect.DeepEqual(got, []string{"https://a.example", "http://b.example"}) {
		t.Errorf("Origins = %v", got)
	}
	policies := map[string]robotsPolicy{
		"https://a.example": parseRobots("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"),
		"http://b.example":  parseRobots("User-agent: *\nCrawl-delay: 1\n"),
	}
	allowed, disallowed, delay := ApplyRobots(urls, policies)
	if !reflect.DeepEqual(allowed, []string{"https://a.example/x", "http://b.example/z", "https://a.example/w"}) ||
		!reflect.DeepEqual(disallowed, []string{"https://a.example/private/y"}) || delay.Seconds() != 2 {
		t.Errorf("ApplyRobots = %v / %v / %v", allowed, disallowed, delay)
	}
}

// TestKeyIgnoringQueries: a crawl that ignores query parameters keys a URL
// without its query; others keep it.
func TestKeyIgnoringQueries(t *testing.T) {
	o := crawl.Options{StartURLs: []string{"https://example.com/"}, MaxDepth: 3}
	plain, err := RulesOf(o)
	if err != nil {
		t.Fatal(err)
	}
	o.IgnoreQuery = true
	ignoring, err := RulesOf(o)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := url.Parse("https://example.com/p?a=1")
	b, _ := url.Parse("https://example.com/p")
	if plain.Key(a) == plain.Key(b) || ignoring.Key(a) != ignoring.Key(b) {
		t.Errorf("keys %q %q, ignoring %q %q", plain.Key(a), plain.Key(b), ignoring.Key(a), ignoring.Key(b))
	}
	page, _ := url.Parse("https://example.com/")
	if seeds := SeedsOf(o); len(seeds) != 1 || seeds[0].Key != ignoring.Key(page) {
		t.Errorf("seeds %+v: want the start page keyed as links to it are", seeds)
	}
	o.StartURLs = []string{"https://example.com/search?q=a"}
	start, _ := url.Parse(o.StartURLs[0])
	if seeds := SeedsOf(o); seeds[0].Key != ignoring.Key(start) {
		t.Errorf("a start URL with a query: seed key %q, rules key %q", seeds[0].Key, ignoring.Key(start))
	}
	links := ignoring.Links(page, []string{"/p?a=1", "/p?a=2", "/p"}, 1, "000")
	if len(links) != 1 || links[0].URL != "https://example.com/p?a=1" {
		t.Errorf("links %+v, want the first of the three", links)
	}
}

// TestRegexOnFullURL: a Firecrawl crawl's path rules match the whole URL
// when it asks for it, the path otherwise.
func TestRegexOnFullURL(t *testing.T) {
	o := crawl.Options{Shape: crawl.ShapeFirecrawl, StartURLs: []string{"https://example.com/"}, MaxDepth: 3,
		IncludeOnlyPaths: []string{`\?lang=en$`}}
	pathOnly, err := RulesOf(o)
	if err != nil {
		t.Fatal(err)
	}
	o.RegexOnFullURL = true
	full, err := RulesOf(o)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/guide?lang=en")
	if pathOnly.Follows(u) || !full.Follows(u) {
		t.Errorf("path only %v, full URL %v", pathOnly.Follows(u), full.Follows(u))
	}
}
