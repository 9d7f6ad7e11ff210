package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestFirecrawlMonitors runs Firecrawl's own SDK's monitor calls against
// the service: a monitor is a schedule of crawls of its target, each check
// a crawl comparing with the last, its pages the changes.
func TestFirecrawlMonitors(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("CRAWLER_FIRECRAWL_CLIENTS")
	if clients == "" {
		t.Fatal("CRAWLER_FIRECRAWL_CLIENTS is not set: make test installs Firecrawl's SDK (ensure_firecrawl_clients in scripts/lib.sh)")
	}
	site := newTrackedSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	report := nodeReport(ctx, t, "the SDK", nil, filepath.Join(clients, "monitor.mjs"), env.api, env.keyA, site.URL)
	read := func(name string, v any) {
		t.Helper()
		if err := json.Unmarshal(report[name], v); err != nil {
			t.Fatalf("%s: %s: %v", name, report[name], err)
		}
	}
	type monitor struct {
		ID       string            `json:"id"`
		Status   string            `json:"status"`
		Schedule map[string]string `json:"schedule"`
		Targets  []struct {
			Type, URL string
		} `json:"targets"`
		NextRunAt *string `json:"nextRunAt"`
		Thrown    bool    `json:"thrown"`
	}
	var created monitor
	read("create", &created)
	if created.Thrown || created.Status != "active" || created.Schedule["cron"] != "0 3 * * *" || created.Schedule["timezone"] != "Europe/Paris" ||
		len(created.Targets) != 1 || created.Targets[0].URL != site.URL+"/" || created.NextRunAt == nil {
		t.Fatalf("created monitor: %s", report["create"])
	}
	type summary struct {
		TotalPages, Same, Changed, New, Removed, Error int
	}
	type check struct {
		ID      string  `json:"id"`
		Status  string  `json:"status"`
		Trigger string  `json:"trigger"`
		Summary summary `json:"summary"`
	}
	var run1, first, second check
	read("firstRun", &run1)
	read("firstCheck", &first)
	read("secondCheck", &second)
	if run1.Trigger != "manual" || run1.ID != first.ID {
		t.Errorf("runMonitor answered %s, the first check is %s", report["firstRun"], report["firstCheck"])
	}
	if first.Status != "completed" || first.Summary != (summary{TotalPages: 9, New: 9}) {
		t.Errorf("first check: %s", report["firstCheck"])
	}
	// The failed page is /tracked/new, not there in the first version.
	if second.Status != "completed" || second.Summary != (summary{TotalPages: 10, Same: 4, Changed: 3, New: 1, Removed: 2}) {
		t.Errorf("second check: %s", report["secondCheck"])
	}
	var detail struct {
		Pages []struct {
			URL    string  `json:"url"`
			Status string  `json:"status"`
			Diff   *string `json:"diff"`
		} `json:"pages"`
	}
	read("detail", &detail)
	statuses := map[string]string{}
	for _, p := range detail.Pages {
		statuses[p.URL] = p.Status
		if (p.Status == "changed") != (p.Diff != nil && strings.Contains(*p.Diff, "@@")) {
			t.Errorf("%s is %s with diff %v", p.URL, p.Status, p.Diff)
		}
	}
	want := map[string]string{"/": "changed", "/tracked/etag-same": "same", "/tracked/etag-edit": "changed",
		"/tracked/lm-same": "same", "/tracked/plain-same": "same", "/tracked/plain-script": "same",
		"/tracked/plain-edit": "changed", "/tracked/new": "new", "/tracked/gone": "removed", "/tracked/orphan": "removed"}
	if len(statuses) != len(want) {
		t.Errorf("the check's pages (read through next, 3 at a time): %v, want %v", statuses, want)
	}
	for path, s := range want {
		if statuses[path] != s {
			t.Errorf("%s: %q, want %q", path, statuses[path], s)
		}
	}
	var changed []string
	read("onlyChanged", &changed)
	sort.Strings(changed)
	if strings.Join(changed, " ") != "/ /tracked/etag-edit /tracked/plain-edit" {
		t.Errorf("the changed pages: %v", changed)
	}
	var paused monitor
	read("get", &paused)
	if paused.Status != "paused" {
		t.Errorf("after pausing: %s", report["get"])
	}
	var listed []string
	read("list", &listed)
	found := false
	for _, id := range listed {
		found = found || id == created.ID
	}
	if !found {
		t.Errorf("listMonitors: %v lacks %s", listed, created.ID)
	}
	for name, field := range map[string]string{"badCron": "schedule.cron", "scrapeTarget": "targets[0].type"} {
		var th struct {
			Thrown  bool   `json:"thrown"`
			Status  int    `json:"status"`
			Message string `json:"message"`
		}
		read(name, &th)
		if !th.Thrown || th.Status != http.StatusBadRequest || !strings.Contains(th.Message, field) {
			t.Errorf("%s: %s, want a 400 naming %s", name, report[name], field)
		}
	}
	var gone struct {
		Thrown bool `json:"thrown"`
		Status int  `json:"status"`
	}
	read("gone", &gone)
	if !gone.Thrown || gone.Status != http.StatusNotFound {
		t.Errorf("a deleted monitor: %s", report["gone"])
	}
	// Its checks are crawls, readable after it is deleted.
	if pages := allPages(t, env.api, env.keyA, second.ID); len(pages) != 8 {
		t.Errorf("the second check's crawl has %d pages, want 8", len(pages))
	}
}
