package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/config"
)

// secretKey is the API key of these tests: no error may contain it.
const secretKey = "tmprl-very-secret-api-key"

func TestConnectionAndWorkerDefaults(t *testing.T) {
	c, err := config.LoadFrom(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config.WorkerTuning{ActivitySlots: 16, WorkflowTaskSlots: 1000, ActivityPollers: 2, WorkflowPollers: 2, BrowserActivitySlots: 2}
	if c.Worker != want {
		t.Errorf("worker tuning %+v, want %+v", c.Worker, want)
	}
	if c.ShutdownTimeout != 30*time.Second || c.LogFormat != "text" {
		t.Errorf("shutdown timeout %v, log format %q; want 30s, text", c.ShutdownTimeout, c.LogFormat)
	}
	if c.Temporal.APIKey != "" || c.Temporal.TLS != nil || c.Temporal.Address != "127.0.0.1:7233" || c.Temporal.Namespace != "default" {
		t.Errorf("temporal profile %+v, want plain 127.0.0.1:7233 in default", c.Temporal)
	}
}

func TestConnectionAndWorkerSettings(t *testing.T) {
	c, err := config.LoadFrom(env(map[string]string{
		"TEMPORAL_ADDRESS": "my-ns.a1b2c.tmprl.cloud:7233", "TEMPORAL_NAMESPACE": "my-ns.a1b2c",
		"TEMPORAL_API_KEY": secretKey, "TEMPORAL_TLS_SERVER_NAME": "frontend.internal",
		"CRAWLER_WORKER_ACTIVITY_SLOTS": "64", "CRAWLER_WORKER_WORKFLOW_SLOTS": "200",
		"CRAWLER_WORKER_ACTIVITY_POLLERS": "8", "CRAWLER_WORKER_WORKFLOW_POLLERS": "4",
		"CRAWLER_WORKER_BROWSER_ACTIVITY_SLOTS": "3", "CRAWLER_SHUTDOWN_TIMEOUT": "2m", "CRAWLER_LOG_FORMAT": "JSON",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TemporalAddress != "my-ns.a1b2c.tmprl.cloud:7233" || c.TemporalNamespace != "my-ns.a1b2c" ||
		c.Temporal.Address != c.TemporalAddress || c.Temporal.Namespace != c.TemporalNamespace {
		t.Errorf("address %q namespace %q, profile %q %q", c.TemporalAddress, c.TemporalNamespace, c.Temporal.Address, c.Temporal.Namespace)
	}
	if c.Temporal.APIKey != secretKey || c.Temporal.TLS == nil || c.Temporal.TLS.Disabled || c.Temporal.TLS.ServerName != "frontend.internal" {
		t.Errorf("API key set %v, TLS %+v", c.Temporal.APIKey == secretKey, c.Temporal.TLS)
	}
	want := config.WorkerTuning{ActivitySlots: 64, WorkflowTaskSlots: 200, ActivityPollers: 8, WorkflowPollers: 4, BrowserActivitySlots: 3}
	if c.Worker != want || c.ShutdownTimeout != 2*time.Minute || c.LogFormat != "json" {
		t.Errorf("tuning %+v, shutdown %v, log format %q", c.Worker, c.ShutdownTimeout, c.LogFormat)
	}
}

// TestConnectionAndWorkerErrors: each bad value is refused with an error
// naming its variable, and no error holds the API key set beside it.
func TestConnectionAndWorkerErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	brokenFile := filepath.Join(dir, "broken.toml")
	// An unterminated string holding the key: the parse error must not
	// quote it.
	if err := os.WriteFile(brokenFile, []byte("[profile.default]\napi_key = \""+secretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	goodFile := filepath.Join(dir, "temporal.toml")
	if err := os.WriteFile(goodFile, []byte("[profile.prod]\naddress = \"prod:7233\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		vars  map[string]string
		names string
	}{
		{map[string]string{"CRAWLER_WORKER_ACTIVITY_SLOTS": "0"}, "CRAWLER_WORKER_ACTIVITY_SLOTS"},
		{map[string]string{"CRAWLER_WORKER_ACTIVITY_SLOTS": "many"}, "CRAWLER_WORKER_ACTIVITY_SLOTS"},
		{map[string]string{"CRAWLER_WORKER_WORKFLOW_SLOTS": "1"}, "CRAWLER_WORKER_WORKFLOW_SLOTS"},
		{map[string]string{"CRAWLER_WORKER_ACTIVITY_POLLERS": "0"}, "CRAWLER_WORKER_ACTIVITY_POLLERS"},
		{map[string]string{"CRAWLER_WORKER_WORKFLOW_POLLERS": "1"}, "CRAWLER_WORKER_WORKFLOW_POLLERS"},
		{map[string]string{"CRAWLER_WORKER_BROWSER_ACTIVITY_SLOTS": "-2"}, "CRAWLER_WORKER_BROWSER_ACTIVITY_SLOTS"},
		{map[string]string{"CRAWLER_SHUTDOWN_TIMEOUT": "30"}, "CRAWLER_SHUTDOWN_TIMEOUT"},
		{map[string]string{"CRAWLER_SHUTDOWN_TIMEOUT": "0s"}, "CRAWLER_SHUTDOWN_TIMEOUT"},
		{map[string]string{"CRAWLER_LOG_FORMAT": "xml"}, "CRAWLER_LOG_FORMAT"},
		{map[string]string{"TEMPORAL_TLS": "yes"}, "TEMPORAL_TLS"},
		{map[string]string{"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": "sure"}, "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"},
		{map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": filepath.Join(dir, "missing.pem"), "TEMPORAL_TLS_CLIENT_KEY_PATH": notPEM}, "TEMPORAL_TLS"},
		{map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": notPEM}, "TEMPORAL_TLS"},
		{map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": notPEM}, "TEMPORAL_TLS"},
		{map[string]string{"TEMPORAL_CONFIG_FILE": filepath.Join(dir, "missing.toml")}, "TEMPORAL_CONFIG_FILE"},
		{map[string]string{"TEMPORAL_CONFIG_FILE": brokenFile}, "TEMPORAL_CONFIG_FILE"},
		{map[string]string{"TEMPORAL_CONFIG_FILE": goodFile, "TEMPORAL_PROFILE": "staging"}, "TEMPORAL_PROFILE"},
	}
	for _, tt := range tests {
		vars := map[string]string{"TEMPORAL_API_KEY": secretKey}
		for k, v := range tt.vars {
			vars[k] = v
		}
		_, err := config.LoadFrom(env(vars))
		if err == nil || !strings.Contains(err.Error(), tt.names) {
			t.Errorf("%v: err = %v, want an error naming %s", tt.vars, err, tt.names)
			continue
		}
		if strings.Contains(err.Error(), secretKey) || strings.Contains(err.Error(), secretKey[6:20]) {
			t.Errorf("%v: the error holds the API key: %v", tt.vars, err)
		}
	}
}

// TestTemporalConfigFile: a profile of a Temporal configuration file
// applies when TEMPORAL_CONFIG_FILE names it, the variables win over it,
// and no file is read when neither TEMPORAL_CONFIG_FILE nor
// TEMPORAL_PROFILE is set.
func TestTemporalConfigFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "temporal.toml")
	err := os.WriteFile(file, []byte(`[profile.default]
address = "dev:7233"

[profile.prod]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "`+secretKey+`"
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadFrom(env(map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_PROFILE": "prod", "TEMPORAL_NAMESPACE": "other.a1b2c"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TemporalAddress != "my-ns.a1b2c.tmprl.cloud:7233" || c.TemporalNamespace != "other.a1b2c" || c.Temporal.APIKey != secretKey {
		t.Errorf("address %q namespace %q key set %v; want the prod profile with the namespace variable over it",
			c.TemporalAddress, c.TemporalNamespace, c.Temporal.APIKey == secretKey)
	}
	c, err = config.LoadFrom(env(map[string]string{"TEMPORAL_CONFIG_FILE": file}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TemporalAddress != "dev:7233" || c.TemporalNamespace != "default" {
		t.Errorf("address %q namespace %q; want the default profile's address", c.TemporalAddress, c.TemporalNamespace)
	}
}

// TestTemporalVariablesListed: Variables names what the connection reads
// (so that README and docker-compose.yml are checked against it), and not
// the codec variables the crawler ignores.
func TestTemporalVariablesListed(t *testing.T) {
	vars := config.Variables()
	for _, name := range []string{"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_API_KEY", "TEMPORAL_TLS",
		"TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_DATA", "TEMPORAL_CONFIG_FILE", "TEMPORAL_PROFILE",
		"CRAWLER_WORKER_ACTIVITY_SLOTS", "CRAWLER_SHUTDOWN_TIMEOUT", "CRAWLER_LOG_FORMAT"} {
		if !slices.Contains(vars, name) {
			t.Errorf("Variables() lacks %s", name)
		}
	}
	if slices.Contains(vars, "TEMPORAL_CODEC_ENDPOINT") {
		t.Error("Variables() lists TEMPORAL_CODEC_ENDPOINT, which the crawler does not use")
	}
}
