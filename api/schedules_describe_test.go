package api

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/db"
)

// flakySchedules answers Describe with errs in turn, then a description.
type flakySchedules struct {
	client.ScheduleHandle // the methods the test does not call
	errs                  []error
	calls                 int
}

func (f *flakySchedules) Create(context.Context, client.ScheduleOptions) (client.ScheduleHandle, error) {
	return nil, errors.New("not used")
}

func (f *flakySchedules) GetHandle(context.Context, string) client.ScheduleHandle { return f }

func (f *flakySchedules) Describe(ctx context.Context) (*client.ScheduleDescription, error) {
	f.calls++
	if f.calls <= len(f.errs) {
		return nil, f.errs[f.calls-1]
	}
	return &client.ScheduleDescription{}, nil
}

// TestDescribeScheduleAsksAgain: a Temporal Schedule that Temporal did not
// describe for a moment is asked about again (a read of a schedule failed
// with a 503 in a full test run); one that is gone is not, and the
// attempts end.
func TestDescribeScheduleAsksAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	busy := serviceerror.NewUnavailable("busy")
	for _, c := range []struct {
		errs  []error
		calls int
		ok    bool
	}{
		{[]error{busy, context.DeadlineExceeded}, 3, true},
		{[]error{serviceerror.NewNotFound("gone")}, 1, false},
		{[]error{busy, busy, busy}, describeTries, false},
	} {
		f := &flakySchedules{errs: c.errs}
		s := &server{Options: Options{Schedules: f}}
		desc, err := s.describeSchedule(ctx, "schedule-x")
		if (err == nil) != c.ok || (desc != nil) != c.ok || f.calls != c.calls {
			t.Errorf("errors %v: %v, %v after %d calls, want %d calls", c.errs, desc, err, f.calls, c.calls)
		}
	}
}

// TestScheduleReadWhileTemporalIsBusy: a schedule Temporal does not
// describe in any attempt is still read: the stored schedule, with the
// note that its paused state and runs are not shown, not a 503.
func TestScheduleReadWhileTemporalIsBusy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	busy := serviceerror.NewUnavailable("busy")
	s := &server{Options: Options{Schedules: &flakySchedules{errs: []error{busy, busy, busy}}, Store: newFakeStore()}}
	sc := &db.Schedule{ID: uuid.New(), Name: "nightly", Timing: []byte(`{"cron":"0 3 * * *"}`), Request: []byte(`{"startUrl":"https://example.com/"}`)}
	v, err := s.scheduleView(ctx, sc)
	if err != nil {
		t.Fatalf("a read while Temporal is busy failed: %v", err)
	}
	if v.Note != unreadNote || v.Name != "nightly" {
		t.Errorf("answer %+v, want the stored schedule with the note %q", v, unreadNote)
	}
}
