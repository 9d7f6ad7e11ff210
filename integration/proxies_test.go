package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// seenMu guards TestProxyPools' record of what its site was asked.
var seenMu sync.Mutex

// TestProxyPools: Firecrawl's proxy and location country go through the
// operator's pools: basic through the basic proxies, stealth through the
// stealth ones, a country through its pool, and auto through the basic
// pool, a page answered 403 there fetched again through the stealth pool
// (and logged so); a kind without a pool is refused naming proxy.
func TestProxyPools(t *testing.T) {
	t.Parallel()
	var seen = map[string][]string{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pool := r.Header.Get("X-Proxy-Pool")
		seenMu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], pool)
		seenMu.Unlock()
		if r.URL.Path == "/guarded" && pool != "stealth" {
			http.Error(w, "Access denied", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>Through %q</h1><p>The page %s, as the pool %q brought it.</p></main></body></html>",
			r.URL.Path, pool, r.URL.Path, pool)
	}))
	defer site.Close()
	scrape := func(path string, extra map[string]any) (int, string) {
		body := map[string]any{"url": site.URL + path, "formats": []string{"markdown"}}
		for k, v := range extra {
			body[k] = v
		}
		var out struct {
			Data struct {
				Markdown string `json:"markdown"`
			} `json:"data"`
			Error string `json:"error"`
		}
		code, raw := call(t, "POST", env.proxyAPI+"/v2/scrape", env.keyA, body, &out)
		if code != 200 {
			return code, string(raw)
		}
		return code, out.Data.Markdown
	}
	for _, c := range []struct {
		path  string
		extra map[string]any
		want  string
	}{
		{"/basic", map[string]any{"proxy": "basic"}, `Through "basic"`},
		{"/stealth", map[string]any{"proxy": "stealth"}, `Through "stealth"`},
		{"/german", map[string]any{"proxy": "stealth", "location": map[string]any{"country": "DE"}}, `Through "stealth@DE"`},
		{"/auto", nil, `Through "basic"`},
		{"/guarded", map[string]any{"proxy": "auto"}, `Through "stealth"`},
	} {
		if code, md := scrape(c.path, c.extra); code != 200 || !strings.Contains(md, c.want) {
			t.Errorf("%s %v: %d %.300s, want %s", c.path, c.extra, code, md, c.want)
		}
	}
	seenMu.Lock()
	guarded := strings.Join(seen["/guarded"], ",")
	seenMu.Unlock()
	if guarded != "basic,stealth" {
		t.Errorf("/guarded was asked through %q, want the basic pool, then the stealth one", guarded)
	}
	for _, name := range []string{"basic", "stealth", "stealth@DE"} {
		if env.poolHits[name].Load() == 0 {
			t.Errorf("the %s proxy carried nothing", name)
		}
	}
	// A kind or a country the operator has no pool for.
	for extra, field := range map[string]map[string]any{
		"proxy":            {"proxy": "enhanced"},
		"location.country": {"proxy": "basic", "location": map[string]any{"country": "FR"}},
	} {
		if code, raw := scrape("/refused", field); code != 400 || !strings.Contains(raw, extra) || !strings.Contains(raw, "CRAWLER_PROXY_POOLS") {
			t.Errorf("%v: %d %s, want a 400 naming %s", field, code, raw, extra)
		}
	}
}
