package main

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// docsSite serves a folder of real HTML pages (-docs: a manual such as
// PostgreSQL's or Sphinx's, from a Debian -doc package) as it is, its
// index.html at /, counting the requests for each path. The service
// crawls it with its default options (the whole site), and Crawlee too;
// how many pages there are is whatever each finds.
func docsSite(dir string) (servedSite, error) {
	files := &countingFiles{files: http.FileServer(http.Dir(dir)), seen: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return servedSite{}, err
	}
	srv := &http.Server{Handler: files, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return servedSite{url: "http://" + ln.Addr().String(), stop: func() { srv.Close() }, reset: files.reset,
		check: func() (int, error) { return files.repeats(), nil }}, nil
}

// countingFiles serves files and counts the requests for each path, so
// that requests for a file already served (repeats) are seen.
type countingFiles struct {
	files http.Handler
	mu    sync.Mutex
	seen  map[string]int
}

func (c *countingFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.seen[r.URL.Path]++
	c.mu.Unlock()
	c.files.ServeHTTP(w, r)
}

func (c *countingFiles) reset() {
	c.mu.Lock()
	c.seen = map[string]int{}
	c.mu.Unlock()
}

// repeats counts the requests beyond the first for each path.
func (c *countingFiles) repeats() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.seen {
		n += k - 1
	}
	return n
}
