// Package config reads the service's settings from environment variables.
//
// Every setting has a documented default (see docs/configuration.md); Load is the only
// place that reads the environment, and the resulting Config is passed down
// as a value.
package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/contrib/envconfig"

	"github.com/durablecrawl/crawler/proxypool"
	"github.com/durablecrawl/crawler/webhook"
)

// Config holds every setting of the API server and the worker.
type Config struct {
	// DatabaseURL is the Postgres connection string.
	DatabaseURL string
	// TemporalAddress is the host:port of the Temporal frontend.
	TemporalAddress string
	// TemporalNamespace is the namespace crawls run in.
	TemporalNamespace string
	// Temporal is the rest of the connection to Temporal (API key, TLS,
	// authority), read the way Temporal's CLI and SDKs read theirs: a
	// profile of TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE, overridden by
	// TEMPORAL_API_KEY, TEMPORAL_TLS* and the others. An API key turns TLS
	// on unless TEMPORAL_TLS=false. Its Address and Namespace equal
	// TemporalAddress and TemporalNamespace at load; those two fields win
	// when they differ. The API key is a secret: never log it nor put it
	// in an error or in workflow history.
	Temporal envconfig.ClientConfigProfile
	// Worker sizes the crawl and browser task queues' workers.
	Worker WorkerTuning
	// ShutdownTimeout is how long, on SIGINT or SIGTERM, the worker lets
	// running activities finish and the API lets requests finish.
	ShutdownTimeout time.Duration
	// LogFormat is text or json.
	LogFormat string
	// TaskQueue is the task queue of crawl workflows and static activities.
	TaskQueue string
	// HTTPAddr is where the API listens.
	HTTPAddr string
	// TemporalUIURL is the Temporal UI's address, for the console's links
	// to a crawl's workflow ("" for none).
	TemporalUIURL string
	// AllowPrivateNetworks lets the fetcher reach loopback, private and
	// link-local addresses. Off by default: a hosted crawler must not be
	// turned against its own network.
	AllowPrivateNetworks bool
	// MaxConcurrentPages is the server's upper bound on one crawl's pages in
	// flight; DefaultConcurrentPages applies when a request names none.
	MaxConcurrentPages     int
	DefaultConcurrentPages int
	// HostMaxInFlight and HostRate are the politeness budget of one host
	// (host:port), shared by every crawl on every worker: at most
	// HostMaxInFlight requests to it at once and HostRate a second (0: no
	// rate bound). See package hostbudget.
	HostMaxInFlight int
	HostRate        float64
	// PDFMaxPages and PDFTimeout bound the reading of one PDF document
	// (its size is bounded by MaxPageBytes).
	PDFMaxPages int
	PDFTimeout  time.Duration
	// MaxPagesPerCrawl bounds crawls that have no maxResults (entireWebsite,
	// useSitemap, or a current-shape request without maxResults).
	MaxPagesPerCrawl int
	// PageTimeout bounds one page fetch.
	PageTimeout time.Duration
	// MaxPageBytes is the response size cap; larger bodies are cut off.
	MaxPageBytes int
	// UserAgent is sent with every request.
	UserAgent string
	// ReconcileInterval is how often the worker compares running crawls
	// with Temporal's view of their workflows.
	ReconcileInterval time.Duration
	// BrowserAvailable says that the deployment runs browser workers:
	// engineType playwright is accepted and browser stacks use it.
	BrowserAvailable bool
	// BrowserTaskQueue is where RenderPages runs.
	BrowserTaskQueue string
	// ChromiumPath, PlaywrightDriverDir and BrowserPages configure the
	// browser of a worker started with --browser.
	ChromiumPath        string
	PlaywrightDriverDir string
	BrowserPages        int
	// ObeyRobots makes crawls follow robots.txt (Disallow and Crawl-delay).
	ObeyRobots bool
	// StaticEgressProxy is the proxy URL used by crawls with useStaticIps;
	// StaticEgressIP is the address it sends from, reported on those
	// crawls (required with a proxy).
	StaticEgressProxy string
	StaticEgressIP    string
	// SearXNGURL is the search backend of /v2/search: a SearXNG
	// instance with its JSON format on ("" : search answers that there is
	// none).
	SearXNGURL string
	// ProxyPools are the operator's proxies by kind and country
	// (CRAWLER_PROXY_POOLS, read by package proxypool): Firecrawl's proxy
	// and location country go through them.
	ProxyPools *proxypool.Pools
	proxySpec  string
	// CrawlsPerMinute is how many crawls one API key may create a minute,
	// in bursts of up to CrawlsBurst; 0 lifts the limit. Each API process
	// counts on its own.
	CrawlsPerMinute float64
	CrawlsBurst     int
	// LogLevel is debug, info, warn or error.
	LogLevel string
	// MetricsAddr, when set, is where the worker serves /metrics,
	// /healthz and /readyz (the API serves them on its own address).
	MetricsAddr string
	// MetricsAddrDefault reports that MetricsAddr is the default, not
	// set by CRAWLER_METRICS_ADDR: a second worker on the same host then
	// takes a free port instead of failing to start.
	MetricsAddrDefault bool
	// DebugAddr, when set, is where the worker serves Go's profiles
	// (/debug/pprof/), for operators and benchmarks; keep it private.
	DebugAddr string
	// PublicURL is the API's address as clients reach it, which the
	// screenshot URLs in webhook events start with.
	PublicURL string
	// WebhookSecret signs every webhook event (X-Firecrawl-Signature);
	// without it events go unsigned. It is a secret: never logged.
	WebhookSecret string
	// WebhookRetryFor is how long a webhook event is tried before it is
	// given up; a crawl's workflow may run this long after the crawl ends.
	WebhookRetryFor time.Duration
	// LLM is the model that runs extraction instructions; without one,
	// crawls with extraction are refused.
	LLM LLM
}

// WorkerTuning sizes the Temporal workers of `crawler worker`.
type WorkerTuning struct {
	// ActivitySlots is how many activities the crawl task queue's worker
	// runs at once (each FetchPages runs up to MaxConcurrentPages fetches
	// of its own); WorkflowTaskSlots how many workflow tasks.
	ActivitySlots     int
	WorkflowTaskSlots int
	// ActivityPollers and WorkflowPollers are the crawl task queue's
	// concurrent long polls for each kind of task.
	ActivityPollers int
	WorkflowPollers int
	// BrowserActivitySlots is how many RenderPages a browser worker runs
	// at once; each keeps the browser's page pool busy.
	BrowserActivitySlots int
}

// LLM configures the model behind extraction.
type LLM struct {
	// Provider is openai (also any OpenAI-compatible server, with
	// BaseURL), anthropic, googleai or ollama; "" means no LLM.
	Provider string
	Model    string
	BaseURL  string
	// APIKey comes from CRAWLER_LLM_API_KEY or the provider's usual
	// variable; it is never logged nor put in workflow history.
	APIKey string
	// TaskQueue is where ExtractPage runs; RatePerSecond
	// (TaskQueueActivitiesPerSecond) and Concurrency bound the calls.
	TaskQueue     string
	RatePerSecond float64
	Concurrency   int
	// ContextTokens is the model's context window; pages longer than it
	// allows are sent in chunks. MaxAnswerTokens bounds one answer.
	ContextTokens   int
	MaxAnswerTokens int
	// Timeout bounds one call.
	Timeout time.Duration
}

// Enabled reports whether an LLM is configured.
func (l LLM) Enabled() bool { return l.Provider != "" }

// llmKeyVariables are the providers' usual API key variables, read when
// CRAWLER_LLM_API_KEY is not set.
var llmKeyVariables = map[string]string{
	"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "googleai": "GOOGLE_API_KEY",
}

// Load reads the configuration from the environment.
func Load() (Config, error) {
	return LoadFrom(os.Getenv)
}

// DefaultMetricsAddr is where a worker serves its metrics unless
// CRAWLER_METRICS_ADDR says otherwise.
const DefaultMetricsAddr = "127.0.0.1:9464"

// LoadFrom reads the configuration through getenv; LoadFrom with a getenv
// that returns "" gives the defaults.
func LoadFrom(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	temporal, temporalErr := loadTemporal(&r)
	c := Config{
		DatabaseURL:       r.str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/crawler?sslmode=disable"),
		TemporalAddress:   temporal.Address,
		TemporalNamespace: temporal.Namespace,
		Temporal:          temporal,
		Worker: WorkerTuning{
			// The Temporal SDK's defaults, but for ActivitySlots.
			ActivitySlots:        r.integer("CRAWLER_WORKER_ACTIVITY_SLOTS", 16),
			WorkflowTaskSlots:    r.integer("CRAWLER_WORKER_WORKFLOW_SLOTS", 1000),
			ActivityPollers:      r.integer("CRAWLER_WORKER_ACTIVITY_POLLERS", 2),
			WorkflowPollers:      r.integer("CRAWLER_WORKER_WORKFLOW_POLLERS", 2),
			BrowserActivitySlots: r.integer("CRAWLER_WORKER_BROWSER_ACTIVITY_SLOTS", 2),
		},
		ShutdownTimeout:        r.duration("CRAWLER_SHUTDOWN_TIMEOUT", 30*time.Second),
		LogFormat:              strings.ToLower(r.str("CRAWLER_LOG_FORMAT", "text")),
		TaskQueue:              r.str("CRAWLER_TASK_QUEUE", "crawler"),
		HTTPAddr:               r.str("CRAWLER_HTTP_ADDR", "127.0.0.1:8080"),
		TemporalUIURL:          r.webURL("CRAWLER_TEMPORAL_UI_URL"),
		AllowPrivateNetworks:   r.boolean("CRAWLER_ALLOW_PRIVATE_NETWORKS", false),
		MaxConcurrentPages:     r.integer("CRAWLER_MAX_CONCURRENT_PAGES", 32),
		DefaultConcurrentPages: r.integer("CRAWLER_DEFAULT_CONCURRENT_PAGES", 8),
		HostMaxInFlight:        r.integer("CRAWLER_HOST_MAX_IN_FLIGHT", 32),
		HostRate:               r.float("CRAWLER_HOST_RATE", 1000),
		PDFMaxPages:            r.integer("CRAWLER_PDF_MAX_PAGES", 500),
		PDFTimeout:             r.duration("CRAWLER_PDF_TIMEOUT", time.Minute),
		MaxPagesPerCrawl:       r.integer("CRAWLER_MAX_PAGES_PER_CRAWL", 10000),
		PageTimeout:            r.duration("CRAWLER_PAGE_TIMEOUT", 30*time.Second),
		MaxPageBytes:           r.integer("CRAWLER_MAX_PAGE_BYTES", 10<<20),
		UserAgent:              r.str("CRAWLER_USER_AGENT", "durablecrawl/0.1 (+https://github.com/durablecrawl/crawler)"),
		ReconcileInterval:      r.duration("CRAWLER_RECONCILE_INTERVAL", 30*time.Second),
		ObeyRobots:             r.boolean("CRAWLER_OBEY_ROBOTS", true),
		BrowserAvailable:       r.boolean("CRAWLER_BROWSER_AVAILABLE", false),
		BrowserTaskQueue:       r.str("CRAWLER_BROWSER_TASK_QUEUE", "crawler-browser"),
		ChromiumPath:           r.str("CRAWLER_CHROMIUM_PATH", "/usr/lib/chromium/chromium"),
		PlaywrightDriverDir:    r.str("CRAWLER_PLAYWRIGHT_DRIVER_DIR", "bin/playwright-driver"),
		BrowserPages:           r.integer("CRAWLER_BROWSER_PAGES", 4),
		StaticEgressProxy:      r.str("CRAWLER_STATIC_EGRESS_PROXY", ""),
		StaticEgressIP:         r.str("CRAWLER_STATIC_EGRESS_IP", ""),
		SearXNGURL:             r.str("CRAWLER_SEARXNG_URL", ""),
		proxySpec:              r.str("CRAWLER_PROXY_POOLS", ""),
		CrawlsPerMinute:        r.float("CRAWLER_KEY_CRAWLS_PER_MINUTE", 60),
		CrawlsBurst:            r.integer("CRAWLER_KEY_CRAWLS_BURST", 10),
		LogLevel:               r.str("CRAWLER_LOG_LEVEL", "info"),
		MetricsAddr:            r.optional("CRAWLER_METRICS_ADDR", DefaultMetricsAddr),
		MetricsAddrDefault:     strings.TrimSpace(getenv("CRAWLER_METRICS_ADDR")) == "",
		DebugAddr:              r.str("CRAWLER_DEBUG_ADDR", ""),
		WebhookSecret:          r.str("CRAWLER_WEBHOOK_SECRET", ""),
		PublicURL:              strings.TrimSuffix(r.str("CRAWLER_PUBLIC_URL", ""), "/"),
		WebhookRetryFor:        r.duration("CRAWLER_WEBHOOK_RETRY_FOR", webhook.DefaultRetryFor),
		LLM:                    loadLLM(&r),
	}
	if r.err != nil {
		return Config{}, r.err
	}
	if temporalErr != nil {
		return Config{}, temporalErr
	}
	if err := c.check(); err != nil {
		return Config{}, err
	}
	pools, err := proxypool.Parse(c.proxySpec)
	if err != nil {
		return Config{}, fmt.Errorf("CRAWLER_PROXY_POOLS: %w", err)
	}
	c.ProxyPools = pools
	if c.DefaultConcurrentPages > c.MaxConcurrentPages {
		c.DefaultConcurrentPages = c.MaxConcurrentPages
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + localAddr(c.HTTPAddr)
	}
	return c, nil
}

// localAddr is addr ("host:port") as a client on this machine reaches it:
// a listener on every address (":8080", "0.0.0.0:8080", "[::]:8080") is
// reached at 127.0.0.1.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// loadLLM reads the LLM settings; an OpenAI-compatible server (a base URL
// alone) is the openai provider, and the key falls back to the provider's
// usual variable.
func loadLLM(r *reader) LLM {
	l := LLM{
		Provider:        strings.ToLower(r.str("CRAWLER_LLM_PROVIDER", "")),
		Model:           r.str("CRAWLER_LLM_MODEL", ""),
		BaseURL:         r.str("CRAWLER_LLM_BASE_URL", ""),
		APIKey:          r.str("CRAWLER_LLM_API_KEY", ""),
		TaskQueue:       r.str("CRAWLER_LLM_TASK_QUEUE", "crawler-llm"),
		RatePerSecond:   r.float("CRAWLER_LLM_RATE", 5),
		Concurrency:     r.integer("CRAWLER_LLM_CONCURRENCY", 4),
		ContextTokens:   r.integer("CRAWLER_LLM_CONTEXT_TOKENS", 8192),
		MaxAnswerTokens: r.integer("CRAWLER_LLM_MAX_TOKENS", 1024),
		Timeout:         r.duration("CRAWLER_LLM_TIMEOUT", 2*time.Minute),
	}
	if l.Provider == "" && l.BaseURL != "" {
		l.Provider = "openai" // an OpenAI-compatible server
	}
	// The providers' own key variables, in a fixed order (each is read, so
	// that Variables lists them all).
	for _, p := range []string{"anthropic", "googleai", "openai"} {
		if key := r.str(llmKeyVariables[p], ""); l.APIKey == "" && l.Provider == p {
			l.APIKey = key
		}
	}
	return l
}

// check refuses settings that are out of range or do not fit together,
// naming the variable.
func (c Config) check() error {
	if err := c.Worker.check(); err != nil {
		return err
	}
	if err := c.LLM.check(); err != nil {
		return err
	}
	switch {
	case c.MaxConcurrentPages < 1:
		return fmt.Errorf("CRAWLER_MAX_CONCURRENT_PAGES must be at least 1")
	case c.DefaultConcurrentPages < 1:
		return fmt.Errorf("CRAWLER_DEFAULT_CONCURRENT_PAGES must be at least 1")
	case c.PDFMaxPages < 1 || c.PDFTimeout <= 0:
		return fmt.Errorf("CRAWLER_PDF_MAX_PAGES must be at least 1 and CRAWLER_PDF_TIMEOUT positive")
	case c.HostMaxInFlight < 1:
		return fmt.Errorf("CRAWLER_HOST_MAX_IN_FLIGHT must be at least 1")
	case c.HostRate < 0:
		return fmt.Errorf("CRAWLER_HOST_RATE must not be negative (0 sets no rate bound)")
	case c.MaxPagesPerCrawl < 1:
		return fmt.Errorf("CRAWLER_MAX_PAGES_PER_CRAWL must be at least 1")
	case c.WebhookRetryFor < time.Second || c.WebhookRetryFor > 7*24*time.Hour:
		return fmt.Errorf("CRAWLER_WEBHOOK_RETRY_FOR must be between 1s and 168h")
	case c.MaxPageBytes < 1024:
		return fmt.Errorf("CRAWLER_MAX_PAGE_BYTES must be at least 1024")
	case c.CrawlsPerMinute < 0:
		return fmt.Errorf("CRAWLER_KEY_CRAWLS_PER_MINUTE must not be negative (0 lifts the limit)")
	case c.CrawlsBurst < 1:
		return fmt.Errorf("CRAWLER_KEY_CRAWLS_BURST must be at least 1")
	case c.ShutdownTimeout <= 0:
		return fmt.Errorf("CRAWLER_SHUTDOWN_TIMEOUT must be positive")
	case c.LogFormat != "text" && c.LogFormat != "json":
		return fmt.Errorf("CRAWLER_LOG_FORMAT: %q is not text or json", c.LogFormat)
	case c.PageTimeout <= 0 || c.ReconcileInterval <= 0:
		return fmt.Errorf("CRAWLER_PAGE_TIMEOUT and CRAWLER_RECONCILE_INTERVAL must be positive")
	}
	if c.SearXNGURL != "" {
		if u, err := url.Parse(c.SearXNGURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("CRAWLER_SEARXNG_URL: %q is not the http(s) URL of a SearXNG instance", c.SearXNGURL)
		}
	}
	if c.StaticEgressProxy != "" {
		u, err := url.Parse(c.StaticEgressProxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("CRAWLER_STATIC_EGRESS_PROXY: %q is not an http(s) proxy URL", c.StaticEgressProxy)
		}
		if c.StaticEgressIP == "" {
			return fmt.Errorf("CRAWLER_STATIC_EGRESS_IP must name the address target sites see when CRAWLER_STATIC_EGRESS_PROXY is set")
		}
	}
	return nil
}

func (w WorkerTuning) check() error {
	// The SDK refuses one workflow poller or slot: the worker would then
	// poll only its sticky queue.
	for _, v := range []struct {
		name       string
		value, min int
	}{
		{"CRAWLER_WORKER_ACTIVITY_SLOTS", w.ActivitySlots, 1},
		{"CRAWLER_WORKER_WORKFLOW_SLOTS", w.WorkflowTaskSlots, 2},
		{"CRAWLER_WORKER_ACTIVITY_POLLERS", w.ActivityPollers, 1},
		{"CRAWLER_WORKER_WORKFLOW_POLLERS", w.WorkflowPollers, 2},
		{"CRAWLER_WORKER_BROWSER_ACTIVITY_SLOTS", w.BrowserActivitySlots, 1},
	} {
		if v.value < v.min {
			return fmt.Errorf("%s must be at least %d", v.name, v.min)
		}
	}
	return nil
}

func (l *LLM) check() error {
	if l.Provider == "" {
		return nil
	}
	switch l.Provider {
	case "openai", "anthropic", "googleai", "ollama":
	default:
		return fmt.Errorf("CRAWLER_LLM_PROVIDER: %q is not one of openai, anthropic, googleai, ollama", l.Provider)
	}
	switch {
	case l.Model == "":
		return fmt.Errorf("CRAWLER_LLM_MODEL must name the model when CRAWLER_LLM_PROVIDER is set")
	case l.APIKey == "" && l.Provider != "ollama" && !(l.Provider == "openai" && l.BaseURL != ""):
		return fmt.Errorf("the %s provider needs an API key: set CRAWLER_LLM_API_KEY or %s", l.Provider, llmKeyVariables[l.Provider])
	case l.RatePerSecond <= 0 || l.Concurrency < 1:
		return fmt.Errorf("CRAWLER_LLM_RATE must be positive and CRAWLER_LLM_CONCURRENCY at least 1")
	case l.MaxAnswerTokens < 16 || l.ContextTokens < l.MaxAnswerTokens+256:
		return fmt.Errorf("CRAWLER_LLM_CONTEXT_TOKENS must exceed CRAWLER_LLM_MAX_TOKENS (at least 16) by 256 or more")
	case l.Timeout <= 0:
		return fmt.Errorf("CRAWLER_LLM_TIMEOUT must be positive")
	}
	if l.BaseURL != "" {
		u, err := url.Parse(l.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("CRAWLER_LLM_BASE_URL: %q is not an http(s) URL", l.BaseURL)
		}
	}
	return nil
}

// Variables returns the names of the environment variables Load reads.
func Variables() []string {
	var names []string
	_, _ = LoadFrom(func(key string) string {
		names = append(names, key)
		return ""
	})
	return names
}

// reader collects the first parse error so Load can report it once.
type reader struct {
	getenv func(string) string
	err    error
}

func (r *reader) str(key, def string) string {
	if v := strings.TrimSpace(r.getenv(key)); v != "" {
		return v
	}
	return def
}

// webURL is an http or https address without its trailing slash, or "".
func (r *reader) webURL(key string) string {
	v := strings.TrimRight(r.str(key, ""), "/")
	if v == "" {
		return ""
	}
	if u, err := url.Parse(v); (err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https") && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not an http or https address", key, v)
	}
	return v
}

// optional is str for a setting that may be turned off with "off".
func (r *reader) optional(key, def string) string {
	switch v := r.str(key, def); v {
	case "off":
		return ""
	default:
		return v
	}
}

func (r *reader) boolean(key string, def bool) bool {
	v := strings.TrimSpace(r.getenv(key))
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not a boolean", key, v)
	}
	return b
}

func (r *reader) integer(key string, def int) int {
	v := strings.TrimSpace(r.getenv(key))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not an integer", key, v)
	}
	return n
}

func (r *reader) float(key string, def float64) float64 {
	v := strings.TrimSpace(r.getenv(key))
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not a number", key, v)
	}
	return f
}

func (r *reader) duration(key string, def time.Duration) time.Duration {
	v := strings.TrimSpace(r.getenv(key))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not a duration (for example 30s)", key, v)
	}
	return d
}
