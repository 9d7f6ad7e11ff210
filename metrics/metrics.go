// Package metrics holds the service's Prometheus metrics: those of the API
// (requests, crawls by status), those of the worker (page fetches,
// activities) and an adapter that gives the Temporal SDK's own metrics to
// the same registry. Nothing here is global: each process builds one
// Registry and passes it down.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry with the Go runtime's and the process's
// own metrics.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Handler serves the registry in Prometheus' text format.
func Handler(r *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(r, promhttp.HandlerOpts{Registry: r})
}

// API are the metrics of the HTTP API.
type API struct {
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	crawlsCreated prometheus.Counter
}

// NewAPI registers the API's metrics on r. countCrawls, when not nil, is
// asked for the number of crawls by status at each scrape.
func NewAPI(r prometheus.Registerer, countCrawls func(context.Context) (map[string]int, error)) *API {
	a := &API{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crawler_http_requests_total", Help: "HTTP requests answered, by route, method and status class.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "crawler_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		crawlsCreated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "crawler_crawls_created_total", Help: "Crawls created through this API process.",
		}),
	}
	r.MustRegister(a.requests, a.duration, a.crawlsCreated)
	if countCrawls != nil {
		r.MustRegister(crawlsByStatus{count: countCrawls})
	}
	return a
}

// Request records one answered request; route is the route's template
// (/crawls/:id), not the path, so that IDs do not make series.
func (a *API) Request(route, method string, status int, d time.Duration) {
	if a == nil {
		return
	}
	a.requests.WithLabelValues(route, method, StatusClass(status)).Inc()
	a.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

// CrawlCreated counts a crawl created.
func (a *API) CrawlCreated() {
	if a != nil {
		a.crawlsCreated.Inc()
	}
}

// StatusClass is "2xx" for 200..299 and so on, "error" for no answer (0).
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}

// crawlsByStatus is the gauge crawler_crawls{status}, read from the
// database at each scrape so that every API replica reports the same.
type crawlsByStatus struct {
	count func(context.Context) (map[string]int, error)
}

var crawlsDesc = prometheus.NewDesc("crawler_crawls", "Crawls in the database, by status.", []string{"status"}, nil)

var scrapeErrorsDesc = prometheus.NewDesc("crawler_crawls_scrape_errors",
	"1 when the crawls could not be counted at this scrape.", nil, nil)

func (c crawlsByStatus) Describe(ch chan<- *prometheus.Desc) {
	ch <- crawlsDesc
	ch <- scrapeErrorsDesc
}

func (c crawlsByStatus) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.count(ctx)
	failed := 0.0
	if err != nil {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrorsDesc, prometheus.GaugeValue, failed)
	for status, n := range counts {
		ch <- prometheus.MustNewConstMetric(crawlsDesc, prometheus.GaugeValue, float64(n), status)
	}
}

// Worker are the metrics of a worker process.
type Worker struct {
	pages      *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	bytes      *prometheus.CounterVec
	activities *prometheus.CounterVec
	failures   *prometheus.CounterVec
}

// NewWorker registers the worker's metrics on r.
func NewWorker(r prometheus.Registerer) *Worker {
	w := &Worker{
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crawler_pages_fetched_total", Help: "Page fetches, by engine (static or browser) and status class (2xx..5xx, or error when no answer came).",
		}, []string{"engine", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "crawler_fetch_duration_seconds", Help: "Time to fetch (or render) one page, by engine.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"engine"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crawler_fetched_bytes_total", Help: "Bytes of page bodies received, by engine.",
		}, []string{"engine"}),
		activities: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crawler_activity_executions_total", Help: "Activity attempts run by this worker, by activity.",
		}, []string{"activity"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crawler_activity_failures_total", Help: "Activity attempts that returned an error, by activity.",
		}, []string{"activity"}),
	}
	r.MustRegister(w.pages, w.latency, w.bytes, w.activities, w.failures)
	return w
}

// PageFetched records one page fetch: engine is static or browser, status
// 0 when no answer came.
func (w *Worker) PageFetched(engine string, status, bytes int, d time.Duration) {
	if w == nil {
		return
	}
	w.pages.WithLabelValues(engine, StatusClass(status)).Inc()
	w.latency.WithLabelValues(engine).Observe(d.Seconds())
	w.bytes.WithLabelValues(engine).Add(float64(bytes))
}

// ActivityRan records one activity attempt and whether it failed.
func (w *Worker) ActivityRan(activity string, failed bool) {
	if w == nil {
		return
	}
	w.activities.WithLabelValues(activity).Inc()
	if failed {
		w.failures.WithLabelValues(activity).Inc()
	}
}
