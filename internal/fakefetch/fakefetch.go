// Package fakefetch is a page fetcher for unit tests: it serves prepared
// results by URL and records what it was asked for.
package fakefetch

import (
	"context"
	"sync"

	"github.com/durablecrawl/crawler/fetch"
)

// Fetcher serves Results by URL (a 404 for any other URL) and records the
// URLs it was asked for. Like the real fetchers, it asks Batch.Admit
// before each request and emits every URL it admits.
type Fetcher struct {
	Results map[string]fetch.Result
	Err     error // FetchAll's return

	mu    sync.Mutex
	asked []string
}

// FetchAll emits the result of each of urls it admits.
func (f *Fetcher) FetchAll(_ context.Context, urls []string, b fetch.Batch, emit func(fetch.Result)) error {
	for _, u := range urls {
		if b.Skip != nil {
			if why := b.Skip(u); why != "" {
				emit(fetch.Result{URL: u, Skipped: why})
				continue
			}
		}
		if b.Admit != nil && !b.Admit(u) {
			continue
		}
		f.mu.Lock()
		f.asked = append(f.asked, u)
		f.mu.Unlock()
		r, ok := f.Results[u]
		if !ok {
			r = fetch.Result{StatusCode: 404, ContentType: "text/plain"}
		}
		r.URL = u
		if r.FinalURL == "" {
			r.FinalURL = u
		}
		emit(r)
	}
	return f.Err
}

// Asked returns the URLs asked for so far, in order.
func (f *Fetcher) Asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// HTML is a 200 response with an HTML body.
func HTML(body string) fetch.Result {
	return fetch.Result{StatusCode: 200, ContentType: "text/html; charset=utf-8", Body: []byte(body)}
}

// Text is a 200 response with a plain text or XML body.
func Text(body string) fetch.Result {
	return fetch.Result{StatusCode: 200, ContentType: "text/plain", Body: []byte(body)}
}
