// Command crawlbench measures this service against a peer crawler on the
// same machine, in one run: it generates a link-dense site (internal/
// testsite), serves it locally, and crawls it whole through the service's
// HTTP API (worker and API in processes of their own, a private Temporal
// dev server, a fresh Postgres database) and with Crawlee's CheerioCrawler
// (bench/crawlee), alternating, several rounds at each concurrency. It
// prints pages per second, wall time and peak resident memory of each run,
// the medians and their ratio, the worker's CPU profile during one crawl,
// and how the worker's peak memory grows from a 1,000-page to a
// 10,000-page crawl. It then measures what a recrawl with change tracking
// costs (recrawl.go), and runs the restart and many-crawls drills.
//
// Run it through `make bench`, which builds and installs what it needs.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/internal/testsite"
)

type flags struct {
	pages       int
	rounds      int
	concurrency []int
	crawler     string
	temporal    string
	crawlee     string
	database    string
	profile     time.Duration
	memory      bool
	peer        bool
	timeline    bool
	compare     bool
	restarts    bool
	many        bool
	recrawl     bool
	// docs, when set, is a folder of real HTML pages crawled instead of
	// the generated site (see docs.go).
	docs string
	// skip names the service variants not measured ("default", "whole").
	skip map[string]bool
	// render runs the render drill (render.go) on a client-rendered site
	// of renderPages pages, at each of renderConcurrency, with Chromium
	// at chromium.
	// hugePage is a real page (HTML) the memory check crawls as a site's
	// home page; "" for a generated one of hugePageBytes.
	hugePage          string
	render            bool
	renderPages       int
	renderConcurrency []int
	chromium          string
}

func main() {
	var f flags
	var conc string
	flag.IntVar(&f.pages, "pages", 5000, "pages of the generated site")
	flag.IntVar(&f.rounds, "rounds", 3, "rounds at each concurrency")
	flag.StringVar(&conc, "concurrency", "16,32", "pages in flight, comma-separated")
	flag.StringVar(&f.crawler, "crawler", "bin/crawler", "the service's binary")
	flag.StringVar(&f.temporal, "temporal", "bin/temporal", "the Temporal CLI (dev server)")
	flag.StringVar(&f.crawlee, "crawlee", "bench/crawlee", "the peer crawler's folder (npm ci done)")
	flag.StringVar(&f.database, "database", "postgres://postgres@127.0.0.1:5432/crawler_bench?sslmode=disable", "Postgres database to create afresh")
	flag.DurationVar(&f.profile, "profile", 15*time.Second, "length of the worker's CPU profile (0: none)")
	flag.BoolVar(&f.memory, "memory", true, "compare the worker's peak memory on 1,000 and 10,000 pages")
	flag.BoolVar(&f.peer, "peer", true, "crawl with Crawlee too")
	flag.BoolVar(&f.timeline, "timeline", false, "print the time each activity type took in every crawl")
	flag.BoolVar(&f.compare, "compare", true, "crawl the site with the service and Crawlee, side by side")
	flag.BoolVar(&f.restarts, "restarts", true, "crawl 10,000 pages through worker kills and Temporal and Postgres restarts")
	flag.BoolVar(&f.many, "many", true, "crawl twenty 500-page sites at once beside a 10,000-page crawl")
	flag.BoolVar(&f.recrawl, "recrawl", true, "crawl a 2,000-page site with change tracking and an extraction, change 5 % of it, and crawl it again")
	flag.StringVar(&f.docs, "docs", "", "a folder of real HTML pages (a manual) to crawl side by side with Crawlee instead of the generated site; the other drills are skipped")
	flag.StringVar(&f.hugePage, "huge-page", "", "a large real HTML page the memory check crawls as a site's home page (default: a generated one of 9.8 MB)")
	flag.BoolVar(&f.render, "render", true, "crawl a client-rendered site with the service's browser engine and Crawlee's PlaywrightCrawler")
	flag.IntVar(&f.renderPages, "render-pages", 300, "pages of the client-rendered site")
	renderConc := flag.String("render-concurrency", "4,8", "pages in flight in the render drill, comma-separated")
	flag.StringVar(&f.chromium, "chromium", "/usr/lib/chromium/chromium", "the Chromium both browser engines run")
	skip := flag.String("skip", "", `service variants not measured, comma-separated: "default", "whole"`)
	flag.Parse()
	f.skip = map[string]bool{}
	for _, v := range strings.Split(*skip, ",") {
		if v = strings.TrimSpace(v); v != "" {
			f.skip[v] = true
		}
	}
	f.concurrency = concurrencies("-concurrency", conc)
	f.renderConcurrency = concurrencies("-render-concurrency", *renderConc)
	if err := run(f); err != nil {
		fatalf("%v", err)
	}
}

// concurrencies parses a comma-separated list of concurrencies, the value
// of flag name.
func concurrencies(name, list string) []int {
	var out []int
	for _, c := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			fatalf("%s: %q", name, list)
		}
		out = append(out, n)
	}
	return out
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crawlbench: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crawlbench: "+format+"\n", args...)
}

// variant is one way of crawling the site.
type variant struct {
	name string
	// short names it in -skip.
	short string
	// options are added to the crawl request; nil means Crawlee.
	options map[string]any
}

var variants = []variant{
	{"service, default options", "default", map[string]any{}},
	{"service, whole body, no dedupe", "whole", map[string]any{"excludeNonMainTags": false, "deduplicateContent": false}},
	{"Crawlee CheerioCrawler", "crawlee", nil},
}

// result is one measured crawl.
type result struct {
	variant     string
	concurrency int
	round       int
	pages       int
	seconds     float64
	peakRSS     int64 // bytes
	repeats     int
	// cpu is the machine's CPU time during the crawl, all processes
	// (worker, API, Postgres, Temporal, the site, the peer), in seconds.
	cpu float64
	// parts splits the CPU time of a service crawl by process (nil for
	// the peer).
	parts cpuSplit
	// crawlID is the service's crawl.
	crawlID string
}

func (r result) rate() float64 { return float64(r.pages) / r.seconds }

// cpuPerPage is the machine's CPU time a page, in milliseconds.
func (r result) cpuPerPage() float64 { return 1000 * r.cpu / float64(max(r.pages, 1)) }

// machineCPU is the CPU time every process of the machine has used since
// boot, in seconds, from /proc/stat (user, nice, system, irq, softirq and
// steal; idle and iowait left out). 0 where there is no /proc/stat.
func machineCPU() float64 {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	fields := strings.Fields(line)
	busy := 0.0
	for i, v := range fields {
		if i == 0 || i == 4 || i == 5 || i > 8 { // "cpu", idle, iowait, guest
			continue
		}
		n, _ := strconv.ParseFloat(v, 64)
		busy += n
	}
	return busy / clockTicks
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/stat.
const clockTicks = 100

func run(f flags) error {
	tmp, err := os.MkdirTemp("", "crawlbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The restart drill's Postgres runs as its own user, which must reach
	// its folder in here.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if f.docs != "" {
		return compare(f, filepath.Join(tmp, "docs"))
	}
	if f.compare {
		if err := compare(f, filepath.Join(tmp, "compare")); err != nil {
			return err
		}
	}
	if f.render {
		if err := renderDrill(os.Stdout, f, filepath.Join(tmp, "render")); err != nil {
			return fmt.Errorf("render drill: %w", err)
		}
	}
	if f.recrawl {
		if err := recrawlDrill(os.Stdout, f, filepath.Join(tmp, "recrawl")); err != nil {
			return fmt.Errorf("recrawl: %w", err)
		}
	}
	if f.restarts {
		if err := restartDrill(os.Stdout, f, filepath.Join(tmp, "restarts")); err != nil {
			return fmt.Errorf("restart drill: %w", err)
		}
	}
	if f.many {
		if err := manyCrawls(os.Stdout, f, filepath.Join(tmp, "many")); err != nil {
			return fmt.Errorf("many crawls: %w", err)
		}
	}
	return nil
}

// compare crawls the site with the service and with Crawlee, alternating:
// the generated site, or a folder of real pages with -docs.
func compare(f flags, tmp string) error {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	site, err := siteOf(f)
	if err != nil {
		return err
	}
	defer site.stop()
	siteURL := site.url
	svc, err := startService(context.Background(), f, tmp, f.database)
	if err != nil {
		return err
	}
	defer svc.stop()
	var results []result
	profiles := map[string][]byte{} // by variant
	var stored storedSets
	for _, c := range f.concurrency {
		for round := 1; round <= f.rounds; round++ {
			for _, v := range variants {
				if v.options == nil && !f.peer || f.skip[v.short] {
					continue
				}
				site.reset()
				var r result
				cpuBefore := machineCPU()
				var partsBefore cpuSplit
				if v.options != nil {
					partsBefore = svc.split()
				}
				if v.options == nil {
					r, err = crawlWithCrawlee(f, tmp, siteURL, c)
				} else {
					profileNow := f.profile > 0 && profiles[v.name] == nil && c == f.concurrency[len(f.concurrency)-1]
					var profile []byte
					r, profile, err = svc.crawl(siteURL, c, v.options, profileNow, f.profile, nil)
					if profile != nil {
						profiles[v.name] = profile
					}
				}
				if err != nil {
					return fmt.Errorf("%s at concurrency %d: %w", v.name, c, err)
				}
				r.cpu = machineCPU() - cpuBefore
				if partsBefore != nil {
					r.parts = svc.split().minus(partsBefore)
				}
				if r.repeats, err = site.check(); err != nil {
					return fmt.Errorf("%s at concurrency %d: %w", v.name, c, err)
				}
				r.variant, r.concurrency, r.round = v.name, c, round
				if f.docs != "" && round == 1 {
					if err := stored.note(svc, tmp, v, r); err != nil {
						return err
					}
				}
				logf("%-32s concurrency %2d round %d: %5d pages in %6.1f s = %6.1f pages/s, %.1f ms CPU a page, peak RSS %4d MB, %d repeat fetches",
					v.name, c, round, r.pages, r.seconds, r.rate(), r.cpuPerPage(), r.peakRSS>>20, r.repeats)
				results = append(results, r)
			}
		}
	}
	printResults(os.Stdout, f, results)
	stored.print(os.Stdout)
	for _, v := range variants {
		if p := profiles[v.name]; p != nil {
			printProfile(os.Stdout, f, tmp, v.name, p)
		}
	}
	if f.memory && f.docs == "" {
		if err := memoryCheck(os.Stdout, svc, f); err != nil {
			return err
		}
	}
	return nil
}

// servedSite is the site a comparison crawls: reset before each crawl,
// checked after it (how many requests repeated a page already served, or
// why the crawl missed pages).
type servedSite struct {
	url   string
	stop  func()
	reset func()
	check func() (repeats int, err error)
}

// siteOf serves the site of f: the generated link-dense one, or the
// folder of real pages named by -docs (docs.go).
func siteOf(f flags) (servedSite, error) {
	if f.docs != "" {
		return docsSite(f.docs)
	}
	site := testsite.New(testsite.Options{Pages: f.pages})
	siteURL, stop, err := serveSite(site)
	if err != nil {
		return servedSite{}, err
	}
	return servedSite{url: siteURL, stop: stop, reset: site.Reset, check: func() (int, error) {
		st := site.Stats()
		if st.Distinct != f.pages {
			return st.Repeats, fmt.Errorf("the site served %d of its %d pages", st.Distinct, f.pages)
		}
		return st.Repeats, nil
	}}, nil
}

// serveSite serves site on a free loopback port.
func serveSite(site http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// crawlWithCrawlee runs the peer crawler on the site (with crawl.mjs's
// args, CheerioCrawler by default); its own timing of crawler.run() is
// used (its start-up is not counted against it).
func crawlWithCrawlee(f flags, tmp, siteURL string, concurrency int, args ...string) (result, error) {
	var out bytes.Buffer
	maxPages := f.pages + 100
	if f.docs != "" {
		maxPages = 100000 // a manual has as many pages as it has
	}
	cmd := exec.Command("node", append([]string{"crawl.mjs", "--start-url", siteURL + "/", "--concurrency", strconv.Itoa(concurrency),
		"--max-pages", strconv.Itoa(maxPages), "--storage", filepath.Join(tmp, "crawlee")}, args...)...)
	cmd.Dir = f.crawlee
	cmd.Env = append(os.Environ(), "CRAWLER_CHROMIUM_PATH="+f.chromium)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("crawl.mjs: %w", err)
	}
	var got struct {
		Pages, Failed int
		Seconds       float64
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		return result{}, fmt.Errorf("crawl.mjs printed %q: %w", out.String(), err)
	}
	if f.docs == "" && (got.Pages != f.pages || got.Failed != 0) {
		return result{}, fmt.Errorf("Crawlee crawled %d pages (%d failed), want %d", got.Pages, got.Failed, f.pages)
	}
	peak := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = ru.Maxrss << 10
	}
	return result{pages: got.Pages, seconds: got.Seconds, peakRSS: peak}, nil
}

// service is the crawl service under measurement.
type service struct {
	f            flags
	tmp          string
	env          []string
	temporal     *proc
	worker       *proc
	workerArgs   []string
	api          *proc
	apiURL       string
	debugAddr    string
	temporalAddr string
	key          string
	// during, when set, is called with the crawl's page count each time
	// crawl looks at it.
	during func(pages int) error
}

// startService starts a Temporal dev server keeping its state in tmp, a
// fresh database at database, and the worker and API processes.
func startService(ctx context.Context, f flags, tmp, database string, extraEnv ...string) (*service, error) {
	s := &service{f: f, tmp: tmp}
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	temporalAddr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	s.temporalAddr = temporalAddr
	s.apiURL = fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	s.debugAddr = fmt.Sprintf("127.0.0.1:%d", ports[3])
	if err := s.startTemporal(); err != nil {
		return nil, err
	}
	if err := recreateDatabase(ctx, database); err != nil {
		s.stop()
		return nil, err
	}
	s.env = append(os.Environ(),
		"DATABASE_URL="+database,
		"TEMPORAL_ADDRESS="+temporalAddr,
		"CRAWLER_TASK_QUEUE=crawlbench",
		"CRAWLER_HTTP_ADDR="+strings.TrimPrefix(s.apiURL, "http://"),
		"CRAWLER_ALLOW_PRIVATE_NETWORKS=true",
		"CRAWLER_MAX_CONCURRENT_PAGES=32",
		"CRAWLER_MAX_PAGES_PER_CRAWL="+strconv.Itoa(max(f.pages, 100000)),
		"CRAWLER_DEBUG_ADDR="+s.debugAddr,
		"CRAWLER_METRICS_ADDR=off",
		"CRAWLER_LOG_LEVEL=warn",
		// The drills start twenty crawls at once with one key: the
		// per-key limit on creating crawls is not what they measure.
		"CRAWLER_KEY_CRAWLS_PER_MINUTE=0",
	)
	s.env = append(s.env, extraEnv...)
	migrate := exec.Command(f.crawler, "migrate")
	migrate.Env = s.env
	if out, err := migrate.CombinedOutput(); err != nil {
		s.stop()
		return nil, fmt.Errorf("migrate: %v: %s", err, out)
	}
	cmd := exec.Command(f.crawler, "apikey", "create", "--team", "bench")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("apikey: %w", err)
	}
	s.key = strings.TrimSpace(string(out))
	s.workerArgs = []string{"worker"}
	if slices.Contains(extraEnv, browserEnv) {
		s.workerArgs = append(s.workerArgs, "--browser")
	}
	if s.worker, err = startProc(tmp, "worker", s.env, f.crawler, s.workerArgs...); err != nil {
		s.stop()
		return nil, err
	}
	if s.api, err = startProc(tmp, "api", s.env, f.crawler, "serve"); err != nil {
		s.stop()
		return nil, err
	}
	if err := waitTCP(strings.TrimPrefix(s.apiURL, "http://"), 30*time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("api: %w", err)
	}
	return s, nil
}

func (s *service) stop() {
	for _, p := range []*proc{s.api, s.worker, s.temporal} {
		if p != nil {
			p.stop()
		}
	}
}

// startTemporal starts the Temporal dev server on its address, with its
// state in tmp (a restart picks up where the last one stopped).
func (s *service) startTemporal() error {
	_, port, _ := net.SplitHostPort(s.temporalAddr)
	var err error
	s.temporal, err = startProc(s.tmp, "temporal", nil, s.f.temporal, "server", "start-dev", "--ip", "127.0.0.1",
		"--port", port, "--headless", "--log-level", "error", "--db-filename", filepath.Join(s.tmp, "temporal.db"))
	if err != nil {
		return err
	}
	if err := waitTCP(s.temporalAddr, 30*time.Second); err != nil {
		s.stop()
		return fmt.Errorf("temporal: %w", err)
	}
	return nil
}

// restartWorker starts a fresh worker process, so that its peak memory
// counts from zero.
func (s *service) restartWorker() error {
	s.worker.stop()
	var err error
	s.worker, err = startProc(s.tmp, "worker", s.env, s.f.crawler, s.workerArgs...)
	return err
}

// killWorker kills the worker (SIGKILL, as a crash would) and starts a
// fresh one.
func (s *service) killWorker() error {
	s.worker.kill()
	var err error
	s.worker, err = startProc(s.tmp, "worker", s.env, s.f.crawler, s.workerArgs...)
	return err
}

// crawl crawls the site through the API and waits for the end. With
// profileNow, the worker's CPU is profiled meanwhile (for up to length).
func (s *service) crawl(siteURL string, concurrency int, options map[string]any, profileNow bool, length time.Duration, profile []byte) (result, []byte, error) {
	body := map[string]any{"startUrl": siteURL + "/", "entireWebsite": true, "maxConcurrentPages": concurrency}
	for k, v := range options {
		body[k] = v
	}
	s.worker.resetPeak()
	began := time.Now()
	var c struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		TotalPages int    `json:"totalPages"`
	}
	if err := s.call("POST", "/crawls", body, &c); err != nil {
		return result{}, profile, err
	}
	var wg sync.WaitGroup
	if profileNow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.debugAddr, int(length.Seconds())))
			if err != nil {
				logf("profile: %v", err)
				return
			}
			defer resp.Body.Close()
			profile, _ = io.ReadAll(resp.Body)
		}()
	}
	for c.Status == "running" {
		time.Sleep(50 * time.Millisecond)
		if err := s.call("GET", "/crawls/"+c.ID, nil, &c); err != nil {
			return result{}, profile, err
		}
		if s.during != nil {
			if err := s.during(c.TotalPages); err != nil {
				return result{}, profile, err
			}
		}
	}
	seconds := time.Since(began).Seconds()
	wg.Wait()
	if c.Status != "succeeded" || (s.f.docs == "" && c.TotalPages != s.f.pages) {
		return result{}, profile, fmt.Errorf("crawl %s ended %s with %d pages, want succeeded with %d", c.ID, c.Status, c.TotalPages, s.f.pages)
	}
	if s.f.timeline {
		if err := s.printTimeline(c.ID, seconds); err != nil {
			logf("timeline: %v", err)
		}
	}
	return result{pages: c.TotalPages, seconds: seconds, peakRSS: s.worker.peak(), crawlID: c.ID}, profile, nil
}

// printTimeline prints, for each activity type of the crawl's workflow
// runs, how many ran and their summed time from start to completion.
func (s *service) printTimeline(crawlID string, wall float64) error {
	_, _, err := s.timeline(crawlID, wall)
	return err
}

// timeline logs the activity times of a crawl's workflow runs and returns
// how many runs and events its history has.
func (s *service) timeline(crawlID string, wall float64) (int, int, error) {
	tc, err := client.Dial(client.Options{HostPort: s.temporalAddr, Logger: quietLogger{}})
	if err != nil {
		return 0, 0, err
	}
	defer tc.Close()
	type stat struct {
		n   int
		sum time.Duration
	}
	stats := map[string]*stat{}
	scheduled := map[int64]string{}
	started := map[int64]time.Time{}
	runs, events := 0, 0
	runID := ""
	for {
		iter := tc.GetWorkflowHistory(context.Background(), "crawl-"+crawlID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		runs++
		next := ""
		for iter.HasNext() {
			ev, err := iter.Next()
			if err != nil {
				return 0, 0, err
			}
			events++
			switch {
			case ev.GetActivityTaskScheduledEventAttributes() != nil:
				scheduled[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			case ev.GetActivityTaskStartedEventAttributes() != nil:
				started[ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId()] = ev.GetEventTime().AsTime()
			case ev.GetActivityTaskCompletedEventAttributes() != nil:
				id := ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()
				name := scheduled[id]
				if stats[name] == nil {
					stats[name] = &stat{}
				}
				stats[name].n++
				stats[name].sum += ev.GetEventTime().AsTime().Sub(started[id])
			case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
				next = ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
			}
		}
		if next == "" {
			break
		}
		runID = next
	}
	names := make([]string, 0, len(stats))
	for name := range stats {
		names = append(names, name)
	}
	slices.Sort(names)
	logf("timeline of crawl %s (%.1f s wall, %d runs, %d events):", crawlID, wall, runs, events)
	for _, name := range names {
		logf("  %-18s %4d runs, %7.2f s in all", name, stats[name].n, stats[name].sum.Seconds())
	}
	return runs, events, nil
}

// quietLogger drops the Temporal client's logs.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

func (s *service) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.apiURL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// memoryCheck crawls a 1,000-page and a 10,000-page site, a 1,000-page
// site whose home page is huge (the real one of -huge-page, if given, then
// a generated one just under the page-size cap), a 1,000-page site with
// several large pages fetched together, and a 100,000-page site, each
// with a fresh worker, and prints the worker's peak resident memory of
// each.
func memoryCheck(w io.Writer, s *service, f flags) error {
	fmt.Fprintf(w, "\n### Worker memory by crawl size (default options, concurrency 16)\n\n")
	fmt.Fprintf(w, "| pages | seconds | pages/s | worker peak RSS (MB) |\n|---:|---:|---:|---:|\n")
	var peaks []int64
	var handover string
	var huge []byte
	if f.hugePage != "" {
		var err error
		if huge, err = os.ReadFile(f.hugePage); err != nil {
			return err
		}
	}
	cases := []memoryCase{{1000, 0, false, 0}, {10000, 0, false, 0}, {1000, hugePageBytes, false, 1},
		{1000, manyHugeBytes, false, manyHugePages}, {100000, 0, false, 0}}
	if len(huge) > 0 {
		cases = slices.Insert(cases, 2, memoryCase{1000, len(huge), true, 1})
	}
	for _, c := range cases {
		n := c.n
		siteURL, stop, err := serveSite(c.site(huge))
		if err != nil {
			return err
		}
		if err := s.restartWorker(); err != nil {
			stop()
			return err
		}
		pages := s.f.pages
		s.f.pages = n
		var crawler int64 // the peak of the worker killed before the end
		if n == endHandover.pages {
			s.during = func(pages int) error {
				if crawler > 0 || pages < n*endHandover.percent/100 {
					return nil
				}
				crawler = s.worker.highWater()
				return s.killWorker()
			}
		}
		r, _, err := s.crawl(siteURL, 16, nil, false, 0, nil)
		s.f.pages, s.during = pages, nil
		stop()
		if err != nil {
			return fmt.Errorf("memory check, %d pages: %w", n, err)
		}
		peak := s.worker.highWater()
		if crawler > 0 {
			ending := peak
			peak = max(peak, crawler)
			logf("memory check: the worker that crawled %d%% of %d pages peaked at %d MB; the one started then, which ran the end, at %d MB",
				endHandover.percent, n, crawler>>20, ending>>20)
			handover = fmt.Sprintf("The %d-page crawl's worker is killed (SIGKILL) once %d %% of the pages are stored; "+
				"it peaked at %d MB, and the worker started then, which crawled the rest and ran the crawl's end "+
				"(deduplication settling among it), at %d MB.\n", n, endHandover.percent, crawler>>20, ending>>20)
		}
		peaks = append(peaks, peak)
		name := c.name(f.hugePage)
		logf("memory check: %s pages in %.1f s, worker peak RSS %d MB", name, r.seconds, peak>>20)
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %d |\n", name, r.seconds, r.rate(), peak>>20)
	}
	fmt.Fprintf(w, "\nPeak at 10,000 pages / peak at 1,000 pages: %.2f; at 100,000 (its end, deduplication settling, included): %.2f\n\n%s",
		float64(peaks[1])/float64(peaks[0]), float64(peaks[len(peaks)-1])/float64(peaks[0]), handover)
	return nil
}

// memoryCase is a site of the memory check.
type memoryCase struct {
	n     int
	huge  int  // bytes of the large pages, 0: as generated
	real  bool // the home page is -huge-page's
	count int  // large pages (the home page and its first children)
}

// site serves the case's site; real is -huge-page's page.
func (c memoryCase) site(real []byte) http.Handler {
	site := testsite.New(testsite.Options{Pages: c.n})
	switch {
	case c.real:
		return hugeHome(site, c.huge, real)
	case c.count > 1:
		return hugeChildren(site, c.huge, c.count)
	case c.huge > 0:
		return hugeHome(site, c.huge, nil)
	}
	return site
}

// name is the case's row in the memory table; hugePage is -huge-page.
func (c memoryCase) name(hugePage string) string {
	mb := float64(c.huge) / (1 << 20)
	switch {
	case c.real:
		return fmt.Sprintf("%d, the home page %s (%.1f MB)", c.n, filepath.Base(hugePage), mb)
	case c.count > 1:
		return fmt.Sprintf("%d, %d pages of %.1f MB", c.n, c.count, mb)
	case c.huge > 0:
		return fmt.Sprintf("%d, the home page %.1f MB", c.n, mb)
	}
	return strconv.Itoa(c.n)
}

// endHandover is when the memory check kills the worker of its largest
// crawl, so that a fresh worker runs the crawl's end: its peak is the
// end's own (what a worker started late in a long crawl needs).
var endHandover = struct{ pages, percent int }{100000, 95}

func printResults(w io.Writer, f flags, results []result) {
	if f.docs != "" {
		fmt.Fprintf(w, "### Crawls of the manual in %s\n\n", f.docs)
	} else {
		fmt.Fprintf(w, "### Crawls of a %d-page link-dense site\n\n", f.pages)
	}
	fmt.Fprintf(w, "Machine CPU is every process's (worker, API, Postgres, Temporal, the site, the peer), from /proc/stat, over the crawl.\n\n")
	fmt.Fprintf(w, "| concurrency | crawler | round | pages | wall (s) | pages/s | machine CPU (ms/page) | peak RSS (MB) | repeat fetches |\n")
	fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(w, "| %d | %s | %d | %d | %.1f | %.1f | %.2f | %d | %d |\n",
			r.concurrency, r.variant, r.round, r.pages, r.seconds, r.rate(), r.cpuPerPage(), r.peakRSS>>20, r.repeats)
	}
	fmt.Fprintf(w, "\n### Medians\n\n| concurrency | crawler | pages/s | machine CPU (ms/page) | wall (s) | peak RSS (MB) | × Crawlee |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, c := range f.concurrency {
		peer := 0.0
		for _, v := range slices.Backward(variants) {
			var rates, secs, cpus []float64
			var rss []int64
			for _, r := range results {
				if r.concurrency == c && r.variant == v.name {
					rates, secs, rss = append(rates, r.rate()), append(secs, r.seconds), append(rss, r.peakRSS)
					cpus = append(cpus, r.cpuPerPage())
				}
			}
			if len(rates) == 0 {
				continue
			}
			rate := median(rates)
			ratio := "—"
			if v.options == nil {
				peer = rate
			} else if peer > 0 {
				ratio = fmt.Sprintf("%.2f", rate/peer)
			}
			fmt.Fprintf(w, "| %d | %s | %.1f | %.2f | %.1f | %d | %s |\n", c, v.name, rate, median(cpus), median(secs), medianInt(rss)>>20, ratio)
		}
	}
	printSplit(w, f, results)
}

// printSplit prints, for each service variant, the median CPU time a page
// of each process.
func printSplit(w io.Writer, f flags, results []result) {
	fmt.Fprintf(w, "\n### Machine CPU a page by process (ms, medians)\n\n| concurrency | crawler | %s |\n|---:|---|%s\n",
		strings.Join(cpuParts, " | "), strings.Repeat("---:|", len(cpuParts)))
	for _, c := range f.concurrency {
		for _, v := range variants {
			if v.options == nil {
				continue
			}
			cells := make([]string, 0, len(cpuParts))
			for _, part := range cpuParts {
				var ms []float64
				for _, r := range results {
					if r.concurrency == c && r.variant == v.name && r.parts != nil {
						ms = append(ms, 1000*r.parts[part]/float64(max(r.pages, 1)))
					}
				}
				if len(ms) == 0 {
					break
				}
				cells = append(cells, fmt.Sprintf("%.2f", median(ms)))
			}
			if len(cells) > 0 {
				fmt.Fprintf(w, "| %d | %s | %s |\n", c, v.name, strings.Join(cells, " | "))
			}
		}
	}
}

func printProfile(w io.Writer, f flags, tmp, variant string, profile []byte) {
	path := filepath.Join(tmp, "worker.pprof")
	if err := os.WriteFile(path, profile, 0o644); err != nil {
		logf("profile: %v", err)
		return
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=25", f.crawler, path).CombinedOutput()
	if err != nil {
		logf("pprof: %v: %s", err, out)
		return
	}
	fmt.Fprintf(w, "\n### Worker CPU profile: %s (the first %v of its first crawl at concurrency %d)\n\n```\n%s```\n",
		variant, f.profile, f.concurrency[len(f.concurrency)-1], out)
	out, err = exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=25", f.crawler, path).CombinedOutput()
	if err == nil {
		fmt.Fprintf(w, "\nBy cumulative time:\n\n```\n%s```\n", out)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func waitTCP(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer: %w", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recreateDatabase drops and creates the database of dsn.
func recreateDatabase(ctx context.Context, dsn string) error {
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	admin := strings.Replace(dsn, "/"+name, "/postgres", 1)
	conn, err := db.Open(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	return db.EnsureDatabase(ctx, dsn)
}

// proc is a child process whose resident memory is sampled.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	max  int64
	done chan struct{}
}

func startProc(tmp, name string, env []string, path string, args ...string) (*proc, error) {
	logFile, err := os.OpenFile(filepath.Join(tmp, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	go p.sample()
	return p, nil
}

func (p *proc) sample() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if rss := p.status("VmRSS:"); rss > 0 {
				p.mu.Lock()
				p.max = max(p.max, rss)
				p.mu.Unlock()
			}
		}
	}
}

// status reads a field of /proc/PID/status, in bytes.
func (p *proc) status(field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (p *proc) resetPeak() {
	p.mu.Lock()
	p.max = 0
	p.mu.Unlock()
}

// peak is the highest resident memory sampled since resetPeak.
func (p *proc) peak() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.max
}

// highWater is the process's peak resident memory over its life, as the
// kernel counts it.
func (p *proc) highWater() int64 { return max(p.status("VmHWM:"), p.peak()) }

func (p *proc) stop() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// hugePageBytes is the size of the huge page of the memory check: just
// under the worker's default page-size cap (CRAWLER_MAX_PAGE_BYTES,
// 10 MiB), the largest page a crawl keeps whole.
const hugePageBytes = 10<<20 - 256<<10

// manyHugePages pages of manyHugeBytes each make the memory check's site
// of several large pages (Node.js's one-page manual is 5.6 MB).
const (
	manyHugePages = 8
	manyHugeBytes = 5 << 20
)

// hugeHome serves site with its home page grown to about size bytes, as a
// manual's single-page edition is: sections of paragraphs, code and
// tables before the site's own navigation and links; or, when real is
// set, that page with the site's links added at its end.
func hugeHome(site *testsite.Site, size int, real []byte) http.Handler {
	if len(real) > 0 {
		_, body, _ := strings.Cut(string(site.HTML(0)), "<body>")
		page := append(append([]byte(nil), real...), body...)
		return servingHuge(site, map[string][]byte{"/": page})
	}
	return servingHuge(site, map[string][]byte{"/": grown(site, 0, size)})
}

// hugeChildren serves site with the home page and its first count-1
// children grown to about size bytes each, as a site with several
// one-page manuals: pages a crawl fetches, and would convert, together.
func hugeChildren(site *testsite.Site, size, count int) http.Handler {
	pages := map[string][]byte{"/": grown(site, 0, size)}
	for _, n := range site.Children(0)[:min(count-1, len(site.Children(0)))] {
		pages[site.Path(n)] = grown(site, n, size)
	}
	return servingHuge(site, pages)
}

// grown is page n of site grown to about size bytes.
func grown(site *testsite.Site, n, size int) []byte {
	page := string(site.HTML(n))
	head, body, _ := strings.Cut(page, "<body>")
	var b strings.Builder
	b.Grow(size + len(page))
	b.WriteString(head + "<body>\n<main><article><h1>The whole manual on one page</h1>\n")
	for i := 0; b.Len() < size-len(page); i++ {
		fmt.Fprintf(&b, "<h2 id=\"s%d\">Section %d</h2>\n", i, i)
		for p := 0; p < 4; p++ {
			fmt.Fprintf(&b, "<p>Section %d, paragraph %d: the worker reads a page this large whole, converts it and keeps its markdown; "+
				"what it holds meanwhile is the page's tree and the text made of it, never the crawl's other pages.</p>\n", i, p)
		}
		fmt.Fprintf(&b, "<pre><code>crawler crawl https://example.com/section/%d --max-results %d\n</code></pre>\n", i, i+1)
		if i%5 == 0 {
			b.WriteString("<table><tr><th>option</th><th>default</th></tr>")
			for r := 0; r < 6; r++ {
				fmt.Fprintf(&b, "<tr><td>option%d_%d</td><td>%d</td></tr>", i, r, r*i)
			}
			b.WriteString("</table>\n")
		}
	}
	b.WriteString("</article></main>\n" + body)
	return []byte(b.String())
}

// servingHuge serves site with the pages of pages (by path) in place of
// its own.
func servingHuge(site *testsite.Site, pages map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, ok := pages[r.URL.Path]
		if !ok {
			site.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
}
