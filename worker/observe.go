package worker

import (
	"context"
	"net/http"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"

	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/health"
	"github.com/durablecrawl/crawler/metrics"
)

// activityMetrics counts every activity attempt the worker runs, and the
// ones that fail, by activity name.
type activityMetrics struct {
	interceptor.WorkerInterceptorBase
	m *metrics.Worker
}

func (w *activityMetrics) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &countedActivity{m: w.m}
	a.Next = next
	return a
}

type countedActivity struct {
	interceptor.ActivityInboundInterceptorBase
	m *metrics.Worker
}

func (a *countedActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := a.Next.ExecuteActivity(ctx, in)
	a.m.ActivityRan(activity.GetInfo(ctx).ActivityType.Name, err != nil)
	return res, err
}

// interceptors are the worker interceptors of a process with metrics m
// (none without).
func interceptors(m *metrics.Worker) []interceptor.WorkerInterceptor {
	if m == nil {
		return nil
	}
	return []interceptor.WorkerInterceptor{&activityMetrics{m: m}}
}

// StatusMux is what a worker serves on CRAWLER_METRICS_ADDR: its metrics,
// liveness (/healthz) and readiness (/readyz: checks).
func StatusMux(metricsHandler http.Handler, checks map[string]health.Check) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metricsHandler)
	mux.HandleFunc("GET /healthz", health.Live)
	mux.Handle("GET /readyz", health.Handler(checks))
	return mux
}

// ReadyChecks are what /readyz checks, on the worker and the API: the
// database answers a ping and the Temporal frontend says it is serving.
func ReadyChecks(store *db.Store, tc client.Client) map[string]health.Check {
	return map[string]health.Check{
		"postgres": func(ctx context.Context) error { return store.DB().PingContext(ctx) },
		"temporal": func(ctx context.Context) error {
			_, err := tc.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		},
	}
}
