package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/apiclient"
	teamusage "github.com/durablecrawl/crawler/usage"
)

// fakeAPI answers as the crawl API does, for one crawl "c1" that runs for
// two reads and then succeeds.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	keys   []string
	reads  int
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	mux := http.NewServeMux()
	progress := func(stored, queued int) string {
		return fmt.Sprintf(`{"queued":%d,"inProgress":1,"stored":%d,"failed":0,"skipped":0}`, queued, stored)
	}
	mux.HandleFunc("POST /crawls", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.keys = append(f.keys, r.Header.Get("Authorization"))
		n := len(f.bodies)
		f.mu.Unlock()
		if body["startUrl"] == "https://limited.example/" {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"code":"rate_limited","message":"this API key creates crawls too fast; retry in 7 s"}}`)
			return
		}
		if body["maxDepth"] == float64(0) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"code":"invalid_request","message":"the request has invalid fields","details":[{"field":"maxDepth","message":"must be an integer from 1 to 100"}]}}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":"c%d","status":"running","startUrl":%q,"maxResults":10,"totalPages":0,"createdAt":"2026-11-24T10:00:00Z"}`, n, body["startUrl"])
	})
	mux.HandleFunc("GET /crawls/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reads++
		n := f.reads
		f.mu.Unlock()
		switch {
		case r.PathValue("id") == "gone":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"crawl \"gone\" not found"}}`)
		case n <= 2:
			fmt.Fprintf(w, `{"id":"c1","status":"running","startUrl":"https://a.example/","maxResults":10,"totalPages":%d,"progress":%s}`, 4*n, progress(4*n, 6))
		default:
			fmt.Fprintf(w, `{"id":"c1","status":"succeeded","startUrl":"https://a.example/","maxResults":10,"totalPages":10,"durationInSeconds":3,"progress":%s}`, progress(10, 0))
		}
	})
	mux.HandleFunc("GET /crawls", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprint(w, `{"results":[{"id":"c0","status":"failed","startUrl":"https://b.example/","totalPages":0,"createdAt":"2026-11-23T09:00:00Z"}],"page":2,"limit":1,"totalPages":2,"totalResults":2,"next":null}`)
			return
		}
		fmt.Fprintf(w, `{"results":[{"id":"c1","status":"succeeded","startUrl":"https://a.example/","totalPages":10,"createdAt":"2026-11-24T10:00:00Z"}],"page":1,"limit":1,"totalPages":2,"totalResults":2,"next":"%s/crawls?limit=1&page=2"}`, f.URL)
	})
	mux.HandleFunc("GET /crawl-logs/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprint(w, `{"results":[{"level":"info","message":"Crawl succeeded","description":"10 pages.","createdAt":"2026-11-24T10:00:03Z"}],"page":2,"totalPages":2,"next":null}`)
			return
		}
		fmt.Fprintf(w, `{"results":[{"level":"info","message":"Crawl started","description":"From https://a.example/.","createdAt":"2026-11-24T10:00:00Z"}],"page":1,"totalPages":2,"next":"%s/crawl-logs/c1?limit=1000&page=2"}`, f.URL)
	})
	mux.HandleFunc("GET /crawls/{id}/pages", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprint(w, `{"results":[{"url":"https://a.example/b","markdown":"# B\n"}],"page":2,"totalPages":2,"next":null}`)
			return
		}
		fmt.Fprintf(w, `{"results":[{"url":"https://a.example/","markdown":"# A\n\nText."}],"page":1,"totalPages":2,"next":"%s/crawls/c1/pages?limit=100&page=2&raw=%s"}`, f.URL, r.URL.Query().Get("raw"))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// runClient runs a client command against f and returns its output.
func runClient(t *testing.T, f *fakeAPI, terminal bool, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := clientEnv{ctx: context.Background(), stdout: &out, stderr: &errOut, poll: time.Millisecond,
		terminal: func() bool { return terminal },
		getenv: func(k string) string {
			return map[string]string{"CRAWLER_API_URL": f.URL, "CRAWLER_API_KEY": "ck_env"}[k]
		}}
	err = clientCommands[args[0]](e, args[1:])
	return out.String(), errOut.String(), err
}

func TestCrawlCommandSendsOptions(t *testing.T) {
	f := newFakeAPI(t)
	out, _, err := runClient(t, f, false, "crawl", "https://a.example/", "--maxResults", "10", "--excludeNonMainTags=false",
		"--includeLinks", "--excludePaths", "/tag/*", "--excludePaths", "/page/*", "--engineType", "cheerio", "--timeout", "600")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"startUrl": "https://a.example/", "maxResults": float64(10), "excludeNonMainTags": false,
		"includeLinks": true, "excludePaths": []any{"/tag/*", "/page/*"}, "engineType": "cheerio", "timeout": float64(600)}
	if !reflect.DeepEqual(f.bodies[0], want) {
		t.Errorf("body %v,\nwant %v", f.bodies[0], want)
	}
	if f.keys[0] != "Bearer ck_env" || out != "crawl c1 created (https://a.example/)\n" {
		t.Errorf("key %q, output %q", f.keys[0], out)
	}
	// --api and --key win over the environment.
	if _, _, err := runClient(t, f, false, "crawl", "--key", "ck_flag", "--api", f.URL, "https://a.example/"); err != nil || f.keys[1] != "Bearer ck_flag" {
		t.Errorf("--key: %q, %v", f.keys[1], err)
	}
	// The kebab-case spellings, as command-line users type them, send the
	// same body.
	if _, _, err := runClient(t, f, false, "crawl", "https://a.example/", "--max-results", "10", "--exclude-non-main-tags=false",
		"--include-links", "--exclude-paths", "/tag/*", "--exclude-paths", "/page/*", "--engine-type", "cheerio", "--timeout", "600"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.bodies[2], want) {
		t.Errorf("kebab-case flags: body %v,\nwant %v", f.bodies[2], want)
	}
	var ue usageError
	for _, bad := range [][]string{{"crawl"}, {"crawl", "a", "b"}, {"crawl", "https://a.example/", "--maxResults", "ten"},
		{"crawl", "https://a.example/", "--max-results", "ten"}, {"crawl", "https://a.example/", "--colour", "red"}} {
		if _, _, err := runClient(t, f, false, bad...); !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

func TestCrawlCommandAPIErrors(t *testing.T) {
	f := newFakeAPI(t)
	_, _, err := runClient(t, f, false, "crawl", "https://a.example/", "--maxDepth", "0")
	var ae *apiclient.Error
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(err.Error(), "maxDepth: must be an integer from 1 to 100") {
		t.Errorf("invalid request: %v", err)
	}
	_, _, err = runClient(t, f, false, "crawl", "https://limited.example/")
	if !errors.As(err, &ae) || ae.Code != "rate_limited" || ae.RetryAfter != 7*time.Second || !strings.Contains(err.Error(), "retry in 7s") {
		t.Errorf("rate limited: %v", err)
	}
	_, _, err = runClient(t, f, false, "abort", "gone")
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("abort of an unknown crawl: %v", err)
	}
}

func TestCrawlCommandWaits(t *testing.T) {
	f := newFakeAPI(t)
	out, progress, err := runClient(t, f, false, "crawl", "https://a.example/", "--wait")
	if err != nil {
		t.Fatal(err)
	}
	wantProgress := "running: 4 stored, 6 queued, 1 in progress, 0 failed\nrunning: 8 stored, 6 queued, 1 in progress, 0 failed\n"
	if progress != wantProgress {
		t.Errorf("progress lines %q, want %q", progress, wantProgress)
	}
	wantOut := "crawl c1 created (https://a.example/)\ncrawl c1 succeeded: 10 pages in 3 s\n" +
		"results: crawler pages c1 --markdown > c1.md\nlog:     crawler logs c1\n"
	if out != wantOut {
		t.Errorf("output %q, want %q", out, wantOut)
	}

	f.reads = 0
	_, bar, err := runClient(t, f, true, "crawl", "https://a.example/", "--wait")
	if err != nil || !strings.Contains(bar, "\r[############..................] 4 stored") ||
		!strings.Contains(bar, "\r[########################......] 8 stored") || !strings.HasSuffix(bar, "\n") {
		t.Errorf("terminal progress %q (%v)", bar, err)
	}
}

func TestListCommands(t *testing.T) {
	f := newFakeAPI(t)
	out, _, err := runClient(t, f, false, "crawls", "--limit", "1", "--all")
	want := "ID  STATUS     PAGES  CREATED               START URL\n" +
		"c1  succeeded  10     2026-11-24T10:00:00Z  https://a.example/\n" +
		"c0  failed     0      2026-11-23T09:00:00Z  https://b.example/\n"
	if err != nil || out != want {
		t.Errorf("crawls: %v\n%s\nwant\n%s", err, out, want)
	}
	if out, _, _ := runClient(t, f, false, "crawls", "--limit", "1"); strings.Contains(out, "c0") {
		t.Errorf("without --all the second page was read: %s", out)
	}
	out, _, err = runClient(t, f, false, "logs", "c1")
	want = "2026-11-24T10:00:00Z  info   Crawl started: From https://a.example/.\n2026-11-24T10:00:03Z  info   Crawl succeeded: 10 pages.\n"
	if err != nil || out != want {
		t.Errorf("logs: %v\n%q\nwant\n%q", err, out, want)
	}
	out, _, err = runClient(t, f, false, "pages", "c1", "--markdown")
	want = "<!-- https://a.example/ -->\n# A\n\nText.\n\n<!-- https://a.example/b -->\n# B\n\n"
	if err != nil || out != want {
		t.Errorf("pages --markdown: %v\n%q\nwant\n%q", err, out, want)
	}
	out, _, err = runClient(t, f, false, "pages", "c1")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[1], `"https://a.example/b"`) {
		t.Errorf("pages as JSON lines: %v\n%s", err, out)
	}
}

// TestHelpListsTheFlags: --help (or -h) after a command prints its usage
// and flags to stdout and ends without error; a wrong use still is one.
func TestHelpListsTheFlags(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"crawl", "--help"}, []string{"usage: crawler crawl URL", "--max-results", "--exclude-non-main-tags", "--wait", "--api"}},
		{[]string{"crawl", "https://example.com/", "-h"}, []string{"usage: crawler crawl URL"}},
		{[]string{"crawls", "--help"}, []string{"usage: crawler crawls", "-status"}},
		{[]string{"logs", "--help"}, []string{"usage: crawler logs ID", "-follow"}},
		{[]string{"pages", "--help"}, []string{"usage: crawler pages ID", "-markdown"}},
		{[]string{"abort", "--help"}, []string{"usage: crawler abort ID"}},
		{[]string{"worker", "--help"}, []string{"usage: crawler worker", "-browser"}},
	}
	for _, c := range cases {
		var out, errOut strings.Builder
		if err := run(c.args, &out, &errOut); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: the help lacks %q:\n%s", c.args, w, out.String())
			}
		}
		if camel := regexp.MustCompile(`--[a-z]+[A-Z]`).FindString(out.String()); camel != "" {
			t.Errorf("%v: the help shows %q, a camelCase spelling", c.args, camel)
		}
	}
	var out, errOut strings.Builder
	var ue usageError
	if err := run([]string{"logs"}, &out, &errOut); !errors.As(err, &ue) {
		t.Errorf("logs without an ID: %v, want a usage error", err)
	}
}

// TestSetQuotaFlags: a flag given sets its bound, none lifts it, one not
// given leaves it; a bad value or no flag is a usage error.
func TestSetQuotaFlags(t *testing.T) {
	pages, conc := int64(9), 3
	q := teamusage.Quota{MonthlyPages: &pages, Concurrency: &conc}
	if err := setQuotaFlags(&q, "", "5000", "none"); err != nil {
		t.Fatal(err)
	}
	if q.MonthlyPages == nil || *q.MonthlyPages != 9 || q.MonthlyTokens == nil || *q.MonthlyTokens != 5000 || q.Concurrency != nil {
		t.Errorf("quota %+v", q)
	}
	for _, bad := range [][3]string{{"", "", ""}, {"-1", "", ""}, {"", "", "0"}, {"ten", "", ""}} {
		var ue usageError
		if err := setQuotaFlags(&q, bad[0], bad[1], bad[2]); !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}
