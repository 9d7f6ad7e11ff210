package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/durablecrawl/crawler/internal/fakellm"
	"github.com/durablecrawl/crawler/internal/testsite"
)

// recrawlPages is the size of the recrawled site; recrawlEdits,
// recrawlAdds and recrawlRemovals what changes between the crawls (5 % of
// it, with the pages around the added ones that gain a link).
const (
	recrawlPages    = 2000
	recrawlEdits    = 60
	recrawlAdds     = 20
	recrawlRemovals = 20
)

// recrawlDrill crawls a generated site with change tracking, main content
// only and an extraction (a fake LLM on loopback, which counts its calls),
// changes 5 % of it (pages edited, added and removed), and crawls it
// again: on a site whose server honours conditional requests, and on one
// that does not and stamps every response (only hashes of the markdown
// can tell the pages are the same). For each it prints the bytes the
// site sent, the time, the LLM calls and the CPU of both crawls, and
// checks that the recrawl found every change, and only those.
func recrawlDrill(w io.Writer, f flags, tmp string) error {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	llm := fakellm.New(benchLLM)
	defer llm.Close()
	svc, err := startService(context.Background(), f, tmp, strings.Replace(f.database, "crawler_bench", "crawler_recrawl", 1),
		"CRAWLER_LLM_PROVIDER=openai", "CRAWLER_LLM_MODEL=bench", "CRAWLER_LLM_API_KEY=bench", "CRAWLER_LLM_BASE_URL="+llm.BaseURL(),
		"CRAWLER_LLM_RATE=1000", "CRAWLER_LLM_CONCURRENCY=16", "CRAWLER_LLM_CONTEXT_TOKENS=32768",
		"CRAWLER_MAX_PAGES_PER_CRAWL=10000")
	if err != nil {
		return err
	}
	defer svc.stop()
	svc.f.pages = recrawlPages // what each crawl must store
	fmt.Fprintf(w, "\n### Recrawl with change tracking: a %d-page site, 5 %% of it changed (main content only, with an extraction, concurrency 16)\n\n", recrawlPages)
	fmt.Fprintf(w, "| server | crawl | wall (s) | pages/s | bytes sent by the site | LLM calls | CPU ms/page | new / changed / same / removed | every change found |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, kind := range []struct {
		name string
		opts testsite.Options
	}{
		{"honours ETag / If-None-Match", testsite.Options{Pages: recrawlPages, Validators: true}},
		{"no validators, a stamp in every response", testsite.Options{Pages: recrawlPages, Stamp: true}},
	} {
		if err := recrawlSite(w, svc, llm, kind.name, kind.opts); err != nil {
			return fmt.Errorf("%s: %w", kind.name, err)
		}
	}
	return nil
}

// recrawlSite measures one site of recrawlDrill.
func recrawlSite(w io.Writer, svc *service, llm *fakellm.Server, name string, o testsite.Options) error {
	site := testsite.New(o)
	siteURL, stop, err := serveSite(site)
	if err != nil {
		return err
	}
	defer stop()
	body := map[string]any{"changeTracking": true, "extraction": "Return the page's number and how often it was revised, as JSON."}
	first, err := measuredCrawl(svc, llm, site, siteURL, body)
	if err != nil {
		return err
	}
	want, linkOnly := changeSite(site)
	second, err := measuredCrawl(svc, llm, site, siteURL, body)
	if err != nil {
		return err
	}
	got, err := svc.changes(second.crawlID, siteURL)
	if err != nil {
		return err
	}
	exact := "yes"
	var wrong []string
	for _, status := range []string{"new", "changed", "removed"} {
		if miss, extra := diffSets(want[status], got[status]); len(miss)+len(extra) > 0 {
			wrong = append(wrong, fmt.Sprintf("%s: %d missed %v, %d extra %v", status, len(miss), head(miss), len(extra), head(extra)))
		}
	}
	wantCalls := len(want["new"]) + len(want["changed"])
	if second.llmCalls != wantCalls {
		wrong = append(wrong, fmt.Sprintf("%d LLM calls, want %d (new and changed pages)", second.llmCalls, wantCalls))
	}
	if len(wrong) > 0 {
		exact = "no: " + strings.Join(wrong, "; ")
	}
	counts := func(c crawlChanges) string {
		return fmt.Sprintf("%d / %d / %d / %d", c.New, c.Changed, c.Same, c.Removed)
	}
	for _, r := range []struct {
		what string
		m    measured
	}{{"first", first}, {"recrawl", second}} {
		fmt.Fprintf(w, "| %s | %s | %.1f | %.0f | %s | %d | %.2f | %s | %s |\n", name, r.what, r.m.seconds,
			float64(r.m.pages)/r.m.seconds, megabytes(r.m.bytes), r.m.llmCalls, 1000*r.m.cpu/float64(max(r.m.pages, 1)),
			counts(r.m.changes), map[bool]string{true: exact, false: "—"}[r.what == "recrawl"])
	}
	fmt.Fprintf(w, "| %s | recrawl ÷ first | %.1f× faster | | %.1f %% of the bytes | | | expected: %d new, %d changed, %d removed (and %d pages whose link lists changed, the same in main content) | |\n",
		name, first.seconds/second.seconds, 100*float64(second.bytes)/float64(max(first.bytes, 1)),
		len(want["new"]), len(want["changed"]), len(want["removed"]), linkOnly)
	if len(wrong) > 0 {
		return fmt.Errorf("the recrawl's changes are not exact: %s", strings.Join(wrong, "; "))
	}
	return nil
}

// changeSite changes 5 % of site (pages edited across it, leaves
// removed, pages added) and returns the paths a recrawl must find new,
// changed and removed, and how many pages changed only by their list of
// links.
func changeSite(site *testsite.Site) (map[string]map[string]bool, int) {
	before := make([][]byte, site.Pages())
	for n := range before {
		before[n] = site.HTML(n)
	}
	// 5 %: pages edited across the site, leaves removed, pages added.
	var removed []int
	for n := 1000; len(removed) < recrawlRemovals; n += 47 {
		if len(site.Children(n)) == 0 {
			site.Remove(n)
			removed = append(removed, n)
		}
	}
	edited := 0
	for n := 3; edited < recrawlEdits; n += 31 {
		if !contains(removed, n) {
			site.Edit(n)
			edited++
		}
	}
	added := site.Add(recrawlAdds)
	// The edited pages' text changed. The pages above and beside the
	// added ones changed too, but only by an entry in their list of links,
	// which main-content extraction leaves out: their markdown is the
	// same, and so must their status be.
	want := map[string]map[string]bool{"new": {}, "changed": {}, "removed": {}}
	for _, n := range added {
		want["new"][site.Path(n)] = true
	}
	for _, n := range removed {
		want["removed"][site.Path(n)] = true
	}
	linkOnly := 0
	for n, html := range before {
		switch {
		case contains(removed, n) || bytes.Equal(html, site.HTML(n)):
		case site.Edits(n) > 0:
			want["changed"][site.Path(n)] = true
		default:
			linkOnly++
		}
	}
	return want, linkOnly
}

// measured is one crawl of recrawlDrill.
type measured struct {
	crawlID  string
	pages    int
	seconds  float64
	bytes    int
	llmCalls int
	cpu      float64
	changes  crawlChanges
}

type crawlChanges struct {
	New, Changed, Same, Removed int
}

// measuredCrawl crawls the site whole at concurrency 16 with body's
// options and counts what it cost: the site's bytes, the LLM's calls, the
// machine's CPU.
func measuredCrawl(svc *service, llm *fakellm.Server, site *testsite.Site, siteURL string, body map[string]any) (measured, error) {
	site.Reset()
	calls := len(llm.Calls())
	cpu := machineCPU()
	r, _, err := svc.crawl(siteURL, 16, body, false, 0, nil)
	if err != nil {
		return measured{}, err
	}
	m := measured{pages: r.pages, seconds: r.seconds, crawlID: r.crawlID, bytes: site.Stats().Bytes,
		llmCalls: len(llm.Calls()) - calls, cpu: machineCPU() - cpu}
	var c struct {
		Changes *crawlChanges `json:"changes"`
	}
	if err := svc.call("GET", "/crawls/"+r.crawlID, nil, &c); err != nil {
		return measured{}, err
	}
	if c.Changes != nil {
		m.changes = *c.Changes
	}
	return m, nil
}

// changes reads what crawl id found changed, by status and path.
func (s *service) changes(id, siteURL string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{"new": {}, "changed": {}, "removed": {}}
	for page := 1; ; page++ {
		var p struct {
			Results []struct {
				URL          string `json:"url"`
				ChangeStatus string `json:"changeStatus"`
			} `json:"results"`
			TotalPages int `json:"totalPages"`
		}
		if err := s.call("GET", fmt.Sprintf("/crawls/%s/changes?limit=100&page=%d", id, page), nil, &p); err != nil {
			return nil, err
		}
		for _, r := range p.Results {
			if out[r.ChangeStatus] == nil {
				return nil, fmt.Errorf("%s listed as %q", r.URL, r.ChangeStatus)
			}
			out[r.ChangeStatus][strings.TrimPrefix(r.URL, siteURL)] = true
		}
		if page >= p.TotalPages {
			return out, nil
		}
	}
}

var benchPage = regexp.MustCompile(`<page url="([^"]*)"`)
var benchRevised = regexp.MustCompile(`revised (\d+) times`)

// benchLLM answers an extraction with the page's path and revisions.
func benchLLM(c fakellm.Call, _ int) fakellm.Reply {
	path := ""
	if m := benchPage.FindStringSubmatch(c.User); m != nil {
		if u, err := url.Parse(m[1]); err == nil {
			path = u.Path
		}
	}
	revised := "0"
	if m := benchRevised.FindStringSubmatch(c.User); m != nil {
		revised = m[1]
	}
	return fakellm.Reply{Content: fmt.Sprintf(`{"page": %q, "revised": %s}`, path, revised)}
}

func contains(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// diffSets returns what want has and got lacks, and the other way round,
// sorted.
func diffSets(want, got map[string]bool) (missed, extra []string) {
	for k := range want {
		if !got[k] {
			missed = append(missed, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missed)
	sort.Strings(extra)
	return missed, extra
}

func head(list []string) []string {
	return list[:min(len(list), 5)]
}

func megabytes(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
