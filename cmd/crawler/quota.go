package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/durablecrawl/crawler/config"
	"github.com/durablecrawl/crawler/db"
	teamusage "github.com/durablecrawl/crawler/usage"
)

// quota handles crawler quota set|show: an operator's bounds on a team
// (pages and LLM tokens a calendar month, crawls at once) and what the
// team used this month.
func quota(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	const use = "usage: crawler quota set --team NAME [--pages N|none] [--tokens N|none] [--concurrency N|none] | show --team NAME"
	if len(args) == 0 {
		return usageError{use}
	}
	fs := flag.NewFlagSet("quota "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	team := fs.String("team", "", "team name")
	pages := fs.String("pages", "", "result pages a month (none: no bound)")
	tokens := fs.String("tokens", "", "LLM tokens a month (none: no bound)")
	concurrency := fs.String("concurrency", "", "crawls running at once (none: no bound)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if strings.TrimSpace(*team) == "" {
		return usageError{"--team is required"}
	}
	database, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer database.Close()
	store := db.NewStore(database)
	id, err := store.TeamIDByName(ctx, *team)
	if err != nil {
		return err
	}
	q, err := store.TeamQuota(ctx, id)
	if err != nil {
		return err
	}
	switch args[0] {
	case "set":
		if err := setQuotaFlags(&q, *pages, *tokens, *concurrency); err != nil {
			return err
		}
		if _, err := store.SetTeamQuota(ctx, *team, q); err != nil {
			return err
		}
	case "show":
	default:
		return usageError{use}
	}
	start, end := teamusage.Period(time.Now())
	days, err := store.UsageDays(ctx, id, start, end)
	if err != nil {
		return err
	}
	used := teamusage.Sum(days)
	bound := func(v *int64) string {
		if v == nil {
			return "no bound"
		}
		return strconv.FormatInt(*v, 10)
	}
	conc := "no bound"
	if q.Concurrency != nil {
		conc = strconv.Itoa(*q.Concurrency)
	}
	fmt.Fprintf(stdout, "team %s, %s to %s\npages:       %d used, quota %s\nLLM tokens:  %d used, quota %s\nconcurrency: %s crawls at once\n",
		*team, start.Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly), used.Pages, bound(q.MonthlyPages),
		used.Tokens, bound(q.MonthlyTokens), conc)
	return nil
}

// setQuotaFlags sets the bounds of q that quota set's flags give (a flag
// not given leaves its bound, none lifts it); at least one must be given.
func setQuotaFlags(q *teamusage.Quota, pages, tokens, concurrency string) error {
	given := false
	for _, b := range []struct {
		flag, value string
		min         int64
		set         func(*int64)
	}{
		{"--pages", pages, 0, func(v *int64) { q.MonthlyPages = v }},
		{"--tokens", tokens, 0, func(v *int64) { q.MonthlyTokens = v }},
		{"--concurrency", concurrency, 1, func(v *int64) {
			if v == nil {
				q.Concurrency = nil
				return
			}
			n := int(*v)
			q.Concurrency = &n
		}},
	} {
		if b.value == "" {
			continue
		}
		given = true
		if b.value == "none" {
			b.set(nil)
			continue
		}
		v, err := strconv.ParseInt(b.value, 10, 64)
		if err != nil || v < b.min || b.flag == "--concurrency" && v > 1_000_000 {
			return usageError{fmt.Sprintf("%s must be a whole number of at least %d, or none", b.flag, b.min)}
		}
		b.set(&v)
	}
	if !given {
		return usageError{"give at least one of --pages, --tokens and --concurrency"}
	}
	return nil
}
