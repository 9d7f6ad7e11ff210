package deploy_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/crawlflow"
)

// composeFile is the part of docker-compose.yml the checks read.
type composeFile struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Build       *build            `yaml:"build"`
	User        string            `yaml:"user"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

type build struct {
	Context string `yaml:"context"`
	Target  string `yaml:"target"`
}

func load(t *testing.T, path string) composeFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// The image of the Temporal CLI runs as this user, with its binary at
// /temporal and no shell (temporalio/cli's Dockerfile).
const temporalUser = "1000:1000"

// crawlerRoles are the services that run the crawler's image, with the
// build target and command each must have.
var crawlerRoles = map[string]struct {
	target  string
	command []string
}{
	"migrate":        {"runtime", []string{"migrate"}},
	"worker":         {"runtime", []string{"worker"}},
	"browser-worker": {"browser", []string{"worker", "--browser"}},
	"api":            {"runtime", []string{"serve"}},
}

func TestComposeServices(t *testing.T) {
	c := load(t, "../docker-compose.yml")
	for name, role := range crawlerRoles {
		s, ok := c.Services[name]
		if !ok {
			t.Errorf("no %s service", name)
			continue
		}
		if s.Build == nil || s.Build.Context != "." || s.Build.Target != role.target || !slices.Equal(s.Command, role.command) {
			t.Errorf("service %s: build %+v, command %v; want target %s running %v", name, s.Build, s.Command, role.target, role.command)
		}
		if s.Environment["DATABASE_URL"] == "" || s.Environment["TEMPORAL_ADDRESS"] == "" {
			t.Errorf("service %s lacks DATABASE_URL or TEMPORAL_ADDRESS", name)
		}
		if name != "migrate" && s.Environment["CRAWLER_BROWSER_AVAILABLE"] != "true" {
			t.Errorf("service %s: CRAWLER_BROWSER_AVAILABLE is not true, although the browser worker runs", name)
		}
	}
	// Every long-running service says when it is healthy, and the
	// services that need another wait for it.
	for _, name := range []string{"postgres", "temporal", "worker", "browser-worker", "api"} {
		if s := c.Services[name]; s.Healthcheck == nil || len(s.Healthcheck.Test) < 2 {
			t.Errorf("service %s has no health check", name)
		}
	}
	for _, name := range []string{"worker", "browser-worker", "api"} {
		s := c.Services[name]
		if s.DependsOn["temporal"].Condition != "service_healthy" || s.DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("service %s does not wait for a healthy temporal and the migrations: %+v", name, s.DependsOn)
		}
		if want := []string{"CMD", "crawler", "probe"}; len(s.Healthcheck.Test) != 4 || !slices.Equal(s.Healthcheck.Test[:3], want) {
			t.Errorf("service %s: health check %v, want crawler probe of its /readyz", name, s.Healthcheck.Test)
		}
	}
	if c.Services["migrate"].DependsOn["postgres"].Condition != "service_healthy" {
		t.Error("migrate does not wait for a healthy postgres")
	}
}

// TestComposeHealthChecksProbeReadiness: the probes ask for /readyz on the
// port each service listens on.
func TestComposeHealthChecksProbeReadiness(t *testing.T) {
	c := load(t, "../docker-compose.yml")
	for name, addrVar := range map[string]string{"api": "CRAWLER_HTTP_ADDR", "worker": "CRAWLER_METRICS_ADDR", "browser-worker": "CRAWLER_METRICS_ADDR"} {
		s := c.Services[name]
		addr := s.Environment[addrVar]
		if s.Healthcheck == nil || len(s.Healthcheck.Test) != 4 {
			t.Errorf("service %s: no probe", name)
			continue
		}
		_, port, _ := strings.Cut(addr, ":")
		if !strings.HasPrefix(addr, "0.0.0.0:") || s.Healthcheck.Test[3] != "http://127.0.0.1:"+port+"/readyz" {
			t.Errorf("service %s listens on %s=%q, probes %s", name, addrVar, addr, s.Healthcheck.Test[3])
		}
	}
	if s := c.Services["temporal"]; s.Healthcheck == nil || !slices.Equal(s.Healthcheck.Test[:2], []string{"CMD", "/temporal"}) {
		t.Errorf("temporal's health check must run the image's /temporal without a shell: %v", s.Healthcheck)
	}
}

// TestComposeVariables: every variable set for the crawler is one it
// reads (a misspelt one would be ignored silently).
func TestComposeVariables(t *testing.T) {
	c := load(t, "../docker-compose.yml")
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v] = true
	}
	for name := range crawlerRoles {
		for k := range c.Services[name].Environment {
			if !known[k] {
				t.Errorf("service %s sets %s, which the service does not read", name, k)
			}
		}
	}
	if c.Services["api"].Environment["CRAWLER_HTTP_ADDR"] == "" {
		t.Error("the api service does not set CRAWLER_HTTP_ADDR")
	}
}

func TestComposeTemporal(t *testing.T) {
	c := load(t, "../docker-compose.yml")
	s, ok := c.Services["temporal"]
	if !ok {
		t.Fatal("no temporal service")
	}
	cmd := strings.Join(s.Command, " ")
	var declared []string
	for _, m := range regexp.MustCompile(`--search-attribute=(\w+)=(\w+)`).FindAllStringSubmatch(cmd, -1) {
		declared = append(declared, m[1]+"="+m[2])
	}
	var want []string
	for name, typ := range crawlflow.SearchAttrTypes {
		want = append(want, name+"="+typ)
	}
	slices.Sort(declared)
	slices.Sort(want)
	if !slices.Equal(declared, want) {
		t.Errorf("the temporal service declares search attributes %v, the workflows use %v", declared, want)
	}
	for _, flag := range []string{"--ip=0.0.0.0", "--ui-port=8233", "--db-filename=/data/"} {
		if !strings.Contains(cmd, flag) {
			t.Errorf("the temporal command lacks %s: %s", flag, cmd)
		}
	}
	if len(s.Entrypoint) > 0 {
		t.Errorf("the temporal service replaces the image's entrypoint with %v (the binary is /temporal)", s.Entrypoint)
	}
	for port, want := range map[string]string{"api": "127.0.0.1:8080:8080", "temporal": "127.0.0.1:7233:7233"} {
		if !slices.Contains(c.Services[port].Ports, want) {
			t.Errorf("service %s does not publish %s: %v", port, want, c.Services[port].Ports)
		}
	}
	if !slices.Contains(s.Ports, "127.0.0.1:8233:8233") {
		t.Errorf("the Temporal UI is not published on 127.0.0.1:8233: %v", s.Ports)
	}
	if msg := temporalVolumeWritable(c); msg != "" {
		t.Error(msg)
	}
}

// temporalVolumeWritable says what is wrong, if anything, with the
// temporal server's data volume: it must be a named volume that a one-shot
// service, which the server waits for, hands to the server's user.
func temporalVolumeWritable(c composeFile) string {
	s := c.Services["temporal"]
	if s.User != "" && s.User != temporalUser {
		return "the temporal service runs as " + s.User + ", not the image's user " + temporalUser
	}
	var volume string
	for _, v := range s.Volumes {
		if src, dst, _ := strings.Cut(v, ":"); dst == "/data" {
			volume = src
		}
	}
	if _, ok := c.Volumes[volume]; volume == "" || !ok {
		return "the temporal service keeps no named volume at /data"
	}
	for name, dep := range s.DependsOn {
		o := c.Services[name]
		if dep.Condition == "service_completed_successfully" && len(o.Command) >= 3 && o.Command[0] == "chown" &&
			strings.HasPrefix(o.Command[len(o.Command)-2], temporalUser) && slices.Contains(o.Volumes, volume+":"+o.Command[len(o.Command)-1]) {
			return ""
		}
	}
	return "no service the temporal server waits for makes its volume " + volume + " writable by " + temporalUser
}

// TestTemporalVolumeCheckFails: the check above finds a root-owned volume
// (the fault of an earlier compose file).
func TestTemporalVolumeCheckFails(t *testing.T) {
	c := load(t, "../docker-compose.yml")
	s := c.Services["temporal"]
	delete(s.DependsOn, "temporal-data-owner")
	c.Services["temporal"] = s
	if temporalVolumeWritable(c) == "" {
		t.Error("a temporal volume no service hands to uid 1000 passes the check")
	}
}

// TestDockerfile: the build uses the Go version go.mod names, and has the
// two targets compose builds.
func TestDockerfile(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	from := regexp.MustCompile(`(?m)^FROM golang:(\d+\.\d+)`).FindSubmatch(docker)
	if goLine == nil || from == nil || string(goLine[1]) != string(from[1]) {
		t.Errorf("go.mod says go %s, the Dockerfile builds with golang:%s", goLine[1], from[1])
	}
	for _, target := range []string{"runtime", "browser"} {
		if !regexp.MustCompile(`(?m)^FROM \S+ AS ` + target + `$`).Match(docker) {
			t.Errorf("the Dockerfile has no %s target", target)
		}
	}
	pkg, err := os.ReadFile("../tools/playwright/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docker), "tools/playwright/package.json tools/playwright/package-lock.json") ||
		!strings.Contains(string(pkg), `"playwright-core"`) {
		t.Error("the browser image does not install the Playwright driver pinned in tools/playwright")
	}
	lastFrom := regexp.MustCompile(`(?m)^FROM .*$`).FindAll(docker, -1)
	if len(lastFrom) == 0 || !strings.HasSuffix(string(lastFrom[len(lastFrom)-1]), " AS runtime") {
		t.Error("the last stage (what a plain docker build gives) is not the slim runtime")
	}
}
