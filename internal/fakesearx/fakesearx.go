// Package fakesearx is a search backend for tests that answers as
// SearXNG's JSON API does (GET /search?format=json&q=…&categories=…&
// pageno=…): the results registered for a query's words (its site:
// operators aside), ten a page, in the category asked for, and it
// records every request it was sent.
package fakesearx

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Hit is one result as SearXNG answers it.
type Hit struct {
	URL           string `json:"url"`
	Title         string `json:"title"`
	Content       string `json:"content"`
	PublishedDate string `json:"publishedDate,omitempty"`
	ImgSrc        string `json:"img_src,omitempty"`
	Resolution    string `json:"resolution,omitempty"`
	Category      string `json:"category"`
}

// Server is a running fake; Close it when done.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	hits     map[string][]Hit // by query words and category
	requests []url.Values
}

// New starts a fake backend.
func New() *Server {
	s := &Server{hits: map[string][]Hit{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Add registers hits for query in category (general, news, images).
func (s *Server) Add(query, category string, hits ...Hit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range hits {
		hits[i].Category = category
	}
	key := words(query) + "\x00" + category
	s.hits[key] = append(s.hits[key], hits...)
}

// Requests are the requests' parameters, in the order they came.
func (s *Server) Requests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.requests...)
}

// words is a query without its site: operators, its words lowered.
func words(q string) string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.HasPrefix(w, "site:") && !strings.HasPrefix(w, "-site:") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

const perPage = 10

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.requests = append(s.requests, q)
	s.mu.Unlock()
	if r.URL.Path != "/search" || q.Get("format") != "json" {
		http.Error(w, "only /search?format=json is served", http.StatusForbidden)
		return
	}
	cat := q.Get("categories")
	if cat == "" {
		cat = "general"
	}
	page, _ := strconv.Atoi(q.Get("pageno"))
	if page < 1 {
		page = 1
	}
	s.mu.Lock()
	all := s.hits[words(q.Get("q"))+"\x00"+cat]
	s.mu.Unlock()
	from := min((page-1)*perPage, len(all))
	to := min(from+perPage, len(all))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"query": q.Get("q"), "number_of_results": len(all), "results": all[from:to]})
}
