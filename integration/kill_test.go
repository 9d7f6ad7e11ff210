package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/internal/testsite"
)

// buildCrawler builds the service's binary for tests that run it in
// processes of their own.
func buildCrawler(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crawler")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/crawler").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestWorkerKilled crawls a link-dense site at concurrency 16 with the
// worker in a process of its own, kills that process (SIGKILL) mid-crawl
// and starts another: the crawl ends with every page stored once and
// logged once, and the site served again no more pages than were in
// flight when the worker died: being fetched, or fetched and not saved.
func TestWorkerKilled(t *testing.T) {
	t.Parallel()
	const (
		queue       = "crawls-test-kill"
		concurrency = 16
	)
	bin := buildCrawler(t)
	site := testsite.New(testsite.Options{Pages: 1200})
	// The site itself kills the worker when it is asked for its 500th
	// request: mid-batch, with requests in flight.
	var requests atomic.Int32
	killed := make(chan struct{})
	var first *exec.Cmd
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 500 {
			_ = first.Process.Signal(syscall.SIGKILL)
			close(killed)
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: queue, Server: testServer}))
	start := func(name string) *exec.Cmd {
		cmd := exec.Command(bin, "worker")
		cmd.Env = append(os.Environ(),
			"DATABASE_URL="+env.databaseURL, "TEMPORAL_ADDRESS="+env.temporalAddr, "CRAWLER_TASK_QUEUE="+queue,
			"CRAWLER_ALLOW_PRIVATE_NETWORKS=true", "CRAWLER_LOG_LEVEL=error", "CRAWLER_RECONCILE_INTERVAL=1h",
			"CRAWLER_METRICS_ADDR=off") // the default port may be taken (make run, another test)
		logFile, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			logFile.Close()
		})
		return cmd
	}

	first = start("worker-1")
	// A team of the test's own, whose usage is this crawl's alone.
	key, _ := newTeamKey(t, "killed")
	c := create(t, base, key, map[string]any{"startUrl": srv.URL + "/", "entireWebsite": true,
		"maxConcurrentPages": concurrency})
	select {
	case <-killed:
	case <-time.After(2 * time.Minute):
		t.Fatal("the crawl did not reach 500 requests")
	}
	_ = first.Wait()
	atKill := site.Stats()
	start("worker-2")

	done := waitStatus(t, base, key, c.ID, 3*time.Minute, "succeeded")
	if done.TotalPages != site.Pages() {
		t.Errorf("totalPages = %d, want %d", done.TotalPages, site.Pages())
	}
	// Usage is counted where pages are stored: exactly once each, through
	// the kill.
	if _, used, _ := creditUsage(t, base, key); used != int64(site.Pages()) {
		t.Errorf("the team's usage counts %d pages, want %d", used, site.Pages())
	}
	stored := map[string]int{}
	for _, p := range allPages(t, base, key, c.ID) {
		stored[p.URL]++
	}
	logged := map[string]int{}
	for _, l := range allLogs(t, base, key, c.ID, 1200) {
		if l.Message == "Page crawled" {
			logged[fmt.Sprint(l.Data["url"])]++
		}
	}
	if len(stored) != site.Pages() || len(logged) != site.Pages() {
		t.Errorf("%d pages stored and %d logged, want %d", len(stored), len(logged), site.Pages())
	}
	for u, n := range stored {
		if n != 1 || logged[u] != 1 {
			t.Errorf("%s stored %d times, logged %d times", u, n, logged[u])
		}
	}
	st := site.Stats()
	t.Logf("killed after %d pages served; in the end %+v", atKill.Requests, st)
	// In flight: being fetched (at most the concurrency), or fetched and
	// waiting for the batch's writer (at most as many again).
	if st.Repeats > 2*concurrency {
		t.Errorf("%d pages fetched again after the kill; at most %d were in flight", st.Repeats, 2*concurrency)
	}
}
