package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// scrape returns the registry's text exposition.
func scrape(t *testing.T, r *prometheus.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(r).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, l+"\n") {
			t.Errorf("no line %q in\n%s", l, grep(text, strings.SplitN(l, "{", 2)[0]))
		}
	}
}

func grep(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestTemporalAdapter(t *testing.T) {
	r := NewRegistry()
	h := NewTemporal(r).Handler()
	ns := h.WithTags(map[string]string{"namespace": "default"})
	ns.WithTags(map[string]string{"operation": "PollActivityTaskQueue"}).Counter("temporal_request").Inc(2)
	ns.WithTags(map[string]string{"operation": "PollActivityTaskQueue"}).Counter("temporal_request").Inc(1)
	// The same metric with another tag set.
	ns.WithTags(map[string]string{"operation": "StartWorkflowExecution", "task_queue": "crawler"}).Counter("temporal_request").Inc(1)
	ns.Gauge("temporal_worker_task_slots_available").Update(7)
	ns.Gauge("temporal_worker_task_slots_available").Update(5)
	timer := ns.WithTags(map[string]string{"activity_type": "FetchPages"}).Timer("temporal_activity_execution_latency")
	timer.Record(30 * time.Millisecond)
	timer.Record(2 * time.Second)
	// A name used as two kinds does not break the scrape.
	ns.Timer("temporal_request").Record(time.Millisecond)

	text := scrape(t, r)
	wantLines(t, text,
		`temporal_request{namespace="default",operation="PollActivityTaskQueue",task_queue=""} 3`,
		`temporal_request{namespace="default",operation="StartWorkflowExecution",task_queue="crawler"} 1`,
		`temporal_worker_task_slots_available{namespace="default"} 5`,
		`temporal_activity_execution_latency_count{activity_type="FetchPages",namespace="default"} 2`,
		`temporal_activity_execution_latency_sum{activity_type="FetchPages",namespace="default"} 2.03`,
		`temporal_activity_execution_latency_bucket{activity_type="FetchPages",namespace="default",le="0.05"} 1`,
		`temporal_activity_execution_latency_bucket{activity_type="FetchPages",namespace="default",le="2.5"} 2`,
		`temporal_request_timer_count{namespace="default"} 1`,
	)
	if n, err := testutil.GatherAndCount(r, "temporal_request"); err != nil || n != 2 {
		t.Errorf("temporal_request has %d series (%v), want 2", n, err)
	}
}

func TestAPIMetrics(t *testing.T) {
	r := NewRegistry()
	counts := map[string]int{"running": 2, "succeeded": 5}
	var countErr error
	a := NewAPI(r, func(context.Context) (map[string]int, error) { return counts, countErr })
	a.Request("/crawls/:id", "GET", 200, 3*time.Millisecond)
	a.Request("/crawls/:id", "GET", 404, time.Millisecond)
	a.Request("/crawls", "POST", 201, time.Millisecond)
	a.CrawlCreated()
	wantLines(t, scrape(t, r),
		`crawler_http_requests_total{code="2xx",method="GET",route="/crawls/:id"} 1`,
		`crawler_http_requests_total{code="4xx",method="GET",route="/crawls/:id"} 1`,
		`crawler_http_requests_total{code="2xx",method="POST",route="/crawls"} 1`,
		`crawler_http_request_duration_seconds_count{method="GET",route="/crawls/:id"} 2`,
		`crawler_crawls_created_total 1`,
		`crawler_crawls{status="running"} 2`,
		`crawler_crawls{status="succeeded"} 5`,
		`crawler_crawls_scrape_errors 0`,
	)
	countErr, counts = errors.New("database down"), nil
	text := scrape(t, r)
	wantLines(t, text, `crawler_crawls_scrape_errors 1`)
	if strings.Contains(text, `crawler_crawls{`) {
		t.Error("crawls by status shown although they could not be counted")
	}
	var none *API // no metrics configured
	none.Request("/", "GET", 200, 0)
	none.CrawlCreated()
}

func TestWorkerMetrics(t *testing.T) {
	r := NewRegistry()
	w := NewWorker(r)
	w.PageFetched("static", 200, 1000, 40*time.Millisecond)
	w.PageFetched("static", 503, 20, 10*time.Millisecond)
	w.PageFetched("browser", 0, 0, 3*time.Second)
	w.ActivityRan("FetchPages", false)
	w.ActivityRan("FetchPages", true)
	wantLines(t, scrape(t, r),
		`crawler_pages_fetched_total{code="2xx",engine="static"} 1`,
		`crawler_pages_fetched_total{code="5xx",engine="static"} 1`,
		`crawler_pages_fetched_total{code="error",engine="browser"} 1`,
		`crawler_fetched_bytes_total{engine="static"} 1020`,
		`crawler_fetch_duration_seconds_count{engine="static"} 2`,
		`crawler_activity_executions_total{activity="FetchPages"} 2`,
		`crawler_activity_failures_total{activity="FetchPages"} 1`,
	)
	var none *Worker
	none.PageFetched("static", 200, 1, 0)
	none.ActivityRan("x", true)
}
