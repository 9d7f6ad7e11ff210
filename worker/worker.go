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
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/workflows"
)

// Dial connects to the Temporal frontend named in cfg.
func Dial(cfg config.Config, logger *slog.Logger) (client.Client, error) {
	c, err := client.Dial(client.Options{
		HostPort:  cfg.TemporalAddress,
		Namespace: cfg.TemporalNamespace,
		Logger:    tlog.NewStructuredLogger(logger.With("component", "temporal")),
	})
	if err != nil {
		return nil, fmt.Errorf("connect to temporal at %s: %w", cfg.TemporalAddress, err)
	}
	return c, nil
}

// New returns a worker for the crawl task queue with the crawl workflow and
// its activities registered, and the fetcher it uses (close it after the
// worker stops).
func New(c client.Client, cfg config.Config, store *db.Store) (worker.Worker, *fetch.Static) {
	opts := fetch.StaticOptions{
		AllowPrivateNetworks: cfg.AllowPrivateNetworks,
		UserAgent:            cfg.UserAgent,
		Timeout:              cfg.PageTimeout,
		MaxBytes:             cfg.MaxPageBytes,
	}
	if cfg.StaticEgressProxy != "" {
		opts.EgressProxy, _ = url.Parse(cfg.StaticEgressProxy) // checked by config.Load
	}
	static := fetch.NewStatic(opts)
	w := worker.New(c, cfg.TaskQueue, worker.Options{
		// Each fetch activity runs up to MaxConcurrentPages requests of its
		// own, so a few activities at once keep a worker busy.
		MaxConcurrentActivityExecutionSize: 16,
	})
	w.RegisterWorkflowWithOptions(workflows.CrawlWorkflow, workflows.RegisterOptions())
	w.RegisterActivity(&activities.Activities{
		Store:  store,
		Static: static,
		Settings: activities.Settings{
			MaxPagesPerCrawl:       cfg.MaxPagesPerCrawl,
			DefaultConcurrentPages: cfg.DefaultConcurrentPages,
			MaxConcurrentPages:     cfg.MaxConcurrentPages,
			ObeyRobots:             cfg.ObeyRobots,
			UserAgent:              cfg.UserAgent,
		},
	})
	return w, static
}

// Run runs a worker and the reconciler until ctx is done.
func Run(ctx context.Context, c client.Client, cfg config.Config, store *db.Store, logger *slog.Logger) error {
	if err := EnsureSearchAttributes(ctx, c, cfg.TemporalNamespace); err != nil {
		return err
	}
	w, static := New(c, cfg, store)
	defer static.Close()
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer w.Stop()
	logger.Info("worker started", "taskQueue", cfg.TaskQueue, "namespace", cfg.TemporalNamespace,
		"allowPrivateNetworks", cfg.AllowPrivateNetworks)

	rec := &Reconciler{Store: store, Temporal: c, Logger: logger}
	rec.Run(ctx, cfg.ReconcileInterval)
	logger.Info("worker stopping")
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
	for name, typ := range workflows.SearchAttrTypes {
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
