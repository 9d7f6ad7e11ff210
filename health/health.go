// Package health answers readiness: whether the process can reach what it
// needs (Postgres, Temporal). Liveness (/healthz) needs none of this: a
// process that answers HTTP is alive.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Check tests one dependency; nil means it is usable.
type Check func(ctx context.Context) error

// Timeout bounds each check.
const Timeout = 2 * time.Second

// Report is the answer of a readiness probe: status ok or unavailable, and
// each check's result ("ok" or its error).
type Report struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// Ready runs the checks at once, each bounded by Timeout, and reports.
func Ready(ctx context.Context, checks map[string]Check) Report {
	r := Report{Status: "ok", Checks: make(map[string]string, len(checks))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range checks {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, Timeout)
			defer cancel()
			result := "ok"
			if err := check(cctx); err != nil {
				result = err.Error()
			}
			mu.Lock()
			r.Checks[name] = result
			if result != "ok" {
				r.Status = "unavailable"
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return r
}

// HTTPStatus is 200 for a ready report, 503 otherwise.
func (r Report) HTTPStatus() int {
	if r.Status == "ok" {
		return http.StatusOK
	}
	return http.StatusServiceUnavailable
}

// Handler serves /readyz for net/http servers (the worker's).
func Handler(checks map[string]Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r := Ready(req.Context(), checks)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(r.HTTPStatus())
		_ = json.NewEncoder(w).Encode(r)
	})
}

// Live serves /healthz: the process answers.
func Live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}
