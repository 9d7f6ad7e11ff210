package integration

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// spaShell is the one page a docsify site serves for every route (with
// routerMode "history"; with "hash" the routes are fragments, "/#/guide",
// of the one address): its script fetches the route's markdown
// ("/Reference/Server" reads /Reference/Server.md) and the sidebar's, and
// renders them, linking each heading as "<route>?id=<heading>".
const spaShell = `<!doctype html><html><head><meta charset="utf-8"><title>Fastify</title>
<link rel="stylesheet" href="/docsify/themes/core.css"></head><body><div id="app"></div>
<script>window.$docsify = {name: "Fastify", routerMode: "%s", relativePath: true, loadSidebar: true, homepage: "index.md", subMaxLevel: 2};</script>
<script src="/docsify/docsify.min.js"></script></body></html>`

// spaAddress is the address (after the host) of a route of a docsify site
// in routerMode mode.
func spaAddress(mode, route string) string {
	if mode == "hash" && route != "/" {
		return "/#" + route
	}
	return route
}

// spaSite serves Fastify's manual (the markdown its npm package ships)
// through docsify in routerMode mode, as a client-rendered manual: every
// route answers the shell, the markdown files and docsify's own files are
// served as they are, and the sidebar lists every page. It returns the
// server and the manual's routes with their markdown.
func spaSite(t *testing.T, mode string) (*httptest.Server, map[string]string) {
	t.Helper()
	dir := os.Getenv("CRAWLER_SPA_SITE")
	if dir == "" {
		t.Fatal("CRAWLER_SPA_SITE is not set: make test installs the site (ensure_spa_site in scripts/lib.sh)")
	}
	docs := filepath.Join(dir, "node_modules", "fastify", "docs")
	app := filepath.Join(dir, "node_modules", "docsify", "dist")
	routes := map[string]string{}
	var sidebar strings.Builder
	err := filepath.WalkDir(docs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel := "/" + filepath.ToSlash(strings.TrimSuffix(strings.TrimPrefix(p, docs+string(filepath.Separator)), ".md"))
		route := rel
		if rel == "/index" {
			route = "/"
		}
		routes[route] = string(b)
		fmt.Fprintf(&sidebar, "- [%s](%s)\n", strings.TrimPrefix(rel, "/"), route)
		return nil
	})
	if err != nil || len(routes) < 30 {
		t.Fatalf("Fastify's manual: %d pages (%v)", len(routes), err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean(r.URL.Path)
		switch {
		case strings.HasPrefix(p, "/docsify/"):
			http.ServeFile(w, r, filepath.Join(app, filepath.FromSlash(strings.TrimPrefix(p, "/docsify/"))))
		case path.Base(p) == "_sidebar.md":
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			fmt.Fprint(w, sidebar.String())
		case strings.HasSuffix(p, ".md"):
			http.ServeFile(w, r, filepath.Join(docs, filepath.FromSlash(strings.TrimPrefix(p, "/"))))
		case path.Ext(p) != "":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, spaShell, mode)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, routes
}

// TestClientRenderedManual crawls a real client-rendered manual with the
// default options: the start page is an empty shell, so the crawl renders
// its pages in the browser; every route is found through the rendered
// sidebar and stored once with its own words (never the shell), the
// heading addresses (?id=) each page links turn out to be the page again
// and stop after a few, and the crawl ends on its own well within two
// minutes; with routes as paths (routerMode "history") and as fragments
// ("hash": "/#/Reference/Server", which are addresses of their own).
func TestClientRenderedManual(t *testing.T) {
	for _, mode := range []string{"history", "hash"} {
		t.Run(mode, func(t *testing.T) { crawlClientRendered(t, mode) })
	}
}

func crawlClientRendered(t *testing.T, mode string) {
	site, routes := spaSite(t, mode)
	c := crawlSite(t, env.api, site, map[string]any{"maxResults": 500, "maxDepth": 20, "maxConcurrentPages": 8}, "succeeded")
	if n := len(c.pages); n > len(routes)*11/10 {
		t.Errorf("%d results for %d routes", n, len(routes))
	}
	addresses := map[string]bool{}
	for route, md := range routes {
		addresses[spaAddress(mode, route)] = true
		page, ok := c.pages[spaAddress(mode, route)]
		if !ok {
			t.Errorf("%s was not found", route)
			continue
		}
		if page.Engine != "playwright" {
			t.Errorf("%s was fetched by %s, want rendered", route, page.Engine)
		}
		if share, missing := wordsKept(md, page.Markdown); share < 0.9 {
			t.Errorf("%s keeps %.2f of its words; it lacks %q", route, share, missing[:min(len(missing), 30)])
			if d := os.Getenv("CRAWLER_SPA_DUMP"); d != "" {
				_ = os.WriteFile(filepath.Join(d, strings.ReplaceAll(strings.Trim(route, "/"), "/", "_")+".md"), []byte(page.Markdown), 0o644)
			}
		}
	}
	// Nothing but the routes is stored: not a route again under a
	// heading's address, nor the page the manual links to but its package
	// does not ship (the server answers 200, docsify fetches its markdown,
	// gets 404 and draws "404 - Not found"), which fails saying so.
	for p := range c.pages {
		if !addresses[p] {
			t.Errorf("%s stored, which is no route", p)
		}
	}
	if e, ok := c.entry(spaAddress(mode, "/Guides/Contributing")); !ok || e.Message != "Page failed" ||
		!strings.Contains(e.Description, `got "not found" for `+site.URL+"/Guides/Contributing.md") {
		t.Errorf("the missing page's entry: %+v, want it failed for its script's 404", e)
	}
	var stopped bool
	for _, l := range c.logs {
		stopped = stopped || l.Message == "Address pattern skipped" && strings.Contains(l.Description, `the query parameter "id"`)
	}
	if !stopped {
		t.Errorf("the heading addresses were not stopped")
	}
	if c.crawl.DurationInSeconds != nil && *c.crawl.DurationInSeconds > 120 {
		t.Errorf("the crawl took %d s", *c.crawl.DurationInSeconds)
	}
	t.Logf("%d routes, %d results, %d duplicates, %d skipped, in %v s", len(routes), len(c.pages),
		c.crawl.Progress.Duplicates, c.crawl.Progress.Skipped, *c.crawl.DurationInSeconds)
}

var (
	mdWord = regexp.MustCompile(`[A-Za-z]{4,}`)
	// mdHidden is what of a markdown source a reader does not read: HTML
	// comments and tags (their attributes), link targets, bare addresses.
	mdHidden = regexp.MustCompile(`(?s)<!--.*?-->|<[^>]+>|\]\([^)]*\)|\]: \S+|https?://\S+`)
)

// wordsKept is the share of the words a reader reads in a markdown source
// (of four letters or more; not its tags, comments or link targets) that
// a page's stored markdown holds, each counted once, and the words it
// lacks.
func wordsKept(source, stored string) (float64, []string) {
	have := map[string]bool{}
	for _, w := range mdWord.FindAllString(stored, -1) {
		have[strings.ToLower(w)] = true
	}
	want := map[string]bool{}
	for _, w := range mdWord.FindAllString(mdHidden.ReplaceAllString(source, "]"), -1) {
		want[strings.ToLower(w)] = true
	}
	if len(want) == 0 {
		return 1, nil
	}
	var missing []string
	for w := range want {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	sort.Strings(missing)
	return float64(len(want)-len(missing)) / float64(len(want)), missing
}
