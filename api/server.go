// Package api is the HTTP interface of the crawl service (documented in
// docs/api.md): create and read crawls, read their logs and results, abort
// them. It reads from Postgres and talks to
// Temporal only to start and cancel workflows; it never waits for a crawl.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/console"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/health"
	"github.com/durablecrawl/crawler/metrics"
	"github.com/durablecrawl/crawler/pdfdoc"
	"github.com/durablecrawl/crawler/usage"
)

// store is what the API needs of the database.
type store interface {
	Authenticate(ctx context.Context, key string) (db.Principal, error)
	InsertCrawl(ctx context.Context, c *crawl.Crawl) error
	GetCrawl(ctx context.Context, teamID, id uuid.UUID) (*crawl.Crawl, error)
	ListCrawls(ctx context.Context, teamID uuid.UUID, status crawl.Status, page, limit int) ([]crawl.Crawl, int, error)
	CountPages(ctx context.Context, crawlID uuid.UUID) (map[crawl.PageState]int, error)
	crawllog.Ender
	InsertLogs(ctx context.Context, logs []crawl.CrawlLog) error
	ListLogs(ctx context.Context, crawlID uuid.UUID, page, limit int, q db.LogsQuery) ([]crawl.CrawlLog, int, error)
	ListResults(ctx context.Context, crawlID uuid.UUID, page, limit int, q db.ResultsQuery) ([]crawl.Page, int, error)
	ListResultsFrom(ctx context.Context, crawlID uuid.UUID, offset, limit int) ([]crawl.Page, int, error)
	CachedPage(ctx context.Context, team uuid.UUID, cacheKey, key string, oldest, newest time.Time) (*crawl.Page, *crawl.Crawl, error)
	StoredPageIDs(ctx context.Context, crawlID uuid.UUID) ([]int64, error)
	StoredPagesByID(ctx context.Context, crawlID uuid.UUID, ids []int64) ([]crawl.Page, error)
	ListPageErrors(ctx context.Context, crawlID uuid.UUID, limit int) ([]crawl.Page, error)
	MapURLs(ctx context.Context, crawlID uuid.UUID, limit int, words []string, ignoreQuery bool) ([]string, error)
	Robots(ctx context.Context, crawlID uuid.UUID, origins []string) (map[string]db.Robots, error)
	ScreenshotByToken(ctx context.Context, token string) (*db.Screenshot, error)
	PreviousOf(ctx context.Context, pages []crawl.Page) (map[int64]changes.Previous, error)
	ListChanges(ctx context.Context, crawlID uuid.UUID, page, limit int) ([]crawl.Page, int, error)
	InsertSchedule(ctx context.Context, sc *db.Schedule) error
	GetSchedule(ctx context.Context, teamID, id uuid.UUID) (*db.Schedule, error)
	ListSchedules(ctx context.Context, teamID uuid.UUID, page, limit int) ([]db.Schedule, int, error)
	UpdateSchedule(ctx context.Context, sc *db.Schedule) error
	DeleteSchedule(ctx context.Context, teamID, id uuid.UUID) error
	ScheduleCrawls(ctx context.Context, scheduleID uuid.UUID, limit int) ([]crawl.Crawl, error)
	ScheduleCrawlsFrom(ctx context.Context, scheduleID uuid.UUID, offset, limit int) ([]crawl.Crawl, error)
	CheckPages(ctx context.Context, crawlID uuid.UUID, status string, skip, limit int) ([]crawl.Page, int, error)
	FailedPages(ctx context.Context, crawlID uuid.UUID) (int, error)
	SchedulesOf(ctx context.Context, teamID uuid.UUID, shape string, offset, limit int) ([]db.Schedule, error)
	UsageDays(ctx context.Context, team uuid.UUID, from, to time.Time) ([]usage.Day, error)
	TeamQuota(ctx context.Context, team uuid.UUID) (usage.Quota, error)
	TeamJobs(ctx context.Context, team uuid.UUID) (db.TeamJobs, error)
	CountTeamTokens(ctx context.Context, team, key uuid.UUID, in, out int64) error
}

var _ store = (*db.Store)(nil)

// temporalClient is what the API needs of Temporal.
type temporalClient interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	UpdateWorkflow(ctx context.Context, options client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error)
}

// Options configure the API.
type Options struct {
	Store    store
	Temporal temporalClient
	// Console says where the console links a crawl's workflow (the
	// Temporal UI and namespace; no link without a UI).
	Console console.Options
	// TaskQueue is where crawl workflows are started.
	TaskQueue string
	// Server says which optional features this deployment has.
	Server crawl.Server
	// StaticIP is the egress address reported on useStaticIps crawls.
	StaticIP string
	Logger   *slog.Logger
	// RequestTimeout bounds the database and Temporal calls of a request.
	RequestTimeout time.Duration
	// CrawlsPerMinute bounds how many crawls one API key creates a minute,
	// in bursts of up to CrawlsBurst; 0 is no limit.
	CrawlsPerMinute float64
	CrawlsBurst     int
	// Resolver looks up start URLs' hosts when private networks are not
	// allowed; nil is the system's resolver.
	Resolver resolver
	// Metrics counts requests and crawls (nil: not counted);
	// MetricsHandler serves GET /metrics (nil: no such route).
	Metrics        *metrics.API
	MetricsHandler http.Handler
	// Ready are the checks of GET /readyz (Postgres and Temporal).
	Ready map[string]health.Check
	// ObeyRobots and UserAgent are the workers' robots.txt settings: a map
	// leaves out the URLs robots.txt disallows.
	ObeyRobots bool
	UserAgent  string
	// Schedules creates and reads the Temporal Schedules of crawl
	// schedules; nil: the deployment has none (the routes answer 503).
	Schedules scheduleClient
	// LLMTaskQueue is where the workers with an LLM take their activities
	// (a crawl's prompt is planned there); "" when the deployment has no
	// LLM.
	LLMTaskQueue string
	// Search is the deployment's search backend (CRAWLER_SEARXNG_URL);
	// nil: /v2/search answers that there is none.
	Search SearchBackend
	// SelfURL is the API's own address, which its MCP tools call it at
	// (docs/mcp.md); "" is the address a request reached it at, when that
	// is a loopback address (else the tools answer an error).
	SelfURL string
	// WebhookRetryFor is how long workers try a webhook event: a crawl
	// with a webhook may run this much longer than its timeout
	// (0: webhook.DefaultRetryFor).
	WebhookRetryFor time.Duration
}

// server holds the handlers' dependencies.
type server struct {
	Options
	limiter *keyLimiter
	// pdf reads uploaded PDFs (POST /v2/parse); PDFium starts on the
	// first one.
	pdf *pdfdoc.Converter
}

// New returns the API as a Fiber app.
func New(o Options) *fiber.App {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 15 * time.Second
	}
	o.Server.ObeyRobots = o.ObeyRobots
	s := &server{Options: o, limiter: newKeyLimiter(o.CrawlsPerMinute, o.CrawlsBurst), pdf: &pdfdoc.Converter{Instances: 1}}
	app := fiber.New(fiber.Config{
		AppName: "crawler",
		// Bodies up to 8 MiB are read whole, so that one over the 1 MiB a
		// request may carry gets its 413 answer (fasthttp drops the
		// connection of a body past BodyLimit instead).
		BodyLimit:             8 << 20,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler(o.Logger),
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		JSONEncoder:           encodeJSON,
		JSONDecoder:           json.Unmarshal,
	})
	app.Use(s.observe(app))
	// A panic in a handler is answered 500 and logged, not a dead server.
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		s.logOf(c).Error("handler panic", "method", c.Method(), "path", c.Path(), "panic", e)
	}}))
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) })
	app.Get("/readyz", s.readyz)
	s.metricsRoute(app)
	app.Get("/openapi.json", serveOpenAPI)

	// Before the authenticated routes: a watch's key comes as its
	// WebSocket subprotocol, not an Authorization header.
	s.firecrawlWatchRoutes(app)
	// A screenshot's URL is its own key: a token of 128 random bits.
	app.Get("/screenshots/:token", s.screenshot)
	// The MCP endpoint checks its bearer key itself, as the protocol's
	// authorization asks (a 401 with WWW-Authenticate).
	mcp := s.mcpRoute()
	for _, method := range []string{fiber.MethodPost, fiber.MethodGet, fiber.MethodDelete} {
		app.Add(method, "/mcp", mcp)
	}
	// The console's page, script and styles; it calls the API below with
	// the key a person signs in with.
	app.Get(console.Prefix+"*", console.Handler(o.Console))
	authed := app.Group("", s.authenticate)
	authed.Get("/me", s.me)
	authed.Post("/crawls", s.createCrawl)
	authed.Get("/crawls", s.listCrawls)
	authed.Get("/crawls/:id", s.getCrawl)
	authed.Get("/crawls/:id/pages", s.listPages)
	authed.Get("/crawls/:id/changes", s.listChanges)
	authed.Post("/crawls/:id/abort", s.abortCrawl)
	authed.Patch("/crawls/:id", s.changeCrawl)
	authed.Post("/crawls/:id/pause", s.pauseCrawl)
	authed.Post("/crawls/:id/resume", s.resumeCrawl)
	// DELETE is the same abort, for clients that cancel a crawl that way.
	authed.Delete("/crawls/:id", s.abortCrawl)
	authed.Get("/crawl-logs/:crawlId", s.listLogs)
	authed.Post("/schedules", s.createSchedule)
	authed.Get("/schedules", s.listSchedules)
	authed.Get("/schedules/:id", s.getSchedule)
	authed.Patch("/schedules/:id", s.patchSchedule)
	authed.Delete("/schedules/:id", s.deleteSchedule)
	authed.Post("/schedules/:id/trigger", s.triggerSchedule)
	s.firecrawlRoutes(authed)
	app.Use(func(c *fiber.Ctx) error {
		if firecrawlPath(c.Path()) {
			return crawl.Errorf(crawl.ENOTFOUND, "%s %s is not supported here (see docs/firecrawl.md)", c.Method(), c.Path())
		}
		return crawl.Errorf(crawl.ENOTFOUND, "no route for %s %s", c.Method(), c.Path())
	})
	return app
}

// encodeJSON writes JSON without escaping <, > and &: answers carry URLs
// and markdown that clients read as they are.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// principalKey is the fiber.Ctx local that holds the caller.
const principalKey = "principal"

// authenticate resolves the bearer token to a team, or answers 401.
func (s *server) authenticate(c *fiber.Ctx) error {
	h := strings.TrimSpace(c.Get(fiber.HeaderAuthorization))
	scheme, token, ok := strings.Cut(h, " ")
	if h == "" {
		return crawl.Errorf(crawl.EUNAUTHORIZED, "missing API key: send Authorization: Bearer <key>")
	}
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return crawl.Errorf(crawl.EUNAUTHORIZED, "malformed Authorization header: send Authorization: Bearer <key>")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	p, err := s.Store.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	c.Locals(principalKey, p)
	return c.Next()
}

func principal(c *fiber.Ctx) db.Principal {
	p, _ := c.Locals(principalKey).(db.Principal)
	return p
}

// ctx returns the request's context bounded by the request timeout.
func (s *server) ctx(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), s.RequestTimeout)
}

// crawlID parses a crawl ID path parameter; an ID that cannot exist is
// simply not found.
func crawlID(c *fiber.Ctx, param string) (uuid.UUID, error) {
	raw := strings.Clone(c.Params(param))
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %q not found", raw)
	}
	return id, nil
}
