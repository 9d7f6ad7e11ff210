package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/internal/testsite"
)

// restartDrill crawls a 10,000-page site, as the run of a schedule, while
// the worker is killed twice, the Temporal server is killed and started
// again on its database file, and Postgres (a private cluster, so that
// nothing else is hurt) is restarted at once; then it counts, from the
// site's side and the database's, what the crawl stored, logged and
// fetched, and checks that the schedule kept its state.
func restartDrill(w io.Writer, f flags, tmp string) error {
	const pages, concurrency = 10000, 16
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	pg, err := startPostgres(tmp)
	if err != nil {
		return err
	}
	defer pg.stop()
	site := testsite.New(testsite.Options{Pages: pages})
	siteURL, stopSite, err := serveSite(site)
	if err != nil {
		return err
	}
	defer stopSite()
	f.pages = pages
	svc, err := startService(context.Background(), f, tmp, pg.url("crawler_drill"))
	if err != nil {
		return err
	}
	defer svc.stop()

	// The crawl is a schedule's run, so that the schedule goes through the
	// restarts too (without change tracking: the same crawl as ever).
	var sched struct {
		ID     string `json:"id"`
		Paused bool   `json:"paused"`
		Crawls []struct {
			ID string `json:"id"`
		} `json:"crawls"`
		NextRuns []string `json:"nextRuns"`
		Runs     struct {
			Started int `json:"started"`
		} `json:"runs"`
	}
	if err := svc.call("POST", "/schedules", map[string]any{"cron": "0 3 * * *", "paused": true,
		"crawl": map[string]any{"startUrl": siteURL + "/", "entireWebsite": true, "maxConcurrentPages": concurrency,
			"changeTracking": false}}, &sched); err != nil {
		return err
	}
	began := time.Now()
	if err := svc.call("POST", "/schedules/"+sched.ID+"/trigger", nil, &struct{}{}); err != nil {
		return err
	}
	for len(sched.Crawls) == 0 {
		if time.Since(began) > time.Minute {
			return fmt.Errorf("the schedule's run made no crawl")
		}
		time.Sleep(100 * time.Millisecond)
		if err := svc.call("GET", "/schedules/"+sched.ID, nil, &sched); err != nil {
			return err
		}
	}
	c := crawlState{ID: sched.Crawls[0].ID, Status: "running"}
	events, err := runDrillSteps(svc, pg, site, &c, began, f)
	if err != nil {
		return err
	}
	// The schedule is as it was: paused, one run, and it resumes.
	if err := svc.call("PATCH", "/schedules/"+sched.ID, map[string]any{"paused": false}, &sched); err != nil {
		return err
	}
	if sched.Paused || sched.Runs.Started != 1 || len(sched.Crawls) != 1 || len(sched.NextRuns) == 0 {
		return fmt.Errorf("after the restarts the schedule reads %+v", sched)
	}
	events = append(events, fmt.Sprintf("after the crawl: the schedule (a Temporal Schedule) still paused with its one run, resumed: next run %s", sched.NextRuns[0]))
	wall := time.Since(began).Seconds()
	counts, err := drillCounts(pg.url("crawler_drill"), c.ID)
	if err != nil {
		return err
	}
	if counts.runs, counts.events, err = svc.timeline(c.ID, wall); err != nil {
		return err
	}
	writeDrillReport(w, pages, concurrency, events, c, wall, counts, site.Stats())
	if c.Status != "succeeded" || c.TotalPages != pages || counts.distinctStored != pages || counts.loggedTwice != 0 {
		return fmt.Errorf("the crawl ended %s with %d pages (%d distinct stored, %d logged twice)", c.Status, c.TotalPages, counts.distinctStored, counts.loggedTwice)
	}
	return nil
}

// drillStep disturbs the service once the crawl has stored at pages.
type drillStep struct {
	at   int
	what string
	do   func() error
}

// runDrillSteps watches crawl c until it ends, taking the drill's steps
// (worker, Temporal and Postgres restarts) as it passes their marks, and
// returns what was done when.
func runDrillSteps(svc *service, pg *postgres, site *testsite.Site, c *crawlState, began time.Time, f flags) ([]string, error) {
	killWorker := svc.killWorker
	steps := []drillStep{
		{1500, "worker killed (SIGKILL) and started again", killWorker},
		{3500, "Temporal server killed (SIGKILL) and started again on its database file", func() error {
			svc.temporal.kill()
			return svc.startTemporal()
		}},
		{5500, "Postgres restarted (immediate shutdown)", pg.restart},
		{7500, "worker killed (SIGKILL) and started again", killWorker},
	}
	var events []string
	for c.Status == "running" || c.Status == "" {
		time.Sleep(200 * time.Millisecond)
		if err := svc.call("GET", "/crawls/"+c.ID, nil, c); err != nil {
			continue // Postgres or the API is restarting
		}
		if len(steps) > 0 && c.TotalPages >= steps[0].at {
			logf("restart drill: %d pages stored, %d served: %s", c.TotalPages, site.Stats().Requests, steps[0].what)
			events = append(events, fmt.Sprintf("at %d pages stored (%.0f s): %s", c.TotalPages, time.Since(began).Seconds(), steps[0].what))
			if err := steps[0].do(); err != nil {
				return nil, err
			}
			steps = steps[1:]
		}
		if time.Since(began) > 30*time.Minute {
			return nil, fmt.Errorf("the crawl did not end in 30 minutes: %+v", *c)
		}
	}
	return events, nil
}

// writeDrillReport prints the restart drill's table.
func writeDrillReport(w io.Writer, pages, concurrency int, events []string, c crawlState, wall float64, counts drillCount, st testsite.Stats) {
	fmt.Fprintf(w, "\n### Restart drill: %d pages at concurrency %d\n\n", pages, concurrency)
	for _, e := range events {
		fmt.Fprintf(w, "- %s\n", e)
	}
	fmt.Fprintf(w, "\n| what | count |\n|---|---:|\n")
	fmt.Fprintf(w, "| crawl status | %s |\n| totalPages | %d |\n| wall time (s) | %.0f |\n", c.Status, c.TotalPages, wall)
	fmt.Fprintf(w, "| pages stored (rows) | %d |\n| distinct URLs stored | %d |\n", counts.stored, counts.distinctStored)
	fmt.Fprintf(w, "| 'Page crawled' log entries | %d |\n| pages with more than one entry | %d |\n", counts.logged, counts.loggedTwice)
	fmt.Fprintf(w, "| pages the site served | %d |\n| served more than once (repeat fetches) | %d |\n", st.Distinct, st.Repeats)
	fmt.Fprintf(w, "| workflow runs, history events in all | %d, %d |\n", counts.runs, counts.events)
}

type crawlState struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	TotalPages int    `json:"totalPages"`
}

type drillCount struct {
	stored, distinctStored, logged, loggedTwice, runs, events int
}

// drillCounts reads from the database what a crawl stored and logged.
func drillCounts(dsn, crawlID string) (drillCount, error) {
	ctx := context.Background()
	conn, err := db.Open(ctx, dsn)
	if err != nil {
		return drillCount{}, err
	}
	defer conn.Close()
	var out drillCount
	err = conn.NewRaw(`SELECT count(*), count(DISTINCT normalized_url) FROM pages WHERE crawl_id = ? AND state = 'stored'`, crawlID).
		Scan(ctx, &out.stored, &out.distinctStored)
	if err != nil {
		return out, err
	}
	err = conn.NewRaw(`SELECT count(*), count(*) - count(DISTINCT data->>'url') FROM crawl_logs WHERE crawl_id = ? AND message = 'Page crawled'`, crawlID).
		Scan(ctx, &out.logged, &out.loggedTwice)
	return out, err
}

// manyCrawls starts a 10,000-page crawl, then twenty crawls of 500-page
// sites at once, and prints how long each of the twenty took beside it.
func manyCrawls(w io.Writer, f flags, tmp string) error {
	const small, smallPages, bigPages = 20, 500, 10000
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	f.pages = bigPages
	svc, err := startService(context.Background(), f, tmp, strings.Replace(f.database, "crawler_bench", "crawler_many", 1))
	if err != nil {
		return err
	}
	defer svc.stop()
	big := testsite.New(testsite.Options{Pages: bigPages})
	bigURL, stop, err := serveSite(big)
	if err != nil {
		return err
	}
	defer stop()
	var bigCrawl crawlState
	if err := svc.call("POST", "/crawls", map[string]any{"startUrl": bigURL + "/", "entireWebsite": true, "maxConcurrentPages": 16}, &bigCrawl); err != nil {
		return err
	}
	bigBegan := time.Now()
	for bigCrawl.TotalPages < 1000 {
		time.Sleep(200 * time.Millisecond)
		if err := svc.call("GET", "/crawls/"+bigCrawl.ID, nil, &bigCrawl); err != nil {
			return err
		}
	}
	runs, err := smallCrawls(svc, small, smallPages)
	if err != nil {
		return err
	}
	smallEnded := time.Now()
	for bigCrawl.Status == "running" {
		time.Sleep(200 * time.Millisecond)
		if err := svc.call("GET", "/crawls/"+bigCrawl.ID, nil, &bigCrawl); err != nil {
			return err
		}
	}
	bigEnded := time.Now()
	secs := make([]float64, 0, small)
	for i, r := range runs {
		if r.err != nil {
			return fmt.Errorf("crawl %d: %w", i, r.err)
		}
		if r.state.Status != "succeeded" || r.state.TotalPages != smallPages {
			return fmt.Errorf("crawl %d ended %s with %d pages", i, r.state.Status, r.state.TotalPages)
		}
		secs = append(secs, r.seconds)
	}
	sort.Float64s(secs)
	fmt.Fprintf(w, "\n### Twenty 500-page crawls started together beside a 10,000-page crawl (default options)\n\n")
	fmt.Fprintf(w, "| what | value |\n|---|---:|\n")
	fmt.Fprintf(w, "| fastest of the twenty (s) | %.1f |\n| median (s) | %.1f |\n| slowest (s) | %.1f |\n| slowest / fastest | %.2f |\n",
		secs[0], secs[len(secs)/2], secs[len(secs)-1], secs[len(secs)-1]/secs[0])
	fmt.Fprintf(w, "| big crawl: status, pages | %s, %d |\n| big crawl: wall time (s) | %.0f |\n| big crawl ended after the last of the twenty by (s) | %.0f |\n",
		bigCrawl.Status, bigCrawl.TotalPages, bigEnded.Sub(bigBegan).Seconds(), bigEnded.Sub(smallEnded).Seconds())
	if bigCrawl.Status != "succeeded" || bigCrawl.TotalPages != bigPages {
		return fmt.Errorf("the big crawl ended %s with %d pages", bigCrawl.Status, bigCrawl.TotalPages)
	}
	return nil
}

// smallRun is one of manyCrawls' small crawls: how long it took, and how
// it ended.
type smallRun struct {
	seconds float64
	state   crawlState
	err     error
}

// smallCrawls crawls n sites of pages pages each, all at once, and waits
// for every crawl to end.
func smallCrawls(svc *service, n, pages int) ([]smallRun, error) {
	runs := make([]smallRun, n)
	var wg sync.WaitGroup
	for i := range runs {
		site := testsite.New(testsite.Options{Pages: pages})
		siteURL, stop, err := serveSite(site)
		if err != nil {
			return nil, err
		}
		defer stop()
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			r := &runs[i]
			if r.err = svc.call("POST", "/crawls", map[string]any{"startUrl": siteURL + "/", "entireWebsite": true}, &r.state); r.err != nil {
				return
			}
			for r.state.Status == "running" {
				time.Sleep(100 * time.Millisecond)
				if r.err = svc.call("GET", "/crawls/"+r.state.ID, nil, &r.state); r.err != nil {
					return
				}
			}
			r.seconds = time.Since(began).Seconds()
		}()
	}
	wg.Wait()
	return runs, nil
}

// postgres is a private Postgres cluster in a temporary folder.
type postgres struct {
	bin, data, port string
	as              []string
}

func startPostgres(tmp string) (*postgres, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no PostgreSQL binaries under /usr/lib/postgresql")
	}
	sort.Strings(dirs)
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	p := &postgres{bin: dirs[len(dirs)-1], data: filepath.Join(tmp, "postgres"), port: strconv.Itoa(ports[0])}
	if err := os.MkdirAll(p.data, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		// Postgres refuses to run as root.
		p.as = []string{"runuser", "-u", "postgres", "--"}
		if out, err := exec.Command("chown", "-R", "postgres", tmp).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
	}
	if out, err := p.run("initdb", "-D", p.data, "-U", "postgres", "--auth=trust"); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	return p, p.start()
}

func (p *postgres) run(name string, args ...string) ([]byte, error) {
	argv := append(append([]string{}, p.as...), append([]string{filepath.Join(p.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...).CombinedOutput()
}

func (p *postgres) start() error {
	if out, err := p.run("pg_ctl", "-D", p.data, "-l", filepath.Join(p.data, "server.log"), "-w", "-o",
		"-p "+p.port+" -c listen_addresses=127.0.0.1 -k /tmp", "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	return nil
}

// restart stops the cluster at once (as a crash would, with recovery at
// the next start) and starts it again.
func (p *postgres) restart() error {
	if out, err := p.run("pg_ctl", "-D", p.data, "-m", "immediate", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	return p.start()
}

func (p *postgres) stop() {
	_, _ = p.run("pg_ctl", "-D", p.data, "-m", "fast", "stop")
}

func (p *postgres) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%s/%s?sslmode=disable", p.port, database)
}

// kill ends the process with SIGKILL, as a crash would.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}
