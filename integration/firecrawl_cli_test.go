package integration

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// firecrawlCLI runs Firecrawl's CLI (firecrawl-cli, pinned in
// tools/firecrawl) against the service with args, in a home of its own,
// and returns what it printed and whether it succeeded.
func firecrawlCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	clients := os.Getenv("CRAWLER_FIRECRAWL_CLIENTS")
	if clients == "" {
		t.Fatal("CRAWLER_FIRECRAWL_CLIENTS is not set: make test installs Firecrawl's clients (ensure_firecrawl_clients in scripts/lib.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(clients, "node_modules", "firecrawl-cli", "dist", "index.js")}, args...)...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "FIRECRAWL_API_URL="+env.api, "FIRECRAWL_API_KEY="+env.keyA,
		"FIRECRAWL_NO_TELEMETRY=1", "NO_COLOR=1", "CI=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestFirecrawlCLI: Firecrawl's own CLI, pointed at the service by
// FIRECRAWL_API_URL, scrapes, crawls, reads a crawl's status, maps a site
// and reports a refusal.
func TestFirecrawlCLI(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(firecrawlSite())
	defer site.Close()

	out, err := firecrawlCLI(t, "scrape", site.URL+"/s1/p1")
	if err != nil || !strings.Contains(out, "Page 1 of section 1") {
		t.Errorf("scrape: %v\n%s", err, out)
	}
	// A page answered 403 with a body is scraped, as Firecrawl does: the
	// CLI prints its text and its status.
	out, err = firecrawlCLI(t, "scrape", site.URL+"/forbidden", "--format", "markdown", "--json")
	var denied struct {
		Markdown string `json:"markdown"`
		Metadata struct {
			StatusCode int `json:"statusCode"`
		} `json:"metadata"`
	}
	if err != nil || json.Unmarshal([]byte(jsonPart(out)), &denied) != nil || !strings.Contains(denied.Markdown, "Sign in to read") || denied.Metadata.StatusCode != 403 {
		t.Errorf("scrape of a page answered 403: %v\n%s", err, out)
	}
	out, err = firecrawlCLI(t, "scrape", site.URL+"/meta", "--format", "markdown,links", "--json")
	var doc struct {
		Markdown string   `json:"markdown"`
		Links    []string `json:"links"`
	}
	if err != nil || json.Unmarshal([]byte(jsonPart(out)), &doc) != nil || !strings.Contains(doc.Markdown, "Harbour guide") || len(doc.Links) != 3 {
		t.Errorf("scrape with formats: %v\n%s", err, out)
	}
	out, err = firecrawlCLI(t, "crawl", site.URL+"/", "--wait", "--limit", "5", "--poll-interval", "1", "--sitemap", "skip")
	var job struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Data   []struct {
			Markdown string `json:"markdown"`
		} `json:"data"`
	}
	if err != nil || json.Unmarshal([]byte(jsonPart(out)), &job) != nil || job.Status != "completed" || len(job.Data) != 5 {
		t.Errorf("crawl: %v\n%.2000s", err, out)
	}
	if job.ID != "" {
		out, err = firecrawlCLI(t, "crawl", job.ID, "--status")
		if err != nil || !strings.Contains(out, "completed") {
			t.Errorf("crawl --status: %v\n%.1000s", err, out)
		}
	}
	out, err = firecrawlCLI(t, "map", site.URL+"/", "--limit", "20", "--json")
	var m struct {
		Success bool `json:"success"`
		Data    struct {
			Links []struct {
				URL string `json:"url"`
			} `json:"links"`
		} `json:"data"`
	}
	if err != nil || json.Unmarshal([]byte(jsonPart(out)), &m) != nil || !m.Success || len(m.Data.Links) != 20 {
		t.Errorf("map: %v\n%.2000s", err, out)
	}
	out, err = firecrawlCLI(t, "scrape", "ftp://example.com/file")
	if err == nil || !strings.Contains(out, "url") {
		t.Errorf("a URL that is not http: %v\n%s", err, out)
	}
}

// jsonPart is the JSON object in a command's output, after whatever it
// printed before it.
func jsonPart(out string) string {
	if i := strings.Index(out, "{"); i >= 0 {
		return out[i:]
	}
	return out
}
