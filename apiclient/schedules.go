package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Schedule is the part of the API's Schedule object a client reads; Raw
// is the schedule as the API sent it.
type Schedule struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Paused   bool        `json:"paused"`
	Note     string      `json:"note"`
	Cron     string      `json:"cron"`
	Interval string      `json:"interval"`
	TimeZone string      `json:"timezone"`
	NextRuns []time.Time `json:"nextRuns"`
	Crawls   []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"crawls"`
	Raw json.RawMessage `json:"-"`
}

func (c *Client) schedule(ctx context.Context, method, path string, body []byte) (Schedule, error) {
	var raw json.RawMessage
	if err := c.do(ctx, method, c.url(path), body, &raw); err != nil {
		return Schedule{}, err
	}
	var s Schedule
	err := json.Unmarshal(raw, &s)
	s.Raw = raw
	return s, err
}

// CreateSchedule creates a schedule from a request body (the API's
// schedule request).
func (c *Client) CreateSchedule(ctx context.Context, body []byte) (Schedule, error) {
	return c.schedule(ctx, http.MethodPost, "/schedules", body)
}

// Schedule reads one schedule.
func (c *Client) Schedule(ctx context.Context, id string) (Schedule, error) {
	return c.schedule(ctx, http.MethodGet, "/schedules/"+url.PathEscape(id), nil)
}

// ChangeSchedule changes a schedule (pause, resume, timing, request).
func (c *Client) ChangeSchedule(ctx context.Context, id string, body []byte) (Schedule, error) {
	return c.schedule(ctx, http.MethodPatch, "/schedules/"+url.PathEscape(id), body)
}

// DeleteSchedule deletes a schedule; its crawls stay.
func (c *Client) DeleteSchedule(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, c.url("/schedules/"+url.PathEscape(id)), nil, nil)
}

// TriggerSchedule asks for a run of a schedule now.
func (c *Client) TriggerSchedule(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, c.url("/schedules/"+url.PathEscape(id)+"/trigger"), nil, nil)
}

// Schedules calls each for the team's schedules, newest first.
func (c *Client) Schedules(ctx context.Context, each func(Schedule) error) error {
	return walk(ctx, c, c.url("/schedules?limit=100"), true, func(raw json.RawMessage) error {
		var s Schedule
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		s.Raw = raw
		return each(s)
	})
}

// Changes calls each for what a change-tracking crawl found different
// from the previous crawl: pages new, changed and removed.
func (c *Client) Changes(ctx context.Context, id string, each func(Page) error) error {
	return walk(ctx, c, c.url("/crawls/"+url.PathEscape(id)+"/changes?limit=100"), true, func(r json.RawMessage) error {
		var x Page
		if err := json.Unmarshal(r, &x); err != nil {
			return err
		}
		x.Raw = r
		return each(x)
	})
}

// ChangeCrawl changes a running crawl (maxResults, excludePaths,
// maxConcurrentPages, paused) and returns it after the change.
func (c *Client) ChangeCrawl(ctx context.Context, id string, body []byte) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodPatch, c.url("/crawls/"+url.PathEscape(id)), body, &out)
	return out, err
}

// PauseCrawl pauses a running crawl; ResumeCrawl resumes it.
func (c *Client) PauseCrawl(ctx context.Context, id string) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodPost, c.url("/crawls/"+url.PathEscape(id)+"/pause"), nil, &out)
	return out, err
}

func (c *Client) ResumeCrawl(ctx context.Context, id string) (Crawl, error) {
	var out Crawl
	err := c.do(ctx, http.MethodPost, c.url("/crawls/"+url.PathEscape(id)+"/resume"), nil, &out)
	return out, err
}
