package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/internal/testproxy"
	"github.com/durablecrawl/crawler/proxypool"
)

// TestFallbackPool: a batch rendered through the basic pool renders a
// page answered 403 there once more through the stealth pool, and keeps
// that answer, noted; a page answered well is rendered once.
func TestFallbackPool(t *testing.T) {
	b := launch(t, true)
	basic, _ := testproxy.NewTagged("basic")
	defer basic.Close()
	stealth, _ := testproxy.NewTagged("stealth")
	defer stealth.Close()
	pools, err := proxypool.Parse(fmt.Sprintf("basic=%s; stealth=%s", basic.URL, stealth.URL))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := map[string][]string{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pool := r.Header.Get("X-Proxy-Pool")
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		asked[r.URL.Path] = append(asked[r.URL.Path], pool)
		mu.Unlock()
		if r.URL.Path == "/guarded" && pool != "stealth" {
			http.Error(w, "Access denied", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><main><p>Served through %s.</p></main></body></html>", pool)
	}))
	defer site.Close()
	f := Fetcher{Browser: b}
	got := map[string]fetch.Result{}
	err = f.FetchAll(context.Background(), []string{site.URL + "/guarded", site.URL + "/open"},
		fetch.Batch{Parallelism: 2, Proxy: pools.Get(proxypool.Basic, ""), Fallback: pools.Get(proxypool.Stealth, "")},
		func(r fetch.Result) { mu.Lock(); got[r.URL] = r; mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	g, o := got[site.URL+"/guarded"], got[site.URL+"/open"]
	if g.StatusCode != 200 || !strings.Contains(string(g.Body), "Served through stealth.") || !g.Note.Blocked || g.Note.BlockedStatus != 403 {
		t.Errorf("the guarded page: %d %q, note %+v", g.StatusCode, g.Body, g.Note)
	}
	if o.StatusCode != 200 || !strings.Contains(string(o.Body), "Served through basic.") || o.Note.Blocked {
		t.Errorf("the open page: %d %q, note %+v", o.StatusCode, o.Body, o.Note)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked["/guarded"], ",") != "basic,stealth" || strings.Join(asked["/open"], ",") != "basic" {
		t.Errorf("the site was asked %v", asked)
	}
}
