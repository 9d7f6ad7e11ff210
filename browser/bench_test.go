package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

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

// tenSteps is the action script BenchmarkActions times: ten steps on
// actionsSite's page.
const tenSteps = `[
	{"type": "click", "selector": "#reveal"},
	{"type": "click", "selector": "#q"},
	{"type": "write", "text": "durable crawls"},
	{"type": "press", "key": "Enter"},
	{"type": "wait", "selector": "#results:not(:empty)"},
	{"type": "scroll", "direction": "down"},
	{"type": "wait", "milliseconds": 200},
	{"type": "executeJavascript", "script": "document.querySelectorAll('p').length"},
	{"type": "scrape"},
	{"type": "screenshot"}
]`

// BenchmarkActions times a page read after ten actions, as the service
// runs them (RenderWith: load, settle, the actions, the network settled
// again, the page read) and as the same steps written directly in
// Playwright, after the load event and after network idle: the ratio of
// the service's time to each is the cost of running actions here.
func BenchmarkActions(b *testing.B) {
	site := actionsSite(b, "127.0.0.1")
	u := site.URL + "/"
	br := launchBench(b, 1)
	defer br.Close()
	b.Run("service", func(b *testing.B) {
		s, err := br.NewSession("bench")
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		acts := mustActions(b, tenSteps)
		b.ResetTimer()
		for range b.N {
			p, err := s.RenderWith(context.Background(), u, RenderOptions{Actions: acts})
			if err != nil || !strings.Contains(p.HTML, "Results for durable crawls.") {
				b.Fatalf("render: %v", err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
	})
	for _, wait := range []playwright.WaitUntilState{*playwright.WaitUntilStateLoad, *playwright.WaitUntilStateNetworkidle} {
		b.Run("playwright-"+string(wait), func(b *testing.B) {
			c, err := br.chromium()
			if err != nil {
				b.Fatal(err)
			}
			ctx, err := c.NewContext()
			if err != nil {
				b.Fatal(err)
			}
			defer ctx.Close()
			p, err := ctx.NewPage()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				direct(b, p, u, wait)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
		})
	}
}

// direct runs tenSteps' steps with playwright-go's own calls.
func direct(b *testing.B, p playwright.Page, u string, wait playwright.WaitUntilState) {
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err := p.Goto(u, playwright.PageGotoOptions{WaitUntil: &wait})
	must(err)
	must(p.Locator("#reveal").Click())
	must(p.Locator("#q").Click())
	must(p.Keyboard().Type("durable crawls"))
	must(p.Keyboard().Press("Enter"))
	must(p.Locator("#results:not(:empty)").WaitFor())
	_, err = p.Evaluate(`window.scrollBy(0, window.innerHeight)`)
	must(err)
	time.Sleep(200 * time.Millisecond)
	_, err = p.Evaluate(`document.querySelectorAll('p').length`)
	must(err)
	_, err = p.Content()
	must(err)
	_, err = p.Screenshot(playwright.PageScreenshotOptions{Type: playwright.ScreenshotTypeJpeg, Quality: playwright.Int(80)})
	must(err)
	html, err := p.Content()
	must(err)
	if !strings.Contains(html, "Results for durable crawls.") {
		b.Fatal("the steps did not find the results")
	}
}
