package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

func TestReady(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("connection refused") }
	hangs := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }

	r := Ready(context.Background(), map[string]Check{"postgres": ok, "temporal": ok})
	if r.Status != "ok" || r.HTTPStatus() != 200 || r.Checks["postgres"] != "ok" || r.Checks["temporal"] != "ok" {
		t.Errorf("all up: %+v", r)
	}
	began := time.Now()
	r = Ready(context.Background(), map[string]Check{"postgres": down, "temporal": hangs})
	if r.Status != "unavailable" || r.HTTPStatus() != 503 || r.Checks["postgres"] != "connection refused" ||
		r.Checks["temporal"] != context.DeadlineExceeded.Error() {
		t.Errorf("down: %+v", r)
	}
	if d := time.Since(began); d > Timeout+time.Second {
		t.Errorf("the checks took %s, want them bounded by %s and run at once", d, Timeout)
	}

	rec := httptest.NewRecorder()
	Handler(map[string]Check{"postgres": down}).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	var got Report
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 503 || got.Checks["postgres"] != "connection refused" {
		t.Errorf("handler: %d %s", rec.Code, rec.Body)
	}
}
