package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// storedSets holds, for a crawl of a manual, the pages the service stored
// with its default options and those Crawlee stored, as paths, so that
// the pages Crawlee stores and the service does not are listed.
type storedSets struct {
	service, crawlee map[string]bool
}

// note reads the pages a crawl stored: the service's through its API
// (default options only), Crawlee's from its dataset on disk.
func (st *storedSets) note(svc *service, tmp string, v variant, r result) error {
	switch {
	case v.options == nil:
		paths, err := crawleeStored(filepath.Join(tmp, "crawlee"))
		if err != nil {
			return fmt.Errorf("Crawlee's dataset: %w", err)
		}
		st.crawlee = paths
	case v.short == "default":
		paths, err := svc.stored(r.crawlID)
		if err != nil {
			return fmt.Errorf("the service's pages: %w", err)
		}
		st.service = paths
	}
	return nil
}

// print lists the pages Crawlee stored that the service did not.
func (st *storedSets) print(w io.Writer) {
	if st.service == nil || st.crawlee == nil {
		return
	}
	var missing []string
	for p := range st.crawlee {
		if !st.service[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	fmt.Fprintf(w, "\nDistinct pages stored in the first round: the service (default options) %d, Crawlee %d; stored by Crawlee and not by the service: %d",
		len(st.service), len(st.crawlee), len(missing))
	if len(missing) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(missing[:min(10, len(missing))], ", "))
	}
	fmt.Fprintln(w)
}

// stored returns the paths of the pages a crawl of the service stored.
func (s *service) stored(crawlID string) (map[string]bool, error) {
	paths := map[string]bool{}
	for page := 1; ; page++ {
		var out struct {
			Results []struct {
				URL      string `json:"url"`
				FinalURL string `json:"finalUrl"`
			} `json:"results"`
			TotalPages int `json:"totalPages"`
		}
		if err := s.call("GET", fmt.Sprintf("/crawls/%s/pages?page=%d&limit=100", crawlID, page), nil, &out); err != nil {
			return nil, err
		}
		for _, r := range out.Results {
			u := r.URL
			if r.FinalURL != "" {
				u = r.FinalURL
			}
			paths[pagePath(u)] = true
		}
		if page >= out.TotalPages {
			return paths, nil
		}
	}
}

// crawleeStored returns the paths of the pages in Crawlee's dataset.
func crawleeStored(storage string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(storage, "datasets", "default", "*.json"))
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var item struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(raw, &item) == nil && item.URL != "" {
			paths[pagePath(item.URL)] = true
		}
	}
	return paths, nil
}

// pagePath is the page a URL names on the served folder: its path, with
// an index.html named or not alike.
func pagePath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	p := u.Path
	if strings.HasSuffix(p, "/index.html") {
		p = strings.TrimSuffix(p, "index.html")
	}
	return p
}
