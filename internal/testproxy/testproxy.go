// Package testproxy is a plain-HTTP forward proxy for tests of the static
// egress path: it carries requests and counts them.
package testproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// New starts a forward proxy; Close it when done. The counter holds the
// requests it carried.
func New() (*httptest.Server, *atomic.Int32) { return NewTagged("") }

// NewTagged starts a forward proxy that counts what it carries and adds
// the header X-Proxy-Pool: name (unless name is "") to each request it
// forwards, so that the site it reaches knows the pool it came through.
func NewTagged(name string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		n.Add(1)
		out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out.Header = r.Header.Clone()
		if name != "" {
			out.Header.Set("X-Proxy-Pool", name)
		}
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	return srv, &n
}
