package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/proctest"
)

// TestChromiumCrash: a batch during which Chromium dies fails as a whole
// (nothing is reported for its unfinished pages), and the next batch runs
// in a new Chromium.
func TestChromiumCrash(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(3 * time.Second)
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>page %s</p></body></html>", r.URL.Path)
	}))
	defer srv.Close()
	f := Fetcher{Browser: b}
	go func() {
		time.Sleep(time.Second)
		proctest.KillDescendants("chromium")
	}()
	var reported []string
	err := f.FetchAll(context.Background(), []string{srv.URL + "/slow"}, fetch.Batch{Parallelism: 1}, func(r fetch.Result) {
		reported = append(reported, r.URL)
	})
	if !errors.Is(err, ErrBrowserDied) || len(reported) != 0 {
		t.Fatalf("batch during a crash: err %v, reported %v; want ErrBrowserDied and nothing", err, reported)
	}
	var got fetch.Result
	err = f.FetchAll(context.Background(), []string{srv.URL + "/after"}, fetch.Batch{Parallelism: 1}, func(r fetch.Result) { got = r })
	if err != nil || got.StatusCode != 200 || !strings.Contains(string(got.Body), "page /after") {
		t.Errorf("batch after the crash: %v %+v", err, got)
	}
}
