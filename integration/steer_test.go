package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/api"
)

// steerTaskQueue is the deployment of TestSteerCrawl, whose worker the
// test stops and starts.
const steerTaskQueue = "crawls-test-steer"

// countingSlowSite is slowSite that records when each path was asked for.
type countingSlowSite struct {
	*httptest.Server
	mu  sync.Mutex
	hit map[string][]time.Time
}

func newCountingSlowSite(t *testing.T, delay time.Duration) *countingSlowSite {
	s := &countingSlowSite{hit: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hit[r.URL.Path] = append(s.hit[r.URL.Path], time.Now())
		s.mu.Unlock()
		n := 0
		if strings.HasPrefix(r.URL.Path, "/p/") {
			n, _ = strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Slow %d</title></head><body><main><h1>Slow page %d</h1>
			<p>This page took its time.</p><a href="/p/%d">a</a> <a href="/p/%d">b</a> <a href="/p/%d">c</a></main></body></html>`,
			n, n, 3*n+1, 3*n+2, 3*n+3)
	}))
	t.Cleanup(s.Close)
	return s
}

// since counts the requests for paths matching glob after t.
func (s *countingSlowSite) since(t time.Time, glob string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, times := range s.hit {
		if ok, _ := path.Match(glob, p); !ok {
			continue
		}
		for _, at := range times {
			if at.After(t) {
				n++
			}
		}
	}
	return n
}

// TestSteerCrawl changes a running crawl through the API: its limit raised,
// paths excluded (queued pages dropped), paused (no request reaches the
// site, through a worker restart) and resumed; every change is a log
// entry, refused changes name their field, and a crawl that ended answers
// 409.
func TestSteerCrawl(t *testing.T) {
	t.Parallel()
	cfg := env.restartConfig
	cfg.TaskQueue, cfg.MaxPagesPerCrawl = steerTaskQueue, 1000
	stop, err := startWorker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stop() }()
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: steerTaskQueue, Server: testServer}))
	site := newCountingSlowSite(t, 60*time.Millisecond)
	c := create(t, base, env.keyA, map[string]any{"startUrl": site.URL + "/", "maxResults": 12, "maxConcurrentPages": 2})
	waitFor(t, base, env.keyA, c.ID, time.Minute, "three pages", func(c crawlObj) bool { return c.TotalPages >= 3 })

	type steered struct {
		crawlObj
		Paused bool `json:"paused"`
	}
	change := func(method, path string, body any) (int, steered, errorObj) {
		var out steered
		var e errorObj
		status, raw := call(t, method, base+"/crawls/"+c.ID+path, env.keyA, body, nil)
		if status == http.StatusOK {
			_ = json.Unmarshal(raw, &out)
		} else {
			_ = json.Unmarshal(raw, &e)
		}
		return status, out, e
	}
	// Refused: below what is stored, an unknown field.
	if status, _, e := change("PATCH", "", map[string]any{"maxResults": 1}); status != http.StatusBadRequest || e.Error.Details[0].Field != "maxResults" {
		t.Errorf("maxResults 1 = %d %+v, want 400 naming maxResults", status, e)
	}
	if status, _, _ := change("PATCH", "", map[string]any{"maxPages": 3}); status != http.StatusBadRequest {
		t.Errorf("an unknown field = %d, want 400", status)
	}
	// Raised, and a branch of the site excluded.
	status, after, _ := change("PATCH", "", map[string]any{"maxResults": 40, "excludePaths": []string{"/p/3*"}})
	excludedAt := time.Now()
	if status != http.StatusOK || after.MaxResults == nil || *after.MaxResults != 40 || !containsString(after.ExcludePaths, "/p/3*") {
		t.Fatalf("the change answered %d %+v", status, after)
	}
	// Paused: once the batch in flight is done, no request reaches the site.
	status, paused, _ := change("POST", "/pause", nil)
	if status != http.StatusOK || !paused.Paused || paused.Status != "running" {
		t.Fatalf("pause answered %d %+v", status, paused)
	}
	time.Sleep(4 * time.Second) // the batch in flight ends
	quiet := time.Now()
	stop()
	if stop, err = startWorker(cfg, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if n := site.since(quiet, "/*"); n != 0 {
		t.Errorf("%d requests reached the site while the crawl was paused", n)
	}
	var mid steered
	call(t, "GET", base+"/crawls/"+c.ID, env.keyA, nil, &mid)
	if !mid.Paused || mid.Status != "running" {
		t.Errorf("while paused the crawl reads %+v", mid)
	}
	if status, resumed, _ := change("POST", "/resume", nil); status != http.StatusOK || resumed.Paused {
		t.Fatalf("resume answered %d %+v", status, resumed)
	}
	done := waitStatus(t, base, env.keyA, c.ID, 2*time.Minute, "succeeded")
	if done.TotalPages != 40 {
		t.Errorf("the crawl stored %d pages, want the raised limit of 40", done.TotalPages)
	}
	// The batch in flight when the change came fetched what it had
	// claimed; none after it asked for an excluded page.
	if n := site.since(quiet, "/p/3*"); n != 0 {
		t.Errorf("%d requests for excluded pages after the batch in flight", n)
	}
	t.Logf("%d requests for excluded pages by the batch in flight", site.since(excludedAt, "/p/3*"))
	logs := allLogs(t, base, env.keyA, c.ID, 500)
	changes, dropped := 0, 0
	for _, l := range logs {
		if strings.HasPrefix(l.Message, "Crawl changed: ") {
			changes++
			if !strings.Contains(l.Description, "API key") {
				t.Errorf("the change entry does not say who: %s", l.Description)
			}
		}
		if l.Message == "Page skipped" && strings.Contains(l.Description, "excluded by a change") {
			dropped++
		}
	}
	if changes != 3 {
		t.Errorf("%d change entries, want 3 (limit and paths, pause, resume)", changes)
	}
	t.Logf("%d queued pages dropped by the exclusion", dropped)
	// Ended: 409.
	if status, _, e := change("POST", "/pause", nil); status != http.StatusConflict {
		t.Errorf("pausing an ended crawl = %d %+v, want 409", status, e)
	}
	for _, h := range crawlHistories(t, "crawl-"+c.ID) {
		replayHistory(t, "crawl-"+c.ID, h)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
