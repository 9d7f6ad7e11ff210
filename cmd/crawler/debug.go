package main

import (
	"net/http"
	"net/http/pprof"
)

// serveDebug serves Go's profiles (CPU, heap, goroutines) at addr under
// /debug/pprof/, and returns how to stop serving them.
func serveDebug(addr string) (func(), error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return listen(addr, "CRAWLER_DEBUG_ADDR", mux)
}
