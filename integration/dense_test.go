package integration

import (
	"fmt"
	"net/http/httptest"
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
