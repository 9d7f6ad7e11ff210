package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/hostbudget"
)

// politeLimits are the host budget of the polite deployment's two
// workers: small, so that a crowd of crawls runs into it.
var politeLimits = hostbudget.Limits{MaxInFlight: 6, Rate: 60}

// politeWorkers is how many workers the polite deployment runs.
const politeWorkers = 2

// crowdSite is a site of pages /p/0 … /p/n-1, each linking to all the
// others, whose server counts the requests in flight and those of each
// second. Even pages answer slowly (the in-flight bound binds), odd ones
// at once (the rate binds). With throttleAt > 0, the throttleAt-th page
// request and every one for retryAfter after it answer 429 with
// Retry-After.
type crowdSite struct {
	*httptest.Server
	pages      int
	throttleAt int
	retryAfter time.Duration

	mu             sync.Mutex
	inFlight       int
	peak           int
	perSecond      map[int64]int
	requests       int
	throttledAt    time.Time
	duringThrottle []time.Duration // arrivals during the back-off, after the first 429
}

func newCrowdSite(t *testing.T, pages, throttleAt int, retryAfter time.Duration) *crowdSite {
	s := &crowdSite{pages: pages, throttleAt: throttleAt, retryAfter: retryAfter, perSecond: map[int64]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *crowdSite) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	s.mu.Lock()
	s.inFlight++
	s.peak = max(s.peak, s.inFlight)
	s.perSecond[now.Unix()]++
	s.requests++
	throttle := false
	if s.throttleAt > 0 && r.URL.Path != "/robots.txt" {
		switch {
		case s.throttledAt.IsZero() && s.requests >= s.throttleAt:
			s.throttledAt, throttle = now, true
		case !s.throttledAt.IsZero() && now.Sub(s.throttledAt) < s.retryAfter:
			s.duringThrottle = append(s.duringThrottle, now.Sub(s.throttledAt))
			throttle = true
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		return
	}
	if throttle {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.retryAfter/time.Second)))
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	}
	n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
	if r.URL.Path == "/" {
		n, err = 0, nil
	}
	if err != nil || n < 0 || n >= s.pages {
		http.NotFound(w, r)
		return
	}
	if n%2 == 0 {
		time.Sleep(150 * time.Millisecond)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>Page %d</title></head><body><main><h1>Page %d</h1><p>Text of page %d.</p><ul>", n, n, n)
	for i := range s.pages {
		fmt.Fprintf(&b, `<li><a href="/p/%d">page %d</a></li>`, i, i)
	}
	b.WriteString("</ul></main></body></html>")
	fmt.Fprint(w, b.String())
}

// crawlAll starts n crawls of the whole site at 32 pages in flight each on
// the polite deployment, waits until every one has succeeded with every
// page, and returns their IDs.
func (s *crowdSite) crawlAll(t *testing.T, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = create(t, env.politeAPI, env.keyA, map[string]any{"startUrl": s.URL + "/p/0",
			"maxConcurrentPages": 32, "maxResults": s.pages}).ID
	}
	for _, id := range ids {
		c := waitStatus(t, env.politeAPI, env.keyA, id, 3*time.Minute, "succeeded")
		if c.TotalPages != s.pages {
			t.Errorf("crawl %s stored %d pages, want %d", id, c.TotalPages, s.pages)
		}
	}
	return ids
}

// TestHostBudgetCrowd: twenty crawls of one site at 32 pages in flight
// each, run by two workers, send it no more than the host's budget: at
// most politeLimits.MaxInFlight requests at once, politeLimits.Rate in
// any second. All of them finish with every page.
func TestHostBudgetCrowd(t *testing.T) {
	t.Parallel()
	const crawls, pages = 20, 24
	site := newCrowdSite(t, pages, 0, 0)
	site.crawlAll(t, crawls)
	site.mu.Lock()
	defer site.mu.Unlock()
	busiest := 0
	for _, n := range site.perSecond {
		busiest = max(busiest, n)
	}
	t.Logf("%d requests; peak %d in flight (budget %d); busiest second %d (budget %v/s); %d seconds",
		site.requests, site.peak, politeLimits.MaxInFlight, busiest, politeLimits.Rate, len(site.perSecond))
	if site.peak > politeLimits.MaxInFlight {
		t.Errorf("the site saw %d requests at once, over the budget of %d", site.peak, politeLimits.MaxInFlight)
	}
	// Each worker keeps its own turns, within its share of the rate; at a
	// hand-over of shares between the two, one turn each may fall in the
	// same second as the other's last: the bound is the budget plus one a
	// worker.
	if busiest > int(politeLimits.Rate)+politeWorkers {
		t.Errorf("the site saw %d requests in one second, over the budget of %v (+%d at hand-overs)", busiest, politeLimits.Rate, politeWorkers)
	}
	// Not a budget that holds by doing nothing: the crawls used it.
	if site.peak < politeLimits.MaxInFlight-1 || busiest < int(politeLimits.Rate)/2 {
		t.Errorf("peak %d in flight, busiest second %d: the crawls never came near the budget", site.peak, busiest)
	}
}

// TestHostBudgetBackoff: a site that starts answering 429 with
// Retry-After is left alone by every crawl (on either worker) until it
// has passed; the crawls say in their logs why they wait, retry the pages
// and finish.
func TestHostBudgetBackoff(t *testing.T) {
	t.Parallel()
	const crawls, pages = 4, 30
	retryAfter := 3 * time.Second
	site := newCrowdSite(t, pages, 30, retryAfter)
	ids := site.crawlAll(t, crawls)
	site.mu.Lock()
	at, during := site.throttledAt, site.duringThrottle
	site.mu.Unlock()
	if at.IsZero() {
		t.Fatal("the site never answered 429")
	}
	// Requests already on their way when the first 429 left the server
	// arrive within a moment of it; none may start later.
	const onTheirWay = 100 * time.Millisecond
	for _, d := range during {
		if d > onTheirWay {
			t.Errorf("a request arrived %v after the 429 with Retry-After %v", d, retryAfter)
		}
	}
	t.Logf("%d requests arrived within %v of the 429", len(during), onTheirWay)
	waited := 0
	for _, id := range ids {
		for _, l := range allLogs(t, env.politeAPI, env.keyA, id, 500) {
			if l.Message == "Waiting for the site" {
				waited++
				if !strings.Contains(l.Description, "429") || l.Data["host"] != strings.TrimPrefix(site.URL, "http://") {
					t.Errorf("crawl %s: %q %v", id, l.Description, l.Data)
				}
				break
			}
		}
	}
	if waited == 0 {
		t.Error("no crawl's log says it waited for the site")
	}
	t.Logf("%d of %d crawls logged their wait", waited, crawls)
}
