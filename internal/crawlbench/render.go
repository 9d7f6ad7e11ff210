package main

// The render drill: a client-rendered site crawled with the service's
// browser engine and with Crawlee's PlaywrightCrawler, side by side.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/durablecrawl/crawler/internal/proctest"
	"github.com/durablecrawl/crawler/internal/testsite"
)

// browserEnv makes the service's worker run a browser (see startService).
const browserEnv = "CRAWLER_BROWSER_AVAILABLE=true"

// rendered is one measured crawl of the render drill.
type rendered struct {
	result
	// chromium is the peak memory of Chromium (all its processes, PSS);
	// crawler that of the crawler's own processes (the service's worker
	// and Playwright driver, or Crawlee's node).
	chromium, crawler int64
}

// renderDrill crawls a client-rendered site (every address answers one
// shell whose script fetches and draws the page) whole with the service,
// defaults but for the concurrency (engineType auto finds that the site
// needs its scripts run), and with Crawlee's PlaywrightCrawler at the
// same concurrency on the same Chromium, alternating, f.rounds rounds at
// each of f.renderConcurrency.
func renderDrill(w io.Writer, f flags, tmp string) error {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	f.pages = f.renderPages
	site := testsite.New(testsite.Options{Pages: f.pages, Scripted: true})
	siteURL, stopSite, err := serveSite(site)
	if err != nil {
		return err
	}
	defer stopSite()
	pool := 0
	for _, c := range f.renderConcurrency {
		pool = max(pool, c)
	}
	svc, err := startService(context.Background(), f, tmp, strings.Replace(f.database, "crawler_bench", "crawler_render", 1),
		browserEnv, "CRAWLER_BROWSER_PAGES="+strconv.Itoa(pool))
	if err != nil {
		return err
	}
	defer svc.stop()
	var runs []rendered
	for _, c := range f.renderConcurrency {
		for round := 1; round <= f.rounds; round++ {
			for _, who := range []string{"service", "Crawlee PlaywrightCrawler"} {
				site.Reset()
				mem := sampleMemory(who == "service")
				cpuBefore := machineCPU()
				var r result
				if who == "service" {
					r, _, err = svc.crawl(siteURL, c, nil, false, 0, nil)
				} else {
					r, err = crawlWithCrawlee(f, tmp, siteURL, c, "--engine", "playwright")
				}
				cpu := machineCPU() - cpuBefore
				chromium, crawler := mem()
				if err != nil {
					return fmt.Errorf("%s at concurrency %d: %w", who, c, err)
				}
				st := site.Stats()
				if st.Distinct != f.pages {
					return fmt.Errorf("%s at concurrency %d: the site drew %d of its %d pages", who, c, st.Distinct, f.pages)
				}
				r.variant, r.concurrency, r.round, r.cpu, r.repeats = who, c, round, cpu, st.Repeats
				logf("render drill: %-26s concurrency %d round %d: %d pages in %.1f s = %.1f pages/s, %.1f ms CPU a page, Chromium %d MB, crawler %d MB",
					who, c, round, r.pages, r.seconds, r.rate(), r.cpuPerPage(), chromium>>20, crawler>>20)
				runs = append(runs, rendered{result: r, chromium: chromium, crawler: crawler})
			}
		}
	}
	printRendered(w, f, runs)
	return nil
}

// sampleMemory samples, until the returned function is called, the
// memory of Chromium and of the crawler (the service's worker and
// Playwright driver, or Crawlee's node) every 200 ms, and returns the
// peaks of each sum.
func sampleMemory(service bool) func() (chromium, crawler int64) {
	crawlerProcs := []string{"crawl.mjs"}
	if service {
		crawlerProcs = []string{"\x00worker", "run-driver"}
	}
	var mu sync.Mutex
	var peakChromium, peakCrawler int64
	sample := func() {
		c := proctest.DescendantsPSS("chromium")
		var own int64
		for _, name := range crawlerProcs {
			own += proctest.DescendantsPSS(name)
		}
		mu.Lock()
		peakChromium, peakCrawler = max(peakChromium, c), max(peakCrawler, own)
		mu.Unlock()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() (int64, int64) {
		close(stop)
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peakChromium, peakCrawler
	}
}

// printRendered prints the render drill's crawls and their medians.
func printRendered(w io.Writer, f flags, runs []rendered) {
	fmt.Fprintf(w, "\n### Crawls of a %d-page client-rendered site (browser engines)\n\n", f.pages)
	fmt.Fprintf(w, "Every address answers one shell; its script fetches the page's content after the load and draws it. "+
		"The service runs with default options but the concurrency (engineType auto switches the crawl to the browser); "+
		"Crawlee's PlaywrightCrawler reads each page once `main` is in it. Both on %s. "+
		"Memory is PSS (pages shared between processes counted once), sampled every 200 ms: Chromium's processes, "+
		"and the crawler's own (the service's worker and Playwright driver; Crawlee's node).\n\n", f.chromium)
	fmt.Fprintf(w, "| concurrency | crawler | round | pages | wall (s) | pages/s | machine CPU (ms/page) | Chromium peak (MB) | crawler peak (MB) | repeat renders |\n")
	fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(w, "| %d | %s | %d | %d | %.1f | %.1f | %.1f | %d | %d | %d |\n", r.concurrency, r.variant, r.round, r.pages,
			r.seconds, r.rate(), r.cpuPerPage(), r.chromium>>20, r.crawler>>20, r.repeats)
	}
	fmt.Fprintf(w, "\n| concurrency | crawler | pages/s | machine CPU (ms/page) | Chromium peak (MB, highest round) | crawler peak (MB, highest round) | × PlaywrightCrawler |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, c := range f.renderConcurrency {
		peer := 0.0
		for _, who := range []string{"Crawlee PlaywrightCrawler", "service"} {
			var rates, cpus []float64
			var chromium, crawler []int64
			for _, r := range runs {
				if r.concurrency == c && r.variant == who {
					rates, cpus = append(rates, r.rate()), append(cpus, r.cpuPerPage())
					chromium, crawler = append(chromium, r.chromium), append(crawler, r.crawler)
				}
			}
			if len(rates) == 0 {
				continue
			}
			ratio := "—"
			if who != "service" {
				peer = median(rates)
			} else if peer > 0 {
				ratio = fmt.Sprintf("%.2f", median(rates)/peer)
			}
			fmt.Fprintf(w, "| %d | %s | %.1f | %.1f | %d | %d | %s |\n", c, who, median(rates), median(cpus),
				slicesMax(chromium)>>20, slicesMax(crawler)>>20, ratio)
		}
	}
}

// slicesMax is the largest of v (0 for none).
func slicesMax(v []int64) int64 {
	var m int64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
