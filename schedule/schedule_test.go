package schedule

import (
	"encoding/json"
	"testing"
	"time"
)

func TestIntervalForms(t *testing.T) {
	for raw, want := range map[string]time.Duration{
		`"90m"`: 90 * time.Minute, `"6h"`: 6 * time.Hour, `"PT6H"`: 6 * time.Hour, `"PT1H30M"`: 90 * time.Minute,
		`"P1D"`: 24 * time.Hour, `"P1DT2H"`: 26 * time.Hour, `"pt90s"`: 90 * time.Second, `3600`: time.Hour, `90.5`: 90500 * time.Millisecond,
	} {
		var i Interval
		if err := json.Unmarshal([]byte(raw), &i); err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if d, err := i.Duration(); err != nil || d != want {
			t.Errorf("%s = %v, %v; want %v", raw, d, err, want)
		}
	}
	for _, raw := range []string{`"P"`, `"PT"`, `"every hour"`, `"P1Y"`} {
		var i Interval
		_ = json.Unmarshal([]byte(raw), &i)
		if d, err := i.Duration(); err == nil {
			t.Errorf("%s read as %v", raw, d)
		}
	}
	var i Interval
	if err := json.Unmarshal([]byte(`true`), &i); err == nil {
		t.Error("a boolean read as an interval")
	}
}

func TestTimingCheckNamesTheField(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	before := start.Add(-time.Hour)
	for _, tc := range []struct {
		t     Timing
		field string
	}{
		{Timing{}, "cron"},
		{Timing{Cron: "0 3 * * *", Interval: "1h"}, "interval"},
		{Timing{Cron: "61 * * * *"}, "cron"},
		{Timing{Cron: "@every 5m"}, "cron"},
		{Timing{Interval: "30s"}, "interval"},
		{Timing{Interval: "30"}, "interval"},
		{Timing{Cron: "@daily", TimeZone: "Mars/Olympus"}, "timezone"},
		{Timing{Cron: "@daily", TimeZone: "Local"}, "timezone"},
		{Timing{Cron: "@daily", StartAt: &start, EndAt: &before}, "endAt"},
		{Timing{Cron: "@daily", Overlap: "sometimes"}, "overlap"},
		{Timing{Cron: "@daily", CatchupWindow: "1s"}, "catchupWindow"},
	} {
		bad := tc.t.Check("")
		if len(bad) != 1 || bad[0].Field != tc.field {
			t.Errorf("%+v: %v, want one error naming %s", tc.t, bad, tc.field)
		}
	}
	ok := Timing{Cron: "30 2 * * 1-5", TimeZone: "Europe/Paris", Overlap: "bufferOne", CatchupWindow: "10m"}
	if bad := ok.Check(""); len(bad) != 0 {
		t.Errorf("%+v refused: %v", ok, bad)
	}
	if overlap, catchup := ok.Policies(); OverlapName(overlap) != "bufferOne" || catchup != 10*time.Minute {
		t.Errorf("policies %v %v", overlap, catchup)
	}
	if spec := (Timing{Interval: "PT2H"}).Spec(); len(spec.Intervals) != 1 || spec.Intervals[0].Every != 2*time.Hour {
		t.Errorf("spec %+v", spec)
	}
}
