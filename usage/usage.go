// Package usage is what a team has used and may use: result pages
// (Firecrawl's credits) and LLM tokens, counted per day and per API key
// where the work is stored (package db), over calendar months (UTC)
// against the quotas an operator sets, and how many crawls it may run at
// once. It does no I/O.
package usage

import (
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
)

// Day is one day's usage of one key of a team (the nil key: work no key
// asked for, a schedule's runs).
type Day struct {
	Day       time.Time
	KeyID     uuid.UUID
	Pages     int64
	TokensIn  int64
	TokensOut int64
}

// Tokens is a day's tokens, in and out.
func (d Day) Tokens() int64 { return d.TokensIn + d.TokensOut }

// Quota is an operator's bounds on a team; nil is no bound.
type Quota struct {
	MonthlyPages  *int64
	MonthlyTokens *int64
	// Concurrency bounds the team's crawls running at once.
	Concurrency *int
}

// Unlimited is what a team without a bound has left, as a number: the
// largest Firecrawl's clients read as an int.
const Unlimited = math.MaxInt32

// Period is the calendar month (UTC) that holds t: [Start, End).
func Period(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// Totals are a period's pages and tokens.
type Totals struct {
	Pages, Tokens int64
}

// Sum adds up days.
func Sum(days []Day) Totals {
	var t Totals
	for _, d := range days {
		t.Pages += d.Pages
		t.Tokens += d.Tokens()
	}
	return t
}

// Left is what a quota leaves of used: Unlimited without a bound, never
// below 0.
func Left(bound *int64, used int64) int64 {
	if bound == nil {
		return Unlimited
	}
	return max(*bound-used, 0)
}

// ErrQuota is a team past its quota: new work is refused (Firecrawl's
// 402), work already running goes on.
type ErrQuota struct {
	What   string // "pages" or "tokens"
	Used   int64
	Bound  int64
	Period time.Time // the period's end, when the quota renews
}

func (e *ErrQuota) Error() string {
	return fmt.Sprintf("the team has used %d of its %d %s this month; new work is refused until %s (an operator raises the quota with crawler quota set)",
		e.Used, e.Bound, e.What, e.Period.Format("2006-01-02"))
}

// Check says whether a team that used totals this period (ending at
// end) may start new work that stores pages, and uses tokens when
// llm is set.
func (q Quota) Check(totals Totals, end time.Time, llm bool) error {
	if q.MonthlyPages != nil && totals.Pages >= *q.MonthlyPages {
		return &ErrQuota{What: "pages", Used: totals.Pages, Bound: *q.MonthlyPages, Period: end}
	}
	if llm && q.MonthlyTokens != nil && totals.Tokens >= *q.MonthlyTokens {
		return &ErrQuota{What: "LLM tokens", Used: totals.Tokens, Bound: *q.MonthlyTokens, Period: end}
	}
	return nil
}

// Series is usage over days, one entry a day (and a key, when by key),
// oldest first: Firecrawl's historical periods.
type Series struct {
	Start, End time.Time // [Start, End)
	KeyID      *uuid.UUID
	Pages      int64
	Tokens     int64
}

// Daily groups days into one entry a day, or a day and a key when
// byKey.
func Daily(days []Day, byKey bool) []Series {
	type k struct {
		day time.Time
		key uuid.UUID
	}
	idx := map[k]int{}
	var out []Series
	for _, d := range days {
		day := time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), 0, 0, 0, 0, time.UTC)
		key := k{day: day}
		if byKey {
			key.key = d.KeyID
		}
		i, ok := idx[key]
		if !ok {
			s := Series{Start: day, End: day.AddDate(0, 0, 1)}
			if byKey {
				id := d.KeyID
				s.KeyID = &id
			}
			out = append(out, s)
			i = len(out) - 1
			idx[key] = i
		}
		out[i].Pages += d.Pages
		out[i].Tokens += d.Tokens()
	}
	return out
}
