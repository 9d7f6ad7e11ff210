package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/durablecrawl/crawler/config"
)

// listen serves h at addr (named by the variable that set it, for the
// error) and returns how to stop.
func listen(addr, variable string, h http.Handler) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", variable, err)
	}
	return serveOn(ln, h), nil
}

// listenMetrics serves the worker's metrics at CRAWLER_METRICS_ADDR. When
// that is the default and another process (the first worker on this host)
// holds it, the worker takes a free port on the same interface and logs
// it, so that adding a worker needs no settings. It returns the address
// served.
func listenMetrics(cfg config.Config, logger *slog.Logger, h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil && cfg.MetricsAddrDefault && errors.Is(err, syscall.EADDRINUSE) {
		host, _, _ := net.SplitHostPort(cfg.MetricsAddr)
		logger.Warn("the default metrics address is taken, serving metrics on a free port", "taken", cfg.MetricsAddr)
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return "", nil, fmt.Errorf("CRAWLER_METRICS_ADDR: %w", err)
	}
	return ln.Addr().String(), serveOn(ln, h), nil
}

// serveOn serves h on ln and returns how to stop.
func serveOn(ln net.Listener, h http.Handler) func() {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}
