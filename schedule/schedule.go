// Package schedule holds what a crawl schedule is: when it runs (a cron
// expression or an interval, in a time zone, between a start and an end),
// what it does when a run is still going or was missed, and the crawl
// request each run makes. A schedule is kept as a Temporal Schedule
// (Temporal owns its timing and its paused state, so that what an
// operator does in the Temporal UI is what the API shows) beside a row
// that holds its owner and its request.
package schedule

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time zones on machines without a zone database

	"github.com/robfig/cron/v3"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
)

// Timing is when a schedule runs and what it does when runs meet.
type Timing struct {
	// Cron is a cron expression (five fields, or @hourly, @daily, …);
	// Interval a duration ("6h", "90m", ISO 8601's "PT6H", or a number of
	// seconds) of a minute or more. Exactly one
	// is given.
	Cron     string   `json:"cron,omitempty"`
	Interval Interval `json:"interval,omitempty"`
	// TimeZone is the IANA zone the cron expression is read in (UTC by
	// default).
	TimeZone string `json:"timezone,omitempty"`
	// StartAt and EndAt bound when runs happen (nil: no bound).
	StartAt *time.Time `json:"startAt,omitempty"`
	EndAt   *time.Time `json:"endAt,omitempty"`
	// Overlap is what happens when a run is due while the last one still
	// goes: skip (the default), bufferOne, bufferAll, cancelOther,
	// terminateOther or allowAll.
	Overlap string `json:"overlap,omitempty"`
	// CatchupWindow is how late a run missed while the service was down
	// may still start (default 1h; at least 10s).
	CatchupWindow string `json:"catchupWindow,omitempty"`
}

// Interval is a schedule's interval as it was given: a Go duration, an
// ISO 8601 duration, or (from a JSON number) seconds.
type Interval string

// UnmarshalJSON reads a string, or a number of seconds.
func (i *Interval) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*i = Interval(n.String() + "s")
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("interval: a duration or a number of seconds")
	}
	*i = Interval(str)
	return nil
}

// isoDuration is an ISO 8601 duration of days and time (no years or
// months, whose length varies).
var isoDuration = regexp.MustCompile(`^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// Duration reads the interval.
func (i Interval) Duration() (time.Duration, error) {
	v := strings.TrimSpace(string(i))
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(v))
	if m == nil || v == "P" || strings.HasSuffix(strings.ToUpper(v), "T") {
		return 0, fmt.Errorf("not a duration: %q", v)
	}
	var d time.Duration
	for k, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute} {
		if m[k+1] != "" {
			n, _ := strconv.Atoi(m[k+1])
			d += time.Duration(n) * unit
		}
	}
	if m[4] != "" {
		f, _ := strconv.ParseFloat(m[4], 64)
		d += time.Duration(f * float64(time.Second))
	}
	return d, nil
}

// MinInterval is the shortest interval between runs.
const MinInterval = time.Minute

// DefaultCatchupWindow is how late a missed run may start by default.
const DefaultCatchupWindow = time.Hour

// overlaps are the overlap policies by their names here.
var overlaps = map[string]enumspb.ScheduleOverlapPolicy{
	"skip":           enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
	"bufferOne":      enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE,
	"bufferAll":      enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL,
	"cancelOther":    enumspb.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER,
	"terminateOther": enumspb.SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER,
	"allowAll":       enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL,
}

// OverlapName is the name here of a Temporal overlap policy.
func OverlapName(p enumspb.ScheduleOverlapPolicy) string {
	for name, q := range overlaps {
		if q == p {
			return name
		}
	}
	return "skip" // Temporal's unspecified policy is skip
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Check reports what is wrong with t, by field (prefix names the object
// the fields are in, "" at the top).
func (t Timing) Check(prefix string) []crawl.FieldError {
	var bad []crawl.FieldError
	fail := func(field, format string, args ...any) {
		bad = append(bad, crawl.FieldError{Field: prefix + field, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case t.Cron == "" && t.Interval == "":
		fail("cron", "give a cron expression or an interval")
	case t.Cron != "" && t.Interval != "":
		fail("interval", "give either a cron expression or an interval, not both")
	case t.Cron != "":
		if strings.HasPrefix(strings.TrimSpace(t.Cron), "@every") {
			fail("cron", "use interval for a run every so often")
		} else if _, err := cronParser.Parse(t.Cron); err != nil {
			fail("cron", "is not a cron expression (five fields: minute hour day-of-month month day-of-week, or @hourly, @daily, @weekly, @monthly): %v", err)
		}
	default:
		d, err := t.Interval.Duration()
		switch {
		case err != nil:
			fail("interval", "must be a duration such as 90m, 6h or PT6H, or a number of seconds")
		case d < MinInterval:
			fail("interval", "must be at least %s", MinInterval)
		}
	}
	if t.TimeZone != "" {
		if _, err := time.LoadLocation(t.TimeZone); err != nil || strings.EqualFold(t.TimeZone, "local") {
			fail("timezone", "is not a known time zone (an IANA name such as Europe/Paris)")
		}
	}
	if t.StartAt != nil && t.EndAt != nil && !t.EndAt.After(*t.StartAt) {
		fail("endAt", "must be after startAt")
	}
	if t.Overlap != "" {
		if _, ok := overlaps[t.Overlap]; !ok {
			fail("overlap", "must be one of skip, bufferOne, bufferAll, cancelOther, terminateOther, allowAll")
		}
	}
	if t.CatchupWindow != "" {
		if d, err := time.ParseDuration(t.CatchupWindow); err != nil || d < 10*time.Second {
			fail("catchupWindow", "must be a duration of at least 10s")
		}
	}
	return bad
}

// Spec is t as Temporal's schedule spec; t must be checked.
func (t Timing) Spec() client.ScheduleSpec {
	s := client.ScheduleSpec{TimeZoneName: t.TimeZone}
	if t.Cron != "" {
		s.CronExpressions = []string{t.Cron}
	} else {
		d, _ := t.Interval.Duration()
		s.Intervals = []client.ScheduleIntervalSpec{{Every: d}}
	}
	if t.StartAt != nil {
		s.StartAt = *t.StartAt
	}
	if t.EndAt != nil {
		s.EndAt = *t.EndAt
	}
	return s
}

// Policies are t's overlap policy and catch-up window; t must be checked.
func (t Timing) Policies() (enumspb.ScheduleOverlapPolicy, time.Duration) {
	overlap := enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
	if p, ok := overlaps[t.Overlap]; ok {
		overlap = p
	}
	catchup := DefaultCatchupWindow
	if d, err := time.ParseDuration(t.CatchupWindow); err == nil {
		catchup = d
	}
	return overlap, catchup
}

// The shapes a schedule's crawl request is in.
const (
	ShapeNative    = "native"
	ShapeFirecrawl = "firecrawl"
)

// Options reads a schedule's crawl request (in shape) into the options of
// each run's crawl, with what the deployment srv has; errors name the
// request's fields under field. A run tracks changes unless the request
// says otherwise: each compares with the schedule's last succeeded run.
func Options(shape string, request json.RawMessage, srv crawl.Server, field string) (crawl.Options, error) {
	var o crawl.Options
	var err error
	switch shape {
	case ShapeFirecrawl:
		o, err = firecrawl.CrawlOptions(request, srv)
	default:
		o, err = crawl.ParseRequest(request, srv)
	}
	if err != nil {
		return crawl.Options{}, prefixed(err, field)
	}
	var given map[string]json.RawMessage
	if json.Unmarshal(request, &given) == nil {
		if _, said := given["changeTracking"]; !said || shape == ShapeFirecrawl {
			o.ChangeTracking = true
		}
	}
	return o, nil
}

// prefixed puts field in front of the fields err names.
func prefixed(err error, field string) error {
	e, ok := err.(*crawl.Error)
	if !ok {
		return err
	}
	out := *e
	out.Details = make([]crawl.FieldError, len(e.Details))
	for i, d := range e.Details {
		d.Field = field + "." + d.Field
		out.Details[i] = d
	}
	return &out
}
