package scope

import "testing"

func TestGlob(t *testing.T) {
	cases := []struct {
		glob string
		yes  []string
		no   []string
	}{
		{"/blog/*", []string{"/blog/a", "/blog/a/", "/blog/"}, []string{"/blog/a/b", "/blog", "/blogs/a", "/x/blog/a"}},
		{"/blog/**", []string{"/blog", "/blog/", "/blog/a", "/blog/a/b/c"}, []string{"/blogs", "/x/blog/a"}},
		{"blog/*", []string{"/blog/a"}, []string{"/blog/a/b"}},
		{"/**/*.html", []string{"/a.html", "/a/b/c.html"}, []string{"/a/b/c.htm", "/a.html/x"}},
		{"/docs/v?/intro", []string{"/docs/v1/intro", "/docs/v2/intro/"}, []string{"/docs/v10/intro"}},
		{"/a+b/(x)", []string{"/a+b/(x)"}, []string{"/aab/x"}},
		{"/", []string{"/"}, []string{"/a"}},
	}
	for _, tc := range cases {
		re, err := Glob(tc.glob)
		if err != nil {
			t.Fatalf("Glob(%q): %v", tc.glob, err)
		}
		for _, p := range tc.yes {
			if !re.MatchString(p) {
				t.Errorf("%q does not match %q", tc.glob, p)
			}
		}
		for _, p := range tc.no {
			if re.MatchString(p) {
				t.Errorf("%q matches %q", tc.glob, p)
			}
		}
	}
}

func TestPaths(t *testing.T) {
	p, err := NewPaths([]string{"/docs/**", "/blog/*"}, []string{"/docs/old/**", "/blog/draft-*"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/docs/intro":     true,
		"/docs":           true,
		"/docs/old/x":     false, // exclusion wins
		"/blog/post":      true,
		"/blog/draft-one": false,
		"/about":          false,
		"":                false,
	} {
		if got := p.Allows(path); got != want {
			t.Errorf("Allows(%q) = %v, want %v", path, got, want)
		}
	}
	all, _ := NewPaths(nil, []string{"/private/**"})
	if !all.Allows("/anything") || all.Allows("/private/x") {
		t.Error("exclude-only rules wrong")
	}
}
