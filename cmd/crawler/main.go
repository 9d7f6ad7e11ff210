// Command crawler runs the crawl service: the API (serve), the Temporal
// worker (worker), database migrations (migrate) and API key management
// (apikey create, list, revoke). Configuration comes from the environment; see docs/configuration.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/console"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
	"github.com/durablecrawl/crawler/metrics"
	"github.com/durablecrawl/crawler/search"
	"github.com/durablecrawl/crawler/worker"
)

const usage = `crawler: a durable web-crawl service on Temporal.

Usage:
  crawler serve                          run the HTTP API
  crawler worker [--browser]             run the Temporal worker (workflows and activities);
                                         with --browser also Chromium and the browser task queue
  crawler migrate                        create the database if needed and apply migrations
  crawler apikey create --team NAME [--brand ID]
                                         create a team if needed and print a new API key
  crawler apikey list [--team NAME]      list API keys (their first characters, never the key)
  crawler apikey revoke ID|KEY           revoke a key: it authenticates no more
  crawler quota set --team NAME [--pages N|none] [--tokens N|none] [--concurrency N|none]
                                         bound a team's result pages and LLM tokens a month
                                         and its crawls at once (past them new work is refused)
  crawler quota show --team NAME         a team's quota and what it used this month
  crawler probe URL                      exit 0 if URL answers 2xx within 5 s (container health checks)
  crawler help                           show this text

Client of a running API (address from --api or CRAWLER_API_URL, key from
--key or CRAWLER_API_KEY):
  crawler crawl URL [--OPTION VALUE ...] [--wait]
                                         create a crawl (every request option is a flag,
                                         kebab-case or as in JSON: --max-results 50
                                         --exclude-paths '/tag/*' ...);
                                         --wait shows its progress until it ends
  crawler crawl --json FILE|- [--wait]   create a crawl from a whole request body
  crawler crawls [--status S] [--limit N] [--all]
                                         list the team's crawls, newest first
  crawler logs ID [--follow]             print a crawl's log
  crawler pages ID [--markdown] [--raw]  print its result pages (JSON lines, or markdown)
  crawler abort ID                       abort a crawl
  crawler pause ID, crawler resume ID    pause a running crawl (it holds no worker), or resume it
  crawler change ID [--max-results N] [--exclude-paths P ...] [--max-concurrent-pages N]
                                         change a running crawl (a Temporal Update of its workflow)
  crawler changes ID                     print what a changeTracking crawl found new, changed
                                         or removed since the previous crawl (JSON lines)
  crawler schedules [list]               list the team's crawl schedules
  crawler schedules create URL (--cron EXPR | --interval DURATION) [--timezone ZONE]
                                         [--name NAME] [--paused]
                                         schedule crawls of URL (each compares with the last)
  crawler schedules create --json FILE|- create a schedule from a whole request body
  crawler schedules get|pause|resume|trigger|delete ID [--note TEXT]
                                         read, pause, resume, run now or delete a schedule

Configuration is read from the environment (see docs/configuration.md): DATABASE_URL,
TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, CRAWLER_HTTP_ADDR,
CRAWLER_ALLOW_PRIVATE_NETWORKS and the other CRAWLER_* variables.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "crawler:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg + " (see: crawler help)" }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if c, ok := clientCommands[cmd]; ok {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		err := c(clientEnv{ctx: ctx, stdout: stdout, stderr: stderr, getenv: os.Getenv,
			terminal: func() bool { return isTerminal(os.Stderr) }, poll: time.Second}, rest)
		return printHelp(err, stdout)
	}
	if cmd == "worker" && helpArg(rest) {
		fs := workerFlags(new(bool))
		return printHelp(helpRequested{fs: fs, line: "usage: crawler worker [--browser] (configured by the environment: see crawler help)"}, stdout)
	}
	if cmd == "probe" {
		// Health checks of containers: no configuration needed.
		return probe(context.Background(), rest, stdout, stderr)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal starts a graceful shutdown (CRAWLER_SHUTDOWN_TIMEOUT);
	// with the handler gone, a second one kills the process at once.
	go func() { <-ctx.Done(); stop() }()

	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger)
	case "worker":
		withBrowser := new(bool)
		fs := workerFlags(withBrowser)
		if err := fs.Parse(rest); err != nil {
			return usageError{err.Error()}
		}
		return runWorker(ctx, cfg, logger, *withBrowser)
	case "migrate":
		return migrate(ctx, cfg, stdout)
	case "apikey":
		return apikey(ctx, cfg, rest, stdout)
	case "quota":
		return quota(ctx, cfg, rest, stdout)
	default:
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

// workerFlags is the worker command's flag set, setting browser.
func workerFlags(browser *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(browser, "browser", false, "run a browser and poll the browser task queue too")
	return fs
}

// helpArg reports whether args ask for help.
func helpArg(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" || a == "--h" {
			return true
		}
	}
	return false
}

// printHelp prints the usage a command's --help asked for, and then
// ends it without error; any other err is returned as it is.
func printHelp(err error, stdout io.Writer) error {
	var h helpRequested
	if errors.As(err, &h) {
		h.print(stdout)
		return nil
	}
	return err
}

// newLogger logs at level to w, as logfmt-like text or, with format
// json, one JSON object a line (config.Load accepts only those two).
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// connect opens the database and the Temporal client that serve and
// worker share, and returns a function that closes both.
// The Temporal SDK's metrics go to reg.
func connect(ctx context.Context, cfg config.Config, logger *slog.Logger, reg *prometheus.Registry) (*db.Store, client.Client, func(), error) {
	database, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, nil, err
	}
	tc, err := worker.Dial(cfg, logger, metrics.NewTemporal(reg).Handler())
	if err != nil {
		database.Close()
		return nil, nil, nil, err
	}
	return db.NewStore(database), tc, func() { tc.Close(); database.Close() }, nil
}

func serve(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	reg := metrics.NewRegistry()
	store, tc, closeAll, err := connect(ctx, cfg, logger, reg)
	if err != nil {
		return err
	}
	defer closeAll()
	// The API starts workflows with search attributes: make sure they exist
	// even when no worker has registered them yet.
	if err := worker.EnsureSearchAttributes(ctx, tc, cfg.TemporalNamespace); err != nil {
		return err
	}

	if cfg.LLM.Enabled() {
		if err := extract.CheckLimits(cfg.LLM.ContextTokens, cfg.LLM.MaxAnswerTokens); err != nil {
			return err
		}
	}
	var searcher *search.Client
	if cfg.SearXNGURL != "" {
		if searcher, err = search.New(cfg.SearXNGURL, nil); err != nil {
			return fmt.Errorf("CRAWLER_SEARXNG_URL: %w", err)
		}
	}
	app := api.New(api.Options{
		Search:          searcherOf(searcher),
		LLMTaskQueue:    llmQueue(cfg),
		Store:           store,
		Temporal:        tc,
		Console:         console.Options{TemporalUI: cfg.TemporalUIURL, Namespace: cfg.TemporalNamespace},
		Schedules:       tc.ScheduleClient(),
		TaskQueue:       cfg.TaskQueue,
		Server:          worker.CrawlServer(cfg),
		StaticIP:        cfg.StaticEgressIP,
		Logger:          logger,
		CrawlsPerMinute: cfg.CrawlsPerMinute,
		CrawlsBurst:     cfg.CrawlsBurst,
		Metrics:         metrics.NewAPI(reg, store.CountCrawls),
		MetricsHandler:  metrics.Handler(reg),
		Ready:           worker.ReadyChecks(store, tc),
		WebhookRetryFor: cfg.WebhookRetryFor,
		ObeyRobots:      cfg.ObeyRobots,
		UserAgent:       cfg.UserAgent,
		SelfURL:         selfURL(cfg.HTTPAddr),
	})
	errc := make(chan error, 1)
	go func() { errc <- app.Listen(cfg.HTTPAddr) }()
	logger.Info("api listening", "addr", "http://"+cfg.HTTPAddr)
	select {
	case err := <-errc:
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	case <-ctx.Done():
	}
	logger.Info("api stopping", "timeout", cfg.ShutdownTimeout)
	// Requests under way get CRAWLER_SHUTDOWN_TIMEOUT to finish; those
	// still running then have their connections closed.
	return app.ShutdownWithTimeout(cfg.ShutdownTimeout)
}

// llmQueue is the LLM workers' task queue, or "" without an LLM.
func llmQueue(cfg config.Config) string {
	if !cfg.LLM.Enabled() {
		return ""
	}
	return cfg.LLM.TaskQueue
}

// searcherOf is the API's search backend: c, or none when c is nil (a nil
// *search.Client is not a nil backend).
func searcherOf(c *search.Client) api.SearchBackend {
	if c == nil {
		return nil
	}
	return c
}

func runWorker(ctx context.Context, cfg config.Config, logger *slog.Logger, withBrowser bool) error {
	tuneGC(logger)
	reg := metrics.NewRegistry()
	store, tc, closeAll, err := connect(ctx, cfg, logger, reg)
	if err != nil {
		return err
	}
	defer closeAll()
	m := metrics.NewWorker(reg)
	if cfg.MetricsAddr != "" {
		addr, stop, err := listenMetrics(cfg, logger, worker.StatusMux(metrics.Handler(reg), worker.ReadyChecks(store, tc)))
		if err != nil {
			return err
		}
		defer stop()
		logger.Info("metrics served", "addr", "http://"+addr+"/metrics")
	}
	if cfg.DebugAddr != "" {
		stop, err := serveDebug(cfg.DebugAddr)
		if err != nil {
			return err
		}
		defer stop()
		logger.Info("profiles served", "addr", "http://"+cfg.DebugAddr+"/debug/pprof/")
	}
	return worker.Run(ctx, tc, cfg, store, logger, withBrowser, m)
}

func migrate(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	if err := db.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	database, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer database.Close()
	applied, err := db.Migrate(ctx, database)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	return nil
}

func apikey(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	const use = "usage: crawler apikey create --team NAME [--brand ID] | list [--team NAME] | revoke ID|KEY"
	if len(args) == 0 {
		return usageError{use}
	}
	fs := flag.NewFlagSet("apikey "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	team := fs.String("team", "", "team name")
	brand := fs.String("brand", "", "brand ID reported on the team's crawls (create)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	database, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer database.Close()
	store := db.NewStore(database)
	switch args[0] {
	case "create":
		if strings.TrimSpace(*team) == "" {
			return usageError{"--team is required"}
		}
		var brandID *string
		if b := strings.TrimSpace(*brand); b != "" {
			brandID = &b
		}
		key, err := store.CreateAPIKey(ctx, strings.TrimSpace(*team), brandID)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, key)
		return nil
	case "list":
		keys, err := store.ListAPIKeys(ctx, strings.TrimSpace(*team))
		if err != nil {
			return err
		}
		printKeys(stdout, keys)
		return nil
	case "revoke":
		if fs.NArg() != 1 {
			return usageError{"usage: crawler apikey revoke ID|KEY"}
		}
		k, err := store.RevokeAPIKey(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked %s (%s…, team %s)\n", k.ID, k.Prefix, k.Team)
		return nil
	default:
		return usageError{use}
	}
}

// printKeys writes API keys as a table: never the key, only its first
// characters.
func printKeys(w io.Writer, keys []db.KeyInfo) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tTEAM\tBRAND\tCREATED\tREVOKED")
	for _, k := range keys {
		brand, revoked := "-", "-"
		if k.BrandID != nil {
			brand = *k.BrandID
		}
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Team, brand, k.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	tw.Flush()
}

// selfURL is the address the API reaches itself at from its listen
// address: a wildcard host (":8080", "0.0.0.0:8080") is reached on
// loopback.
func selfURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
