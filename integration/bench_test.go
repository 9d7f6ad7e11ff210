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

	"github.com/durablecrawl/crawler/internal/fakesearx"
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

// BenchmarkSearchScrape times a search whose 10 results are scraped in
// the same request (one batch scrape through the search backend) beside
// a batch scrape of the same 10 URLs, waited for as a client waits for
// it: the ratio is what searching adds.
func BenchmarkSearchScrape(b *testing.B) {
	site := treeSite(b)
	query := fmt.Sprintf("benchmark search %d", time.Now().UnixNano())
	var urls []string
	var hits []fakesearx.Hit
	for i := 1; i <= 10; i++ {
		u := fmt.Sprintf("%s/%d", site.URL, i)
		urls = append(urls, u)
		hits = append(hits, fakesearx.Hit{URL: u, Title: fmt.Sprintf("Page %d", i), Content: "A page."})
	}
	env.searx.Add(query, "general", hits...)
	b.Run("search", func(b *testing.B) {
		for range b.N {
			var out struct {
				Data struct {
					Web []map[string]any `json:"web"`
				} `json:"data"`
			}
			body := map[string]any{"query": query, "limit": 10, "scrapeOptions": map[string]any{"formats": []string{"markdown"}}}
			if code, raw := call(b, "POST", env.api+"/v2/search", env.keyA, body, &out); code != 200 || len(out.Data.Web) != 10 || out.Data.Web[9]["markdown"] == nil {
				b.Fatalf("search: %d %.300s", code, raw)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/search")
	})
	b.Run("batch", func(b *testing.B) {
		for range b.N {
			var started struct {
				ID string `json:"id"`
			}
			if code, raw := call(b, "POST", env.api+"/v2/batch/scrape", env.keyA, map[string]any{"urls": urls, "formats": []string{"markdown"}}, &started); code != 200 {
				b.Fatalf("batch: %d %s", code, raw)
			}
			for {
				var st struct {
					Status string `json:"status"`
				}
				call(b, "GET", env.api+"/v2/batch/scrape/"+started.ID, env.keyA, nil, &st)
				if st.Status != "scraping" {
					break
				}
				time.Sleep(100 * time.Millisecond) // the search's own wait polls as often
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/batch")
	})
}
