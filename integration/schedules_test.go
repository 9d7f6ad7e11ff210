package integration

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/internal/testenv"
	"github.com/durablecrawl/crawler/workflows"
)

// scheduleObj is a schedule as a client reads it.
type scheduleObj struct {
	ID                 string      `json:"id"`
	Name               string      `json:"name"`
	TemporalScheduleID string      `json:"temporalScheduleId"`
	Paused             bool        `json:"paused"`
	Note               string      `json:"note"`
	Cron               string      `json:"cron"`
	Interval           string      `json:"interval"`
	TimeZone           string      `json:"timezone"`
	Overlap            string      `json:"overlap"`
	CatchupWindow      string      `json:"catchupWindow"`
	NextRuns           []time.Time `json:"nextRuns"`
	RecentRuns         []struct {
		WorkflowID string `json:"workflowId"`
	} `json:"recentRuns"`
	Runs struct {
		Started int `json:"started"`
		Running int `json:"running"`
	} `json:"runs"`
	Crawls []struct {
		ID              string  `json:"id"`
		Status          string  `json:"status"`
		PreviousCrawlID *string `json:"previousCrawlId"`
		Changes         *struct {
			New, Changed, Same, Removed int
		} `json:"changes"`
	} `json:"crawls"`
}

func getSchedule(t *testing.T, api, key, id string) scheduleObj {
	t.Helper()
	var s scheduleObj
	if status, raw := call(t, "GET", api+"/schedules/"+id, key, nil, &s); status != http.StatusOK {
		t.Fatalf("GET schedule = %d %s", status, raw)
	}
	return s
}

// waitRuns waits until the schedule has n crawls, the newest ended, and
// no run going (a run ends just after its crawl).
func waitRuns(t *testing.T, api, key, id string, n int) scheduleObj {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := getSchedule(t, api, key, id)
		if len(s.Crawls) >= n && s.Crawls[0].Status != "running" && s.Runs.Running == 0 {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("schedule %s: %d runs did not end in time: %+v", id, n, s)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// temporalCLI runs the Temporal CLI against the test server.
func temporalCLI(t *testing.T, args ...string) string {
	t.Helper()
	cli, err := testenv.TemporalCLI()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cli, append(args, "--address", env.temporalAddr)...).CombinedOutput()
	if err != nil {
		t.Fatalf("temporal %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestSchedules runs a crawl schedule as a Temporal Schedule: runs
// triggered through the API and from the Temporal CLI are ordinary
// crawls of the schedule, each comparing with the last; pausing it in
// Temporal shows in the API, and resuming it through the API shows in
// Temporal; a second schedule of the same site shares nothing with the
// first; deleting it leaves its crawls readable.
func TestSchedules(t *testing.T) {
	t.Parallel()
	site := newTrackedSite(t)
	body := map[string]any{"name": "shop", "interval": "1h", "timezone": "Europe/Paris", "paused": true,
		"crawl": map[string]any{"startUrl": site.URL + "/", "maxDepth": 2}}
	var sc scheduleObj
	if status, raw := call(t, "POST", env.api+"/schedules", env.keyA, body, &sc); status != http.StatusCreated {
		t.Fatalf("POST /schedules = %d %s", status, raw)
	}
	if !sc.Paused || sc.Interval != "1h0m0s" && sc.Interval != "1h" || sc.TimeZone != "Europe/Paris" || sc.Overlap != "skip" ||
		sc.TemporalScheduleID != crawlflow.ScheduleID(sc.ID) {
		t.Errorf("created schedule = %+v", sc)
	}

	// A run triggered through the API: a crawl of the schedule, tracking
	// changes, with nothing to compare with yet.
	if status, raw := call(t, "POST", env.api+"/schedules/"+sc.ID+"/trigger", env.keyA, nil, nil); status != http.StatusAccepted {
		t.Fatalf("trigger = %d %s", status, raw)
	}
	s1 := waitRuns(t, env.api, env.keyA, sc.ID, 1)
	first := s1.Crawls[0]
	if first.Status != "succeeded" || first.PreviousCrawlID != nil || first.Changes == nil || first.Changes.New != 9 {
		t.Fatalf("first run: %+v (changes %+v)", first, first.Changes)
	}
	var c1 trackedCrawl
	call(t, "GET", env.api+"/crawls/"+first.ID, env.keyA, nil, &c1)
	if !c1.ChangeTracking || c1.ScheduleID == nil || *c1.ScheduleID != sc.ID {
		t.Errorf("the run's crawl: %+v", c1)
	}

	// A run triggered by an operator from the Temporal CLI compares with
	// the first.
	site.next()
	temporalCLI(t, "schedule", "trigger", "--schedule-id", sc.TemporalScheduleID)
	s2 := waitRuns(t, env.api, env.keyA, sc.ID, 2)
	second := s2.Crawls[0]
	if second.Status != "succeeded" || second.PreviousCrawlID == nil || *second.PreviousCrawlID != first.ID ||
		second.Changes == nil || *second.Changes != (struct{ New, Changed, Same, Removed int }{1, 3, 4, 2}) {
		t.Errorf("second run: %+v (changes %+v), want it compared with %s", second, second.Changes, first.ID)
	}
	if s2.Runs.Started != 2 || len(s2.RecentRuns) != 2 || !strings.HasPrefix(s2.RecentRuns[0].WorkflowID, crawlflow.RunWorkflowID(sc.ID)) {
		t.Errorf("runs as Temporal tells them: %+v %+v", s2.Runs, s2.RecentRuns)
	}

	// Resumed through the API: Temporal has it running, with next runs.
	var resumed scheduleObj
	if status, raw := call(t, "PATCH", env.api+"/schedules/"+sc.ID, env.keyA, map[string]any{"paused": false}, &resumed); status != http.StatusOK {
		t.Fatalf("PATCH paused=false = %d %s", status, raw)
	}
	if resumed.Paused || len(resumed.NextRuns) == 0 {
		t.Errorf("resumed: paused %t, next runs %v", resumed.Paused, resumed.NextRuns)
	}
	if out := temporalCLI(t, "schedule", "describe", "--schedule-id", sc.TemporalScheduleID, "-o", "json"); !strings.Contains(out, `"paused": false`) &&
		strings.Contains(out, `"paused": true`) {
		t.Errorf("Temporal still has the schedule paused:\n%s", out)
	}
	// Paused by an operator in Temporal: the API says so, with the note.
	temporalCLI(t, "schedule", "toggle", "--schedule-id", sc.TemporalScheduleID, "--pause", "--reason", "site maintenance")
	if got := getSchedule(t, env.api, env.keyA, sc.ID); !got.Paused || got.Note != "site maintenance" {
		t.Errorf("after pausing in Temporal: paused %t, note %q", got.Paused, got.Note)
	}

	// Bad timings and another team's crawl are refused, naming the field.
	for _, tc := range []struct {
		body   map[string]any
		status int
		field  string
	}{
		{map[string]any{"interval": "30s"}, 400, "interval"},
		{map[string]any{"cron": "61 * * * *"}, 400, "cron"},
		{map[string]any{"cron": "0 3 * * *", "timezone": "Mars/Olympus"}, 400, "timezone"},
		{map[string]any{"overlap": "sometimes"}, 400, "overlap"},
		{map[string]any{"crawl": map[string]any{"startUrl": "ftp://example.com/"}}, 400, "crawl.startUrl"},
	} {
		var e errorObj
		status, raw := call(t, "PATCH", env.api+"/schedules/"+sc.ID, env.keyA, tc.body, &e)
		if status != tc.status || len(e.Error.Details) == 0 || e.Error.Details[0].Field != tc.field {
			t.Errorf("PATCH %v = %d %s, want %d naming %s", tc.body, status, raw, tc.status, tc.field)
		}
	}
	other := create(t, env.api, env.keyB, map[string]any{"startUrl": site.URL + "/tracked/new", "maxDepth": 1})
	var e errorObj
	status, raw := call(t, "POST", env.api+"/schedules", env.keyA, map[string]any{"cron": "0 3 * * *", "crawlId": other.ID}, &e)
	if status != http.StatusNotFound || len(e.Error.Details) == 0 || e.Error.Details[0].Field != "crawlId" {
		t.Errorf("a schedule on another team's crawl = %d %s, want 404 naming crawlId", status, raw)
	}
	// A map's crawl is not a crawl request to repeat.
	var mapped struct {
		ID string `json:"id"`
	}
	if status, raw := call(t, "POST", env.api+"/v2/map", env.keyA, map[string]any{"url": site.URL + "/", "limit": 5}, &mapped); status != http.StatusOK || mapped.ID == "" {
		t.Fatalf("map = %d %s", status, raw)
	}
	e = errorObj{}
	status, raw = call(t, "POST", env.api+"/schedules", env.keyA, map[string]any{"cron": "0 3 * * *", "crawlId": mapped.ID}, &e)
	if status != http.StatusBadRequest || len(e.Error.Details) == 0 || e.Error.Details[0].Field != "crawlId" {
		t.Errorf("a schedule of a map = %d %s, want 400 naming crawlId", status, raw)
	}
	if status, _ := call(t, "GET", env.api+"/schedules/"+sc.ID, env.keyB, nil, nil); status != http.StatusNotFound {
		t.Errorf("another team reads the schedule: %d", status)
	}

	// A second schedule of the same site, made from the first run's crawl,
	// compares with nothing of the first's.
	var twin scheduleObj
	if status, raw := call(t, "POST", env.api+"/schedules", env.keyA, map[string]any{"cron": "0 3 * * *", "paused": true,
		"crawlId": first.ID}, &twin); status != http.StatusCreated {
		t.Fatalf("POST twin schedule = %d %s", status, raw)
	}
	call(t, "POST", env.api+"/schedules/"+twin.ID+"/trigger", env.keyA, nil, nil)
	tw := waitRuns(t, env.api, env.keyA, twin.ID, 1)
	if tw.Crawls[0].PreviousCrawlID != nil || tw.Crawls[0].Changes == nil || tw.Crawls[0].Changes.New != 8 {
		t.Errorf("the twin schedule's first run: %+v (changes %+v), want all new", tw.Crawls[0], tw.Crawls[0].Changes)
	}

	// Deleted: gone from Temporal and the API; its crawls stay.
	for _, id := range []string{sc.ID, twin.ID} {
		if status, raw := call(t, "DELETE", env.api+"/schedules/"+id, env.keyA, nil, nil); status != http.StatusOK {
			t.Fatalf("DELETE = %d %s", status, raw)
		}
	}
	if status, _ := call(t, "GET", env.api+"/schedules/"+sc.ID, env.keyA, nil, nil); status != http.StatusNotFound {
		t.Errorf("a deleted schedule answers %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := env.temporal.ScheduleClient().GetHandle(ctx, sc.TemporalScheduleID).Describe(ctx); err == nil {
		t.Error("the Temporal Schedule is still there")
	}
	if pages := allPages(t, env.api, env.keyA, second.ID); len(pages) != 8 {
		t.Errorf("the deleted schedule's run has %d pages, want its 8", len(pages))
	}
	for _, h := range crawlHistories(t, "crawl-"+second.ID) {
		replayHistory(t, "crawl-"+second.ID, h)
	}
}

// scheduleTaskQueue is the deployment of TestScheduledRunThroughWorkerRestart,
// whose worker the test stops and starts.
const scheduleTaskQueue = "crawls-test-schedule"

// TestScheduledRunThroughWorkerRestart: a scheduled run whose worker stops
// mid-crawl finishes on the next worker; a run due meanwhile is skipped
// (the schedule's overlap policy), and the schedule is as it was.
func TestScheduledRunThroughWorkerRestart(t *testing.T) {
	t.Parallel()
	cfg := env.restartConfig
	cfg.TaskQueue, cfg.MaxPagesPerCrawl = scheduleTaskQueue, 1000
	stop, err := startWorker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: scheduleTaskQueue, Server: testServer,
		Schedules: env.temporal.ScheduleClient()}))
	slow := slowSite(t, 40*time.Millisecond)
	var sc scheduleObj
	if status, raw := call(t, "POST", base+"/schedules", env.keyA, map[string]any{"cron": "@daily", "paused": true,
		"crawl": map[string]any{"startUrl": slow.URL + "/", "maxResults": 120, "maxConcurrentPages": 2}}, &sc); status != http.StatusCreated {
		t.Fatalf("POST /schedules = %d %s", status, raw)
	}
	call(t, "POST", base+"/schedules/"+sc.ID+"/trigger", env.keyA, nil, nil)
	var crawlID string
	deadline := time.Now().Add(time.Minute)
	for crawlID == "" {
		if s := getSchedule(t, base, env.keyA, sc.ID); len(s.Crawls) > 0 {
			crawlID = s.Crawls[0].ID
		} else if time.Now().After(deadline) {
			t.Fatal("the run made no crawl")
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitFor(t, base, env.keyA, crawlID, time.Minute, "ten pages", func(c crawlObj) bool { return c.TotalPages >= 10 })
	stop()

	// A run asked for while the last one is still going is skipped.
	call(t, "POST", base+"/schedules/"+sc.ID+"/trigger", env.keyA, nil, nil)
	var s scheduleObj
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var raw struct {
			Runs struct {
				SkippedOverlap int `json:"skippedOverlap"`
			} `json:"runs"`
		}
		call(t, "GET", base+"/schedules/"+sc.ID, env.keyA, nil, &raw)
		if raw.Runs.SkippedOverlap == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second run was not skipped: %+v", raw)
		}
	}
	if stop, err = startWorker(cfg, nil); err != nil {
		t.Fatal(err)
	}
	defer stop()
	done := waitStatus(t, base, env.keyA, crawlID, 2*time.Minute, "succeeded")
	if done.TotalPages != 120 {
		t.Errorf("the run stored %d pages, want 120", done.TotalPages)
	}
	s = getSchedule(t, base, env.keyA, sc.ID)
	if len(s.Crawls) != 1 || !s.Paused || len(s.RecentRuns) != 1 {
		t.Errorf("after the restart: %d crawls, paused %t, runs %+v", len(s.Crawls), s.Paused, s.RecentRuns)
	}
	// The run's own workflow ends with its crawl, and replays.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runID := s.RecentRuns[0].WorkflowID
	var res workflows.ScheduledCrawlResult
	if err := env.temporal.GetWorkflow(ctx, runID, "").Get(ctx, &res); err != nil || res.CrawlID != crawlID || res.Status != "succeeded" {
		t.Errorf("the scheduled run ended %+v, %v", res, err)
	}
	h := runHistory(t, runID, "")
	recordWorkflowHistory(t, h, "scheduled-run")
	replayHistory(t, runID, h)
	call(t, "DELETE", base+"/schedules/"+sc.ID, env.keyA, nil, nil)
}
