package api

import (
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/health"
)

// requestIDKey is the fiber.Ctx local that holds the request's ID.
const requestIDKey = "requestId"

// requestIDOf is the ID of the request: the caller's X-Request-ID when it
// is a sane one (1 to 64 printable ASCII characters), else a new UUID.
func requestIDOf(c *fiber.Ctx) string {
	if id := c.Get(fiber.HeaderXRequestID); len(id) > 0 && len(id) <= 64 {
		sane := true
		for i := 0; i < len(id); i++ {
			if id[i] < 0x21 || id[i] > 0x7e {
				sane = false
				break
			}
		}
		if sane {
			return strings.Clone(id) // c.Get's string points into a reused buffer
		}
	}
	return uuid.NewString()
}

// logOf is the API's logger with the request's ID.
func (s *server) logOf(c *fiber.Ctx) *slog.Logger {
	id, _ := c.Locals(requestIDKey).(string)
	return s.Logger.With("requestId", id)
}

// observe gives each request its ID (echoed in X-Request-ID), answers its
// error here so that the final status is known, then counts it in the
// metrics and writes one access log line.
func (s *server) observe(app *fiber.App) fiber.Handler {
	return func(c *fiber.Ctx) error {
		began := time.Now()
		id := requestIDOf(c)
		c.Locals(requestIDKey, id)
		c.Set(fiber.HeaderXRequestID, id)
		if err := c.Next(); err != nil {
			if herr := app.Config().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		status, d := c.Response().StatusCode(), time.Since(began)
		route := c.Route().Path
		if route == "/" && c.Path() != "/" {
			route = "unmatched" // the catch-all: paths nobody routes would each make a series
		}
		// Fiber's strings point into buffers it reuses: the metrics keep a copy.
		method := strings.Clone(c.Method())
		s.Metrics.Request(route, method, status, d)
		s.Logger.Info("request", "requestId", id, "method", method, "route", route, "status", status,
			"ms", d.Milliseconds())
		return nil
	}
}

// readyz answers whether Postgres and Temporal can be reached.
func (s *server) readyz(c *fiber.Ctx) error {
	r := health.Ready(c.UserContext(), s.Ready)
	return c.Status(r.HTTPStatus()).JSON(r)
}

// metricsRoute serves the Prometheus metrics, when the API has them.
func (s *server) metricsRoute(app *fiber.App) {
	if s.MetricsHandler != nil {
		app.Get("/metrics", adaptor.HTTPHandler(s.MetricsHandler))
	}
}
