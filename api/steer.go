package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/frontier"
)

// changeCrawl handles PATCH /crawls/{id}: a change to the running crawl
// (maxResults, excludePaths added, maxConcurrentPages, paused), sent to
// its workflow as a Temporal Update and answered once it is applied.
func (s *server) changeCrawl(c *fiber.Ctx) error {
	var ch crawl.Change
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ch); err != nil {
		return crawl.Errorf(crawl.EINVALID, "invalid change").WithField("body",
			"must be an object with maxResults, excludePaths, maxConcurrentPages or paused: "+err.Error())
	}
	ch.By = ""
	return s.applyChange(c, ch)
}

// pauseCrawl and resumeCrawl handle POST /crawls/{id}/pause and /resume.
func (s *server) pauseCrawl(c *fiber.Ctx) error {
	return s.applyChange(c, crawl.Change{Paused: ptrTo(true)})
}
func (s *server) resumeCrawl(c *fiber.Ctx) error {
	return s.applyChange(c, crawl.Change{Paused: ptrTo(false)})
}

func ptrTo[T any](v T) *T { return &v }

// applyChange checks ch against the caller's crawl, sends it to the
// crawl's workflow and answers the crawl as it is afterwards: 409 for a
// crawl that has ended, 400 naming the field for a change that is not
// valid.
func (s *server) applyChange(c *fiber.Ctx, ch crawl.Change) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	p := principal(c)
	rec, err := s.Store.GetCrawl(ctx, p.TeamID, id)
	if err != nil {
		return err
	}
	if rec.Status.Terminal() {
		return crawl.Errorf(crawl.ECONFLICT, "crawl %s has ended (%s): it can no longer be changed", id, rec.Status)
	}
	if bad := ch.Check(rec.TotalPages, 0); len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid change", Details: bad}
	}
	if n := len(rec.ExcludePaths) + len(ch.ExcludePaths); n > crawl.MaxPatterns {
		return crawl.Errorf(crawl.EINVALID, "invalid change").WithField("excludePaths",
			fmt.Sprintf("the crawl would have %d rules; at most %d", n, crawl.MaxPatterns))
	}
	if len(ch.ExcludePaths) > 0 {
		next := rec.Options
		next.ExcludePaths = append(append([]string(nil), rec.ExcludePaths...), ch.ExcludePaths...)
		if _, err := frontier.RulesOf(next); err != nil {
			return crawl.Errorf(crawl.EINVALID, "invalid change").WithField("excludePaths", err.Error())
		}
	}
	ch.By = "API key " + p.KeyID.String()
	h, err := s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: rec.WorkflowID, UpdateName: crawlflow.ChangeUpdateName, Args: []any{ch},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var res crawlflow.ChangeResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	if err != nil {
		return s.changeError(c, id, err)
	}
	if rec, err = s.Store.GetCrawl(ctx, p.TeamID, id); err != nil {
		return err
	}
	return s.withProgress(ctx, c, rec)
}

// changeError answers an update the workflow refused or could not take.
func (s *server) changeError(c *fiber.Ctx, id fmt.Stringer, err error) error {
	var app *temporal.ApplicationError
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &app) && app.Type() == crawlflow.ErrCrawlEnded, errors.As(err, &notFound):
		return crawl.Errorf(crawl.ECONFLICT, "crawl %s has ended: it can no longer be changed", id)
	case errors.As(err, &app) && app.Type() == "InvalidChange":
		var bad []crawl.FieldError
		if app.HasDetails() && app.Details(&bad) == nil && len(bad) > 0 {
			return &crawl.Error{Code: crawl.EINVALID, Message: "invalid change", Details: bad}
		}
		return crawl.Errorf(crawl.EINVALID, "invalid change: %s", app.Error())
	case errors.As(err, &app) && app.Type() == crawlflow.ErrCrawlContinuing:
		return crawl.Errorf(crawl.EUNAVAILABLE, "crawl %s is moving to a new workflow run; try again", id)
	case temporal.IsCanceledError(err):
		return crawl.Errorf(crawl.ECONFLICT, "crawl %s is being aborted: it can no longer be changed", id)
	case strings.Contains(err.Error(), "unknown update"):
		return crawl.Errorf(crawl.ECONFLICT, "crawl %s cannot be changed: it started before running crawls could be, or has not begun crawling yet", id)
	case errors.Is(err, context.DeadlineExceeded):
		return crawl.Errorf(crawl.EUNAVAILABLE, "the change was sent but not applied within %s; read the crawl to see whether it was", s.RequestTimeout)
	}
	s.logOf(c).Error("change crawl", "crawlId", id, "error", err)
	return crawl.Errorf(crawl.EUNAVAILABLE, "the change could not be applied now; try again")
}
