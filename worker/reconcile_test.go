package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/durablecrawl/crawler/crawl"
)

// fakeStore keeps crawls in the order RunningCrawls pages them (created
// at, then ID) and ends them compare-and-set, as db.Store does.
type fakeStore struct {
	crawls []*crawl.Crawl
	// failEnd makes EndCrawl of these crawls fail.
	failEnd map[uuid.UUID]bool
	// pages records the after and limit of each RunningCrawls call.
	pages []pageCall
	// ended records each EndCrawl call, logs the entries it was asked to
	// write.
	ended []endCall
	logs  []crawl.CrawlLog
}

type pageCall struct {
	createdBefore time.Time
	after         uuid.UUID
	limit         int
}

type endCall struct {
	id      uuid.UUID
	status  crawl.Status
	message string
}

var _ reconcileStore = (*fakeStore)(nil)

func (s *fakeStore) RunningCrawls(_ context.Context, createdBefore time.Time, after uuid.UUID, limit int) ([]crawl.Crawl, error) {
	s.pages = append(s.pages, pageCall{createdBefore, after, limit})
	if len(s.pages) > 100 {
		return nil, errors.New("fake: RunningCrawls called more than 100 times")
	}
	start := 0
	if after != uuid.Nil {
		i := slices.IndexFunc(s.crawls, func(c *crawl.Crawl) bool { return c.ID == after })
		if i < 0 {
			return nil, fmt.Errorf("fake: after %s is no crawl", after)
		}
		start = i + 1
	}
	var out []crawl.Crawl
	for _, c := range s.crawls[start:] {
		if len(out) == limit {
			break
		}
		if c.Status == crawl.StatusRunning && c.CreatedAt.Before(createdBefore) {
			out = append(out, crawl.Crawl{ID: c.ID, WorkflowID: c.WorkflowID, CreatedAt: c.CreatedAt, ScheduleID: c.ScheduleID})
		}
	}
	return out, nil
}

func (s *fakeStore) EndCrawl(_ context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	s.ended = append(s.ended, endCall{id, status, message})
	if s.failEnd[id] {
		return nil, errors.New("fake: end crawl failed")
	}
	c := s.crawl(id)
	if c == nil {
		return nil, fmt.Errorf("fake: no crawl %s", id)
	}
	if c.Status == crawl.StatusRunning {
		c.Status, c.ErrorMessage = status, message
	}
	out := *c
	s.logs = append(s.logs, logs(&out, nil)...)
	return &out, nil
}

func (s *fakeStore) crawl(id uuid.UUID) *crawl.Crawl {
	for _, c := range s.crawls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// add appends a running crawl created age ago, whose workflow the
// describer answers with state.
func (s *fakeStore) add(d fakeDescriber, age time.Duration, state workflowState) *crawl.Crawl {
	id := uuid.New()
	c := &crawl.Crawl{ID: id, TeamID: uuid.New(), Status: crawl.StatusRunning, WorkflowID: "crawl-" + id.String(),
		CreatedAt: time.Now().Add(-age)}
	c.StartURLs = []string{"https://a.example/"}
	s.crawls = append(s.crawls, c)
	d[c.WorkflowID] = state
	return c
}

// workflowState is what Temporal says of a workflow: its status, or err.
type workflowState struct {
	status enumspb.WorkflowExecutionStatus
	err    error
}

// fakeDescriber answers DescribeWorkflowExecution by workflow ID; a
// workflow it does not know is not found.
type fakeDescriber map[string]workflowState

func (d fakeDescriber) DescribeWorkflowExecution(_ context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	st, ok := d[workflowID]
	if !ok {
		return nil, serviceerror.NewNotFound("workflow not found")
	}
	if st.err != nil {
		return nil, st.err
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: st.status}}, nil
}

func status(s enumspb.WorkflowExecutionStatus) workflowState { return workflowState{status: s} }

func newReconciler(s *fakeStore, d fakeDescriber) *Reconciler {
	return &Reconciler{Store: s, Temporal: d, Logger: slog.New(slog.DiscardHandler)}
}

// TestOnceSettlesByWorkflowState: each state of a crawl's workflow gives
// the crawl its status, ended through crawllog.End (with its last log
// entry), or leaves it running.
func TestOnceSettlesByWorkflowState(t *testing.T) {
	cases := []struct {
		name        string
		state       workflowState
		want        crawl.Status // "" when the crawl stays running
		wantMessage string
	}{
		{"terminated", status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED), crawl.StatusAborted, "Crawl aborted"},
		{"timed out", status(enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT), crawl.StatusTimedOut, "Crawl timed out"},
		{"not found", workflowState{err: serviceerror.NewNotFound("gone")}, crawl.StatusError, "Crawl stopped by an internal error"},
		{"not found, wrapped", workflowState{err: fmt.Errorf("describe: %w", serviceerror.NewNotFound("gone"))}, crawl.StatusError, "Crawl stopped by an internal error"},
		{"cancelled", status(enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED), crawl.StatusAborted, "Crawl aborted"},
		{"failed", status(enumspb.WORKFLOW_EXECUTION_STATUS_FAILED), crawl.StatusError, "Crawl stopped by an internal error"},
		{"completed", status(enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED), crawl.StatusError, "Crawl stopped by an internal error"},
		{"running", status(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING), "", ""},
		{"continued as new", status(enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW), "", ""},
		{"temporal unavailable", workflowState{err: serviceerror.NewUnavailable("down")}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, d := &fakeStore{}, fakeDescriber{}
			c := s.add(d, time.Hour, tc.state)
			n, err := newReconciler(s, d).Once(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if n != 0 || len(s.ended) != 0 || c.Status != crawl.StatusRunning {
					t.Errorf("settled %d, EndCrawl calls %v, status %s; want the crawl left running", n, s.ended, c.Status)
				}
				return
			}
			if n != 1 || c.Status != tc.want {
				t.Errorf("settled %d, status %s; want 1, %s", n, c.Status, tc.want)
			}
			if len(s.ended) != 1 || s.ended[0].id != c.ID || s.ended[0].status != tc.want || s.ended[0].message == "" {
				t.Errorf("EndCrawl calls %+v; want one for %s with status %s and a reason", s.ended, c.ID, tc.want)
			}
			if len(s.logs) != 1 || s.logs[0].Key != "end" || s.logs[0].Message != tc.wantMessage {
				t.Errorf("log entries %+v; want the end entry %q", s.logs, tc.wantMessage)
			}
		})
	}
}

// TestOncePagesOverRunningCrawls: Once reads the running crawls 200 at a
// time, each page after the last crawl of the one before, until a short
// page, also when the crawls of the first pages stay running.
func TestOncePagesOverRunningCrawls(t *testing.T) {
	cases := []struct {
		name         string
		running      int // crawls whose workflows still run, first
		terminated   int // then crawls whose workflows were terminated
		wantSettled  int
		wantPageRead int
	}{
		{"one short page", 0, 150, 150, 1},
		{"exactly two pages", 0, 400, 400, 3},
		{"three pages", 0, 450, 450, 3},
		{"first page stays running", 200, 50, 50, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, d := &fakeStore{}, fakeDescriber{}
			for range tc.running {
				s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING))
			}
			for range tc.terminated {
				s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
			}
			n, err := newReconciler(s, d).Once(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.wantSettled {
				t.Errorf("settled %d, want %d", n, tc.wantSettled)
			}
			for i, c := range s.crawls {
				want := crawl.StatusAborted
				if i < tc.running {
					want = crawl.StatusRunning
				}
				if c.Status != want {
					t.Fatalf("crawl %d is %s, want %s", i, c.Status, want)
				}
			}
			if len(s.pages) != tc.wantPageRead {
				t.Fatalf("RunningCrawls called %d times, want %d", len(s.pages), tc.wantPageRead)
			}
			for i, p := range s.pages {
				want := uuid.Nil
				if i > 0 {
					want = s.crawls[200*i-1].ID
				}
				if p.after != want || p.limit != 200 {
					t.Errorf("page %d read after %s with limit %d, want after %s with limit 200", i, p.after, p.limit, want)
				}
			}
		})
	}
}

// TestOnceSkipsCrawlItCannotEnd: a crawl whose ending fails is left for
// the next pass; the crawls after it are still settled and counted.
func TestOnceSkipsCrawlItCannotEnd(t *testing.T) {
	s, d := &fakeStore{failEnd: map[uuid.UUID]bool{}}, fakeDescriber{}
	var cs []*crawl.Crawl
	for range 3 {
		cs = append(cs, s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT)))
	}
	s.failEnd[cs[1].ID] = true
	n, err := newReconciler(s, d).Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("settled %d, want 2", n)
	}
	for i, want := range []crawl.Status{crawl.StatusTimedOut, crawl.StatusRunning, crawl.StatusTimedOut} {
		if cs[i].Status != want {
			t.Errorf("crawl %d is %s, want %s", i, cs[i].Status, want)
		}
	}
	if len(s.ended) != 3 {
		t.Errorf("EndCrawl called %d times, want 3", len(s.ended))
	}
}

// TestOnceCountsOnlyItsOwnEndings: a crawl that another party ended
// between the read and the ending keeps its status and is not counted.
func TestOnceCountsOnlyItsOwnEndings(t *testing.T) {
	s, d := &fakeStore{}, fakeDescriber{}
	c := s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
	mine := s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
	r := newReconciler(s, d)
	r.Store = &endFirst{fakeStore: s, id: c.ID, status: crawl.StatusSucceeded}
	n, err := r.Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || c.Status != crawl.StatusSucceeded || mine.Status != crawl.StatusAborted {
		t.Errorf("settled %d, statuses %s and %s; want 1, succeeded and aborted", n, c.Status, mine.Status)
	}
}

// endFirst ends crawl id with status just before its EndCrawl runs, as a
// workflow finishing at the same moment would.
type endFirst struct {
	*fakeStore
	id     uuid.UUID
	status crawl.Status
}

func (e *endFirst) EndCrawl(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	if id == e.id {
		e.crawl(id).Status = e.status
	}
	return e.fakeStore.EndCrawl(ctx, id, status, message, logs)
}

// TestOnceSparesYoungCrawls: crawls younger than Grace (one minute by
// default) are not read: their workflow may not be started yet.
func TestOnceSparesYoungCrawls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace time.Duration
		ages  []time.Duration
		want  []crawl.Status
	}{
		{"default grace", 0, []time.Duration{10 * time.Second, 2 * time.Minute},
			[]crawl.Status{crawl.StatusRunning, crawl.StatusAborted}},
		{"grace of an hour", time.Hour, []time.Duration{10 * time.Minute, 2 * time.Hour},
			[]crawl.Status{crawl.StatusRunning, crawl.StatusAborted}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d := &fakeStore{}, fakeDescriber{}
			for _, age := range tc.ages {
				s.add(d, age, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
			}
			r := newReconciler(s, d)
			r.Grace = tc.grace
			if _, err := r.Once(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i, c := range s.crawls {
				if c.Status != tc.want[i] {
					t.Errorf("crawl aged %s is %s, want %s", tc.ages[i], c.Status, tc.want[i])
				}
			}
		})
	}
}

// TestOnceWaitsForScheduledRuns: a schedule's run records its crawl
// before it starts the crawl's workflow, so a young crawl of a schedule
// without a workflow is left to its run (for scheduledGrace); an older one,
// or one whose workflow ended, is settled.
func TestOnceWaitsForScheduledRuns(t *testing.T) {
	s, d := &fakeStore{}, fakeDescriber{}
	missing := workflowState{err: serviceerror.NewNotFound("not started yet")}
	young := s.add(d, 10*time.Minute, missing)
	old := s.add(d, scheduledGrace+time.Minute, missing)
	ended := s.add(d, 10*time.Minute, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
	unscheduled := s.add(d, 10*time.Minute, missing)
	schedule := uuid.New()
	for _, c := range []*crawl.Crawl{young, old, ended} {
		c.ScheduleID = &schedule
	}
	n, err := newReconciler(s, d).Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *crawl.Crawl
		want crawl.Status
	}{
		{"young scheduled crawl without its workflow", young, crawl.StatusRunning},
		{"scheduled crawl without its workflow past the grace", old, crawl.StatusError},
		{"young scheduled crawl whose workflow was terminated", ended, crawl.StatusAborted},
		{"crawl of no schedule without its workflow", unscheduled, crawl.StatusError},
	} {
		if tc.c.Status != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.c.Status, tc.want)
		}
	}
	if n != 3 {
		t.Errorf("settled %d crawls, want 3", n)
	}
}

// TestOnceReturnsReadError: a failed read ends the pass with the error and
// the count of crawls settled before it.
func TestOnceReturnsReadError(t *testing.T) {
	s, d := &fakeStore{}, fakeDescriber{}
	for range 250 {
		s.add(d, time.Hour, status(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED))
	}
	r := newReconciler(s, d)
	r.Store = &failSecondPage{fakeStore: s}
	n, err := r.Once(context.Background())
	if err == nil || n != 200 {
		t.Errorf("Once = %d, %v; want 200 and the read error", n, err)
	}
}

type failSecondPage struct{ *fakeStore }

func (f *failSecondPage) RunningCrawls(ctx context.Context, createdBefore time.Time, after uuid.UUID, limit int) ([]crawl.Crawl, error) {
	if after != uuid.Nil {
		return nil, errors.New("fake: connection lost")
	}
	return f.fakeStore.RunningCrawls(ctx, createdBefore, after, limit)
}
