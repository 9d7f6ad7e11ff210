package activities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/schedule"
)

// The fake store's schedules: ScheduleByID answers f.schedule, TeamHasKey
// f.noKey's opposite, and InsertScheduledCrawl keeps the crawl as f.crawl
// (so that a retry finds it).

func (f *fakeStore) ScheduleByID(_ context.Context, id uuid.UUID) (*db.Schedule, error) {
	if err := f.call("ScheduleByID"); err != nil {
		return nil, err
	}
	if f.schedule == nil || f.schedule.ID != id {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "no schedule %s", id)
	}
	sc := *f.schedule
	return &sc, nil
}

func (f *fakeStore) TeamHasKey(context.Context, uuid.UUID) (bool, error) {
	return !f.noKey, f.call("TeamHasKey")
}

func (f *fakeStore) InsertScheduledCrawl(_ context.Context, c *crawl.Crawl) error {
	if err := f.call("InsertScheduledCrawl"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := *c
	f.crawl = &cp
	return nil
}

func TestStartScheduledCrawl(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC) }
	srv := Settings{Server: crawl.Server{AllowPrivateNetworks: true}}
	newSchedule := func(shape, request string) *db.Schedule {
		return &db.Schedule{ID: uuid.New(), TeamID: uuid.New(), Shape: shape, Request: json.RawMessage(request)}
	}

	t.Run("records the run's crawl under the schedule, tracking changes, once", func(t *testing.T) {
		sc := newSchedule(schedule.ShapeFirecrawl, `{"url": "https://example.com/docs", "limit": 50}`)
		f := &fakeStore{schedule: sc}
		in := StartScheduledCrawlInput{ScheduleID: sc.ID.String(), CrawlID: uuid.NewString()}
		got, err := startScheduledCrawl(context.Background(), f, srv, in, now)
		if err != nil || got.Skipped != "" || got.CrawlID != in.CrawlID || got.TeamID != sc.TeamID.String() {
			t.Fatalf("run = %+v, %v", got, err)
		}
		c := f.crawl
		if c == nil || c.ScheduleID == nil || *c.ScheduleID != sc.ID || !c.ChangeTracking || c.Shape != crawl.ShapeFirecrawl ||
			*c.MaxResults != 50 || c.WorkflowID != "crawl-"+in.CrawlID || c.Status != crawl.StatusRunning {
			t.Fatalf("recorded crawl = %+v", c)
		}
		if got.ExecutionTimeout != crawl.ExecutionTimeout(c.Options, 0) {
			t.Errorf("execution timeout %v", got.ExecutionTimeout)
		}
		again, err := startScheduledCrawl(context.Background(), f, srv, in, now)
		if err != nil || again != got || f.called("InsertScheduledCrawl") != 1 {
			t.Errorf("retry = %+v, %v after %d inserts; want the same crawl, inserted once", again, err, f.called("InsertScheduledCrawl"))
		}
	})
	t.Run("a native request that turns change tracking off keeps it off", func(t *testing.T) {
		sc := newSchedule(schedule.ShapeNative, `{"startUrl": "https://example.com/", "changeTracking": false}`)
		f := &fakeStore{schedule: sc}
		if _, err := startScheduledCrawl(context.Background(), f, srv, StartScheduledCrawlInput{ScheduleID: sc.ID.String(), CrawlID: uuid.NewString()}, now); err != nil {
			t.Fatal(err)
		}
		if f.crawl.ChangeTracking {
			t.Error("the run tracks changes though its request says not to")
		}
	})
	for _, tc := range []struct {
		name, why string
		f         func(sc *db.Schedule) *fakeStore
	}{
		{"deleted", "deleted", func(sc *db.Schedule) *fakeStore { at := now(); sc.DeletedAt = &at; return &fakeStore{schedule: sc} }},
		{"gone", "gone", func(*db.Schedule) *fakeStore { return &fakeStore{} }},
		{"no key", "no API key", func(sc *db.Schedule) *fakeStore { return &fakeStore{schedule: sc, noKey: true} }},
		{"invalid here", "not valid on this deployment", func(sc *db.Schedule) *fakeStore {
			sc.Request = json.RawMessage(`{"startUrl": "https://example.com/", "engineType": "playwright"}`)
			return &fakeStore{schedule: sc}
		}},
	} {
		t.Run("skipped: "+tc.name, func(t *testing.T) {
			sc := newSchedule(schedule.ShapeNative, `{"startUrl": "https://example.com/"}`)
			f := tc.f(sc)
			got, err := startScheduledCrawl(context.Background(), f, srv, StartScheduledCrawlInput{ScheduleID: sc.ID.String(), CrawlID: uuid.NewString()}, now)
			if err != nil || !strings.Contains(got.Skipped, tc.why) || got.CrawlID != "" || f.called("InsertScheduledCrawl") != 0 {
				t.Errorf("run = %+v, %v; want skipped because %s, with no crawl", got, err, tc.why)
			}
		})
	}
}
