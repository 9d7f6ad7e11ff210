package usage

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestPeriod(t *testing.T) {
	start, end := Period(time.Date(2026, 12, 31, 23, 59, 0, 0, time.FixedZone("x", -3600)))
	if !start.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) || !end.Equal(time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Period: %s to %s", start, end)
	}
}

// TestCheck: past the pages refuses everything; past the tokens only
// work that asks the LLM; no bound refuses nothing.
func TestCheck(t *testing.T) {
	pages, tokens := int64(10), int64(100)
	q := Quota{MonthlyPages: &pages, MonthlyTokens: &tokens}
	end := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var e *ErrQuota
	if err := q.Check(Totals{Pages: 10}, end, false); !errors.As(err, &e) || e.What != "pages" || e.Used != 10 || e.Bound != 10 {
		t.Errorf("at the page quota: %v", err)
	}
	if err := q.Check(Totals{Pages: 9, Tokens: 100}, end, false); err != nil {
		t.Errorf("past the tokens, without the LLM: %v", err)
	}
	if err := q.Check(Totals{Pages: 9, Tokens: 100}, end, true); !errors.As(err, &e) || e.What != "LLM tokens" {
		t.Errorf("past the tokens, with the LLM: %v", err)
	}
	if err := (Quota{}).Check(Totals{Pages: 1 << 40, Tokens: 1 << 40}, end, true); err != nil {
		t.Errorf("no quota: %v", err)
	}
	if Left(nil, 5) != Unlimited || Left(&pages, 4) != 6 || Left(&pages, 12) != 0 {
		t.Error("Left")
	}
}

// TestDaily groups days by day, or by day and key.
func TestDaily(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	d1, d2 := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	days := []Day{{Day: d1, KeyID: a, Pages: 3, TokensIn: 10, TokensOut: 1}, {Day: d1, KeyID: b, Pages: 2}, {Day: d2, KeyID: a, Pages: 5}}
	byDay := Daily(days, false)
	if len(byDay) != 2 || byDay[0].Pages != 5 || byDay[0].Tokens != 11 || byDay[0].KeyID != nil || !byDay[1].Start.Equal(d2) || !byDay[1].End.Equal(d2.AddDate(0, 0, 1)) {
		t.Errorf("by day: %+v", byDay)
	}
	byKey := Daily(days, true)
	if len(byKey) != 3 || *byKey[1].KeyID != b || byKey[1].Pages != 2 {
		t.Errorf("by day and key: %+v", byKey)
	}
	if s := Sum(days); s.Pages != 10 || s.Tokens != 11 {
		t.Errorf("Sum: %+v", s)
	}
}
