package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/durablecrawl/crawler/apiclient"
)

// listFlag is a flag that may be repeated.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// changeCommand is `crawler change ID [--max-results N] [--exclude-paths P
// ...] [--max-concurrent-pages N]`: a change to a running crawl (the
// camelCase spellings are taken too).
func changeCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "change")
	maxResults := fs.Int("maxResults", 0, "the crawl's new page limit (not below what it stored)")
	concurrency := fs.Int("maxConcurrentPages", 0, "the crawl's new number of pages in flight")
	var exclude listFlag
	fs.Var(&exclude, "excludePaths", "a path rule to add to excludePaths (repeat for more)")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler change ID [--max-results N] [--exclude-paths P ...] [--max-concurrent-pages N]")
	}
	change := map[string]any{}
	if *maxResults != 0 {
		change["maxResults"] = *maxResults
	}
	if *concurrency != 0 {
		change["maxConcurrentPages"] = *concurrency
	}
	if len(exclude) > 0 {
		change["excludePaths"] = []string(exclude)
	}
	body, _ := json.Marshal(change)
	cr, err := client().ChangeCrawl(e.ctx, pos[0], body)
	if err != nil {
		return err
	}
	return printChanged(e, cr)
}

// pauseCommand is `crawler pause ID`; resumeCommand `crawler resume ID`.
func pauseCommand(e clientEnv, args []string) error  { return pauseOrResume(e, "pause", args) }
func resumeCommand(e clientEnv, args []string) error { return pauseOrResume(e, "resume", args) }

func pauseOrResume(e clientEnv, what string, args []string) error {
	fs, client := newClientFlags(e, what)
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler "+what+" ID")
	}
	c := client()
	do := c.PauseCrawl
	if what == "resume" {
		do = c.ResumeCrawl
	}
	cr, err := do(e.ctx, pos[0])
	if err != nil {
		return err
	}
	return printChanged(e, cr)
}

func printChanged(e clientEnv, cr apiclient.Crawl) error {
	state := cr.Status
	if cr.Paused {
		state += ", paused"
	}
	limit := "no page limit"
	if cr.MaxResults != nil {
		limit = fmt.Sprintf("up to %d pages", *cr.MaxResults)
	}
	_, err := fmt.Fprintf(e.stdout, "crawl %s %s: %d pages, %s\n", cr.ID, state, cr.TotalPages, limit)
	return err
}
