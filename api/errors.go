package api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
)

// statusOf maps error codes to HTTP statuses; it is the only place that
// does.
var statusOf = map[string]int{
	crawl.EINVALID:           http.StatusBadRequest,
	crawl.EUNAUTHORIZED:      http.StatusUnauthorized,
	crawl.ENOTFOUND:          http.StatusNotFound,
	crawl.ECONFLICT:          http.StatusConflict,
	crawl.EINTERNAL:          http.StatusInternalServerError,
	crawl.EUNAVAILABLE:       http.StatusServiceUnavailable,
	crawl.ERATELIMITED:       http.StatusTooManyRequests,
	codeTimeout:              http.StatusRequestTimeout,
	codeScrapeFailed:         http.StatusUnprocessableEntity,
	codeActionFailed:         http.StatusInternalServerError,
	firecrawl.CodeNotEnabled: http.StatusForbidden,
	crawl.EQUOTA:             http.StatusPaymentRequired,
	codeUnreadable:           http.StatusUnprocessableEntity,
	codeTooLarge:             http.StatusRequestEntityTooLarge,
}

// Codes of the Firecrawl API's own errors: a scrape past its timeout, and
// a page that could not be scraped (Firecrawl's clients show the message).
const (
	codeTimeout      = "SCRAPE_TIMEOUT"
	codeScrapeFailed = "SCRAPE_FAILED"
	// codeActionFailed is a page whose actions could not be done: 500,
	// as Firecrawl answers it, the message naming the action and why.
	codeActionFailed = "SCRAPE_ACTION_ERROR"
)

// errorBody is the JSON body of every error response.
type errorBody struct {
	Error errorJSON `json:"error"`
}

type errorJSON struct {
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Details []crawl.FieldError `json:"details,omitempty"`
}

// errorHandler writes err as a JSON error. Internal errors are logged and
// answered without their text, which may name internals.
func errorHandler(logger *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var e *crawl.Error
		var fe *fiber.Error
		body := errorJSON{Code: crawl.EINTERNAL, Message: "internal error"}
		status := http.StatusInternalServerError
		switch {
		case errors.As(err, &e):
			body = errorJSON{Code: e.Code, Message: e.Message, Details: e.Details}
			status = statusOf[e.Code]
			if status == 0 {
				status = http.StatusInternalServerError
			}
		case errors.As(err, &fe):
			status = fe.Code
			body = errorJSON{Code: fiberCode(fe.Code), Message: fe.Message}
		}
		if status >= 500 {
			id, _ := c.Locals(requestIDKey).(string)
			logger.Error("request failed", "requestId", id, "method", c.Method(), "path", c.Path(), "error", err)
			if e == nil || e.Message == "" {
				body.Message = "internal error"
			}
		}
		if status == http.StatusUnauthorized {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="crawler"`)
		}
		if firecrawlPath(c.Path()) {
			return c.Status(status).JSON(firecrawl.ErrorOf(body.Code, body.Message, body.Details))
		}
		return c.Status(status).JSON(errorBody{Error: body})
	}
}

func fiberCode(status int) string {
	switch {
	case status == http.StatusNotFound:
		return crawl.ENOTFOUND
	case status == http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case status == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case status >= 400 && status < 500:
		return crawl.EINVALID
	default:
		return crawl.EINTERNAL
	}
}
