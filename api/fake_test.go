package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/usage"
)

// testKey is the API key of team testTeam; otherKey that of otherTeam.
const (
	testKey  = "ck_test_key"
	otherKey = "ck_other_key"
)

var (
	testTeam  = uuid.MustParse("00000000-0000-4000-8000-00000000000a")
	otherTeam = uuid.MustParse("00000000-0000-4000-8000-00000000000b")
	testBrand = "brand-a"
)

// fakeStore is an in-memory store: crawls by ID, ended compare-and-set as
// db.Store ends them, and a record of every write and list.
type fakeStore struct {
	keys     map[string]db.Principal
	crawls   map[uuid.UUID]*crawl.Crawl
	inserted []uuid.UUID
	// insertErr fails InsertCrawl.
	insertErr error
	ended     []endCall
	logs      []crawl.CrawlLog
	listed    []listCall
	listTotal int
	// pages counts each crawl's pages by state, for CountPages.
	pages map[uuid.UUID]map[crawl.PageState]int
}

type endCall struct {
	ID      uuid.UUID
	Status  crawl.Status
	Message string
}

type listCall struct {
	What        string // "logs" or "results"
	Crawl       uuid.UUID
	Page, Limit int
	Raw         bool
	Search      string
	NoMarkdown  bool
	Level, URL  string
}

var _ store = (*fakeStore)(nil)

func newFakeStore() *fakeStore {
	return &fakeStore{
		keys: map[string]db.Principal{
			testKey:  {KeyID: uuid.MustParse("00000000-0000-4000-8000-0000000000a1"), TeamID: testTeam, BrandID: &testBrand},
			otherKey: {KeyID: uuid.MustParse("00000000-0000-4000-8000-0000000000b1"), TeamID: otherTeam},
		},
		crawls: map[uuid.UUID]*crawl.Crawl{},
	}
}

func (s *fakeStore) Authenticate(_ context.Context, key string) (db.Principal, error) {
	p, ok := s.keys[key]
	if !ok {
		return db.Principal{}, crawl.Errorf(crawl.EUNAUTHORIZED, "invalid API key")
	}
	return p, nil
}

func (s *fakeStore) InsertCrawl(_ context.Context, c *crawl.Crawl) error {
	if s.insertErr != nil {
		return s.insertErr
	}
	cp := *c
	s.crawls[c.ID] = &cp
	s.inserted = append(s.inserted, c.ID)
	return nil
}

func (s *fakeStore) GetCrawl(ctx context.Context, teamID, id uuid.UUID) (*crawl.Crawl, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // as the database would
	}
	c, ok := s.crawls[id]
	if !ok || c.TeamID != teamID {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	cp := *c
	return &cp, nil
}

func (s *fakeStore) EndCrawl(_ context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	s.ended = append(s.ended, endCall{id, status, message})
	c, ok := s.crawls[id]
	if !ok {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "crawl %s not found", id)
	}
	if c.Status == crawl.StatusRunning {
		now := time.Now()
		c.Status, c.ErrorMessage, c.CompletedAt = status, message, &now
	}
	cp := *c
	s.logs = append(s.logs, logs(&cp, nil)...)
	return &cp, nil
}

func (s *fakeStore) InsertLogs(_ context.Context, logs []crawl.CrawlLog) error {
	s.logs = append(s.logs, logs...)
	return nil
}

func (s *fakeStore) ListLogs(_ context.Context, crawlID uuid.UUID, page, limit int, q db.LogsQuery) ([]crawl.CrawlLog, int, error) {
	s.listed = append(s.listed, listCall{What: "logs", Crawl: crawlID, Page: page, Limit: limit, Level: q.Level, URL: q.URL})
	return nil, s.listTotal, nil
}

func (s *fakeStore) ListResults(_ context.Context, crawlID uuid.UUID, page, limit int, q db.ResultsQuery) ([]crawl.Page, int, error) {
	s.listed = append(s.listed, listCall{What: "results", Crawl: crawlID, Page: page, Limit: limit, Raw: q.Raw, Search: q.Search, NoMarkdown: q.NoMarkdown})
	return nil, s.listTotal, nil
}

func (s *fakeStore) CachedPage(context.Context, uuid.UUID, string, string, time.Time, time.Time) (*crawl.Page, *crawl.Crawl, error) {
	return nil, nil, nil // the fake keeps no pages
}

func (s *fakeStore) StoredPageIDs(context.Context, uuid.UUID) ([]int64, error) {
	return nil, nil // the fake keeps no pages
}

func (s *fakeStore) StoredPagesByID(context.Context, uuid.UUID, []int64) ([]crawl.Page, error) {
	return []crawl.Page{}, nil
}

func (s *fakeStore) ListResultsFrom(_ context.Context, crawlID uuid.UUID, offset, limit int) ([]crawl.Page, int, error) {
	s.listed = append(s.listed, listCall{What: "results from", Crawl: crawlID, Page: offset, Limit: limit})
	return nil, s.listTotal, nil
}

func (s *fakeStore) ListPageErrors(_ context.Context, crawlID uuid.UUID, limit int) ([]crawl.Page, error) {
	s.listed = append(s.listed, listCall{What: "errors", Crawl: crawlID, Limit: limit})
	return nil, nil
}

func (s *fakeStore) MapURLs(_ context.Context, crawlID uuid.UUID, limit int, _ []string, _ bool) ([]string, error) {
	s.listed = append(s.listed, listCall{What: "map", Crawl: crawlID, Limit: limit})
	return []string{}, nil
}

func (s *fakeStore) Robots(context.Context, uuid.UUID, []string) (map[string]db.Robots, error) {
	return map[string]db.Robots{}, nil
}

func (s *fakeStore) ScreenshotByToken(context.Context, string) (*db.Screenshot, error) {
	return nil, crawl.Errorf(crawl.ENOTFOUND, "no such screenshot")
}

// The fake has no change-tracking crawls: no previous pages, no changes.
func (s *fakeStore) PreviousOf(context.Context, []crawl.Page) (map[int64]changes.Previous, error) {
	return map[int64]changes.Previous{}, nil
}

func (s *fakeStore) ListChanges(context.Context, uuid.UUID, int, int) ([]crawl.Page, int, error) {
	return []crawl.Page{}, 0, nil
}

// The fake has no schedules (its API has no Temporal schedules either).
func (s *fakeStore) InsertSchedule(context.Context, *db.Schedule) error { return nil }
func (s *fakeStore) GetSchedule(_ context.Context, _, id uuid.UUID) (*db.Schedule, error) {
	return nil, crawl.Errorf(crawl.ENOTFOUND, "schedule %s not found", id)
}
func (s *fakeStore) ListSchedules(context.Context, uuid.UUID, int, int) ([]db.Schedule, int, error) {
	return []db.Schedule{}, 0, nil
}
func (s *fakeStore) UpdateSchedule(context.Context, *db.Schedule) error         { return nil }
func (s *fakeStore) DeleteSchedule(context.Context, uuid.UUID, uuid.UUID) error { return nil }
func (s *fakeStore) ScheduleCrawls(context.Context, uuid.UUID, int) ([]crawl.Crawl, error) {
	return nil, nil
}

func (s *fakeStore) ListCrawls(_ context.Context, teamID uuid.UUID, status crawl.Status, page, limit int) ([]crawl.Crawl, int, error) {
	var all []crawl.Crawl
	for _, c := range s.crawls {
		if c.TeamID == teamID && (status == "" || c.Status == status) {
			all = append(all, *c)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].CreatedAt.After(all[j].CreatedAt) })
	from := min((page-1)*limit, len(all))
	return all[from:min(from+limit, len(all))], len(all), nil
}

func (s *fakeStore) CountPages(_ context.Context, crawlID uuid.UUID) (map[crawl.PageState]int, error) {
	return s.pages[crawlID], nil
}

// addCrawl stores a crawl of team with status.
func (s *fakeStore) addCrawl(team uuid.UUID, status crawl.Status) *crawl.Crawl {
	o, err := crawl.ParseRequest([]byte(`{"startUrl":"https://a.example/"}`), crawl.Server{})
	if err != nil {
		panic(err)
	}
	id := uuid.New()
	c := crawl.NewCrawl(id, team, nil, "crawl-"+id.String(), o, json.RawMessage(`{}`), time.Now().Add(-time.Minute))
	c.Status = status
	s.crawls[id] = c
	return c
}

// fakeTemporal records the workflows started and cancelled.
type fakeTemporal struct {
	started []started
	// startErr fails ExecuteWorkflow.
	startErr error
	// store, when set, is where a started workflow's crawl must already be.
	store *fakeStore
	// startedBeforeInsert notes a workflow started for a crawl not yet
	// stored.
	startedBeforeInsert bool

	cancelled []string
	cancelErr error
	// onCancel runs on a successful cancel, as the workflow would.
	onCancel func(workflowID string)
}

type started struct {
	Options  client.StartWorkflowOptions
	Workflow any
	Args     []any
}

var _ temporalClient = (*fakeTemporal)(nil)

func (t *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error) {
	if t.startErr != nil {
		return nil, t.startErr
	}
	if t.store != nil && !slices.ContainsFunc(t.store.inserted, func(id uuid.UUID) bool { return "crawl-"+id.String() == o.ID }) {
		t.startedBeforeInsert = true
	}
	t.started = append(t.started, started{o, workflow, args})
	return nil, nil
}

func (t *fakeTemporal) CancelWorkflow(_ context.Context, workflowID, runID string) error {
	t.cancelled = append(t.cancelled, workflowID)
	if t.cancelErr != nil {
		return t.cancelErr
	}
	if t.onCancel != nil {
		t.onCancel(workflowID)
	}
	return nil
}

// testAPI is the API over a fake store and a fake Temporal.
type testAPI struct {
	app      *fiber.App
	store    *fakeStore
	temporal *fakeTemporal
}

const testQueue = "test-crawls"

func newTestAPI(t *testing.T) *testAPI {
	t.Helper()
	s := newFakeStore()
	tc := &fakeTemporal{store: s}
	app := New(Options{Store: s, Temporal: tc, TaskQueue: testQueue, Server: allServer,
		StaticIP: "203.0.113.7", Logger: slog.New(slog.DiscardHandler), Resolver: testResolver})
	return &testAPI{app: app, store: s, temporal: tc}
}

// response is an answer of the API with its JSON body decoded.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// do sends a request with key as bearer token ("" for none).
func (a *testAPI) do(t *testing.T, method, path, key, body string) response {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return a.send(t, req)
}

func (a *testAPI) send(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := a.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	// Every answer of the package's tests must be one api/openapi.json
	// describes.
	if err := spec(t).Validate(req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), raw); err != nil {
		t.Errorf("the answer does not match api/openapi.json: %v\n%s", err, raw)
	}
	r := response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %v\n%s", req.Method, req.URL, err, raw)
	}
	return r
}

// wantError fails t unless r is an error answer with status and code, its
// details naming exactly fields (sorted; none when fields is nil).
func wantError(t *testing.T, r response, status int, code string, fields ...string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("status %d, want %d; body %s", r.Status, status, r.Raw)
	}
	e, ok := r.Body["error"].(map[string]any)
	if !ok || len(r.Body) != 1 {
		t.Fatalf("body %s is not {\"error\": {...}}", r.Raw)
	}
	if e["code"] != code {
		t.Errorf("error code %v, want %s", e["code"], code)
	}
	if m, _ := e["message"].(string); m == "" {
		t.Errorf("error without a message: %s", r.Raw)
	}
	var got []string
	details, _ := e["details"].([]any)
	for _, d := range details {
		f, _ := d.(map[string]any)
		if m, _ := f["message"].(string); m == "" {
			t.Errorf("detail without a message: %v", d)
		}
		got = append(got, f["field"].(string))
	}
	sort.Strings(got)
	if !slices.Equal(got, fields) {
		t.Errorf("error details name %v, want %v; body %s", got, fields, r.Raw)
	}
}

// errorMessage is the message of an error answer.
func errorMessage(r response) string {
	e, _ := r.Body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

var errFake = errors.New("fake: failure")

// fakeResolver answers host names from a table; other names do not
// resolve.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var testResolver = fakeResolver{
	"a.example":        {netip.MustParseAddr("93.184.215.14")},
	"intranet.example": {netip.MustParseAddr("10.1.2.3")},
	"mixed.example":    {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("fd00::1")},
}

func (s *fakeStore) ScheduleCrawlsFrom(context.Context, uuid.UUID, int, int) ([]crawl.Crawl, error) {
	return nil, nil
}

func (s *fakeStore) CheckPages(context.Context, uuid.UUID, string, int, int) ([]crawl.Page, int, error) {
	return nil, 0, nil
}

func (s *fakeStore) FailedPages(context.Context, uuid.UUID) (int, error) { return 0, nil }

func (s *fakeStore) SchedulesOf(context.Context, uuid.UUID, string, int, int) ([]db.Schedule, error) {
	return []db.Schedule{}, nil
}

// The fake's teams have no usage and no quota.
func (s *fakeStore) UsageDays(context.Context, uuid.UUID, time.Time, time.Time) ([]usage.Day, error) {
	return nil, nil
}

func (s *fakeStore) TeamQuota(context.Context, uuid.UUID) (usage.Quota, error) {
	return usage.Quota{}, nil
}

func (s *fakeStore) TeamJobs(context.Context, uuid.UUID) (db.TeamJobs, error) {
	return db.TeamJobs{}, nil
}

func (s *fakeStore) CountTeamTokens(context.Context, uuid.UUID, uuid.UUID, int64, int64) error {
	return nil
}

// UpdateWorkflow: the fake has no workflows to change.
func (t *fakeTemporal) UpdateWorkflow(context.Context, client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return nil, errors.New("the fake runs no workflows")
}
