// Package worker runs crawls: it polls the crawl task queue for workflow
// and activity tasks, and reconciles crawls whose workflows ended without
// running any of their code (terminate, execution timeout).
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/browser"
	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
	"github.com/durablecrawl/crawler/fetch/static"
	"github.com/durablecrawl/crawler/hostbudget"
	"github.com/durablecrawl/crawler/linkmemo"
	"github.com/durablecrawl/crawler/metrics"
	"github.com/durablecrawl/crawler/pdfdoc"
	"github.com/durablecrawl/crawler/webhook"
	"github.com/durablecrawl/crawler/workflows"
)

// Dial connects to the Temporal frontend named in cfg (address,
// namespace, API key, TLS: see ClientOptions) and reports the client's
// metrics to metrics; a nil metrics handler reports none. Its errors and
// logs never contain the API key.
func Dial(cfg config.Config, logger *slog.Logger, metrics client.MetricsHandler) (client.Client, error) {
	opts, err := ClientOptions(cfg)
	if err != nil {
		return nil, err
	}
	opts.Logger = tlog.NewStructuredLogger(logger.With("component", "temporal"))
	if metrics != nil {
		opts.MetricsHandler = metrics
	}
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connect to temporal at %s (namespace %s): %w", opts.HostPort, opts.Namespace, err)
	}
	logger.Info("connected to temporal", "address", opts.HostPort, "namespace", opts.Namespace,
		"tls", opts.ConnectionOptions.TLS != nil, "apiKey", cfg.Temporal.APIKey != "")
	return c, nil
}

// ClientOptions are the options Dial connects with, before its logger and
// metrics: cfg.Temporal (API key as the credentials, TLS, authority,
// gRPC metadata) at cfg.TemporalAddress in cfg.TemporalNamespace. TLS is
// on when any TLS setting is given or an API key is, unless TEMPORAL_TLS
// is false; without a server CA it trusts the system's roots.
func ClientOptions(cfg config.Config) (client.Options, error) {
	p := cfg.Temporal
	p.Address, p.Namespace = cfg.TemporalAddress, cfg.TemporalNamespace
	// No remote codec: the workers would call it for every payload they
	// replay (config does not read TEMPORAL_CODEC_*; this covers a
	// profile's codec).
	p.Codec = nil
	opts, err := p.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("temporal client options: %w", err)
	}
	return opts, nil
}

// Workers are the Temporal workers of one process: the crawl task queue
// (workflows, static fetching, conversion, bookkeeping) and, when the
// process has a browser, the browser task queue (RenderPages), so that
// browser capacity is sized and scaled apart.
type Workers struct {
	workers []worker.Worker
	static  *static.Fetcher
	hosts   *hostbudget.Budget
	pdf     *pdfdoc.Converter
}

// New returns the workers of a process; br is nil for a process without a
// browser (the caller owns and closes br). A process with an LLM
// configured also polls the LLM task queue (ExtractPage), under the rate
// limit and concurrency of cfg.LLM.
func New(c client.Client, cfg config.Config, store *db.Store, br *browser.Browser, m *metrics.Worker) (*Workers, error) {
	// Every request of this process draws on its hosts' budgets, shared
	// with every other worker through Postgres.
	hosts := hostbudget.New(store, hostbudget.Limits{MaxInFlight: cfg.HostMaxInFlight, Rate: cfg.HostRate}, "", slog.Default())
	opts := static.Options{
		Hosts:                hosts,
		AllowPrivateNetworks: cfg.AllowPrivateNetworks,
		UserAgent:            cfg.UserAgent,
		Timeout:              cfg.PageTimeout,
		MaxBytes:             cfg.MaxPageBytes,
	}
	if cfg.StaticEgressProxy != "" {
		opts.EgressProxy, _ = url.Parse(cfg.StaticEgressProxy) // checked by config.Load
	}
	fetcher := static.New(opts)
	acts := newActivities(c, cfg, store, fetcher, hosts, br, m)
	crawlOpts := CrawlWorkerOptions(cfg)
	crawlOpts.Interceptors = interceptors(m)
	w := worker.New(c, cfg.TaskQueue, crawlOpts)
	w.RegisterWorkflowWithOptions(workflows.CrawlWorkflow, workflows.RegisterOptions())
	w.RegisterWorkflowWithOptions(workflows.ScheduledCrawlWorkflow, workflows.RegisterScheduledOptions())
	w.RegisterWorkflowWithOptions(workflows.PlanCrawlWorkflow, workflows.RegisterPlanOptions())
	w.RegisterActivity(acts)
	ws := &Workers{workers: []worker.Worker{w}, static: fetcher, hosts: hosts, pdf: acts.PDF}
	if br != nil {
		bw := worker.New(c, cfg.BrowserTaskQueue, worker.Options{
			// Each render activity keeps the browser's page pool busy.
			MaxConcurrentActivityExecutionSize: cfg.Worker.BrowserActivitySlots,
			WorkerStopTimeout:                  cfg.ShutdownTimeout,
			Interceptors:                       interceptors(m),
		})
		bw.RegisterActivity(acts)
		ws.workers = append(ws.workers, bw)
	}
	if cfg.LLM.Enabled() {
		if err := ws.addLLM(c, cfg, acts, m); err != nil {
			fetcher.Close()
			hosts.Close()
			return nil, err
		}
	}
	return ws, nil
}

// newActivities are the activities of this process: its fetchers (the
// browser's when br is not nil) and hosts' budget, and cfg's settings.
func newActivities(c client.Client, cfg config.Config, store *db.Store, fetcher *static.Fetcher, hosts *hostbudget.Budget,
	br *browser.Browser, m *metrics.Worker) *activities.Activities {
	acts := &activities.Activities{
		Store:  store,
		Static: fetcher,
		// A nil *metrics.Worker records nothing.
		Fetches: m,
		Links:   linkmemo.New(linkMemoSize),
		Hosts:   hosts,
		// Read with the static fetcher, as robots.txt files are.
		Styles: batch.NewStylesheets(fetcher),
		// Two documents at once: each is a WebAssembly instance of
		// PDFium, started with the first PDF.
		PDF: &pdfdoc.Converter{Instances: 2},
		// The webhook's URL obeys the fetcher's private-network rule.
		Webhooks: webhook.NewSender(cfg.WebhookSecret, cfg.UserAgent, cfg.AllowPrivateNetworks),
		Settings: activities.Settings{
			MaxPagesPerCrawl:       cfg.MaxPagesPerCrawl,
			DefaultConcurrentPages: cfg.DefaultConcurrentPages,
			MaxConcurrentPages:     cfg.MaxConcurrentPages,
			ObeyRobots:             cfg.ObeyRobots,
			UserAgent:              cfg.UserAgent,
			BrowserAvailable:       cfg.BrowserAvailable,
			BrowserTaskQueue:       cfg.BrowserTaskQueue,
			LLMTaskQueue:           cfg.LLM.TaskQueue,
			WebhookRetryFor:        cfg.WebhookRetryFor,
			PublicURL:              cfg.PublicURL,
			PDF:                    pdfdoc.Limits{MaxPages: cfg.PDFMaxPages, Timeout: cfg.PDFTimeout},
			Server:                 CrawlServer(cfg),
			StaticIP:               cfg.StaticEgressIP,
			Proxies:                cfg.ProxyPools,
		},
	}
	acts.Pollers = func(ctx context.Context, queue string) (int, error) {
		resp, err := c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
		if err != nil {
			return 0, fmt.Errorf("describe task queue %s: %w", queue, err)
		}
		return len(resp.GetPollers()), nil
	}
	if br != nil {
		acts.Browser = browser.Fetcher{Browser: br, MaxBytes: cfg.MaxPageBytes, EgressProxy: cfg.StaticEgressProxy, Static: acts.Static, Hosts: hosts}
	}
	return acts
}

// addLLM gives acts the LLM cfg names and adds the worker of its task
// queue.
func (ws *Workers) addLLM(c client.Client, cfg config.Config, acts *activities.Activities, m *metrics.Worker) error {
	llm, err := extract.New(context.Background(), extract.Config{
		Provider: cfg.LLM.Provider, Model: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey,
		ContextTokens: cfg.LLM.ContextTokens, MaxAnswerTokens: cfg.LLM.MaxAnswerTokens, Timeout: cfg.LLM.Timeout,
		CallsPerSecond: cfg.LLM.RatePerSecond,
	}, nil)
	if err != nil {
		return err
	}
	acts.LLM = llm
	lw := worker.New(c, cfg.LLM.TaskQueue, worker.Options{
		// The server hands out at most RatePerSecond extractions a
		// second across every worker of the queue.
		TaskQueueActivitiesPerSecond:       cfg.LLM.RatePerSecond,
		MaxConcurrentActivityExecutionSize: cfg.LLM.Concurrency,
		WorkerStopTimeout:                  cfg.ShutdownTimeout,
		Interceptors:                       interceptors(m),
	})
	lw.RegisterActivity(acts)
	ws.workers = append(ws.workers, lw)
	return nil
}

// CrawlWorkerOptions are the options of the crawl task queue's worker:
// its slots and pollers from cfg.Worker, its stop timeout from
// cfg.ShutdownTimeout. A zero Config gives the SDK's defaults for those.
func CrawlWorkerOptions(cfg config.Config) worker.Options {
	return worker.Options{
		// Each fetch activity runs up to MaxConcurrentPages requests of its
		// own, so a few activities at once keep a worker busy.
		MaxConcurrentActivityExecutionSize:     cfg.Worker.ActivitySlots,
		MaxConcurrentWorkflowTaskExecutionSize: cfg.Worker.WorkflowTaskSlots,
		MaxConcurrentActivityTaskPollers:       cfg.Worker.ActivityPollers,
		MaxConcurrentWorkflowTaskPollers:       cfg.Worker.WorkflowPollers,
		// On Stop (SIGINT, SIGTERM) the worker polls no more and lets the
		// activities it runs finish for this long; then their contexts are
		// cancelled and each attempt fails (a page batch also times out
		// on its heartbeat if the failure cannot be reported), so Temporal
		// retries it, by its retry policy, on another worker: a page batch
		// cut short is retried as the same batch (db.ClaimBatch).
		WorkerStopTimeout: cfg.ShutdownTimeout,
		// A panic in workflow code, or a change that breaks a running
		// crawl's determinism, fails the run at once: the reconciler then
		// ends the crawl error, with a log entry. The default would retry
		// the workflow task until the execution timeout, and the crawl
		// would read timed_out long after.
		WorkflowPanicPolicy: worker.FailWorkflow,
	}
}

// Start starts every worker.
func (w *Workers) Start() error {
	for _, x := range w.workers {
		if err := x.Start(); err != nil {
			w.Stop()
			return fmt.Errorf("start worker: %w", err)
		}
	}
	return nil
}

// Stop stops the workers and releases the fetcher's connections.
func (w *Workers) Stop() {
	for _, x := range w.workers {
		x.Stop()
	}
	w.static.Close()
	w.hosts.Close()
	w.pdf.Close()
}

// linkMemoSize bounds the links a worker remembers having enqueued, over
// all crawls (linkmemo): about 15 MB.
const linkMemoSize = 100_000

// Run runs the workers (with a browser when withBrowser) and the
// reconciler until ctx is done.
func Run(ctx context.Context, c client.Client, cfg config.Config, store *db.Store, logger *slog.Logger, withBrowser bool, m *metrics.Worker) error {
	if err := EnsureSearchAttributes(ctx, c, cfg.TemporalNamespace); err != nil {
		return err
	}
	var br *browser.Browser
	if withBrowser {
		var err error
		br, err = browser.Launch(browser.Options{
			ChromiumPath: cfg.ChromiumPath, DriverDir: cfg.PlaywrightDriverDir, Pages: cfg.BrowserPages,
			NavTimeout: cfg.PageTimeout, AllowPrivateNetworks: cfg.AllowPrivateNetworks, UserAgent: cfg.UserAgent,
		})
		if err != nil {
			return err
		}
		defer br.Close()
	}
	ws, err := New(c, cfg, store, br, m)
	if err != nil {
		return err
	}
	if err := ws.Start(); err != nil {
		return err
	}
	defer ws.Stop()
	logger.Info("worker started", "taskQueue", cfg.TaskQueue, "browser", withBrowser, "browserTaskQueue", cfg.BrowserTaskQueue,
		"namespace", cfg.TemporalNamespace, "allowPrivateNetworks", cfg.AllowPrivateNetworks,
		"llmProvider", cfg.LLM.Provider, "llmModel", cfg.LLM.Model, "llmTaskQueue", cfg.LLM.TaskQueue,
		"webhooksSigned", cfg.WebhookSecret != "", "webhookRetryFor", cfg.WebhookRetryFor)

	rec := &Reconciler{Store: store, Temporal: c, Logger: logger}
	rec.Run(ctx, cfg.ReconcileInterval)
	// The deferred ws.Stop waits up to cfg.ShutdownTimeout for running
	// activities (see CrawlWorkerOptions).
	logger.Info("worker stopping", "timeout", cfg.ShutdownTimeout)
	return nil
}

// EnsureSearchAttributes registers the crawl search attributes on the
// namespace when they are missing.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	list, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, typ := range crawlflow.SearchAttrTypes {
		if _, ok := list.GetCustomAttributes()[name]; ok {
			continue
		}
		v, ok := enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(typ)]
		if !ok {
			return fmt.Errorf("search attribute %s: unknown type %s", name, typ)
		}
		missing[name] = enumspb.IndexedValueType(v)
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil && !strings.Contains(strings.ToLower(err.Error()), "already") {
		return fmt.Errorf("register search attributes: %w", err)
	}
	return nil
}

// CrawlServer is what a deployment with cfg offers crawl requests: the
// API reads requests against it, and the workers a schedule's request for
// each run.
func CrawlServer(cfg config.Config) crawl.Server {
	srv := crawl.Server{StaticEgressProxy: cfg.StaticEgressProxy != "", Browser: cfg.BrowserAvailable,
		AllowPrivateNetworks: cfg.AllowPrivateNetworks, LLM: cfg.LLM.Enabled(), ProxyPools: cfg.ProxyPools.Names()}
	if cfg.LLM.Enabled() {
		srv.ExtractionLimit = extract.InstructionLimit(cfg.LLM.ContextTokens)
	}
	return srv
}
