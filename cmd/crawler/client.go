package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/durablecrawl/crawler/apiclient"
	"github.com/durablecrawl/crawler/crawl"
)

// The client commands talk to a running API over HTTP; they need neither
// the service's configuration nor its database.
var clientCommands = map[string]func(clientEnv, []string) error{
	"crawl":     crawlCommand,
	"crawls":    crawlsCommand,
	"logs":      logsCommand,
	"pages":     pagesCommand,
	"abort":     abortCommand,
	"changes":   changesCommand,
	"change":    changeCommand,
	"pause":     pauseCommand,
	"resume":    resumeCommand,
	"schedules": schedulesCommand,
}

// clientEnv is what a client command works with.
type clientEnv struct {
	ctx            context.Context
	stdout, stderr io.Writer
	getenv         func(string) string
	// terminal reports whether progress may be redrawn in place.
	terminal func() bool
	// poll is how often --wait and --follow ask again.
	poll time.Duration
}

// newClientFlags returns a flag set with the address and key flags, and
// the client they make once parsed.
func newClientFlags(e clientEnv, name string) (*flag.FlagSet, func() *apiclient.Client) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	api := fs.String("api", "", "the API's address (default $CRAWLER_API_URL, else http://127.0.0.1:8080)")
	key := fs.String("key", "", "the API key (default $CRAWLER_API_KEY)")
	return fs, func() *apiclient.Client {
		c := &apiclient.Client{BaseURL: *api, Key: *key}
		if c.BaseURL == "" {
			c.BaseURL = e.getenv("CRAWLER_API_URL")
		}
		if c.BaseURL == "" {
			c.BaseURL = "http://127.0.0.1:8080"
		}
		if c.Key == "" {
			c.Key = e.getenv("CRAWLER_API_KEY")
		}
		return c
	}
}

// parseArgs parses flags wherever they stand among the arguments
// (`crawler crawl URL --max-results 5` as well as flags first) and returns
// the positional arguments. Every flag named in camelCase is taken in
// kebab-case too (kebabFlags).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	kebabFlags(fs)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequested{fs: fs}
			}
			return nil, usageError{fmt.Sprintf("%s: %v", fs.Name(), err)}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// helpRequested is what parsing answers to -h or --help: the command's
// usage line and flags are printed and the command ends without error.
type helpRequested struct {
	fs   *flag.FlagSet
	line string
}

func (h helpRequested) Error() string { return "help requested" }

// print writes the usage line and every flag with its meaning to w, in
// kebab-case (the camelCase spellings are left out).
func (h helpRequested) print(w io.Writer) {
	if h.line != "" {
		fmt.Fprintln(w, h.line)
	}
	fmt.Fprintln(w, "\nflags:")
	h.fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == sameAsKebab {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		if kind != "" {
			kind = " " + kind
		}
		fmt.Fprintf(w, "  --%s%s\n    \t%s\n", f.Name, kind, usage)
	})
}

// sameAsKebab is the usage of a flag's camelCase spelling, which help
// leaves out: its kebab-case spelling is shown.
const sameAsKebab = "\x00same as its kebab-case spelling"

// kebabFlags gives every flag of fs named in camelCase ("maxResults") a
// kebab-case spelling ("max-results"), as command-line users type flags;
// both set the same value, and help shows the kebab-case one.
func kebabFlags(fs *flag.FlagSet) {
	var camel []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if k := kebab(f.Name); k != f.Name && fs.Lookup(k) == nil {
			camel = append(camel, f)
		}
	})
	for _, f := range camel {
		fs.Var(f.Value, kebab(f.Name), f.Usage)
		f.Usage = sameAsKebab
	}
}

// kebab spells a camelCase name in kebab-case: "maxConcurrentPages" is
// "max-concurrent-pages", "useStaticIps" "use-static-ips".
func kebab(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// usageFor is the answer to arguments that parsing refused or that are not
// what the command takes: the help asked for, with line, or line as a
// usage error.
func usageFor(err error, line string) error {
	var h helpRequested
	if errors.As(err, &h) {
		h.line = line
		return h
	}
	return usageError{line}
}

// optionFlags adds a flag for every request option of crawl.Options, under
// its JSON name, and returns the request body the given flags make. Only
// options the user gave are sent; the server applies its defaults to the
// rest.
func optionFlags(fs *flag.FlagSet) map[string]any {
	body := map[string]any{}
	t := reflect.TypeOf(crawl.Options{})
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || name == "startUrls" || f.Tag.Get("option") == "" {
			continue // not a request option, or the start URL the command takes
		}
		kind := f.Type.Kind()
		if kind == reflect.Pointer {
			kind = f.Type.Elem().Kind()
		}
		usage := "the crawl option " + name
		switch kind {
		case reflect.Bool:
			fs.Var(boolOption{body, name}, name, usage+" (true or false)")
		case reflect.Int:
			fs.Func(name, usage+" (an integer)", func(s string) error {
				n, err := strconv.Atoi(s)
				if err != nil {
					return fmt.Errorf("not an integer")
				}
				body[name] = n
				return nil
			})
		case reflect.String:
			fs.Func(name, usage, func(s string) error { body[name] = s; return nil })
		case reflect.Slice:
			fs.Func(name, usage+" (repeat the flag for each value)", func(s string) error {
				list, _ := body[name].([]string)
				body[name] = append(list, s)
				return nil
			})
		}
	}
	return body
}

// boolOption is a boolean option flag: --name alone means true.
type boolOption struct {
	body map[string]any
	name string
}

func (b boolOption) String() string   { return "" }
func (b boolOption) IsBoolFlag() bool { return true }
func (b boolOption) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("not true or false")
	}
	b.body[b.name] = v
	return nil
}

// crawlUsage is crawlCommand's usage line.
const crawlUsage = "usage: crawler crawl URL [--OPTION VALUE ...] [--wait], or crawler crawl --json FILE [--wait]"

// crawlCommand is `crawler crawl URL [options] [--wait]`.
func crawlCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "crawl")
	body := optionFlags(fs)
	jsonFile := fs.String("json", "", "send this file's JSON as the whole request body (- for stdin)")
	wait := fs.Bool("wait", false, "wait for the crawl to end, showing its progress")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageFor(err, crawlUsage)
	}
	var raw []byte
	switch {
	case *jsonFile != "" && len(pos) == 0:
		if raw, err = readInput(*jsonFile); err != nil {
			return err
		}
	case *jsonFile == "" && len(pos) == 1:
		body["startUrl"] = pos[0]
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	default:
		return usageError{crawlUsage}
	}
	c := client()
	created, err := c.Create(e.ctx, raw)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "crawl %s created (%s)\n", created.ID, created.StartURL)
	if !*wait {
		return nil
	}
	return waitForEnd(e, c, created)
}

// waitForEnd polls a crawl until it ends, showing its progress, then
// prints how it ended and where its results are.
func waitForEnd(e clientEnv, c *apiclient.Client, cr apiclient.Crawl) error {
	began := time.Now()
	bar := progressView{out: e.stderr, terminal: e.terminal()}
	for !cr.Ended() {
		select {
		case <-e.ctx.Done():
			bar.done()
			fmt.Fprintf(e.stderr, "stopped waiting; the crawl goes on. Abort it with: crawler abort %s\n", cr.ID)
			return errors.New("interrupted")
		case <-time.After(e.poll):
		}
		next, err := c.Crawl(e.ctx, cr.ID)
		if err != nil {
			if e.ctx.Err() != nil {
				continue // the select above says so
			}
			return err
		}
		cr = next
		if !cr.Ended() {
			bar.show(cr, time.Since(began))
		}
	}
	bar.done()
	fmt.Fprintf(e.stdout, "crawl %s %s: %d pages in %d s\n", cr.ID, cr.Status, cr.TotalPages, cr.DurationInSeconds)
	fmt.Fprintf(e.stdout, "results: crawler pages %s --markdown > %s.md\nlog:     crawler logs %s\n", cr.ID, cr.ID, cr.ID)
	if cr.Status != "succeeded" {
		return fmt.Errorf("the crawl ended %s", cr.Status)
	}
	return nil
}

// progressView shows a running crawl: a bar redrawn in place on a
// terminal, a line per change otherwise.
type progressView struct {
	out      io.Writer
	terminal bool
	last     string
	drawn    bool
}

func (p *progressView) show(c apiclient.Crawl, elapsed time.Duration) {
	var pr apiclient.Progress
	if c.Progress != nil {
		pr = *c.Progress
	}
	counts := fmt.Sprintf("%d stored, %d queued, %d in progress, %d failed", pr.Stored, pr.Queued, pr.InProgress, pr.Failed)
	if !p.terminal {
		if counts != p.last {
			fmt.Fprintf(p.out, "%s: %s\n", c.Status, counts)
			p.last = counts
		}
		return
	}
	const width = 30
	filled := 0
	if c.MaxResults != nil && *c.MaxResults > 0 {
		filled = min(width, pr.Stored*width / *c.MaxResults)
	}
	bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
	fmt.Fprintf(p.out, "\r[%s] %s · %s\x1b[K", bar, counts, elapsed.Truncate(time.Second))
	p.drawn = true
}

func (p *progressView) done() {
	if p.drawn {
		fmt.Fprintln(p.out)
		p.drawn = false
	}
}

// crawlsCommand is `crawler crawls [--status S] [--limit N] [--all]`.
func crawlsCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "crawls")
	status := fs.String("status", "", "only crawls with this status")
	limit := fs.Int("limit", 20, "crawls per page (1 to 100)")
	all := fs.Bool("all", false, "every crawl, not only the newest page")
	if pos, err := parseArgs(fs, args); err != nil || len(pos) != 0 {
		return usageFor(err, "usage: crawler crawls [--status S] [--limit N] [--all]")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tPAGES\tCREATED\tSTART URL")
	err := client().Crawls(e.ctx, *status, *limit, *all, func(c apiclient.Crawl) error {
		_, err := fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", c.ID, c.Status, c.TotalPages, c.CreatedAt.UTC().Format(time.RFC3339), c.StartURL)
		return err
	})
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// logsCommand is `crawler logs ID [--follow]`.
func logsCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "logs")
	follow := fs.Bool("follow", false, "keep printing new entries until the crawl ends")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler logs ID [--follow]")
	}
	c, id, seen := client(), pos[0], 0
	print := func(l apiclient.LogEntry) error {
		seen++
		_, err := fmt.Fprintf(e.stdout, "%s  %-5s  %s: %s\n", l.CreatedAt.UTC().Format(time.RFC3339), l.Level, l.Message, l.Description)
		return err
	}
	for {
		// Read the crawl first: entries written before it ended are then
		// all there to read.
		cr, err := c.Crawl(e.ctx, id)
		if err != nil {
			return err
		}
		if err := c.Logs(e.ctx, id, seen, print); err != nil {
			return err
		}
		if !*follow || cr.Ended() {
			return nil
		}
		select {
		case <-e.ctx.Done():
			return nil
		case <-time.After(e.poll):
		}
	}
}

// pagesCommand is `crawler pages ID [--markdown] [--raw]`.
func pagesCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "pages")
	markdown := fs.Bool("markdown", false, "write the pages' markdown, each after a <!-- url --> line, instead of JSON lines")
	raw := fs.Bool("raw", false, "the markdown before deduplication")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler pages ID [--markdown] [--raw]")
	}
	return client().Pages(e.ctx, pos[0], *raw, func(p apiclient.Page) error {
		var err error
		if *markdown {
			_, err = fmt.Fprintf(e.stdout, "<!-- %s -->\n%s\n\n", p.URL, strings.TrimRight(p.Markdown, "\n"))
		} else {
			_, err = fmt.Fprintf(e.stdout, "%s\n", p.Raw)
		}
		return err
	})
}

// abortCommand is `crawler abort ID`.
func abortCommand(e clientEnv, args []string) error {
	fs, client := newClientFlags(e, "abort")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return usageFor(err, "usage: crawler abort ID")
	}
	cr, err := client().Abort(e.ctx, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "crawl %s %s: %d pages\n", cr.ID, cr.Status, cr.TotalPages)
	return nil
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
