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
	// /slow tells the test it was requested, and answers only once the
	// test is done with it or Chromium has gone: Chromium is killed while
	// the batch waits on the page.
	requested := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case requested <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>page %s</p></body></html>", r.URL.Path)
	}))
	defer srv.Close()
	f := Fetcher{Browser: b}
	killed := make(chan int, 1)
	go func() {
		select {
		case <-requested:
			killed <- proctest.KillDescendants("chromium")
		case <-release: // the batch ended without requesting /slow
			killed <- 0
		}
	}()
	var reported []string
	err := f.FetchAll(context.Background(), []string{srv.URL + "/slow"}, fetch.Batch{Parallelism: 1}, func(r fetch.Result) {
		reported = append(reported, r.URL)
	})
	close(release)
	if n := <-killed; n == 0 {
		t.Fatalf("no Chromium process was killed while /slow loaded (err %v, reported %v)", err, reported)
	}
	if !errors.Is(err, ErrBrowserDied) || len(reported) != 0 {
		t.Fatalf("batch during a crash: err %v, reported %v; want ErrBrowserDied and nothing", err, reported)
	}
	var got fetch.Result
	err = f.FetchAll(context.Background(), []string{srv.URL + "/after"}, fetch.Batch{Parallelism: 1}, func(r fetch.Result) { got = r })
	if err != nil || got.StatusCode != 200 || !strings.Contains(string(got.Body), "page /after") {
		t.Errorf("batch after the crash: %v %+v", err, got)
	}
}

// TestChromiumReplacedUnderASession: Chromium dies under one batch's
// session and another batch starts a new one before the first hears of
// it. The first batch's page is still reported as lost to a dead Chromium
// (to be rendered again), not as the page's failure, and new sessions run
// in the new Chromium.
func TestChromiumReplacedUnderASession(t *testing.T) {
	b := launch(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>page %s</p></body></html>", r.URL.Path)
	}))
	defer srv.Close()
	old := newSession(t, b)
	if n := proctest.KillDescendants("chromium"); n == 0 {
		t.Fatal("no Chromium process to kill")
	}
	for deadline := time.Now().Add(10 * time.Second); b.Connected(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the driver did not see Chromium die")
		}
	}
	fresh := newSession(t, b) // starts the new Chromium
	if !b.Connected() {
		t.Fatal("no new Chromium after a new session")
	}
	f := Fetcher{Browser: b}
	if r, ok := f.renderOne(context.Background(), old, srv.URL+"/lost", fetch.Batch{}); ok {
		t.Errorf("a page of the dead Chromium's session was reported as %+v; want it left to a retry", r)
	}
	p, err := fresh.Render(context.Background(), srv.URL+"/after")
	if err != nil || !strings.Contains(p.HTML, "page /after") {
		t.Errorf("render in the new Chromium: %v %q", err, p.HTML)
	}
}
