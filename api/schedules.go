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
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/schedule"
)

// scheduleClient is what the API needs of Temporal's schedules.
type scheduleClient interface {
	Create(ctx context.Context, options client.ScheduleOptions) (client.ScheduleHandle, error)
	GetHandle(ctx context.Context, scheduleID string) client.ScheduleHandle
}

// scheduleBody is a create (or, every field optional, a change) request
// of a schedule: its name, its timing, whether it starts paused, and the
// crawl each run makes: a request in the service's shape (crawl), in
// Firecrawl's (firecrawl), or the request of one of the team's crawls
// (crawlId).
type scheduleBody struct {
	Name *string `json:"name"`
	schedule.Timing
	Paused    *bool           `json:"paused"`
	Note      *string         `json:"note"`
	Crawl     json.RawMessage `json:"crawl"`
	Firecrawl json.RawMessage `json:"firecrawl"`
	CrawlID   *string         `json:"crawlId"`
}

// scheduleFields are the fields a schedule request may carry.
var scheduleFields = map[string]bool{"name": true, "cron": true, "interval": true, "timezone": true, "startAt": true,
	"endAt": true, "overlap": true, "catchupWindow": true, "paused": true, "note": true, "crawl": true, "firecrawl": true,
	"crawlId": true}

// readScheduleBody decodes a schedule request, naming the fields at fault.
func readScheduleBody(raw []byte) (scheduleBody, map[string]json.RawMessage, error) {
	invalid := func(field, msg string) error {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid schedule request",
			Details: []crawl.FieldError{{Field: field, Message: msg}}}
	}
	if len(raw) > maxRequestBytes {
		return scheduleBody{}, nil, fiber.NewError(fiber.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxRequestBytes))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return scheduleBody{}, nil, invalid("body", "must be a JSON object")
	}
	var bad []crawl.FieldError
	for k := range fields {
		if !scheduleFields[k] {
			bad = append(bad, crawl.FieldError{Field: k, Message: "unknown field"})
		}
	}
	if len(bad) > 0 {
		return scheduleBody{}, nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid schedule request", Details: bad}
	}
	var b scheduleBody
	if err := json.Unmarshal(raw, &b); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return scheduleBody{}, nil, invalid(te.Field, "has the wrong type")
		}
		if _, ok := fields["interval"]; ok && strings.Contains(err.Error(), "interval:") {
			return scheduleBody{}, nil, invalid("interval", "must be a duration such as 90m, 6h or PT6H, or a number of seconds")
		}
		for _, f := range []string{"startAt", "endAt"} {
			if _, ok := fields[f]; ok && strings.Contains(err.Error(), "time") {
				return scheduleBody{}, nil, invalid(f, "must be a date and time as RFC 3339 (2026-12-01T09:00:00Z)")
			}
		}
		return scheduleBody{}, nil, invalid("body", err.Error())
	}
	if bytes.IndexByte(raw, 0) >= 0 || bytes.Contains(raw, []byte(`\u0000`)) {
		return scheduleBody{}, nil, invalid("body", "must not contain NUL characters")
	}
	return b, fields, nil
}

// scheduleRequest reads which crawl a schedule's runs make, from b; a
// request that gives none (a change) returns ok false.
func (s *server) scheduleRequest(ctx context.Context, team uuid.UUID, b scheduleBody) (shape string, request json.RawMessage, o crawl.Options, ok bool, err error) {
	sources := 0
	for _, g := range []bool{given(b.Crawl), given(b.Firecrawl), b.CrawlID != nil} {
		if g {
			sources++
		}
	}
	switch {
	case sources == 0:
		return "", nil, crawl.Options{}, false, nil
	case sources > 1:
		return "", nil, crawl.Options{}, false, crawl.Errorf(crawl.EINVALID, "give one of crawl, firecrawl and crawlId").
			WithField("crawl", "give one of crawl, firecrawl and crawlId")
	}
	field := "crawl"
	var source *crawl.Crawl // with crawlId
	switch {
	case given(b.Crawl):
		shape, request = schedule.ShapeNative, b.Crawl
	case given(b.Firecrawl):
		shape, request, field = schedule.ShapeFirecrawl, b.Firecrawl, "firecrawl"
	default:
		field = "crawlId"
		id, perr := uuid.Parse(*b.CrawlID)
		if perr != nil {
			return "", nil, crawl.Options{}, false, crawl.Errorf(crawl.EINVALID, "invalid crawlId").WithField("crawlId", "must be a crawl ID (a UUID)")
		}
		rec, gerr := s.Store.GetCrawl(ctx, team, id)
		if crawl.ErrorCode(gerr) == crawl.ENOTFOUND {
			return "", nil, crawl.Options{}, false, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id).WithField("crawlId", "no crawl of yours has this ID")
		}
		if gerr != nil {
			return "", nil, crawl.Options{}, false, gerr
		}
		shape, request, source = schedule.ShapeNative, rec.Request, rec
		if rec.Shape == crawl.ShapeFirecrawl {
			shape = schedule.ShapeFirecrawl
		}
	}
	o, err = schedule.Options(shape, request, s.Server, field)
	if field == "crawlId" && (err != nil || !sameCrawl(o, source)) {
		why := "only a crawl's request can be scheduled, not a scrape's, a batch's or a map's"
		if err != nil {
			why += ": " + err.Error()
		}
		return "", nil, crawl.Options{}, false, crawl.Errorf(crawl.EINVALID, "that crawl cannot be scheduled").WithField("crawlId", why)
	}
	if err != nil {
		return "", nil, crawl.Options{}, false, err
	}
	if err := s.refuseInternalNames(ctx, o); err != nil {
		return "", nil, crawl.Options{}, false, err
	}
	return shape, request, o, true, nil
}

// sameCrawl reports whether o, read again from the request of crawl rec,
// is the crawl rec was: a scrape's, a batch's or a map's request reads as
// a crawl of another reach (its own limit and depth came from its
// endpoint, not from its request).
func sameCrawl(o crawl.Options, rec *crawl.Crawl) bool {
	if rec == nil || rec.MapOnly || o.MaxDepth != rec.MaxDepth {
		return false
	}
	if (o.MaxResults == nil) != (rec.MaxResults == nil) || o.MaxResults != nil && *o.MaxResults != *rec.MaxResults {
		return false
	}
	return o.BaselineKey() == rec.Options.BaselineKey()
}

// needSchedules answers 503 on a deployment without Temporal schedules.
func (s *server) needSchedules() error {
	if s.Schedules == nil {
		return crawl.Errorf(crawl.EUNAVAILABLE, "schedules are not available on this deployment")
	}
	return nil
}

// createSchedule handles POST /schedules: it checks the timing and the
// crawl request, records the schedule and creates its Temporal Schedule.
func (s *server) createSchedule(c *fiber.Ctx) error {
	if err := s.needSchedules(); err != nil {
		return err
	}
	b, _, err := readScheduleBody(bytes.Clone(c.Body()))
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	bad := b.Timing.Check("")
	shape, request, _, ok, err := s.scheduleRequest(ctx, principal(c).TeamID, b)
	var ce *crawl.Error
	switch {
	case errors.As(err, &ce) && ce.Code == crawl.EINVALID:
		bad = append(bad, ce.Details...)
	case err != nil:
		return err
	case !ok:
		bad = append(bad, crawl.FieldError{Field: "crawl", Message: "give the crawl each run makes: crawl, firecrawl or crawlId"})
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid schedule request", Details: bad}
	}
	name, note := "", ""
	if b.Name != nil {
		name = strings.TrimSpace(*b.Name)
	}
	if b.Note != nil {
		note = *b.Note
	}
	sc, err := s.newSchedule(ctx, c, name, b.Timing, shape, request, b.Paused != nil && *b.Paused, note)
	if err != nil {
		return err
	}
	view, err := s.scheduleViewOf(ctx, sc, false) // created: a read that fails now must not say otherwise
	if err != nil {
		return err
	}
	c.Location("/schedules/" + sc.ID.String())
	return c.Status(fiber.StatusCreated).JSON(view)
}

// newSchedule records a schedule of the caller's team (its timing and
// request checked) and creates its Temporal Schedule; a schedule Temporal
// refuses is not kept.
func (s *server) newSchedule(ctx context.Context, c *fiber.Ctx, name string, timing schedule.Timing, shape string,
	request json.RawMessage, paused bool, note string) (*db.Schedule, error) {
	// A schedule starts crawls: it spends the key's allowance as one does.
	if err := s.limitCreate(c); err != nil {
		return nil, err
	}
	p := principal(c)
	raw, _ := json.Marshal(timing)
	now := time.Now().UTC().Truncate(time.Microsecond)
	sc := &db.Schedule{ID: uuid.New(), TeamID: p.TeamID, BrandID: p.BrandID, Name: name, Shape: shape, Request: request,
		Timing: raw, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.InsertSchedule(ctx, sc); err != nil {
		return nil, err
	}
	overlap, catchup := timing.Policies()
	_, err := s.Schedules.Create(ctx, client.ScheduleOptions{
		ID:            crawlflow.ScheduleID(sc.ID.String()),
		Spec:          timing.Spec(),
		Overlap:       overlap,
		CatchupWindow: catchup,
		Paused:        paused,
		Note:          note,
		Action: &client.ScheduleWorkflowAction{
			ID:            crawlflow.RunWorkflowID(sc.ID.String()),
			Workflow:      crawlflow.ScheduledCrawlWorkflowName,
			Args:          []any{crawlflow.ScheduledCrawlInput{ScheduleID: sc.ID.String()}},
			TaskQueue:     s.TaskQueue,
			StaticSummary: clipText("Scheduled crawls: "+sc.Name, 200),
			TypedSearchAttributes: temporal.NewSearchAttributes(
				crawlflow.AttrTeamID.ValueSet(p.TeamID.String()),
				crawlflow.AttrScheduleID.ValueSet(sc.ID.String()),
			),
		},
	})
	if err != nil {
		s.logOf(c).Error("create temporal schedule", "scheduleId", sc.ID, "error", err)
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 5*time.Second)
		defer cancel()
		_ = s.Store.DeleteSchedule(cleanup, p.TeamID, sc.ID)
		var invalid *serviceerror.InvalidArgument
		if errors.As(err, &invalid) {
			return nil, crawl.Errorf(crawl.EINVALID, "Temporal refused the schedule").WithField("schedule", invalid.Message)
		}
		return nil, crawl.Errorf(crawl.EUNAVAILABLE, "the schedule could not be created now; try again")
	}
	return sc, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// scheduleJSON is a schedule as the API answers it: what it was given,
// and what its Temporal Schedule says now (paused, its note, its next and
// last runs), with its latest crawls.
type scheduleJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// TemporalScheduleID is the ID an operator finds it under in Temporal.
	TemporalScheduleID string `json:"temporalScheduleId"`
	Paused             bool   `json:"paused"`
	Note               string `json:"note"`
	schedule.Timing
	Crawl     json.RawMessage `json:"crawl,omitempty"`
	Firecrawl json.RawMessage `json:"firecrawl,omitempty"`
	// NextRuns are when Temporal will start the next runs; RecentRuns the
	// runs it started lately, with their workflow IDs.
	NextRuns   []time.Time  `json:"nextRuns"`
	RecentRuns []runJSON    `json:"recentRuns"`
	Runs       runCountJSON `json:"runs"`
	// Crawls are the schedule's latest crawls, newest first.
	Crawls    []scheduledCrawlJSON `json:"crawls"`
	CreatedAt time.Time            `json:"createdAt"`
	UpdatedAt time.Time            `json:"updatedAt"`
}

type runJSON struct {
	ScheduledAt time.Time `json:"scheduledAt"`
	StartedAt   time.Time `json:"startedAt"`
	WorkflowID  string    `json:"workflowId"`
	Running     bool      `json:"running"`
}

// runCountJSON counts the schedule's runs: started, missed (past the
// catch-up window) and skipped (a run was still going).
type runCountJSON struct {
	Started               int `json:"started"`
	MissedCatchupWindow   int `json:"missedCatchupWindow"`
	SkippedOverlap        int `json:"skippedOverlap"`
	RunningWorkflowsCount int `json:"running"`
}

type scheduledCrawlJSON struct {
	ID              string            `json:"id"`
	Status          string            `json:"status"`
	TotalPages      int               `json:"totalPages"`
	PreviousCrawlID *uuid.UUID        `json:"previousCrawlId"`
	Changes         *changeCountsJSON `json:"changes,omitempty"`
	CreatedAt       time.Time         `json:"createdAt"`
	CompletedAt     *time.Time        `json:"completedAt"`
}

// latestCrawls is how many of a schedule's crawls its answer lists.
const latestCrawls = 10

// scheduleView reads sc's Temporal Schedule and latest crawls into its
// answer. A schedule whose Temporal Schedule is gone (deleted there)
// answers paused with no next runs; one Temporal did not describe in
// describeTries attempts is answered from what is stored, its note saying
// what is not shown: a read (GET, or the answer to a change already
// made) does not fail because Temporal is busy for a moment.
func (s *server) scheduleView(ctx context.Context, sc *db.Schedule) (scheduleJSON, error) {
	return s.scheduleViewOf(ctx, sc, false)
}

// describeTries bounds the attempts at describing a Temporal Schedule.
const describeTries = 3

// describeSchedule describes the Temporal Schedule id, asking again (each
// attempt bounded to a part of what is left of ctx) when Temporal did not
// answer: a frontend busy for a moment must not fail a read.
func (s *server) describeSchedule(ctx context.Context, id string) (*client.ScheduleDescription, error) {
	var err error
	for try := 1; ; try++ {
		attempt, cancel := ctx, context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok && try < describeTries {
			attempt, cancel = context.WithTimeout(ctx, time.Until(deadline)/time.Duration(describeTries-try+1))
		}
		var desc *client.ScheduleDescription
		desc, err = s.Schedules.GetHandle(ctx, id).Describe(attempt)
		cancel()
		var notFound *serviceerror.NotFound
		if err == nil || errors.As(err, &notFound) || try == describeTries || ctx.Err() != nil {
			return desc, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(try) * 200 * time.Millisecond):
		}
	}
}

// unreadNote is a schedule's note when Temporal could not be asked.
const unreadNote = "Temporal could not be asked about this schedule just now: its paused state and runs are not shown"

// scheduleViewOf is scheduleView; without strict, a schedule Temporal
// cannot be asked about now is answered without what Temporal says (its
// note says so) rather than failing the answer.
func (s *server) scheduleViewOf(ctx context.Context, sc *db.Schedule, strict bool) (scheduleJSON, error) {
	v := scheduleJSON{ID: sc.ID.String(), Name: sc.Name, TemporalScheduleID: crawlflow.ScheduleID(sc.ID.String()),
		NextRuns: []time.Time{}, RecentRuns: []runJSON{}, Crawls: []scheduledCrawlJSON{},
		CreatedAt: sc.CreatedAt.UTC(), UpdatedAt: sc.UpdatedAt.UTC()}
	_ = json.Unmarshal(sc.Timing, &v.Timing) // written by createSchedule from this type
	if sc.Shape == schedule.ShapeFirecrawl {
		v.Firecrawl = sc.Request
	} else {
		v.Crawl = sc.Request
	}
	desc, err := s.describeSchedule(ctx, v.TemporalScheduleID)
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		v.Paused, v.Note = true, "the Temporal Schedule is gone: no run will start"
	case err != nil && strict:
		return scheduleJSON{}, crawl.Errorf(crawl.EUNAVAILABLE, "Temporal could not be asked about schedule %s now; try again", sc.ID)
	case err != nil:
		v.Note = unreadNote
	default:
		if st := desc.Schedule.State; st != nil {
			v.Paused, v.Note = st.Paused, st.Note
		}
		if pol := desc.Schedule.Policy; pol != nil {
			v.Overlap = schedule.OverlapName(pol.Overlap)
			if pol.CatchupWindow > 0 {
				v.CatchupWindow = pol.CatchupWindow.String()
			}
		}
		if sp := desc.Schedule.Spec; sp != nil {
			v.TimeZone = sp.TimeZoneName
			if len(sp.Intervals) == 1 && v.Cron == "" {
				v.Interval = schedule.Interval(sp.Intervals[0].Every.String())
			}
		}
		info := desc.Info
		for _, t := range info.NextActionTimes {
			v.NextRuns = append(v.NextRuns, t.UTC())
		}
		running := map[string]bool{}
		for _, r := range info.RunningWorkflows {
			running[r.WorkflowID] = true
		}
		for _, r := range info.RecentActions {
			run := runJSON{ScheduledAt: r.ScheduleTime.UTC(), StartedAt: r.ActualTime.UTC()}
			if r.StartWorkflowResult != nil {
				run.WorkflowID = r.StartWorkflowResult.WorkflowID
				run.Running = running[run.WorkflowID]
			}
			v.RecentRuns = append(v.RecentRuns, run)
		}
		v.Runs = runCountJSON{Started: info.NumActions, MissedCatchupWindow: info.NumActionsMissedCatchupWindow,
			SkippedOverlap: info.NumActionsSkippedOverlap, RunningWorkflowsCount: len(info.RunningWorkflows)}
	}
	crawls, err := s.Store.ScheduleCrawls(ctx, sc.ID, latestCrawls)
	if err != nil {
		return scheduleJSON{}, err
	}
	for _, c := range crawls {
		cj := scheduledCrawlJSON{ID: c.ID.String(), Status: string(c.Status), TotalPages: c.TotalPages,
			PreviousCrawlID: c.PreviousCrawlID, Changes: changeCountsOf(&c), CreatedAt: c.CreatedAt.UTC()}
		if c.CompletedAt != nil {
			t := c.CompletedAt.UTC()
			cj.CompletedAt = &t
		}
		v.Crawls = append(v.Crawls, cj)
	}
	return v, nil
}

// scheduleOf reads the caller's schedule named by the path's id.
func (s *server) scheduleOf(ctx context.Context, c *fiber.Ctx) (*db.Schedule, error) {
	if err := s.needSchedules(); err != nil {
		return nil, err
	}
	id, err := uuid.Parse(strings.Clone(c.Params("id")))
	if err != nil {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "schedule %q not found", c.Params("id"))
	}
	return s.Store.GetSchedule(ctx, principal(c).TeamID, id)
}

// getSchedule handles GET /schedules/{id}.
func (s *server) getSchedule(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.scheduleOf(ctx, c)
	if err != nil {
		return err
	}
	v, err := s.scheduleView(ctx, sc)
	if err != nil {
		return err
	}
	return c.JSON(v)
}

// listSchedules handles GET /schedules: the caller's schedules, newest
// first, a page at a time.
func (s *server) listSchedules(c *fiber.Ctx) error {
	if err := s.needSchedules(); err != nil {
		return err
	}
	page, limit, err := pageParams(c, 20, 100)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	rows, total, err := s.Store.ListSchedules(ctx, principal(c).TeamID, page, limit)
	if err != nil {
		return err
	}
	out := make([]scheduleJSON, 0, len(rows))
	for i := range rows {
		v, err := s.scheduleViewOf(ctx, &rows[i], false)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	return c.JSON(newPage(c, out, page, limit, total))
}

// patchSchedule handles PATCH /schedules/{id}: pause or resume it, change
// its note, name, timing or crawl request. The timing goes to its
// Temporal Schedule, the request to its row (each run reads it).
func (s *server) patchSchedule(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.scheduleOf(ctx, c)
	if err != nil {
		return err
	}
	if err := s.patchScheduleOf(ctx, c, sc); err != nil {
		return err
	}
	if sc, err = s.Store.GetSchedule(ctx, sc.TeamID, sc.ID); err != nil {
		return err
	}
	v, err := s.scheduleView(ctx, sc)
	if err != nil {
		return err
	}
	return c.JSON(v)
}

// mergeTiming sets in t the timing fields a change sent (given by name in
// fields, from b) and reports whether it sent any. A cron expression
// replaces an interval and the other way round.
func mergeTiming(t *schedule.Timing, b schedule.Timing, fields map[string]json.RawMessage) bool {
	sent := func(name string) bool { _, ok := fields[name]; return ok }
	changed := false
	switch {
	case sent("cron"):
		t.Cron, t.Interval, changed = b.Cron, b.Interval, true
	case sent("interval"):
		t.Cron, t.Interval, changed = "", b.Interval, true
	}
	for name, set := range map[string]func(){
		"timezone":      func() { t.TimeZone = b.TimeZone },
		"startAt":       func() { t.StartAt = b.StartAt },
		"endAt":         func() { t.EndAt = b.EndAt },
		"overlap":       func() { t.Overlap = b.Overlap },
		"catchupWindow": func() { t.CatchupWindow = b.CatchupWindow },
	} {
		if sent(name) {
			set()
			changed = true
		}
	}
	return changed
}

// patchScheduleOf applies the change the request's body asks of sc.
func (s *server) patchScheduleOf(ctx context.Context, c *fiber.Ctx, sc *db.Schedule) error {
	b, fields, err := readScheduleBody(bytes.Clone(c.Body()))
	if err != nil {
		return err
	}
	var timing schedule.Timing
	_ = json.Unmarshal(sc.Timing, &timing) // written from this type
	timingChanged := mergeTiming(&timing, b.Timing, fields)
	bad := timing.Check("")
	shape, request, _, given, err := s.scheduleRequest(ctx, sc.TeamID, b)
	var ce *crawl.Error
	switch {
	case errors.As(err, &ce) && ce.Code == crawl.EINVALID:
		bad = append(bad, ce.Details...)
	case err != nil:
		return err
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid schedule change", Details: bad}
	}
	h := s.Schedules.GetHandle(ctx, crawlflow.ScheduleID(sc.ID.String()))
	if timingChanged {
		overlap, catchup := timing.Policies()
		err := h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			sched := in.Description.Schedule
			spec := timing.Spec()
			sched.Spec = &spec
			if sched.Policy == nil {
				sched.Policy = &client.SchedulePolicies{}
			}
			sched.Policy.Overlap, sched.Policy.CatchupWindow = overlap, catchup
			return &client.ScheduleUpdate{Schedule: &sched}, nil
		}})
		if err != nil {
			return s.temporalScheduleError(c, sc.ID, err)
		}
		sc.Timing, _ = json.Marshal(timing)
	}
	if b.Paused != nil || b.Note != nil {
		note := "changed through the API"
		if b.Note != nil {
			note = *b.Note
		}
		switch {
		case b.Paused != nil && *b.Paused:
			err = h.Pause(ctx, client.SchedulePauseOptions{Note: note})
		case b.Paused != nil:
			err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: note})
		default:
			err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
				sched := in.Description.Schedule
				if sched.State == nil {
					sched.State = &client.ScheduleState{}
				}
				sched.State.Note = note
				return &client.ScheduleUpdate{Schedule: &sched}, nil
			}})
		}
		if err != nil {
			return s.temporalScheduleError(c, sc.ID, err)
		}
	}
	if given {
		sc.Shape, sc.Request = shape, request
	}
	if b.Name != nil {
		sc.Name = strings.TrimSpace(*b.Name)
	}
	return s.Store.UpdateSchedule(ctx, sc)
}

// temporalScheduleError answers a Temporal refusal of a schedule change.
func (s *server) temporalScheduleError(c *fiber.Ctx, id uuid.UUID, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return crawl.Errorf(crawl.ECONFLICT, "the schedule's Temporal Schedule is gone (deleted in Temporal); delete this schedule and create it again")
	}
	var invalid *serviceerror.InvalidArgument
	if errors.As(err, &invalid) {
		return crawl.Errorf(crawl.EINVALID, "Temporal refused the change").WithField("schedule", invalid.Message)
	}
	s.logOf(c).Error("change temporal schedule", "scheduleId", id, "error", err)
	return crawl.Errorf(crawl.EUNAVAILABLE, "the schedule could not be changed now; try again")
}

// deleteSchedule handles DELETE /schedules/{id}: its Temporal Schedule is
// deleted (a run going on goes on), its row marked deleted; its crawls
// stay readable.
func (s *server) deleteSchedule(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.scheduleOf(ctx, c)
	if err != nil {
		return err
	}
	if err := s.removeSchedule(ctx, c, sc); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": sc.ID.String(), "deleted": true})
}

// removeSchedule deletes sc's Temporal Schedule and marks it deleted.
func (s *server) removeSchedule(ctx context.Context, c *fiber.Ctx, sc *db.Schedule) error {
	err := s.Schedules.GetHandle(ctx, crawlflow.ScheduleID(sc.ID.String())).Delete(ctx)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return s.temporalScheduleError(c, sc.ID, err)
	}
	return s.Store.DeleteSchedule(ctx, sc.TeamID, sc.ID)
}

// triggerSchedule handles POST /schedules/{id}/trigger: a run now, under
// the schedule's overlap policy (with skip, nothing starts while a run
// still goes).
func (s *server) triggerSchedule(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.scheduleOf(ctx, c)
	if err != nil {
		return err
	}
	overlap, err := s.runNow(ctx, c, sc)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"id": sc.ID.String(), "triggered": true,
		"overlap": schedule.OverlapName(overlap)})
}

// runNow asks Temporal for a run of sc now, under its overlap policy
// (which it returns): a run spends the key's allowance as a crawl does.
func (s *server) runNow(ctx context.Context, c *fiber.Ctx, sc *db.Schedule) (enumspb.ScheduleOverlapPolicy, error) {
	if err := s.limitCreate(c); err != nil {
		return 0, err
	}
	var timing schedule.Timing
	_ = json.Unmarshal(sc.Timing, &timing) // written from this type
	overlap, _ := timing.Policies()
	if err := s.Schedules.GetHandle(ctx, crawlflow.ScheduleID(sc.ID.String())).Trigger(ctx,
		client.ScheduleTriggerOptions{Overlap: overlap}); err != nil {
		return 0, s.temporalScheduleError(c, sc.ID, err)
	}
	return overlap, nil
}
