package integration

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/internal/testsite"
)

// crawlDense crawls a link-dense site whole and checks the outcome from
// the site's side and the API's: every page stored once, logged once,
// fetched once.
func crawlDense(t *testing.T, site *testsite.Site, url string, body map[string]any) crawlObj {
	t.Helper()
	body["startUrl"], body["entireWebsite"] = url+"/", true
	c := create(t, env.api, env.keyA, body)
	done := waitStatus(t, env.api, env.keyA, c.ID, 10*time.Minute, "succeeded")
	if done.TotalPages != site.Pages() {
		t.Errorf("totalPages = %d, want %d", done.TotalPages, site.Pages())
	}
	logs := allLogs(t, env.api, env.keyA, c.ID, 1200)
	perURL := map[string]int{}
	for _, l := range logs {
		if l.Message == "Page crawled" {
			perURL[fmt.Sprint(l.Data["url"])]++
		}
	}
	if len(perURL) != site.Pages() {
		t.Errorf("%d pages have a 'Page crawled' entry, want %d", len(perURL), site.Pages())
	}
	for u, n := range perURL {
		if n != 1 {
			t.Errorf("%s logged %d times", u, n)
		}
	}
	return done
}

// TestLinkDenseSite crawls two real-shaped sites at once, at concurrency
// 16 and 32: shared navigation, cross links, siblings linking each other.
// Nothing may deadlock, and no page may be fetched twice.
func TestLinkDenseSite(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for _, concurrency := range []int{16, 32} {
		site := testsite.New(testsite.Options{Pages: 1500})
		srv := httptest.NewServer(site)
		defer srv.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(fmt.Sprintf("concurrency=%d", concurrency), func(t *testing.T) {
				began := time.Now()
				crawlDense(t, site, srv.URL, map[string]any{"maxConcurrentPages": concurrency})
				st := site.Stats()
				t.Logf("%d pages in %v; site stats %+v", site.Pages(), time.Since(began).Round(time.Millisecond), st)
				if st.Repeats != 0 {
					t.Errorf("%d repeat fetches (most: %s, %d times)", st.Repeats, st.MostServed, st.MostServedTimes)
				}
			})
		}()
	}
	wg.Wait()
}

// TestFlakySite crawls a site that answers 429 or 503 (some with
// Retry-After) to about one request in ten and resets about one
// connection in twenty: every page is still stored, no page fails, and
// every failed request of a page is a warn entry of that page's, a reset
// on a kept-alive connection that Go's client sent again at once too.
func TestFlakySite(t *testing.T) {
	t.Parallel()
	site := testsite.New(testsite.Options{Pages: 300, FailOneIn: 10, ResetOneIn: 20})
	srv := httptest.NewServer(site)
	defer srv.Close()
	c := crawlDense(t, site, srv.URL, map[string]any{"maxConcurrentPages": 16, "excludeNonMainTags": false, "deduplicateContent": false})
	st := site.Stats()
	logs := allLogs(t, env.api, env.keyA, c.ID, 1200)
	retries, failed := 0, 0
	perPage := map[string]int{}
	for _, l := range logs {
		switch l.Message {
		case "Page retried":
			retries++
			if l.Level != "warn" || l.Data["attempt"] == nil || l.Data["url"] == nil {
				t.Errorf("retry entry %+v", l)
			}
			u, _ := l.Data["url"].(string)
			times, ok := l.Data["times"].(float64) // an entry for requests sent again at once
			if !ok {
				times = 1
			}
			perPage[strings.TrimPrefix(u, srv.URL)] += int(times)
		case "Page failed":
			failed++
		}
	}
	t.Logf("site: %+v; %d retry entries", st, retries)
	if st.Failures == 0 || st.Resets == 0 {
		t.Fatalf("the site did not misbehave: %+v", st)
	}
	// Every 429, 503 and reset is told in its page's log: a retry of the
	// crawl's, or (a reset on a kept-alive connection) a request Go's
	// client sent again at once.
	faults := site.Faults()
	for path, n := range faults {
		if perPage[path] != n {
			t.Errorf("%s: %d failed requests, %d told in its log", path, n, perPage[path])
		}
	}
	for path, n := range perPage {
		if faults[path] == 0 {
			t.Errorf("%s: %d retries told, but the site failed none of its requests", path, n)
		}
	}
	if failed != 0 {
		t.Errorf("%d pages failed", failed)
	}
	if st.Repeats != 0 {
		t.Errorf("%d pages were served twice", st.Repeats)
	}
}
