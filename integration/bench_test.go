package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// treeSite serves pages /n for n >= 0; page n links to pages 10n+1..10n+10
// and carries about 6 KB of article text.
func treeSite(b *testing.B) *httptest.Server {
	para := strings.Repeat("A sentence of body text that a reader would read. ", 12)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		var sb strings.Builder
		fmt.Fprintf(&sb, `<html><head><title>Page %d</title></head><body><nav><a href="/0">Home</a></nav><main><h1>Page %d</h1>`, n, n)
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&sb, `<p>%s</p><p><a href="/%d">Child %d</a></p>`, para, 10*n+i+1, i)
		}
		sb.WriteString(`</main><footer>Footer</footer></body></html>`)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, sb.String())
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStaticCrawl measures whole crawls through the API, Temporal,
// the worker and Postgres: pages per second, and the peak Go heap of the
// process that runs the worker.
func BenchmarkStaticCrawl(b *testing.B) {
	for _, run := range []struct {
		concurrency int
		dedupe      bool
	}{{8, true}, {32, true}, {32, false}} {
		concurrency := run.concurrency
		b.Run(fmt.Sprintf("pages=1000/concurrency=%d/dedupe=%v", concurrency, run.dedupe), func(b *testing.B) {
			site := treeSite(b)
			var peak atomic.Uint64
			stop := make(chan struct{})
			go func() {
				var m runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
						runtime.ReadMemStats(&m)
						if m.HeapInuse > peak.Load() {
							peak.Store(m.HeapInuse)
						}
					}
				}
			}()
			defer close(stop)
			pages := 0
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				c := create(b, env.api, env.keyA, map[string]any{
					"startUrl": site.URL + "/0", "maxResults": 1000, "maxDepth": 5, "maxConcurrentPages": concurrency,
					"deduplicateContent": run.dedupe,
				})
				done := waitFor(b, env.api, env.keyA, c.ID, 10*time.Minute, "the end", func(c crawlObj) bool { return c.Status != "running" })
				if done.Status != "succeeded" || done.TotalPages != 1000 {
					b.Fatalf("crawl ended %s with %d pages", done.Status, done.TotalPages)
				}
				pages += done.TotalPages
			}
			b.StopTimer()
			b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
		})
	}
}
