package api

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// TestCreateCrawlRejectsBadInput: an invalid body is a 400 naming the
// fields at fault; no crawl is stored and no workflow started.
func TestCreateCrawlRejectsBadInput(t *testing.T) {
	cases := []struct {
		name, body string
		fields     []string // sorted
	}{
		{"not JSON", `{"startUrl":`, []string{"body"}},
		{"empty body", ``, []string{"body"}},
		{"a JSON array", `["https://a.example/"]`, []string{"body"}},
		{"JSON null", `null`, []string{"body"}},
		{"unknown field", `{"startUrl":"https://a.example/","colour":"red"}`, []string{"colour"}},
		{"maxDepth 0", `{"startUrl":"https://a.example/","maxDepth":0}`, []string{"maxDepth"}},
		{"maxDepth over 100", `{"startUrl":"https://a.example/","maxDepth":101}`, []string{"maxDepth"}},
		{"maxDepth over 50, older shape", `{"startUrls":["https://a.example/"],"maxDepth":51,"maxResults":5}`, []string{"maxDepth"}},
		{"maxDepth a string", `{"startUrl":"https://a.example/","maxDepth":"3"}`, []string{"maxDepth"}},
		{"startUrl and startUrls", `{"startUrl":"https://a.example/","startUrls":["https://a.example/"]}`,
			[]string{"startUrl", "startUrls"}},
		{"no start URL", `{"maxDepth":3}`, []string{"startUrl"}},
		{"two bad fields", `{"startUrl":"https://a.example/","maxDepth":0,"colour":"red"}`, []string{"colour", "maxDepth"}},
		{"loopback address", `{"startUrl":"http://127.0.0.1:8080/"}`, []string{"startUrl"}},
		{"localhost", `{"startUrl":"http://localhost/"}`, []string{"startUrl"}},
		{"IPv6 loopback", `{"startUrl":"http://[::1]/"}`, []string{"startUrl"}},
		{"cloud metadata", `{"startUrl":"http://169.254.169.254/latest/meta-data/"}`, []string{"startUrl"}},
		{"private, older shape", `{"startUrls":["https://a.example/","http://192.168.1.1/"],"maxResults":5,"maxDepth":1}`, []string{"startUrls[1]"}},
		{"a name of a private address", `{"startUrl":"https://intranet.example/"}`, []string{"startUrl"}},
		{"a name with a private address among others", `{"startUrls":["https://mixed.example/"],"maxResults":5,"maxDepth":1}`, []string{"startUrls[0]"}},
		{"start URL over 2048 bytes", `{"startUrl":"https://a.example/` + strings.Repeat("a", 2048) + `"}`, []string{"startUrl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t)
			r := a.do(t, http.MethodPost, "/crawls", testKey, tc.body)
			wantError(t, r, http.StatusBadRequest, crawl.EINVALID, tc.fields...)
			if len(a.store.inserted) != 0 || len(a.temporal.started) != 0 || len(a.store.ended) != 0 {
				t.Errorf("a bad request stored %v, started %v, ended %v", a.store.inserted, a.temporal.started, a.store.ended)
			}
			if r.Header.Get("Location") != "" {
				t.Errorf("a bad request answered Location %q", r.Header.Get("Location"))
			}
		})
	}
}

// TestCreateCrawlLongStartURL: the longest start URL accepted starts its
// workflow, with the search attribute cut to what Temporal takes; names
// that do not resolve now are let through.
func TestCreateCrawlLongStartURL(t *testing.T) {
	a := newTestAPI(t)
	long := "https://a.example/" + strings.Repeat("é", (2048-len("https://a.example/"))/2)
	for _, u := range []string{long, "https://not-resolving.example/"} {
		r := a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"`+u+`"}`)
		if r.Status != http.StatusCreated || r.Body["startUrl"] != u {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	attr, _ := a.temporal.started[0].Options.TypedSearchAttributes.GetKeyword(crawlflow.AttrStartURL)
	if len(attr) > crawlflow.MaxStartURLAttr || !utf8.ValidString(attr) || !strings.HasSuffix(attr, "é…") || !strings.HasPrefix(long, strings.TrimSuffix(attr, "…")) {
		t.Errorf("search attribute of %d bytes, valid UTF-8 %v: %q", len(attr), utf8.ValidString(attr), attr[max(0, len(attr)-10):])
	}
	if len(long) != 2048 {
		t.Fatalf("test URL is %d bytes", len(long))
	}
	r := a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"http://127.0.0.1/"}`)
	if !strings.Contains(errorMessage(r)+r.Raw, "private") {
		t.Errorf("a private start URL's answer does not say why: %s", r.Raw)
	}
}

// TestCreateCrawlRejectsLargeBody: a body over 1 MiB is a 413.
func TestCreateCrawlRejectsLargeBody(t *testing.T) {
	a := newTestAPI(t)
	body := `{"startUrl":"https://a.example/","extraction":"` + strings.Repeat("x", 1<<20) + `"}`
	wantError(t, a.do(t, http.MethodPost, "/crawls", testKey, body), http.StatusRequestEntityTooLarge, "request_too_large")
	if len(a.store.inserted) != 0 || len(a.temporal.started) != 0 {
		t.Errorf("a large request stored %v, started %v", a.store.inserted, a.temporal.started)
	}
}

// TestCreateCrawlStartsWorkflow: a good request stores the crawl running,
// for the caller's team and brand, then starts its workflow with the
// crawl's ID, and answers 201 with the crawl and its Location.
func TestCreateCrawlStartsWorkflow(t *testing.T) {
	a := newTestAPI(t)
	r := a.do(t, http.MethodPost, "/crawls", testKey,
		`{"startUrl":"https://a.example/docs","maxDepth":4,"timeout":120,"useStaticIps":true}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("status %d, want 201; body %s", r.Status, r.Raw)
	}
	if len(a.store.inserted) != 1 {
		t.Fatalf("stored %d crawls, want 1", len(a.store.inserted))
	}
	id := a.store.inserted[0]
	if loc := r.Header.Get("Location"); loc != "/crawls/"+id.String() {
		t.Errorf("Location %q, want /crawls/%s", loc, id)
	}
	for k, want := range map[string]any{"id": id.String(), "status": "running", "startUrl": "https://a.example/docs",
		"maxDepth": 4.0, "timeout": 120.0, "brandId": testBrand, "staticIp": "203.0.113.7"} {
		if r.Body[k] != want {
			t.Errorf("answer %s = %v, want %v", k, r.Body[k], want)
		}
	}

	rec := a.store.crawls[id]
	wfID := "crawl-" + id.String()
	if rec.TeamID != testTeam || rec.BrandID == nil || *rec.BrandID != testBrand || rec.Status != crawl.StatusRunning ||
		rec.WorkflowID != wfID || rec.MaxDepth != 4 || rec.StaticIP == nil || *rec.StaticIP != "203.0.113.7" {
		t.Errorf("stored crawl %+v, want team %s, brand %s, running, workflow %s, maxDepth 4, static IP", rec, testTeam, testBrand, wfID)
	}

	if len(a.temporal.started) != 1 {
		t.Fatalf("started %d workflows, want 1", len(a.temporal.started))
	}
	if a.temporal.startedBeforeInsert {
		t.Error("the workflow was started before its crawl was stored")
	}
	s := a.temporal.started[0]
	if s.Workflow != crawlflow.CrawlWorkflowName {
		t.Errorf("workflow %v, want %s", s.Workflow, crawlflow.CrawlWorkflowName)
	}
	if len(s.Args) != 1 || s.Args[0] != (crawlflow.CrawlInput{CrawlID: id.String()}) {
		t.Errorf("workflow input %#v, want the crawl's ID", s.Args)
	}
	o := s.Options
	if o.ID != wfID || o.TaskQueue != testQueue {
		t.Errorf("workflow ID %q on queue %q, want %q on %q", o.ID, o.TaskQueue, wfID, testQueue)
	}
	if want := 120*time.Second + executionTimeoutMargin; o.WorkflowExecutionTimeout != want {
		t.Errorf("execution timeout %s, want %s", o.WorkflowExecutionTimeout, want)
	}
	if executionTimeoutMargin <= 0 {
		t.Error("no margin between the crawl's timeout and its workflow's")
	}
	if o.WorkflowIDReusePolicy != enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE {
		t.Errorf("reuse policy %v, want REJECT_DUPLICATE", o.WorkflowIDReusePolicy)
	}
	attrs := o.TypedSearchAttributes
	if attrs.Size() != 4 {
		t.Errorf("%d search attributes, want 4: %v", attrs.Size(), attrs.GetUntypedValues())
	}
	for _, sa := range []struct {
		key  temporal.SearchAttributeKeyKeyword
		want string
	}{
		{crawlflow.AttrCrawlID, id.String()},
		{crawlflow.AttrTeamID, testTeam.String()},
		{crawlflow.AttrStatus, "running"},
		{crawlflow.AttrStartURL, "https://a.example/docs"},
	} {
		if got, ok := attrs.GetKeyword(sa.key); !ok || got != sa.want {
			t.Errorf("search attribute %s = %q (set %v), want %q", sa.key.GetName(), got, ok, sa.want)
		}
	}
	if len(a.store.ended) != 0 {
		t.Errorf("a started crawl was ended: %+v", a.store.ended)
	}
}

// TestCreateCrawlDefaultTimeout: the execution timeout follows the
// default timeout too, and the older shape's first start URL is the
// search attribute.
func TestCreateCrawlDefaultTimeout(t *testing.T) {
	a := newTestAPI(t)
	r := a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrls":["https://b.example/","https://c.example/"],"maxDepth":2,"maxResults":5}`)
	if r.Status != http.StatusCreated || len(a.temporal.started) != 1 {
		t.Fatalf("status %d, %d workflows started; body %s", r.Status, len(a.temporal.started), r.Raw)
	}
	o := a.temporal.started[0].Options
	// 1800 s is the default of timeout (the option tag of TimeoutSeconds).
	if want := 1800*time.Second + executionTimeoutMargin; o.WorkflowExecutionTimeout != want {
		t.Errorf("execution timeout %s, want %s", o.WorkflowExecutionTimeout, want)
	}
	if got, _ := o.TypedSearchAttributes.GetKeyword(crawlflow.AttrStartURL); got != "https://b.example/" {
		t.Errorf("start URL attribute %q, want the first start URL", got)
	}
}

// TestCreateCrawlWorkflowNotStarted: when Temporal refuses the workflow,
// the crawl is ended error through crawllog.End (with its last log entry)
// and the answer is a 500 that names the crawl.
func TestCreateCrawlWorkflowNotStarted(t *testing.T) {
	a := newTestAPI(t)
	a.temporal.startErr = serviceerror.NewUnavailable("temporal is down")
	r := a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"https://a.example/"}`)
	wantError(t, r, http.StatusInternalServerError, crawl.EINTERNAL)
	if len(a.store.inserted) != 1 {
		t.Fatalf("stored %d crawls, want 1", len(a.store.inserted))
	}
	id := a.store.inserted[0]
	if m := errorMessage(r); !strings.Contains(m, id.String()) || !strings.Contains(m, "status error") {
		t.Errorf("message %q, want it to name the crawl and its status", m)
	}
	if strings.Contains(r.Raw, "temporal is down") {
		t.Errorf("the answer shows the internal error: %s", r.Raw)
	}
	if len(a.store.ended) != 1 || a.store.ended[0].ID != id || a.store.ended[0].Status != crawl.StatusError {
		t.Errorf("EndCrawl calls %+v, want one for %s with status error", a.store.ended, id)
	}
	if c := a.store.crawls[id]; c.Status != crawl.StatusError {
		t.Errorf("crawl is %s, want error", c.Status)
	}
	if len(a.store.logs) != 1 || a.store.logs[0].Key != "end" || a.store.logs[0].Level != "error" {
		t.Errorf("log entries %+v, want the crawl's end entry at level error", a.store.logs)
	}
	if r.Header.Get("Location") != "" {
		t.Errorf("Location %q on a failed create", r.Header.Get("Location"))
	}
}

// TestCreateCrawlNotStored: when the crawl cannot be stored, no workflow
// is started and the answer is a 500 without the error's text.
func TestCreateCrawlNotStored(t *testing.T) {
	a := newTestAPI(t)
	a.store.insertErr = errFake
	r := a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"https://a.example/"}`)
	wantError(t, r, http.StatusInternalServerError, crawl.EINTERNAL)
	if errorMessage(r) != "internal error" {
		t.Errorf("message %q, want internal error", errorMessage(r))
	}
	if len(a.temporal.started) != 0 {
		t.Errorf("started %d workflows for a crawl not stored", len(a.temporal.started))
	}
}

// TestGetCrawl answers the caller's own crawls only.
func TestGetCrawl(t *testing.T) {
	a := newTestAPI(t)
	mine := a.store.addCrawl(testTeam, crawl.StatusRunning)
	theirs := a.store.addCrawl(otherTeam, crawl.StatusRunning)

	r := a.do(t, http.MethodGet, "/crawls/"+mine.ID.String(), testKey, "")
	if r.Status != http.StatusOK || r.Body["id"] != mine.ID.String() || r.Body["status"] != "running" {
		t.Errorf("own crawl: %d %s", r.Status, r.Raw)
	}
	for name, path := range map[string]string{
		"another team's crawl": "/crawls/" + theirs.ID.String(),
		"unknown crawl":        "/crawls/" + uuid.NewString(),
		"not an ID":            "/crawls/not-a-uuid",
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, a.do(t, http.MethodGet, path, testKey, ""), http.StatusNotFound, crawl.ENOTFOUND)
		})
	}
	if r := a.do(t, http.MethodGet, "/crawls/"+theirs.ID.String(), otherKey, ""); r.Status != http.StatusOK {
		t.Errorf("the other team reads its crawl: %d %s", r.Status, r.Raw)
	}
}

// TestAbortCrawl: aborting a running crawl cancels its workflow and answers
// the crawl as the workflow recorded it; an ended crawl is left as it is;
// a crawl whose workflow Temporal does not know is ended aborted by the
// API itself.
func TestAbortCrawl(t *testing.T) {
	t.Run("running", func(t *testing.T) {
		a := newTestAPI(t)
		c := a.store.addCrawl(testTeam, crawl.StatusRunning)
		a.temporal.onCancel = func(string) { a.store.crawls[c.ID].Status = crawl.StatusAborted }
		r := a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, "")
		if r.Status != http.StatusOK || r.Body["status"] != "aborted" {
			t.Errorf("%d %s, want 200 with the crawl aborted", r.Status, r.Raw)
		}
		if len(a.temporal.cancelled) != 1 || a.temporal.cancelled[0] != c.WorkflowID {
			t.Errorf("cancelled %v, want [%s]", a.temporal.cancelled, c.WorkflowID)
		}
		if len(a.store.ended) != 0 {
			t.Errorf("the API ended the crawl itself: %+v", a.store.ended)
		}
	})
	for _, status := range []crawl.Status{crawl.StatusSucceeded, crawl.StatusFailed, crawl.StatusAborted, crawl.StatusTimedOut, crawl.StatusError} {
		t.Run("ended "+string(status), func(t *testing.T) {
			a := newTestAPI(t)
			c := a.store.addCrawl(testTeam, status)
			r := a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, "")
			if r.Status != http.StatusOK || r.Body["status"] != string(status) {
				t.Errorf("%d %s, want 200 with the crawl %s", r.Status, r.Raw, status)
			}
			if len(a.temporal.cancelled) != 0 || len(a.store.ended) != 0 || a.store.crawls[c.ID].Status != status {
				t.Errorf("aborting an ended crawl cancelled %v, ended %+v", a.temporal.cancelled, a.store.ended)
			}
		})
	}
	t.Run("abort not recorded within the request's time", func(t *testing.T) {
		a := newTestAPI(t)
		a.app = New(Options{Store: a.store, Temporal: a.temporal, TaskQueue: testQueue, Server: allServer,
			Logger: slog.New(slog.DiscardHandler), RequestTimeout: time.Second})
		c := a.store.addCrawl(testTeam, crawl.StatusRunning) // the workflow never records the abort
		began := time.Now()
		r := a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, "")
		if r.Status != http.StatusOK || r.Body["status"] != "running" {
			t.Errorf("%d %s, want 200 with the crawl still running", r.Status, r.Raw)
		}
		if waited := time.Since(began); waited > time.Second {
			t.Errorf("the answer took %s, past the request's time limit of 1s", waited)
		}
	})
	t.Run("workflow not found", func(t *testing.T) {
		a := newTestAPI(t)
		c := a.store.addCrawl(testTeam, crawl.StatusRunning)
		a.temporal.cancelErr = serviceerror.NewNotFound("workflow not found")
		r := a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, "")
		if r.Status != http.StatusOK || r.Body["status"] != "aborted" {
			t.Errorf("%d %s, want 200 with the crawl aborted", r.Status, r.Raw)
		}
		if len(a.store.ended) != 1 || a.store.ended[0].ID != c.ID || a.store.ended[0].Status != crawl.StatusAborted {
			t.Errorf("EndCrawl calls %+v, want one for %s with status aborted", a.store.ended, c.ID)
		}
		if len(a.store.logs) != 1 || a.store.logs[0].Key != "end" {
			t.Errorf("log entries %+v, want the end entry", a.store.logs)
		}
	})
	t.Run("temporal unavailable", func(t *testing.T) {
		a := newTestAPI(t)
		c := a.store.addCrawl(testTeam, crawl.StatusRunning)
		a.temporal.cancelErr = serviceerror.NewUnavailable("down")
		wantError(t, a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, ""),
			http.StatusServiceUnavailable, crawl.EUNAVAILABLE)
		if len(a.store.ended) != 0 || a.store.crawls[c.ID].Status != crawl.StatusRunning {
			t.Errorf("the crawl was ended (%+v) although its workflow may run", a.store.ended)
		}
	})
	t.Run("another team's crawl", func(t *testing.T) {
		a := newTestAPI(t)
		c := a.store.addCrawl(otherTeam, crawl.StatusRunning)
		wantError(t, a.do(t, http.MethodPost, "/crawls/"+c.ID.String()+"/abort", testKey, ""), http.StatusNotFound, crawl.ENOTFOUND)
		if len(a.temporal.cancelled) != 0 || len(a.store.ended) != 0 {
			t.Errorf("another team's crawl was cancelled %v, ended %+v", a.temporal.cancelled, a.store.ended)
		}
	})
	t.Run("not an ID", func(t *testing.T) {
		a := newTestAPI(t)
		wantError(t, a.do(t, http.MethodPost, "/crawls/xyz/abort", testKey, ""), http.StatusNotFound, crawl.ENOTFOUND)
		if len(a.temporal.cancelled) != 0 {
			t.Errorf("cancelled %v", a.temporal.cancelled)
		}
	})
}

// TestCreateCrawlRateLimit: each key creates at most its burst of crawls
// at once, then 429 with Retry-After until its bucket refills; invalid
// requests and other keys do not spend its allowance.
func TestCreateCrawlRateLimit(t *testing.T) {
	a := newTestAPI(t)
	a.app = New(Options{Store: a.store, Temporal: a.temporal, TaskQueue: testQueue, Server: allServer,
		Logger: slog.New(slog.DiscardHandler), CrawlsPerMinute: 6, CrawlsBurst: 2, Resolver: testResolver})
	body := `{"startUrl":"https://a.example/"}`
	wantError(t, a.do(t, http.MethodPost, "/crawls", testKey, `{"startUrl":"ftp://a.example/"}`),
		http.StatusBadRequest, crawl.EINVALID, "startUrl")
	for i := range 2 {
		if r := a.do(t, http.MethodPost, "/crawls", testKey, body); r.Status != http.StatusCreated {
			t.Fatalf("crawl %d of the burst: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := a.do(t, http.MethodPost, "/crawls", testKey, body)
	wantError(t, r, http.StatusTooManyRequests, crawl.ERATELIMITED)
	if got := r.Header.Get("Retry-After"); got != "10" {
		t.Errorf("Retry-After %q, want 10 (one crawl every 10 s)", got)
	}
	if len(a.store.inserted) != 2 || len(a.temporal.started) != 2 {
		t.Errorf("the refused request stored %d crawls and started %d workflows, want 2 and 2",
			len(a.store.inserted), len(a.temporal.started))
	}
	if r := a.do(t, http.MethodPost, "/crawls", otherKey, body); r.Status != http.StatusCreated {
		t.Errorf("another key is limited too: %d %s", r.Status, r.Raw)
	}
	if r := a.do(t, http.MethodGet, "/crawls", testKey, ""); r.Status != http.StatusOK {
		t.Errorf("reads are limited too: %d", r.Status)
	}
}
