package api

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAPIDoesNotLinkTheEngine: the API starts and steers crawls through
// package crawlflow; the engines (colly, Chromium's driver, the LLM
// clients) stay out of its binary's dependencies.
func TestAPIDoesNotLinkTheEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, engine := range []string{"github.com/gocolly/colly", "github.com/playwright-community/playwright-go", "github.com/tmc/langchaingo",
			"github.com/durablecrawl/crawler/workflows", "github.com/durablecrawl/crawler/activities"} {
			if strings.HasPrefix(dep, engine) {
				t.Errorf("package api depends on %s", dep)
			}
		}
	}
}
