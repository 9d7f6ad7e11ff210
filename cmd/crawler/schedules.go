package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/durablecrawl/crawler/apiclient"
)

const schedulesUsage = `usage: crawler schedules [list]
       crawler schedules create URL (--cron EXPR | --interval DURATION) [--timezone ZONE] [--name NAME] [--paused]
       crawler schedules create --json FILE|-
       crawler schedules get|pause|resume|trigger|delete ID`

// schedulesCommand is `crawler schedules …`: list, create, read, pause,
// resume, trigger and delete the team's crawl schedules.
func schedulesCommand(e clientEnv, args []string) error {
	sub, rest := "list", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, rest = args[0], args[1:]
	}
	fs, client := newClientFlags(e, "schedules "+sub)
	switch sub {
	case "list":
		if pos, err := parseArgs(fs, rest); err != nil || len(pos) != 0 {
			return usageFor(err, schedulesUsage)
		}
		return listSchedules(e, client())
	case "create":
		return createSchedule(e, fs, client, rest)
	case "get", "pause", "resume", "trigger", "delete":
		note := fs.String("note", "", "with pause: why (Temporal keeps it with the schedule)")
		pos, err := parseArgs(fs, rest)
		if err != nil || len(pos) != 1 {
			return usageFor(err, schedulesUsage)
		}
		return onSchedule(e, client(), sub, pos[0], *note)
	}
	return usageError{fmt.Sprintf("unknown schedules command %q\n%s", sub, schedulesUsage)}
}

// listSchedules is `crawler schedules list`: a table of the team's
// schedules.
func listSchedules(e clientEnv, c *apiclient.Client) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tWHEN\tPAUSED\tNEXT RUN\tLAST CRAWL")
	err := c.Schedules(e.ctx, func(s apiclient.Schedule) error {
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\n", s.ID, orDash(s.Name), when(s), s.Paused, nextRun(s), lastCrawl(s))
		return err
	})
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// createSchedule is `crawler schedules create`: from a URL and flags, or
// a whole request in JSON.
func createSchedule(e clientEnv, fs *flag.FlagSet, client func() *apiclient.Client, args []string) error {
	jsonFile := fs.String("json", "", "the whole schedule request, from a file or - for standard input")
	cron := fs.String("cron", "", "a cron expression (minute hour day-of-month month day-of-week)")
	interval := fs.String("interval", "", "a run every so often: 90m, 6h, …")
	zone := fs.String("timezone", "", "the time zone the cron expression is read in")
	name := fs.String("name", "", "the schedule's name")
	paused := fs.Bool("paused", false, "create it paused")
	pos, err := parseArgs(fs, args)
	if err != nil || (*jsonFile == "") == (len(pos) != 1) {
		return usageFor(err, schedulesUsage)
	}
	var body []byte
	if *jsonFile != "" {
		if body, err = readInput(*jsonFile); err != nil {
			return err
		}
	} else {
		req := map[string]any{"crawl": map[string]any{"startUrl": pos[0]}, "name": *name, "paused": *paused}
		for k, v := range map[string]string{"cron": *cron, "interval": *interval, "timezone": *zone} {
			if v != "" {
				req[k] = v
			}
		}
		body, _ = json.Marshal(req)
	}
	s, err := client().CreateSchedule(e.ctx, body)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "schedule %s created: %s, next run %s\n", s.ID, when(s), nextRun(s))
	return nil
}

// onSchedule is `crawler schedules get|pause|resume|trigger|delete ID`
// (note: why it is paused).
func onSchedule(e clientEnv, c *apiclient.Client, sub, id, note string) error {
	switch sub {
	case "get":
		s, err := c.Schedule(e.ctx, id)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", s.Raw)
		return err
	case "pause", "resume":
		change := map[string]any{"paused": sub == "pause"}
		if note != "" {
			change["note"] = note
		}
		body, _ := json.Marshal(change)
		s, err := c.ChangeSchedule(e.ctx, id, body)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "schedule %s paused: %t, next run %s\n", s.ID, s.Paused, nextRun(s))
		return nil
	case "trigger":
		if err := c.TriggerSchedule(e.ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "schedule %s: a run was asked for\n", id)
		return nil
	default:
		if err := c.DeleteSchedule(e.ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "schedule %s deleted; its crawls stay\n", id)
		return nil
	}
}

// changesCommand is `crawler changes ID`: what a change-tracking crawl
// found different from the previous crawl, a JSON line each.
func changesCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "changes")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler changes ID")
	}
	return client().Changes(e.ctx, pos[0], func(p apiclient.Page) error {
		_, err := fmt.Fprintf(e.stdout, "%s\n", p.Raw)
		return err
	})
}

func when(s apiclient.Schedule) string {
	w := s.Cron
	if w == "" {
		w = "every " + s.Interval
	}
	if s.TimeZone != "" {
		w += " (" + s.TimeZone + ")"
	}
	return w
}

func nextRun(s apiclient.Schedule) string {
	if len(s.NextRuns) == 0 {
		return "-"
	}
	return s.NextRuns[0].UTC().Format(time.RFC3339)
}

func lastCrawl(s apiclient.Schedule) string {
	if len(s.Crawls) == 0 {
		return "-"
	}
	return s.Crawls[0].ID + " " + s.Crawls[0].Status
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
