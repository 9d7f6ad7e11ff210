package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/config"
)

// TestSecondWorkerTakesAFreeMetricsPort: a worker whose default metrics
// address is taken (by the first worker on the host) serves on a free
// port; one told an address by CRAWLER_METRICS_ADDR fails as asked.
func TestSecondWorkerTakesAFreeMetricsPort(t *testing.T) {
	first, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	taken := first.Addr().String()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metrics here") })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	addr, stop, err := listenMetrics(config.Config{MetricsAddr: taken, MetricsAddrDefault: true}, logger, h)
	if err != nil {
		t.Fatalf("default address taken: %v", err)
	}
	defer stop()
	if addr == taken || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("served at %s, want another port of 127.0.0.1 than %s", addr, taken)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "metrics here" {
		t.Fatalf("the free port answers %q", body)
	}

	if _, _, err := listenMetrics(config.Config{MetricsAddr: taken}, logger, h); err == nil || !strings.Contains(err.Error(), "CRAWLER_METRICS_ADDR") {
		t.Fatalf("an address set by CRAWLER_METRICS_ADDR and taken: err %v, want an error naming the variable", err)
	}
}
