package scope

import (
	"fmt"
	"regexp"
	"strings"
)

// Paths decides from a URL's path whether a page is crawled and stored
// (includeOnlyPaths, excludePaths). Patterns are globs on the path: `*`
// matches within one segment, `**` across segments, `?` one character.
// A pattern ending in `/**` also matches the directory itself. Exclusion
// wins over inclusion; with no include pattern every path is included.
type Paths struct {
	include, exclude []*regexp.Regexp
}

// NewPaths compiles the include and exclude globs.
func NewPaths(include, exclude []string) (*Paths, error) {
	p := &Paths{}
	for _, g := range include {
		re, err := Glob(g)
		if err != nil {
			return nil, err
		}
		p.include = append(p.include, re)
	}
	for _, g := range exclude {
		re, err := Glob(g)
		if err != nil {
			return nil, err
		}
		p.exclude = append(p.exclude, re)
	}
	return p, nil
}

// NewPathRegexes compiles include and exclude patterns that are regular
// expressions searched anywhere in the path (Firecrawl's includePaths and
// excludePaths: "blog/.*" matches /en/blog/post).
func NewPathRegexes(include, exclude []string) (*Paths, error) {
	p := &Paths{}
	for _, e := range include {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, err
		}
		p.include = append(p.include, re)
	}
	for _, e := range exclude {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, err
		}
		p.exclude = append(p.exclude, re)
	}
	return p, nil
}

// Allows reports whether a page with this path is crawled and stored.
func (p *Paths) Allows(path string) bool {
	if path == "" {
		path = "/"
	}
	for _, re := range p.exclude {
		if re.MatchString(path) {
			return false
		}
	}
	if len(p.include) == 0 {
		return true
	}
	for _, re := range p.include {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}

// Glob compiles a path glob into a regular expression matching whole
// paths. A pattern without a leading slash is taken from the root.
func Glob(glob string) (*regexp.Regexp, error) {
	g := strings.TrimSpace(glob)
	if g == "" {
		return nil, fmt.Errorf("empty path pattern")
	}
	if !strings.HasPrefix(g, "/") {
		g = "/" + g
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("(/.*)?") // the directory itself, or anything below
			i += 2
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(.*/)?") // zero or more whole segments
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("/?$") // a trailing slash is the same page
	return regexp.Compile(b.String())
}
