package config_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c, err := config.LoadFrom(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.AllowPrivateNetworks || c.TemporalAddress != "127.0.0.1:7233" ||
		c.TemporalNamespace != "default" || !strings.HasPrefix(c.DatabaseURL, "postgres://") {
		t.Errorf("defaults: %+v", c)
	}
}

func TestOverrides(t *testing.T) {
	c, err := config.LoadFrom(env(map[string]string{
		"CRAWLER_HTTP_ADDR": "0.0.0.0:9000", "CRAWLER_ALLOW_PRIVATE_NETWORKS": "true",
		"CRAWLER_PAGE_TIMEOUT": "5s", "CRAWLER_MAX_CONCURRENT_PAGES": "4", "CRAWLER_DEFAULT_CONCURRENT_PAGES": "16",
		"CRAWLER_TEMPORAL_UI_URL": "http://127.0.0.1:8233/",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "0.0.0.0:9000" || !c.AllowPrivateNetworks || c.PageTimeout != 5*time.Second {
		t.Errorf("overrides not applied: %+v", c)
	}
	if c.TemporalUIURL != "http://127.0.0.1:8233" {
		t.Errorf("Temporal UI %q, want it without its trailing slash", c.TemporalUIURL)
	}
	if c.DefaultConcurrentPages != 4 {
		t.Errorf("default concurrency %d above the server limit 4", c.DefaultConcurrentPages)
	}
}

func TestInvalidValues(t *testing.T) {
	for k, v := range map[string]string{
		"CRAWLER_ALLOW_PRIVATE_NETWORKS": "maybe",
		"CRAWLER_MAX_CONCURRENT_PAGES":   "many",
		"CRAWLER_PAGE_TIMEOUT":           "30",
		"CRAWLER_MAX_PAGES_PER_CRAWL":    "0",
		"CRAWLER_TEMPORAL_UI_URL":        "javascript:alert(1)",
	} {
		if _, err := config.LoadFrom(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: err = %v, want an error naming the variable", k, v, err)
		}
	}
}

// TestDocsDocumentEveryVariable keeps the configuration table (docs/configuration.md)
// complete.
func TestDocsDocumentEveryVariable(t *testing.T) {
	readme, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range config.Variables() {
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("docs/configuration.md does not document %s", name)
		}
	}
}

func TestLLMSettings(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		provider string
		key      string
		fails    string
	}{
		{"none", nil, "", "", ""},
		{"an OpenAI-compatible server needs only its URL and model",
			map[string]string{"CRAWLER_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "CRAWLER_LLM_MODEL": "local"}, "openai", "", ""},
		{"an OpenAI-compatible server with OPENAI_API_KEY",
			map[string]string{"CRAWLER_LLM_BASE_URL": "https://llm.example/v1", "CRAWLER_LLM_MODEL": "m", "OPENAI_API_KEY": "o-key"},
			"openai", "o-key", ""},
		{"the provider's own key variable",
			map[string]string{"CRAWLER_LLM_PROVIDER": "Anthropic", "CRAWLER_LLM_MODEL": "m", "ANTHROPIC_API_KEY": "a-key", "OPENAI_API_KEY": "o-key"},
			"anthropic", "a-key", ""},
		{"CRAWLER_LLM_API_KEY first",
			map[string]string{"CRAWLER_LLM_PROVIDER": "openai", "CRAWLER_LLM_MODEL": "m", "CRAWLER_LLM_API_KEY": "c-key", "OPENAI_API_KEY": "o-key"},
			"openai", "c-key", ""},
		{"ollama needs no key", map[string]string{"CRAWLER_LLM_PROVIDER": "ollama", "CRAWLER_LLM_MODEL": "llama3"}, "ollama", "", ""},
		{"unknown provider", map[string]string{"CRAWLER_LLM_PROVIDER": "acme", "CRAWLER_LLM_MODEL": "m"}, "", "", "CRAWLER_LLM_PROVIDER"},
		{"no model", map[string]string{"CRAWLER_LLM_PROVIDER": "ollama"}, "", "", "CRAWLER_LLM_MODEL"},
		{"no key for OpenAI itself", map[string]string{"CRAWLER_LLM_PROVIDER": "openai", "CRAWLER_LLM_MODEL": "m"}, "", "", "OPENAI_API_KEY"},
		{"context too small", map[string]string{"CRAWLER_LLM_PROVIDER": "ollama", "CRAWLER_LLM_MODEL": "m",
			"CRAWLER_LLM_CONTEXT_TOKENS": "1024", "CRAWLER_LLM_MAX_TOKENS": "1000"}, "", "", "CRAWLER_LLM_CONTEXT_TOKENS"},
		{"rate not a number", map[string]string{"CRAWLER_LLM_RATE": "fast"}, "", "", "CRAWLER_LLM_RATE"},
		{"bad base URL", map[string]string{"CRAWLER_LLM_BASE_URL": "localhost:8000", "CRAWLER_LLM_MODEL": "m"}, "", "", "CRAWLER_LLM_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.LoadFrom(env(tt.vars))
			if tt.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tt.fails) {
					t.Fatalf("err = %v, want one naming %s", err, tt.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.LLM.Provider != tt.provider || c.LLM.APIKey != tt.key || c.LLM.Enabled() != (tt.provider != "") {
				t.Errorf("provider %q key %q enabled %v; want %q %q", c.LLM.Provider, c.LLM.APIKey, c.LLM.Enabled(), tt.provider, tt.key)
			}
		})
	}
}
