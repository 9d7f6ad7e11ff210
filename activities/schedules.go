package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/schedule"
)

// scheduleStore is what StartScheduledCrawl needs of the database.
type scheduleStore interface {
	ScheduleByID(ctx context.Context, id uuid.UUID) (*db.Schedule, error)
	TeamHasKey(ctx context.Context, teamID uuid.UUID) (bool, error)
	InsertScheduledCrawl(ctx context.Context, c *crawl.Crawl) error
	CrawlByID(ctx context.Context, id uuid.UUID) (*crawl.Crawl, error)
}

// StartScheduledCrawlInput names a schedule's run: the schedule, and the
// ID its crawl gets (chosen by the workflow, so that a retry records the
// same crawl).
type StartScheduledCrawlInput struct {
	ScheduleID string
	CrawlID    string
}

// ScheduledCrawl is the crawl a schedule's run records, as the workflow
// needs to run it: IDs and bounds, never the request. Skipped says why the
// run makes no crawl (the schedule is deleted, its team has no key left,
// or its request is no longer valid here); the run then ends.
type ScheduledCrawl struct {
	CrawlID, TeamID, StartURL string
	// ExecutionTimeout bounds the crawl's workflow.
	ExecutionTimeout time.Duration
	Skipped          string `json:",omitempty"`
}

// StartScheduledCrawl records the crawl of a schedule's run: the
// schedule's request, read as a crawl of this deployment would be, under
// the schedule's team, with its scheduleId (the previous crawl it compares
// with is chosen when it starts). Recording it again changes nothing.
func (a *Activities) StartScheduledCrawl(ctx context.Context, in StartScheduledCrawlInput) (ScheduledCrawl, error) {
	return startScheduledCrawl(ctx, a.Store, a.Settings, in, time.Now)
}

func startScheduledCrawl(ctx context.Context, store scheduleStore, s Settings, in StartScheduledCrawlInput, now func() time.Time) (ScheduledCrawl, error) {
	scheduleID, err := uuid.Parse(in.ScheduleID)
	if err != nil {
		return ScheduledCrawl{}, nonRetryable(fmt.Errorf("schedule id %q: %w", in.ScheduleID, err))
	}
	crawlID, err := uuid.Parse(in.CrawlID)
	if err != nil {
		return ScheduledCrawl{}, nonRetryable(fmt.Errorf("crawl id %q: %w", in.CrawlID, err))
	}
	if c, err := store.CrawlByID(ctx, crawlID); err == nil {
		return scheduledCrawlOf(c, s), nil // recorded by an earlier attempt
	} else if crawl.ErrorCode(err) != crawl.ENOTFOUND {
		return ScheduledCrawl{}, err
	}
	sc, err := store.ScheduleByID(ctx, scheduleID)
	if crawl.ErrorCode(err) == crawl.ENOTFOUND {
		return ScheduledCrawl{Skipped: "the schedule is gone"}, nil
	}
	if err != nil {
		return ScheduledCrawl{}, err
	}
	if sc.DeletedAt != nil {
		return ScheduledCrawl{Skipped: "the schedule was deleted"}, nil
	}
	if ok, err := store.TeamHasKey(ctx, sc.TeamID); err != nil || !ok {
		return ScheduledCrawl{Skipped: "the schedule's team has no API key left"}, err
	}
	o, err := schedule.Options(sc.Shape, sc.Request, s.Server, "crawl")
	var invalid *crawl.Error
	if errors.As(err, &invalid) {
		return ScheduledCrawl{Skipped: "the schedule's crawl request is not valid on this deployment: " + invalid.Error()}, nil
	}
	if err != nil {
		return ScheduledCrawl{}, err
	}
	c := crawl.NewCrawl(crawlID, sc.TeamID, sc.BrandID, "crawl-"+crawlID.String(), o, sc.Request, now().UTC().Truncate(time.Microsecond))
	c.ScheduleID = &sc.ID
	if o.UseStaticIPs {
		c.StaticIP = &s.StaticIP
	}
	if err := store.InsertScheduledCrawl(ctx, c); err != nil {
		return ScheduledCrawl{}, err
	}
	return scheduledCrawlOf(c, s), nil
}

func scheduledCrawlOf(c *crawl.Crawl, s Settings) ScheduledCrawl {
	return ScheduledCrawl{CrawlID: c.ID.String(), TeamID: c.TeamID.String(), StartURL: c.StartURLs[0],
		ExecutionTimeout: crawl.ExecutionTimeout(c.Options, s.WebhookRetryFor)}
}
