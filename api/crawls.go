package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/crawllog"
)

// maxRequestBytes bounds a create request.
const maxRequestBytes = 1 << 20

// executionTimeoutMargin is crawl.ExecutionMargin, under the name the
// handler tests know.
const executionTimeoutMargin = crawl.ExecutionMargin

// createCrawl handles POST /crawls: it validates the body (either request
// shape), records the crawl as running and starts its workflow. When the
// workflow cannot be started the crawl is recorded as error and the answer
// is 500.
func (s *server) createCrawl(c *fiber.Ctx) error {
	rec, err := s.startFromBody(c, func(body []byte) (crawl.Options, error) { return crawl.ParseRequest(body, s.Server) })
	if err != nil {
		return err
	}
	c.Location("/crawls/" + rec.ID.String())
	return c.Status(fiber.StatusCreated).JSON(crawlView(rec, time.Now()))
}

// startFromBody reads the request body (at most maxRequestBytes), makes
// the crawl's options of it with parse, and starts the crawl, keeping the
// body as sent.
func (s *server) startFromBody(c *fiber.Ctx, parse func(body []byte) (crawl.Options, error)) (*crawl.Crawl, error) {
	opts, given, err := readBody(c, parse)
	if err != nil {
		return nil, err
	}
	return s.startCrawl(c, opts, given)
}

// readBody reads the request body (at most maxRequestBytes) and makes the
// crawl's options of it with parse; given is the body as sent, which the
// crawl keeps.
func readBody(c *fiber.Ctx, parse func(body []byte) (crawl.Options, error)) (opts crawl.Options, given json.RawMessage, err error) {
	return readBodyOf(c.Body(), parse)
}

// readBodyOf is readBody of body, a request as sent or as completed
// (a crawl's prompt planned into options).
func readBodyOf(sent []byte, parse func(body []byte) (crawl.Options, error)) (opts crawl.Options, given json.RawMessage, err error) {
	if len(sent) > maxRequestBytes {
		return opts, nil, fiber.NewError(fiber.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxRequestBytes))
	}
	body := bytes.Clone(sent)
	if opts, err = parse(body); err != nil {
		return opts, nil, err
	}
	// Fields the parser does not keep (a map's search, the SDKs' origin)
	// may hold NUL characters, which the stored request cannot.
	if bytes.IndexByte(body, 0) >= 0 || bytes.Contains(body, []byte(`\u0000`)) {
		return opts, nil, &crawl.Error{Code: crawl.EINVALID, Message: "the request has invalid fields",
			Details: []crawl.FieldError{{Field: "body", Message: "must not contain NUL characters"}}}
	}
	if given, err = crawl.Given(body); err != nil {
		return opts, nil, crawl.Errorf(crawl.EINVALID, "the request body must be a JSON object")
	}
	return opts, given, nil
}

// startCrawl records a crawl of opts as running and starts its workflow:
// the one way every API starts a crawl. given is the request as sent,
// kept with the crawl. When the workflow cannot be started the crawl is
// recorded as error and the error is EINTERNAL.
func (s *server) startCrawl(c *fiber.Ctx, opts crawl.Options, given json.RawMessage) (*crawl.Crawl, error) {
	p := principal(c)
	id := uuid.New()
	wfID := crawlflow.WorkflowID(id.String())
	// Postgres keeps microseconds; the answer shows what a later read shows.
	rec := crawl.NewCrawl(id, p.TeamID, p.BrandID, wfID, opts, given, time.Now().UTC().Truncate(time.Microsecond))
	if p.KeyID != uuid.Nil {
		key := p.KeyID
		rec.KeyID = &key
	}
	if opts.UseStaticIPs {
		rec.StaticIP = &s.StaticIP
	}

	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.refuseInternalNames(ctx, opts); err != nil {
		return nil, err
	}
	if err := s.withinQuota(ctx, p.TeamID, opts.Extraction != ""); err != nil {
		return nil, err
	}
	// Only a valid request spends the key's allowance.
	if err := s.limitCreate(c); err != nil {
		return nil, err
	}
	if err := s.Store.InsertCrawl(ctx, rec); err != nil {
		return nil, err
	}
	summary, details := crawlflow.StartText(id.String(), p.TeamID.String(), opts)
	_, err := s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       wfID,
		StaticSummary:            summary,
		StaticDetails:            details,
		TaskQueue:                s.TaskQueue,
		WorkflowExecutionTimeout: s.executionTimeout(opts),
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			crawlflow.AttrCrawlID.ValueSet(id.String()),
			crawlflow.AttrTeamID.ValueSet(p.TeamID.String()),
			crawlflow.AttrStatus.ValueSet(string(crawl.StatusRunning)),
			crawlflow.AttrStartURL.ValueSet(crawlflow.StartURLAttr(opts.StartURLs[0])),
		),
	}, crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: id.String()})
	if err != nil {
		s.logOf(c).Error("start crawl workflow", "crawlId", id, "error", err)
		// The request's context may be what failed; record the outcome anyway.
		finishCtx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 5*time.Second)
		defer cancel()
		if _, ferr := crawllog.End(finishCtx, s.Store, id, crawl.StatusError,
			crawllog.Because(crawllog.EndNotStarted)); ferr != nil {
			s.logOf(c).Error("record crawl start failure", "crawlId", id, "error", ferr)
		}
		return nil, &crawl.Error{Code: crawl.EINTERNAL, Message: fmt.Sprintf("the crawl %s could not be started; it is recorded with status error", id)}
	}
	s.Metrics.CrawlCreated()
	return rec, nil
}

// executionTimeout is the execution timeout of the workflow of a crawl
// with opts (crawl.ExecutionTimeout).
func (s *server) executionTimeout(opts crawl.Options) time.Duration {
	return crawl.ExecutionTimeout(opts, s.WebhookRetryFor)
}

// getCrawl handles GET /crawls/{id}.
func (s *server) getCrawl(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.Store.GetCrawl(ctx, principal(c).TeamID, id)
	if err != nil {
		return err
	}
	return s.withProgress(ctx, c, rec)
}

// listCrawls handles GET /crawls: the caller's team's crawls, newest
// first, optionally of one status.
func (s *server) listCrawls(c *fiber.Ctx) error {
	status := crawl.Status(strings.TrimSpace(c.Query("status")))
	if status != "" && !status.Known() {
		names := make([]string, len(crawl.Statuses))
		for i, x := range crawl.Statuses {
			names[i] = string(x)
		}
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters",
			Details: []crawl.FieldError{{Field: "status", Message: "must be one of " + strings.Join(names, ", ")}}}
	}
	page, limit, err := pageParams(c, defaultCrawlsLimit, maxCrawlsLimit)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rows, total, err := s.Store.ListCrawls(ctx, principal(c).TeamID, status, page, limit)
	if err != nil {
		return err
	}
	now := time.Now()
	out := make([]crawlJSON, len(rows))
	for i := range rows {
		out[i] = crawlView(&rows[i], now)
	}
	return c.JSON(newPage(c, out, page, limit, total))
}

// withProgress answers one crawl with its pages counted by state.
func (s *server) withProgress(ctx context.Context, c *fiber.Ctx, rec *crawl.Crawl) error {
	counts, err := s.Store.CountPages(ctx, rec.ID)
	if err != nil {
		return err
	}
	v := crawlView(rec, time.Now())
	v.Progress = &progressJSON{
		Queued:     counts[crawl.PageQueued],
		InProgress: counts[crawl.PageClaimed] + counts[crawl.PageFetched] + counts[crawl.PageConverted],
		Stored:     counts[crawl.PageStored],
		Failed:     counts[crawl.PageFailed],
		Skipped:    counts[crawl.PageSkipped],
		Duplicates: counts[crawl.PageDuplicate],
	}
	return c.JSON(v)
}

// abortCrawl handles POST /crawls/{id}/abort: it cancels the crawl's
// workflow, which records the crawl as aborted. Aborting a crawl that has
// ended changes nothing. The answer is the crawl, after waiting briefly for
// the workflow to record the abort.
func (s *server) abortCrawl(c *fiber.Ctx) error {
	id, err := crawlID(c, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rec, err := s.abort(ctx, c, id)
	if err != nil {
		return err
	}
	return s.withProgress(ctx, c, rec)
}

// abort cancels crawl id's workflow, which records the crawl as aborted,
// and answers the crawl after waiting briefly for that; a crawl that has
// ended is answered as it is.
func (s *server) abort(ctx context.Context, c *fiber.Ctx, id uuid.UUID) (*crawl.Crawl, error) {
	team := principal(c).TeamID
	rec, err := s.Store.GetCrawl(ctx, team, id)
	if err != nil {
		return nil, err
	}
	if rec.Status.Terminal() {
		return rec, nil
	}
	if err := s.Temporal.CancelWorkflow(ctx, rec.WorkflowID, ""); err != nil {
		var notFound *serviceerror.NotFound
		if !errors.As(err, &notFound) {
			s.logOf(c).Error("cancel crawl workflow", "crawlId", id, "error", err)
			return nil, crawl.Errorf(crawl.EUNAVAILABLE, "the crawl could not be aborted now; try again")
		}
		// The workflow is gone (or never started): nothing will record the
		// abort but us.
		return crawllog.End(ctx, s.Store, id, crawl.StatusAborted, crawllog.Because(crawllog.EndAbortedByAPI))
	}
	// The wait ends early enough to leave the request's own deadline time
	// for one more read.
	wait, cancelWait := context.WithTimeout(ctx, 3*time.Second)
	defer cancelWait()
	if deadline, ok := ctx.Deadline(); ok {
		wait, cancelWait = context.WithDeadline(wait, deadline.Add(-time.Until(deadline)/4))
		defer cancelWait()
	}
	for !rec.Status.Terminal() {
		select {
		case <-wait.Done():
			return rec, nil
		case <-time.After(100 * time.Millisecond):
		}
		if rec, err = s.Store.GetCrawl(ctx, team, id); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// crawlJSON is the Crawl object that POST and GET /crawls answer: the
// crawl's options under their JSON names, with what is derived from them,
// and its state.
type crawlJSON struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	StartURL string `json:"startUrl"` // the first of startUrls
	crawl.Options
	// Engine is engineType under its older name, shown to a crawl created
	// in the older request shape that asked for an engine.
	Engine            string     `json:"engine,omitempty"`
	BrandID           *string    `json:"brandId"`
	StaticIP          *string    `json:"staticIp"`
	TotalPages        int        `json:"totalPages"`
	DurationInSeconds int64      `json:"durationInSeconds"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
	CompletedAt       *time.Time `json:"completedAt"`
	// Stack is null, not "", when the crawl named none; it hides
	// Options.Stack from the encoding.
	Stack *string `json:"stack"`
	// ScheduleID names the schedule whose run the crawl is;
	// PreviousCrawlID the crawl a changeTracking crawl compares with
	// (null: none, every page is new), and Changes what it found, once it
	// has ended.
	// Paused is set while a change holds the running crawl still (its
	// status stays running).
	Paused          bool              `json:"paused"`
	ScheduleID      *uuid.UUID        `json:"scheduleId"`
	PreviousCrawlID *uuid.UUID        `json:"previousCrawlId"`
	Changes         *changeCountsJSON `json:"changes,omitempty"`
	// Progress counts the crawl's pages by state; it is shown on the
	// answers about one crawl, not in lists.
	Progress *progressJSON `json:"progress,omitempty"`
}

// progressJSON is where a crawl's discovered pages stand: waiting in the
// frontier, being fetched or converted, kept as results, failed,
// skipped (out of scope, addresses already crawled, over the limit), or
// fetched and found to repeat the content of a page the crawl keeps.
type progressJSON struct {
	Queued     int `json:"queued"`
	InProgress int `json:"inProgress"`
	Stored     int `json:"stored"`
	Failed     int `json:"failed"`
	Skipped    int `json:"skipped"`
	Duplicates int `json:"duplicates"`
}

func crawlView(c *crawl.Crawl, now time.Time) crawlJSON {
	v := crawlJSON{
		ID: c.ID.String(), Status: string(c.Status), StartURL: c.StartURLs[0],
		Options: c.Options, BrandID: c.BrandID, StaticIP: c.StaticIP,
		TotalPages: c.TotalPages, Paused: c.Paused && c.Status == crawl.StatusRunning, ScheduleID: c.ScheduleID, PreviousCrawlID: c.PreviousCrawlID, Changes: changeCountsOf(c),
		DurationInSeconds: crawl.Duration(c.CreatedAt, c.CompletedAt, now),
		CreatedAt:         c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
	if c.CompletedAt != nil {
		t := c.CompletedAt.UTC()
		v.CompletedAt = &t
	}
	if c.Stack != "" {
		v.Stack = &c.Stack
	}
	// A webhook's headers may hold the receiver's credentials.
	v.Options.Webhook = c.Webhook.Redacted()
	if c.Shape == crawl.ShapeLegacy && c.EngineType != crawl.EngineAuto {
		v.Engine = c.EngineType
	}
	return v
}
