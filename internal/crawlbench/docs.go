package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// compareDocs crawls a folder of real HTML pages (-docs: a manual such as
// PostgreSQL's or Sphinx's, from a Debian -doc package) with the service
// (default options, the whole site) and with Crawlee, alternating, at each
// concurrency, and prints pages, pages/s, machine CPU a page and peak
// memory beside each other. The folder is served as it is, its index.html
// at /.
func compareDocs(f flags, tmp string) error {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	site := &countingFiles{files: http.FileServer(http.Dir(f.docs)), seen: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	siteURL := "http://" + ln.Addr().String()

	svc, err := startService(context.Background(), f, tmp, f.database)
	if err != nil {
		return err
	}
	defer svc.stop()
	var results []result
	for _, c := range f.concurrency {
		for round := 1; round <= f.rounds; round++ {
			for _, v := range variants {
				if v.options == nil && !f.peer {
					continue
				}
				site.reset()
				before := machineCPU()
				var r result
				if v.options == nil {
					r, err = crawlWithCrawlee(f, tmp, siteURL, c)
				} else {
					r, _, err = svc.crawl(siteURL, c, v.options, false, 0, nil)
				}
				if err != nil {
					return fmt.Errorf("%s at concurrency %d: %w", v.name, c, err)
				}
				r.cpu = machineCPU() - before
				r.variant, r.concurrency, r.round, r.repeats = v.name, c, round, site.repeats()
				logf("%-32s concurrency %2d round %d: %5d pages in %6.1f s = %6.1f pages/s, %.1f ms CPU a page, peak RSS %4d MB, %d repeat requests",
					v.name, c, round, r.pages, r.seconds, r.rate(), r.cpuPerPage(), r.peakRSS>>20, r.repeats)
				results = append(results, r)
			}
		}
	}
	printResults(os.Stdout, f, results)
	return nil
}

// countingFiles serves files and counts the requests for each path, so
// that requests for a file already served (repeats) are seen.
type countingFiles struct {
	files http.Handler
	mu    sync.Mutex
	seen  map[string]int
}

func (c *countingFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.seen[r.URL.Path]++
	c.mu.Unlock()
	c.files.ServeHTTP(w, r)
}

func (c *countingFiles) reset() {
	c.mu.Lock()
	c.seen = map[string]int{}
	c.mu.Unlock()
}

// repeats counts the requests beyond the first for each path.
func (c *countingFiles) repeats() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.seen {
		n += k - 1
	}
	return n
}
