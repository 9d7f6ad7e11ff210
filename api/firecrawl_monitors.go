package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/schedule"
)

// Firecrawl's monitors (/v2/monitor, in its SDK) are the service's
// schedules seen through Firecrawl's shapes: a monitor with one crawl
// target is a schedule whose runs are Firecrawl crawls of that target,
// each run (a crawl) is a check, and a check's pages are the crawl's pages
// with their change status and diff.

func (s *server) firecrawlMonitorRoutes(authed fiber.Router) {
	authed.Post("/v2/monitor", s.fcCreateMonitor)
	authed.Get("/v2/monitor", s.fcListMonitors)
	authed.Get("/v2/monitor/:id", s.fcGetMonitor)
	authed.Patch("/v2/monitor/:id", s.fcUpdateMonitor)
	authed.Delete("/v2/monitor/:id", s.fcDeleteMonitor)
	authed.Post("/v2/monitor/:id/run", s.fcRunMonitor)
	authed.Get("/v2/monitor/:id/checks", s.fcListChecks)
	authed.Get("/v2/monitor/:id/checks/:check", s.fcGetCheck)
}

// monitorOf reads the caller's monitor named by the path's id: one of its
// schedules of Firecrawl crawls (its others are not monitors).
func (s *server) monitorOf(ctx context.Context, c *fiber.Ctx) (*db.Schedule, error) {
	sc, err := s.scheduleOf(ctx, c)
	if err == nil && sc.Shape != schedule.ShapeFirecrawl {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "monitor %s not found (it is a schedule of the service's own crawls: see /schedules)", sc.ID)
	}
	return sc, err
}

// monitorBody is a monitor's create (or update) request.
type monitorBody struct {
	Name     *string `json:"name"`
	Status   *string `json:"status"`
	Schedule *struct {
		Cron     string `json:"cron"`
		Text     string `json:"text"`
		Timezone string `json:"timezone"`
	} `json:"schedule"`
	Webhook       json.RawMessage   `json:"webhook"`
	Notification  json.RawMessage   `json:"notification"`
	Targets       []json.RawMessage `json:"targets"`
	RetentionDays *int              `json:"retentionDays"`
	Goal          json.RawMessage   `json:"goal"`
	JudgeEnabled  *bool             `json:"judgeEnabled"`
	// Sent by the SDKs; they change nothing here.
	Origin      json.RawMessage `json:"origin"`
	Integration json.RawMessage `json:"integration"`
}

// monitorTarget is a monitor's crawl target.
type monitorTarget struct {
	ID            string          `json:"id,omitempty"`
	Type          string          `json:"type"`
	URL           string          `json:"url"`
	URLs          json.RawMessage `json:"urls,omitempty"`
	CrawlOptions  json.RawMessage `json:"crawlOptions,omitempty"`
	ScrapeOptions json.RawMessage `json:"scrapeOptions,omitempty"`
}

// readMonitorBody decodes a monitor request (unknown fields refused) and
// what it asks that the service does not do, by field.
func readMonitorBody(raw []byte) (monitorBody, []crawl.FieldError, error) {
	var b monitorBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, nil, crawl.Errorf(crawl.EINVALID, "invalid monitor request").WithField("body", err.Error())
	}
	var bad []crawl.FieldError
	fail := func(field, msg string) { bad = append(bad, crawl.FieldError{Field: field, Message: msg}) }
	if given(b.Notification) && !strings.Contains(string(b.Notification), `"enabled":false`) {
		fail("notification", "email notifications are not sent here: use a webhook")
	}
	if given(b.Goal) {
		fail("goal", "is not supported here: changes are reported without a judge")
	}
	if b.JudgeEnabled != nil && *b.JudgeEnabled {
		fail("judgeEnabled", "is not supported here: changes are reported without a judge")
	}
	if b.Schedule != nil && b.Schedule.Text != "" && b.Schedule.Cron == "" {
		fail("schedule.text", "give the schedule as schedule.cron")
	}
	if b.Status != nil && *b.Status != "active" && *b.Status != "paused" {
		fail("status", "must be active or paused")
	}
	return b, bad, nil
}

// given reports whether a raw field holds a value other than null,
// false, an empty object or list.
func given(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "", "null", "false", "{}", "[]":
		return false
	}
	return true
}

// monitorRequest turns a monitor's one crawl target (and its webhook)
// into a Firecrawl crawl request.
func monitorRequest(b monitorBody) (json.RawMessage, []crawl.FieldError) {
	fail := func(field, msg string) []crawl.FieldError { return []crawl.FieldError{{Field: field, Message: msg}} }
	if len(b.Targets) != 1 {
		return nil, fail("targets", "give one target, of type crawl")
	}
	var t monitorTarget
	if err := json.Unmarshal(b.Targets[0], &t); err != nil {
		return nil, fail("targets[0]", "must be an object with type, url, crawlOptions and scrapeOptions")
	}
	if t.Type != "crawl" {
		return nil, fail("targets[0].type", "only crawl targets are monitored here (a scrape of some pages is a crawl of them with its limit)")
	}
	req := map[string]json.RawMessage{}
	if given(t.CrawlOptions) {
		if err := json.Unmarshal(t.CrawlOptions, &req); err != nil {
			return nil, fail("targets[0].crawlOptions", "must be an object")
		}
	}
	req["url"], _ = json.Marshal(t.URL)
	if given(t.ScrapeOptions) {
		req["scrapeOptions"] = t.ScrapeOptions
	}
	if given(b.Webhook) {
		// A monitor's webhook hears of what changed only.
		var hook map[string]json.RawMessage
		if err := json.Unmarshal(b.Webhook, &hook); err != nil {
			return nil, fail("webhook", "must be an object with url, headers, metadata and events")
		}
		hook["changedOnly"] = json.RawMessage("true")
		req["webhook"], _ = json.Marshal(hook)
	}
	raw, _ := json.Marshal(req)
	return raw, nil
}

// fcCreateMonitor handles POST /v2/monitor: a schedule of Firecrawl
// crawls of the monitor's target.
func (s *server) fcCreateMonitor(c *fiber.Ctx) error {
	if err := s.needSchedules(); err != nil {
		return err
	}
	b, bad, err := readMonitorBody(c.Body())
	if err != nil {
		return err
	}
	request, reqBad := monitorRequest(b)
	bad = append(bad, reqBad...)
	timing := schedule.Timing{}
	if b.Schedule == nil {
		bad = append(bad, crawl.FieldError{Field: "schedule.cron", Message: "is required"})
	} else {
		timing.Cron, timing.TimeZone = b.Schedule.Cron, b.Schedule.Timezone
		bad = append(bad, timing.Check("schedule.")...)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if request != nil {
		if _, err := s.scheduleOptions(ctx, schedule.ShapeFirecrawl, request, "targets[0]"); err != nil {
			ce, ok := err.(*crawl.Error)
			if !ok || ce.Code != crawl.EINVALID {
				return err
			}
			bad = append(bad, ce.Details...)
		}
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid monitor request", Details: bad}
	}
	name := ""
	if b.Name != nil {
		name = strings.TrimSpace(*b.Name)
	}
	paused := b.Status != nil && *b.Status == "paused"
	sc, err := s.newSchedule(ctx, c, name, timing, schedule.ShapeFirecrawl, request, paused, "")
	if err != nil {
		return err
	}
	m, err := s.monitorView(ctx, sc, false)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "data": m})
}

// scheduleOptions reads a schedule's request into crawl options and
// refuses start URLs on internal addresses, naming field.
func (s *server) scheduleOptions(ctx context.Context, shape string, request json.RawMessage, field string) (crawl.Options, error) {
	o, err := schedule.Options(shape, request, s.Server, field)
	if err != nil {
		return crawl.Options{}, err
	}
	return o, s.refuseInternalNames(ctx, o)
}

// monitorJSON is a monitor as Firecrawl answers it.
type monitorJSON struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Status           string            `json:"status"`
	Schedule         map[string]string `json:"schedule"`
	NextRunAt        *time.Time        `json:"nextRunAt"`
	LastRunAt        *time.Time        `json:"lastRunAt"`
	CurrentCheckID   *string           `json:"currentCheckId"`
	Targets          []monitorTarget   `json:"targets"`
	Webhook          json.RawMessage   `json:"webhook"`
	RetentionDays    int               `json:"retentionDays"`
	LastCheckSummary *checkSummary     `json:"lastCheckSummary"`
	CreatedAt        time.Time         `json:"createdAt"`
	UpdatedAt        time.Time         `json:"updatedAt"`
}

// checkSummary counts a check's pages by status.
type checkSummary struct {
	TotalPages int `json:"totalPages"`
	Same       int `json:"same"`
	Changed    int `json:"changed"`
	New        int `json:"new"`
	Removed    int `json:"removed"`
	Error      int `json:"error"`
}

// monitorView reads schedule sc as a monitor.
func (s *server) monitorView(ctx context.Context, sc *db.Schedule, strict bool) (monitorJSON, error) {
	v, err := s.scheduleViewOf(ctx, sc, strict)
	if err != nil {
		return monitorJSON{}, err
	}
	m := monitorJSON{ID: v.ID, Name: v.Name, Status: "active", Schedule: map[string]string{"cron": v.Cron},
		Webhook: json.RawMessage("null"), CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	if v.TimeZone != "" {
		m.Schedule["timezone"] = v.TimeZone
	}
	if v.Paused {
		m.Status = "paused"
	}
	if len(v.NextRuns) > 0 {
		m.NextRunAt = &v.NextRuns[0]
	}
	if len(v.RecentRuns) > 0 {
		last := v.RecentRuns[len(v.RecentRuns)-1].StartedAt
		m.LastRunAt = &last
	}
	var req map[string]json.RawMessage
	_ = json.Unmarshal(sc.Request, &req) // validated when it was stored
	t := monitorTarget{ID: "crawl", Type: "crawl", ScrapeOptions: req["scrapeOptions"]}
	_ = json.Unmarshal(req["url"], &t.URL)
	rest := map[string]json.RawMessage{}
	for k, raw := range req {
		switch k {
		case "url", "scrapeOptions":
		case "webhook":
			var hook map[string]any
			if json.Unmarshal(raw, &hook) == nil {
				delete(hook, "changedOnly")
				if h, ok := hook["headers"].(map[string]any); ok {
					for name := range h {
						h[name] = "(hidden)"
					}
				}
				m.Webhook, _ = json.Marshal(hook)
			}
		default:
			rest[k] = raw
		}
	}
	if len(rest) > 0 {
		t.CrawlOptions, _ = json.Marshal(rest)
	}
	m.Targets = []monitorTarget{t}
	if len(v.Crawls) > 0 {
		latest := v.Crawls[0]
		if latest.Status == string(crawl.StatusRunning) {
			m.CurrentCheckID = &latest.ID
		}
		for _, c := range v.Crawls {
			if c.Status == string(crawl.StatusRunning) {
				continue
			}
			id, err := uuid.Parse(c.ID)
			if err != nil {
				return monitorJSON{}, err
			}
			failed, err := s.Store.FailedPages(ctx, id)
			if err != nil {
				return monitorJSON{}, err
			}
			sum := summaryOf(c.Changes, c.TotalPages, failed)
			m.LastCheckSummary = &sum
			break
		}
	}
	return m, nil
}

func summaryOf(n *changeCountsJSON, total, failed int) checkSummary {
	sum := checkSummary{TotalPages: total, Error: failed}
	if n != nil {
		sum.Same, sum.Changed, sum.New, sum.Removed = n.Same, n.Changed, n.New, n.Removed
		sum.TotalPages = n.Same + n.Changed + n.New + n.Removed + failed
	}
	return sum
}

// fcGetMonitor handles GET /v2/monitor/{id}.
func (s *server) fcGetMonitor(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	m, err := s.monitorView(ctx, sc, true)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "data": m})
}

// fcListMonitors handles GET /v2/monitor?limit=&offset=.
func (s *server) fcListMonitors(c *fiber.Ctx) error {
	if err := s.needSchedules(); err != nil {
		return err
	}
	limit, offset, err := limitOffset(c, "offset", 20)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	out := []monitorJSON{}
	rows, err := s.Store.SchedulesOf(ctx, principal(c).TeamID, schedule.ShapeFirecrawl, offset, limit)
	if err != nil {
		return err
	}
	for i := range rows {
		m, err := s.monitorView(ctx, &rows[i], false)
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	return c.JSON(fiber.Map{"success": true, "data": out})
}

// maxSkip bounds the offsets of the monitors' lists.
const maxSkip = 1_000_000

// limitOffset reads limit (1 to 100, default def) and the offset named
// skipName (0 or more) from the query.
func limitOffset(c *fiber.Ctx, skipName string, def int) (int, int, error) {
	limit, skip := def, 0
	var bad []crawl.FieldError
	if q := c.Query("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > 100 {
			bad = append(bad, crawl.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		limit = n
	}
	if q := c.Query(skipName); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 || n > maxSkip {
			bad = append(bad, crawl.FieldError{Field: skipName, Message: fmt.Sprintf("must be a whole number from 0 to %d", maxSkip)})
		}
		skip = n
	}
	if len(bad) > 0 {
		return 0, 0, &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters", Details: bad}
	}
	return limit, skip, nil
}

// fcUpdateMonitor handles PATCH /v2/monitor/{id}: its status (paused or
// active), name, cron and time zone, and its target.
func (s *server) fcUpdateMonitor(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	b, bad, err := readMonitorBody(c.Body())
	if err != nil {
		return err
	}
	change := map[string]any{}
	if b.Name != nil {
		change["name"] = *b.Name
	}
	if b.Status != nil {
		change["paused"] = *b.Status == "paused"
	}
	if b.Schedule != nil {
		if b.Schedule.Cron != "" {
			change["cron"] = b.Schedule.Cron
		}
		if b.Schedule.Timezone != "" {
			change["timezone"] = b.Schedule.Timezone
		}
	}
	var sent map[string]json.RawMessage
	_ = json.Unmarshal(c.Body(), &sent) // decoded above
	_, webhookSent := sent["webhook"]
	if len(b.Targets) > 0 || webhookSent {
		var stored map[string]json.RawMessage
		_ = json.Unmarshal(sc.Request, &stored) // validated when it was stored
		if len(b.Targets) == 0 {
			// A new webhook alone: the target stays.
			m, err := s.monitorView(ctx, sc, false)
			if err != nil {
				return err
			}
			raw, _ := json.Marshal(m.Targets[0])
			b.Targets = []json.RawMessage{raw}
		}
		if !webhookSent {
			b.Webhook = stored["webhook"] // a new target keeps the webhook
		}
		request, reqBad := monitorRequest(b)
		bad = append(bad, reqBad...)
		if request != nil {
			change["firecrawl"] = request
		}
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid monitor change", Details: bad}
	}
	raw, _ := json.Marshal(change)
	// The change goes the way of PATCH /schedules/{id}.
	c.Request().SetBody(raw)
	if err := s.patchScheduleOf(ctx, c, sc); err != nil {
		return err
	}
	if sc, err = s.Store.GetSchedule(ctx, sc.TeamID, sc.ID); err != nil {
		return err
	}
	m, err := s.monitorView(ctx, sc, false)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "data": m})
}

// fcDeleteMonitor handles DELETE /v2/monitor/{id}, as DELETE
// /schedules/{id}: its checks stay readable as crawls.
func (s *server) fcDeleteMonitor(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	if err := s.removeSchedule(ctx, c, sc); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}

// fcRunMonitor handles POST /v2/monitor/{id}/run: a check now. It answers
// the check (the run's crawl) once the run has recorded it, within a few
// seconds; a run the overlap policy skips answers the check in progress.
func (s *server) fcRunMonitor(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	before, err := s.Store.ScheduleCrawls(ctx, sc.ID, 1)
	if err != nil {
		return err
	}
	if _, err := s.runNow(ctx, c, sc); err != nil {
		return err
	}
	// Under the skip policy a check still going takes the place of the
	// one asked for; otherwise the answer waits for the new check.
	var timing schedule.Timing
	_ = json.Unmarshal(sc.Timing, &timing) // written from this type
	inProgress := len(before) > 0 && before[0].Status == crawl.StatusRunning && (timing.Overlap == "" || timing.Overlap == "skip")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		latest, err := s.Store.ScheduleCrawls(ctx, sc.ID, 1)
		if err != nil {
			return err
		}
		if len(latest) > 0 && (len(before) == 0 || latest[0].ID != before[0].ID || inProgress) {
			check, err := s.checkOf(ctx, sc, &latest[0])
			if err != nil {
				return err
			}
			check.Trigger = "manual"
			return c.JSON(fiber.Map{"success": true, "data": check})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return crawl.Errorf(crawl.EUNAVAILABLE, "the check was asked for but has not started yet; list the monitor's checks to find it")
}

// checkJSON is a check (a run's crawl) as Firecrawl answers it.
type checkJSON struct {
	ID            string         `json:"id"`
	MonitorID     string         `json:"monitorId"`
	Status        string         `json:"status"`
	Trigger       string         `json:"trigger"`
	ScheduledFor  *time.Time     `json:"scheduledFor"`
	StartedAt     *time.Time     `json:"startedAt"`
	FinishedAt    *time.Time     `json:"finishedAt"`
	BillingStatus string         `json:"billingStatus"`
	Summary       checkSummary   `json:"summary"`
	TargetResults []targetResult `json:"targetResults"`
	Error         *string        `json:"error"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
	// With a check's detail: its pages, and the URL of the next ones.
	Pages *[]checkPageJSON `json:"pages,omitempty"`
	Next  *string          `json:"next,omitempty"`
}

type targetResult struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	CrawlID  string `json:"crawlId"`
}

// checkStatuses are the statuses of a check by its crawl's.
var checkStatuses = map[crawl.Status]string{crawl.StatusRunning: "running", crawl.StatusSucceeded: "completed",
	crawl.StatusTimedOut: "partial", crawl.StatusAborted: "failed", crawl.StatusFailed: "failed", crawl.StatusError: "failed"}

// checkOf is crawl rec of schedule sc as a check.
func (s *server) checkOf(ctx context.Context, sc *db.Schedule, rec *crawl.Crawl) (checkJSON, error) {
	failed, err := s.Store.FailedPages(ctx, rec.ID)
	if err != nil {
		return checkJSON{}, err
	}
	created := rec.CreatedAt.UTC()
	ch := checkJSON{ID: rec.ID.String(), MonitorID: sc.ID.String(), Status: checkStatuses[rec.Status], Trigger: "scheduled",
		StartedAt: &created, BillingStatus: "not_applicable", Summary: summaryOf(changeCountsOf(rec), rec.TotalPages, failed),
		TargetResults: []targetResult{{TargetID: "crawl", Type: "crawl", CrawlID: rec.ID.String()}},
		CreatedAt:     created, UpdatedAt: rec.UpdatedAt.UTC()}
	if rec.CompletedAt != nil {
		t := rec.CompletedAt.UTC()
		ch.FinishedAt = &t
	}
	if rec.ErrorMessage != "" && rec.Status != crawl.StatusSucceeded {
		ch.Error = &rec.ErrorMessage
	}
	return ch, nil
}

// fcListChecks handles GET /v2/monitor/{id}/checks?limit=&offset=: the
// monitor's checks, newest first.
func (s *server) fcListChecks(c *fiber.Ctx) error {
	limit, offset, err := limitOffset(c, "offset", 20)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	crawls, err := s.Store.ScheduleCrawlsFrom(ctx, sc.ID, offset, limit)
	if err != nil {
		return err
	}
	out := make([]checkJSON, 0, len(crawls))
	for i := range crawls {
		ch, err := s.checkOf(ctx, sc, &crawls[i])
		if err != nil {
			return err
		}
		out = append(out, ch)
	}
	return c.JSON(fiber.Map{"success": true, "data": out})
}

// checkPageJSON is a page of a check: its status against the previous
// check, and a changed page's diff.
type checkPageJSON struct {
	ID               string      `json:"id"`
	TargetID         string      `json:"targetId"`
	URL              string      `json:"url"`
	Status           string      `json:"status"`
	PreviousScrapeID *string     `json:"previousScrapeId"`
	CurrentScrapeID  *string     `json:"currentScrapeId"`
	StatusCode       *int        `json:"statusCode"`
	Error            *string     `json:"error"`
	Diff             *pageDiff   `json:"diff"`
	CreatedAt        time.Time   `json:"createdAt"`
	Snapshot         *pageSnap   `json:"snapshot,omitempty"`
	Metadata         interface{} `json:"metadata,omitempty"`
}

type pageDiff struct {
	Text string `json:"text,omitempty"`
	JSON any    `json:"json,omitempty"`
}

type pageSnap struct {
	JSON json.RawMessage `json:"json,omitempty"`
}

// fcGetCheck handles GET /v2/monitor/{id}/checks/{check}?limit=&skip=&status=:
// the check with a page of its pages (next names the following ones).
func (s *server) fcGetCheck(c *fiber.Ctx) error {
	limit, skip, err := limitOffset(c, "skip", 100)
	if err != nil {
		return err
	}
	status := c.Query("status")
	switch status {
	case "", "same", "new", "changed", "removed", "error":
	default:
		return crawl.Errorf(crawl.EINVALID, "invalid query parameters").WithField("status", "must be same, new, changed, removed or error")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	sc, err := s.monitorOf(ctx, c)
	if err != nil {
		return err
	}
	id, err := uuid.Parse(strings.Clone(c.Params("check")))
	if err != nil {
		return crawl.Errorf(crawl.ENOTFOUND, "check %q not found", c.Params("check"))
	}
	rec, err := s.Store.GetCrawl(ctx, sc.TeamID, id)
	if err != nil {
		return err
	}
	if rec.ScheduleID == nil || *rec.ScheduleID != sc.ID {
		return crawl.Errorf(crawl.ENOTFOUND, "check %s not found", id)
	}
	ch, err := s.checkOf(ctx, sc, rec)
	if err != nil {
		return err
	}
	pages, total, err := s.Store.CheckPages(ctx, rec.ID, status, skip, limit)
	if err != nil {
		return err
	}
	prev, err := s.Store.PreviousOf(ctx, pages)
	if err != nil {
		return err
	}
	list := make([]checkPageJSON, 0, len(pages))
	for _, p := range pages {
		list = append(list, checkPageOf(p, prev))
	}
	ch.Pages = &list
	if end := skip + len(pages); end < total {
		q := fmt.Sprintf("%s/v2/monitor/%s/checks/%s?skip=%d&limit=%d", c.BaseURL(), sc.ID, rec.ID, end, limit)
		if status != "" {
			q += "&status=" + status
		}
		ch.Next = &q
	}
	return c.JSON(fiber.Map{"success": true, "data": ch, "next": ch.Next})
}

// checkPageOf is page p of a check, with what PreviousOf read.
func checkPageOf(p crawl.Page, prev map[int64]changes.Previous) checkPageJSON {
	current := strconv.FormatInt(p.ID, 10)
	out := checkPageJSON{ID: current, TargetID: "crawl", URL: p.URL, StatusCode: p.StatusCode, Error: p.Error,
		CreatedAt: p.DiscoveredAt.UTC()}
	if p.FetchedAt != nil {
		out.CreatedAt = p.FetchedAt.UTC()
	}
	v := changes.ViewOf(p, prev)
	switch {
	case v == nil:
		out.Status = "error"
	default:
		out.Status = string(v.Status)
	}
	if out.Status != string(changes.Removed) && p.State == crawl.PageStored {
		out.CurrentScrapeID = &current
	}
	if p.PreviousPageID != nil {
		id := strconv.FormatInt(*p.PreviousPageID, 10)
		out.PreviousScrapeID = &id
	}
	if v != nil && v.Status == changes.Changed {
		out.Diff = &pageDiff{Text: v.Diff}
		if len(v.Fields) > 0 {
			out.Diff.JSON = v.Fields
		} else if v.Structured != nil {
			out.Diff.JSON = v.Structured
		}
	}
	if len(p.Extraction) > 0 && p.State == crawl.PageStored {
		out.Snapshot = &pageSnap{JSON: p.Extraction}
	}
	return out
}
