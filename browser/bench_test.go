package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/proctest"
)

// BenchmarkRender renders a local JavaScript site (every page builds its
// content from a script) with page pools of several sizes: pages per
// second, and the peak resident memory of Chromium and the driver.
func BenchmarkRender(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><div id="root"></div><script>
document.getElementById('root').innerHTML = '<main><h1>Page %s</h1>' +
  Array.from({length: 20}, (_, i) => '<p>Paragraph ' + i + ' written by the app.</p><a href="/' + i + '">link</a>').join('') + '</main>';
</script></body></html>`, r.URL.Path)
	}))
	defer srv.Close()
	const pages = 48
	urls := make([]string, pages)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/%d", srv.URL, i)
	}
	for _, pool := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("pool=%d", pool), func(b *testing.B) {
			br := launchBench(b, pool)
			defer br.Close()
			var peak atomic.Int64
			stop := make(chan struct{})
			go func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
						if rss := proctest.DescendantsRSS("chromium") + proctest.DescendantsRSS("node"); rss > peak.Load() {
							peak.Store(rss)
						}
					}
				}
			}()
			f := Fetcher{Browser: br}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var failed atomic.Int32
				err := f.FetchAll(context.Background(), urls, fetch.Batch{Parallelism: pool}, func(r fetch.Result) {
					if r.Err != nil || r.StatusCode != 200 {
						failed.Add(1)
					}
				})
				if err != nil || failed.Load() > 0 {
					b.Fatalf("render: %v, %d pages failed", err, failed.Load())
				}
			}
			b.StopTimer()
			close(stop)
			b.ReportMetric(float64(b.N*pages)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-RSS-MB")
		})
	}
}

func launchBench(b *testing.B, pool int) *Browser {
	b.Helper()
	br, err := Launch(benchOptions(pool))
	if err != nil {
		b.Fatal(err)
	}
	return br
}
