package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.Write([]byte(`{"status":"ok"}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"status":"unavailable"}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run([]string{"probe", srv.URL + "/readyz"}, &out, &out); err != nil || !strings.Contains(out.String(), "200 OK") {
		t.Errorf("probe of a ready server: %v, %q", err, out.String())
	}
	err := probe(context.Background(), []string{srv.URL + "/down"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("probe of a 503: %v, want the status and body", err)
	}
	srv.Close()
	if err := probe(context.Background(), []string{srv.URL + "/readyz"}, &out, &out); err == nil {
		t.Error("probe of a closed server succeeded")
	}
	var ue usageError
	if err := probe(context.Background(), nil, &out, &out); !errors.As(err, &ue) {
		t.Errorf("probe without a URL: %v, want a usage error", err)
	}
}
