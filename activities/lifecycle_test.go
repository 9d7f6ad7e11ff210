package activities

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
)

// TestStartCrawl: the start URLs are queued in the order given, as start
// pages, and the crawl's first two entries are written.
func TestStartCrawl(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/docs", "https://Example.com/blog#top"},
		MaxResults: ptr(10), MaxDepth: 2, TimeoutSeconds: 600})
	f := &fakeStore{crawl: c}
	plan, err := startCrawl(context.Background(), f, settings, StartCrawlInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	want := CrawlPlan{Status: crawl.StatusRunning, Budget: 10, BatchSize: 64, TimeoutSeconds: 600, Engine: crawl.EngineCheerio,
		StartURL: "https://example.com/docs", MaxConcurrency: settings.MaxConcurrentPages}
	if plan != want {
		t.Errorf("plan %+v, want %+v", plan, want)
	}
	wantPages := []db.NewPage{
		{URL: "https://example.com/docs", NormalizedURL: "//example.com/docs", Depth: 0, Rank: "000"},
		{URL: "https://example.com/blog", NormalizedURL: "//example.com/blog", Depth: 0, Rank: "001"},
	}
	if !reflect.DeepEqual(f.enqueued, wantPages) {
		t.Errorf("enqueued %+v, want %+v", f.enqueued, wantPages)
	}
	if got, want := messages(f.logs), []string{"Crawl started", "Engine chosen"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log entries %q, want %q", got, want)
	}
	for _, l := range f.logs {
		if l.CrawlID != c.ID || l.TeamID != c.TeamID {
			t.Errorf("entry %q belongs to crawl %s of team %s", l.Message, l.CrawlID, l.TeamID)
		}
	}
}

// TestStartCrawlPlan: the plan's bounds, engine, detection and task
// queues for the crawl's options and the server's settings.
func TestStartCrawlPlan(t *testing.T) {
	browser := settings
	browser.BrowserAvailable = true
	tests := []struct {
		name     string
		o        crawl.Options
		s        Settings
		budget   int
		batch    int
		engine   string
		detect   bool
		browserQ string
		llmQ     string
	}{
		{name: "auto without a stack detects", o: crawl.Options{EngineType: crawl.EngineAuto},
			s: browser, budget: 100, batch: 64, engine: crawl.EngineCheerio, detect: true, browserQ: "browser"},
		{name: "auto without browsers", o: crawl.Options{EngineType: crawl.EngineAuto},
			s: settings, budget: 100, batch: 64, engine: crawl.EngineCheerio},
		{name: "auto with a JavaScript stack", o: crawl.Options{EngineType: crawl.EngineAuto, Stack: "react"},
			s: browser, budget: 100, batch: 64, engine: crawl.EnginePlaywright, browserQ: "browser"},
		{name: "auto with a JavaScript stack and no browsers", o: crawl.Options{EngineType: crawl.EngineAuto, Stack: "react"},
			s: settings, budget: 100, batch: 64, engine: crawl.EngineCheerio},
		{name: "auto with a static stack", o: crawl.Options{EngineType: crawl.EngineAuto, Stack: "hugo"},
			s: browser, budget: 100, batch: 64, engine: crawl.EngineCheerio, browserQ: "browser"},
		{name: "cheerio asked for", o: crawl.Options{EngineType: crawl.EngineCheerio},
			s: browser, budget: 100, batch: 64, engine: crawl.EngineCheerio, browserQ: "browser"},
		{name: "playwright asked for", o: crawl.Options{EngineType: crawl.EnginePlaywright},
			s: browser, budget: 100, batch: 64, engine: crawl.EnginePlaywright, browserQ: "browser"},
		{name: "extraction", o: crawl.Options{Extraction: "the prices"},
			s: settings, budget: 100, batch: 64, engine: crawl.EngineCheerio, llmQ: "llm"},
		{name: "maxResults", o: crawl.Options{MaxResults: ptr(7)},
			s: settings, budget: 7, batch: 64, engine: crawl.EngineCheerio},
		{name: "maxResults above the server cap", o: crawl.Options{MaxResults: ptr(1000)},
			s: settings, budget: 100, batch: 64, engine: crawl.EngineCheerio},
		{name: "one page at a time", o: crawl.Options{MaxConcurrentPages: ptr(1)},
			s: settings, budget: 100, batch: 60, engine: crawl.EngineCheerio},
		{name: "many pages at a time", o: crawl.Options{MaxConcurrentPages: ptr(50)},
			s: settings, budget: 100, batch: 128, engine: crawl.EngineCheerio},
		{name: "sitemap", o: crawl.Options{UseSitemap: true, MaxResults: ptr(7)},
			s: settings, budget: 100, batch: 64, engine: crawl.EngineCheerio},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.StartURLs = []string{"https://example.com/"}
			c := newCrawl(tt.o)
			plan, err := startCrawl(context.Background(), &fakeStore{crawl: c}, tt.s, StartCrawlInput{CrawlID: c.ID.String()})
			if err != nil {
				t.Fatal(err)
			}
			want := CrawlPlan{Status: crawl.StatusRunning, Budget: tt.budget, BatchSize: tt.batch, TimeoutSeconds: 1800,
				UseSitemap: tt.o.UseSitemap, Engine: tt.engine, BrowserTaskQueue: tt.browserQ, Detect: tt.detect, LLMTaskQueue: tt.llmQ,
				StartURL: "https://example.com/", MaxConcurrency: tt.s.MaxConcurrentPages}
			if plan != want {
				t.Errorf("plan %+v, want %+v", plan, want)
			}
		})
	}
}

// TestStartCrawlTerminal: a crawl that already ended gets its plan, and
// nothing is queued or logged again.
func TestStartCrawlTerminal(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxResults: ptr(5)})
	c.Status = crawl.StatusAborted
	f := &fakeStore{crawl: c}
	plan, err := startCrawl(context.Background(), f, settings, StartCrawlInput{CrawlID: c.ID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Status != crawl.StatusAborted || plan.Budget != 5 || plan.BatchSize != 64 {
		t.Errorf("plan %+v, want status aborted, budget 5, batch size 64", plan)
	}
	if len(f.enqueued) != 0 || len(f.logs) != 0 {
		t.Errorf("a terminal crawl got %d pages queued and %d entries", len(f.enqueued), len(f.logs))
	}
}

// TestLoadCrawlErrors: a crawl that does not exist, or an ID that is not
// one, fails the activity for good; a store error is retried.
func TestLoadCrawlErrors(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	ctx := context.Background()

	_, err := startCrawl(ctx, &fakeStore{}, settings, StartCrawlInput{CrawlID: c.ID.String()})
	wantNonRetryable(t, err)
	if crawl.ErrorCode(err) != crawl.ENOTFOUND {
		t.Errorf("error %v, want the not-found error wrapped", err)
	}
	_, err = finishCrawl(ctx, &fakeStore{}, settings, FinishCrawlInput{CrawlID: "not-a-uuid", Status: crawl.StatusSucceeded})
	wantNonRetryable(t, err)

	down := errors.New("database down")
	_, err = startCrawl(ctx, &fakeStore{crawl: c, fail: map[string]error{"CrawlByID": down}}, settings, StartCrawlInput{CrawlID: c.ID.String()})
	if !errors.Is(err, down) {
		t.Errorf("error %v, want %v", err, down)
	}
	wantRetryable(t, err)
}

// TestStartCrawlStoreErrors: a failed enqueue or log write fails the
// activity with that error.
func TestStartCrawlStoreErrors(t *testing.T) {
	for _, method := range []string{"Enqueue", "InsertLogs"} {
		t.Run(method, func(t *testing.T) {
			c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
			down := errors.New("database down")
			f := &fakeStore{crawl: c, fail: map[string]error{method: down}}
			if _, err := startCrawl(context.Background(), f, settings, StartCrawlInput{CrawlID: c.ID.String()}); !errors.Is(err, down) {
				t.Errorf("error %v, want %v", err, down)
			}
		})
	}
}

// TestFinishCrawl: the crawl ends with the asked status and reason; with
// its budget spent and pages left, the limit entry comes before the last
// one.
func TestFinishCrawl(t *testing.T) {
	tests := []struct {
		name        string
		budgetSpent bool
		queued      int
		want        []string
	}{
		{name: "done", want: []string{"Crawl succeeded"}},
		{name: "budget spent, pages left", budgetSpent: true, queued: 3, want: []string{"maxResults reached", "Crawl succeeded"}},
		{name: "budget spent, no page left", budgetSpent: true, want: []string{"Crawl succeeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, MaxResults: ptr(2)})
			c.TotalPages = 2
			f := &fakeStore{crawl: c, counts: map[crawl.PageState]int{crawl.PageQueued: tt.queued, crawl.PageStored: 2}}
			res, err := finishCrawl(context.Background(), f, settings, FinishCrawlInput{CrawlID: c.ID.String(),
				Status: crawl.StatusSucceeded, Reason: "all done", BudgetSpent: tt.budgetSpent})
			if err != nil {
				t.Fatal(err)
			}
			if res != (FinishCrawlResult{Status: crawl.StatusSucceeded, TotalPages: 2}) {
				t.Errorf("result %+v", res)
			}
			if !reflect.DeepEqual(f.ended, []crawl.Status{crawl.StatusSucceeded}) || f.endReason != "all done" {
				t.Errorf("ended with %v (%q), want succeeded (all done)", f.ended, f.endReason)
			}
			// A workflow of today sends a typed cause, worded by crawllog.
			f2 := &fakeStore{crawl: newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})}
			if _, err := finishCrawl(context.Background(), f2, settings, FinishCrawlInput{CrawlID: f2.crawl.ID.String(),
				Status: crawl.StatusTimedOut, Cause: crawllog.TimedOut(60)}); err != nil {
				t.Fatal(err)
			}
			if want := crawllog.TimedOut(60).Sentence(); f2.endReason != want {
				t.Errorf("ended because %q, want %q", f2.endReason, want)
			}
			if got := messages(f.logs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("log entries %q, want %q", got, tt.want)
			}
			if tt.queued > 0 && f.logs[0].Data["notCrawled"] != tt.queued {
				t.Errorf("limit entry data %v, want notCrawled %d", f.logs[0].Data, tt.queued)
			}
		})
	}
}

// TestFinishCrawlEndedElsewhere: when another party ended the crawl
// first, the result carries its status, and a spent budget is not
// counted.
func TestFinishCrawlEndedElsewhere(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	c.Status, c.TotalPages = crawl.StatusAborted, 4
	f := &fakeStore{crawl: c, counts: map[crawl.PageState]int{crawl.PageQueued: 3}}
	res, err := finishCrawl(context.Background(), f, settings, FinishCrawlInput{CrawlID: c.ID.String(),
		Status: crawl.StatusSucceeded, BudgetSpent: true})
	if err != nil {
		t.Fatal(err)
	}
	if res != (FinishCrawlResult{Status: crawl.StatusAborted, TotalPages: 4}) {
		t.Errorf("result %+v, want aborted with 4 pages", res)
	}
	if n := f.called("CountPages"); n != 0 {
		t.Errorf("pages counted %d times for a crawl that had ended", n)
	}
	if got := messages(f.logs); !reflect.DeepEqual(got, []string{"Crawl aborted"}) {
		t.Errorf("log entries %q", got)
	}
}

// TestFinishCrawlRefusesRunning: a crawl is not finished with a status
// that is not terminal, and the refusal is final.
func TestFinishCrawlRefusesRunning(t *testing.T) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
	f := &fakeStore{crawl: c}
	_, err := finishCrawl(context.Background(), f, settings, FinishCrawlInput{CrawlID: c.ID.String(), Status: crawl.StatusRunning})
	wantNonRetryable(t, err)
	if len(f.ended) != 0 || len(f.logs) != 0 {
		t.Errorf("the crawl was ended (%v) or logged (%d entries)", f.ended, len(f.logs))
	}
}

// TestFinishCrawlStoreErrors: a failed count, limit entry or ending fails
// the activity with that error.
func TestFinishCrawlStoreErrors(t *testing.T) {
	for _, method := range []string{"CountPages", "InsertLogs", "EndCrawl"} {
		t.Run(method, func(t *testing.T) {
			c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}})
			down := errors.New("database down")
			f := &fakeStore{crawl: c, counts: map[crawl.PageState]int{crawl.PageQueued: 1}, fail: map[string]error{method: down}}
			_, err := finishCrawl(context.Background(), f, settings, FinishCrawlInput{CrawlID: c.ID.String(),
				Status: crawl.StatusSucceeded, BudgetSpent: true})
			if !errors.Is(err, down) {
				t.Errorf("error %v, want %v", err, down)
			}
		})
	}
}
