// Package integration tests the whole service through its HTTP API: a
// real Temporal dev server, a real Postgres database, the real worker and
// API in this process, crawling real HTTP servers started by the tests.
package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/console"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
	"github.com/durablecrawl/crawler/internal/apispec"
	"github.com/durablecrawl/crawler/internal/fakellm"
	"github.com/durablecrawl/crawler/internal/fakesearx"
	"github.com/durablecrawl/crawler/internal/testenv"
	"github.com/durablecrawl/crawler/internal/testproxy"
	"github.com/durablecrawl/crawler/metrics"
	"github.com/durablecrawl/crawler/proxypool"
	"github.com/durablecrawl/crawler/search"
	"github.com/durablecrawl/crawler/worker"
	"github.com/durablecrawl/crawler/workflows"
)

// env is the service under test, shared by the package's tests.
var env struct {
	store *db.Store
	// databaseURL is the test database, for workers in processes of their own.
	databaseURL  string
	temporal     client.Client
	temporalAddr string
	// api crawls with private networks allowed (the test sites are on
	// loopback); guardedAPI and its worker refuse them, as in production.
	// guardedWorkerAPI lets them through to the same worker, which refuses
	// them: it stands for a public name that resolves to a private address
	// only when the worker dials it, or a redirect to one.
	api, guardedAPI, guardedWorkerAPI string
	// proxyAPI's worker sends useStaticIps crawls through proxyHits'
	// forward proxy.
	proxyAPI  string
	proxyHits *atomic.Int32
	// proxyAPI's worker has proxy pools (basic, stealth, stealth@DE),
	// each a proxy that tags what it carries; poolHits counts by pool.
	basicProxy, stealthProxy, germanProxy *httptest.Server
	poolHits                              map[string]*atomic.Int32
	// llmAPI's worker has an LLM: the fake OpenAI-compatible server llm.
	llmAPI string
	llm    *fakellm.Server
	// searx is the main API's search backend, SearXNG-shaped: tests
	// register what it answers for their queries.
	searx *fakesearx.Server
	// politeAPI's two workers share small host budgets (politeLimits)
	// through Postgres, as two worker processes do.
	politeAPI string
	// restartAPI's worker is started and stopped by TestWorkerRestart.
	restartAPI    string
	restartConfig config.Config
	// workerRegistry holds the main worker's metrics, served with its
	// readiness at workerStatus as a worker serves them on
	// CRAWLER_METRICS_ADDR; apiRegistry the main API's, at api/metrics.
	workerRegistry, apiRegistry *prometheus.Registry
	workerStatus                string
	workerClient                client.Client
	// keyA and keyB belong to two teams; keyA's team has brand "brand-a".
	keyA, keyB string
	teamA      string
	// spec is the API's OpenAPI document: call checks every answer
	// against it.
	spec *apispec.Spec
}

// testServer is a deployment without optional features that crawls the
// test sites on loopback.
var testServer = crawl.Server{AllowPrivateNetworks: true}

const (
	taskQueue        = "crawls-test"
	guardedTaskQueue = "crawls-test-guarded"
	restartTaskQueue = "crawls-test-restart"
	proxyTaskQueue   = "crawls-test-proxy"
	llmTaskQueue     = "crawls-test-llm"
	politeTaskQueue  = "crawls-test-polite"
	// llmKey is the test LLM's API key: it must not reach workflow history.
	llmKey = "sk-integration-secret-key"
	// llmContext is the test model's context window, in tokens: small, so
	// that a long page is sent in chunks.
	llmContext     = 2048
	restartPageCap = 40
	// staticIP is what the proxied deployment publishes as its address.
	staticIP = "203.0.113.7"
	// webhookSecret signs the test workers' webhook events.
	webhookSecret = "whsec-integration-secret"
	// consoleTemporalUI is where the main API's console says the Temporal
	// UI is (the test servers run without one).
	consoleTemporalUI = "http://temporal-ui.invalid:8233"
	// maxPageBytes is the test workers' response size cap.
	maxPageBytes = 4 << 20
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec, err := apispec.New(api.OpenAPI())
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: api/openapi.json:", err)
		return 1
	}
	env.spec = spec
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	database, dsn, drop, err := testenv.Database(ctx, "crawler_it")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	defer drop()
	env.store = db.NewStore(database)
	env.databaseURL = dsn

	// Tests get continue-as-new suggested after 40 events, so that every
	// crawl of more than a few batches exercises it. Benchmarks measure
	// crawls as they run in production, where it is rare.
	var extra []string
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		extra = []string{"--dynamic-config-value", "limit.historyCount.suggestContinueAsNew=40"}
	}
	srv, err := testenv.Temporal(ctx, os.Stderr, extra...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: start temporal:", err)
		return 1
	}
	defer srv.Stop()
	env.temporal = srv.Client()
	env.temporalAddr = srv.FrontendHostPort()

	cfg, _ := config.LoadFrom(func(string) string { return "" })
	cfg.WebhookSecret = webhookSecret
	// The main worker has a client of its own, dialled as the service
	// dials it, whose SDK metrics go to the worker's registry.
	env.workerRegistry, env.apiRegistry = metrics.NewRegistry(), metrics.NewRegistry()
	dialCfg := cfg
	dialCfg.TemporalAddress = env.temporalAddr
	if env.workerClient, err = worker.Dial(dialCfg, logger, metrics.NewTemporal(env.workerRegistry).Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "integration: dial temporal:", err)
		return 1
	}
	defer env.workerClient.Close()
	statusSrv := httptest.NewServer(worker.StatusMux(metrics.Handler(env.workerRegistry), worker.ReadyChecks(env.store, env.workerClient)))
	defer statusSrv.Close()
	env.workerStatus = statusSrv.URL
	cfg.PageTimeout = 3 * time.Second
	cfg.MaxPageBytes = maxPageBytes
	// The main deployment runs a browser worker too; the guarded one has
	// none, as a static-only deployment.
	br, err := testenv.Browser(true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	defer br.Close()
	env.searx = fakesearx.New()
	defer env.searx.Close()
	searcher, err := search.New(env.searx.URL, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	for _, w := range []struct {
		queue        string
		allowPrivate bool
		browser      *browser.Browser
		addr         *string
	}{{taskQueue, true, br, &env.api}, {guardedTaskQueue, false, nil, &env.guardedAPI}} {
		wc := cfg
		wc.TaskQueue, wc.AllowPrivateNetworks = w.queue, w.allowPrivate
		wc.BrowserAvailable, wc.BrowserTaskQueue = w.browser != nil, w.queue+"-browser"
		stop, err := startWorker(wc, w.browser)
		if err != nil {
			fmt.Fprintln(os.Stderr, "integration: start worker:", err)
			return 1
		}
		defer stop()
		o := api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: w.queue, Logger: logger,
			Server:     crawl.Server{Browser: w.browser != nil, AllowPrivateNetworks: w.allowPrivate},
			ObeyRobots: wc.ObeyRobots, UserAgent: wc.UserAgent, Schedules: env.temporal.ScheduleClient(),
			Console: console.Options{TemporalUI: consoleTemporalUI, Namespace: "default"}}
		if w.queue == taskQueue {
			o.Search = searcher
			o.Metrics, o.MetricsHandler = metrics.NewAPI(env.apiRegistry, env.store.CountCrawls), metrics.Handler(env.apiRegistry)
			o.Ready = worker.ReadyChecks(env.store, env.temporal)
		}
		*w.addr = serve(api.New(o))
	}
	env.guardedWorkerAPI = serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: guardedTaskQueue,
		Logger: logger, Server: testServer}))
	proxy, hits := testproxy.New()
	defer proxy.Close()
	env.proxyHits = hits
	env.poolHits = map[string]*atomic.Int32{}
	pc := cfg
	pc.TaskQueue, pc.AllowPrivateNetworks, pc.StaticEgressProxy = proxyTaskQueue, true, proxy.URL
	// The proxied worker has pools too: basic and stealth, and a pool of
	// one country, each a proxy that tags what it carries.
	for name, p := range map[string]**httptest.Server{"basic": &env.basicProxy, "stealth": &env.stealthProxy, "stealth@DE": &env.germanProxy} {
		srv, hits := testproxy.NewTagged(name)
		defer srv.Close()
		*p = srv
		env.poolHits[name] = hits
	}
	if pc.ProxyPools, err = proxypool.Parse(fmt.Sprintf("basic=%s; stealth=%s; stealth@DE=%s", env.basicProxy.URL, env.stealthProxy.URL, env.germanProxy.URL)); err != nil {
		fmt.Fprintln(os.Stderr, "integration: proxy pools:", err)
		return 1
	}
	stopProxied, err := startWorker(pc, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: start worker:", err)
		return 1
	}
	defer stopProxied()
	env.proxyAPI = serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: proxyTaskQueue, Logger: logger,
		Server: crawl.Server{StaticEgressProxy: true, AllowPrivateNetworks: true, ProxyPools: pc.ProxyPools.Names()}, StaticIP: staticIP}))

	env.llm = fakellm.New(llmAnswer)
	defer env.llm.Close()
	lc := cfg
	lc.TaskQueue, lc.AllowPrivateNetworks = llmTaskQueue, true
	lc.LLM = config.LLM{Provider: "openai", Model: "test-model", BaseURL: env.llm.BaseURL(), APIKey: llmKey,
		TaskQueue: llmTaskQueue + "-extract", RatePerSecond: 50, Concurrency: 4,
		ContextTokens: llmContext, MaxAnswerTokens: 256, Timeout: 10 * time.Second}
	stopLLM, err := startWorker(lc, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: start worker:", err)
		return 1
	}
	defer stopLLM()
	env.llmAPI = serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: llmTaskQueue, Logger: logger,
		Server:    crawl.Server{LLM: true, ExtractionLimit: extract.InstructionLimit(llmContext), AllowPrivateNetworks: true},
		Schedules: env.temporal.ScheduleClient(), LLMTaskQueue: lc.LLM.TaskQueue, Search: searcher}))

	for range politeWorkers {
		wc := cfg
		wc.TaskQueue, wc.AllowPrivateNetworks = politeTaskQueue, true
		wc.HostMaxInFlight, wc.HostRate = politeLimits.MaxInFlight, politeLimits.Rate
		stop, err := startWorker(wc, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "integration: start worker:", err)
			return 1
		}
		defer stop()
	}
	env.politeAPI = serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: politeTaskQueue, Logger: logger,
		Server: testServer}))

	env.restartConfig = cfg
	env.restartConfig.TaskQueue, env.restartConfig.AllowPrivateNetworks = restartTaskQueue, true
	// A server page cap of 40, which TestWorkerRestart's crawl reaches.
	env.restartConfig.MaxPagesPerCrawl = restartPageCap
	env.restartAPI = serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: restartTaskQueue, Logger: logger,
		Server: testServer}))
	rec := &worker.Reconciler{Store: env.store, Temporal: env.temporal, Logger: logger, Grace: time.Second}
	go rec.Run(ctx, 500*time.Millisecond)

	brand := "brand-a"
	if env.keyA, err = env.store.CreateAPIKey(ctx, "team-a", &brand); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	if env.keyB, err = env.store.CreateAPIKey(ctx, "team-b", nil); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	p, err := env.store.Authenticate(ctx, env.keyA)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	env.teamA = p.TeamID.String()
	return m.Run()
}

// startWorker starts the workers of a deployment configured by c, with
// br as its browser (nil for none), and returns how to stop them. The
// main deployment's worker records its metrics in env.workerMetrics.
func startWorker(c config.Config, br *browser.Browser) (func(), error) {
	var m *metrics.Worker
	tc := env.temporal
	if c.TaskQueue == taskQueue {
		m, tc = metrics.NewWorker(env.workerRegistry), env.workerClient
	}
	w, err := worker.New(tc, c, env.store, br, m)
	if err != nil {
		return nil, err
	}
	if err := w.Start(); err != nil {
		return nil, err
	}
	return w.Stop, nil
}

// serve runs app on a free loopback port and returns its base URL.
func serve(app *fiber.App) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = app.Listener(ln) }()
	return "http://" + ln.Addr().String()
}

// call sends a request to the API and decodes the JSON answer into out
// (when not nil). It returns the status code and the raw body.
func call(t testing.TB, method, url, key string, body any, out any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); len(raw) > 0 && !bytes.HasPrefix([]byte(ct), []byte("application/json")) {
		t.Errorf("%s %s: Content-Type %q, want JSON", method, url, ct)
	}
	// Every answer any test receives must be one api/openapi.json
	// describes.
	if err := env.spec.Validate(method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), raw); err != nil {
		t.Errorf("the answer does not match api/openapi.json: %v", err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, raw, err)
		}
	}
	return resp.StatusCode, raw
}

// crawlObj is the Crawl object as a client reads it; its options are read
// under their JSON names (a null stack reads as "").
type crawlObj struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	StartURL string `json:"startUrl"`
	crawl.Options
	BrandID           *string    `json:"brandId"`
	TotalPages        int        `json:"totalPages"`
	DurationInSeconds *int64     `json:"durationInSeconds"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
	CompletedAt       *time.Time `json:"completedAt"`
	// Progress is on the answers about one crawl, not in lists.
	Progress *progressObj `json:"progress"`
}

type progressObj struct {
	Queued, InProgress, Stored, Failed, Skipped, Duplicates int
}

type errorObj struct {
	Error struct {
		Code    string             `json:"code"`
		Message string             `json:"message"`
		Details []crawl.FieldError `json:"details"`
	} `json:"error"`
}

type logEntry struct {
	ID          string         `json:"id"`
	Message     string         `json:"message"`
	Level       string         `json:"level"`
	Description string         `json:"description"`
	CrawlID     string         `json:"crawlId"`
	TeamID      string         `json:"teamId"`
	Data        map[string]any `json:"data"`
	CreatedAt   time.Time      `json:"createdAt"`
}

type resultPage struct {
	URL              string          `json:"url"`
	StatusCode       int             `json:"statusCode"`
	Depth            int             `json:"depth"`
	Title            string          `json:"title"`
	Markdown         string          `json:"markdown"`
	Fragments        int             `json:"fragments"`
	FragmentsRemoved int             `json:"fragmentsRemoved"`
	Engine           string          `json:"engine"`
	ContentType      string          `json:"contentType"`
	DocumentPages    int             `json:"documentPages"`
	Extraction       json.RawMessage `json:"extraction"`
	ExtractionError  string          `json:"extractionError"`
	// The formats asked for besides markdown.
	HTML     *string         `json:"html"`
	RawHTML  *string         `json:"rawHtml"`
	Links    []string        `json:"links"`
	Images   []string        `json:"images"`
	Metadata json.RawMessage `json:"metadata"`
}

type pageOf[T any] struct {
	Results      []T `json:"results"`
	Page         int `json:"page"`
	Limit        int `json:"limit"`
	TotalPages   int `json:"totalPages"`
	TotalResults int `json:"totalResults"`
	// Next is the URL of the following page; null on the last.
	Next *string `json:"next"`
}

// followNext checks p's next URL against its position and returns it ("" on
// the last page).
func followNext[T any](t testing.TB, p pageOf[T]) string {
	t.Helper()
	if (p.Next != nil) != (p.Page < p.TotalPages) {
		t.Fatalf("page %d of %d: next = %v", p.Page, p.TotalPages, p.Next)
	}
	if p.Next == nil {
		return ""
	}
	return *p.Next
}

// create posts a crawl and returns it, failing the test unless the answer
// is 201.
func create(t testing.TB, base, key string, body any) crawlObj {
	t.Helper()
	var c crawlObj
	status, raw := call(t, "POST", base+"/crawls", key, body, &c)
	if status != http.StatusCreated {
		t.Fatalf("POST /crawls = %d %s, want 201", status, raw)
	}
	return c
}

// waitFor polls the crawl until cond holds or timeout passes.
func waitFor(t testing.TB, base, key, id string, timeout time.Duration, what string, cond func(crawlObj) bool) crawlObj {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var c crawlObj
	for {
		status, raw := call(t, "GET", base+"/crawls/"+id, key, nil, &c)
		if status != http.StatusOK {
			t.Fatalf("GET /crawls/%s = %d %s", id, status, raw)
		}
		if cond(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("crawl %s: %s did not happen within %v; last state %+v", id, what, timeout, c)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitStatus waits for the crawl to leave running and checks its status.
func waitStatus(t testing.TB, base, key, id string, timeout time.Duration, want string) crawlObj {
	t.Helper()
	c := waitFor(t, base, key, id, timeout, "the end", func(c crawlObj) bool { return c.Status != "running" })
	if c.Status != want {
		t.Fatalf("crawl %s ended %q, want %q", id, c.Status, want)
	}
	if c.CompletedAt == nil || c.DurationInSeconds == nil {
		t.Fatalf("crawl %s ended without completedAt/durationInSeconds: %+v", id, c)
	}
	if got := int64(c.CompletedAt.Sub(c.CreatedAt) / time.Second); *c.DurationInSeconds != got {
		t.Errorf("durationInSeconds = %d, want %d (completedAt - createdAt)", *c.DurationInSeconds, got)
	}
	recordHistories(t, id, c.Status)
	return c
}

// allLogs reads every log entry of a crawl, limit entries a page, checking
// that the pagination fields agree with what is returned.
func allLogs(t testing.TB, base, key, id string, limit int) []logEntry {
	t.Helper()
	var out []logEntry
	next := fmt.Sprintf("%s/crawl-logs/%s?limit=%d", base, id, limit)
	for page := 1; ; page++ {
		var p pageOf[logEntry]
		status, raw := call(t, "GET", next, key, nil, &p)
		if status != http.StatusOK {
			t.Fatalf("GET logs page %d = %d %s", page, status, raw)
		}
		if p.Page != page || p.Limit != limit {
			t.Fatalf("log page says page %d limit %d, want %d %d", p.Page, p.Limit, page, limit)
		}
		if want := (p.TotalResults + limit - 1) / limit; p.TotalPages != want {
			t.Fatalf("totalPages = %d for %d results at limit %d, want %d", p.TotalPages, p.TotalResults, limit, want)
		}
		out = append(out, p.Results...)
		if next = followNext(t, p); next == "" {
			if len(out) != p.TotalResults {
				t.Fatalf("read %d log entries, totalResults says %d", len(out), p.TotalResults)
			}
			return out
		}
		if len(p.Results) != limit {
			t.Fatalf("page %d of %d holds %d entries, want %d", page, p.TotalPages, len(p.Results), limit)
		}
	}
}

// allPages reads every result page of a crawl, 100 (the most) at a time.
func allPages(t testing.TB, base, key, id string) []resultPage {
	t.Helper()
	var out []resultPage
	next := fmt.Sprintf("%s/crawls/%s/pages?limit=100", base, id)
	for {
		var p pageOf[resultPage]
		status, raw := call(t, "GET", next, key, nil, &p)
		if status != http.StatusOK {
			t.Fatalf("GET pages = %d %s", status, raw)
		}
		out = append(out, p.Results...)
		if next = followNext(t, p); next == "" {
			if len(out) != p.TotalResults {
				t.Fatalf("pages: totalResults %d, got %d", p.TotalResults, len(out))
			}
			return out
		}
	}
}

// replay replays the history of a finished workflow run against the
// current workflow code: a change that breaks determinism fails here.
func replay(t testing.TB, workflowID, runID string) {
	t.Helper()
	replayHistory(t, workflowID, runHistory(t, workflowID, runID))
}

// runHistory returns the history of one run of a workflow ("" for the
// latest).
func runHistory(t testing.TB, workflowID, runID string) *historypb.History {
	t.Helper()
	iter := env.temporal.GetWorkflowHistory(context.Background(), workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	history := &historypb.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", workflowID, err)
		}
		history.Events = append(history.Events, ev)
	}
	return history
}

// replayHistory replays one run's history against the current code.
func replayHistory(t testing.TB, workflowID string, history *historypb.History) {
	t.Helper()
	r := sdkworker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(workflows.CrawlWorkflow, workflows.RegisterOptions())
	r.RegisterWorkflowWithOptions(workflows.ScheduledCrawlWorkflow, workflows.RegisterScheduledOptions())
	if err := r.ReplayWorkflowHistory(nil, history); err != nil {
		t.Errorf("replay of %s (%d events): %v", workflowID, len(history.Events), err)
	}
}
