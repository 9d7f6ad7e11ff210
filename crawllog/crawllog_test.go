package crawllog

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/hostbudget"
)

func testCrawl(edit func(*crawl.Crawl)) *crawl.Crawl {
	c := &crawl.Crawl{ID: uuid.New(), TeamID: uuid.New(), Status: crawl.StatusRunning}
	c.StartURLs, c.MaxDepth, c.EngineType, c.TimeoutSeconds = []string{"https://example.com/"}, 3, crawl.EngineAuto, 600
	if edit != nil {
		edit(c)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// check fails t unless e has the level, the message and a description
// holding every part of want.
func check(t *testing.T, name string, e crawl.CrawlLog, level Level, message string, want ...string) {
	t.Helper()
	if e.Level != string(level) || e.Message != message {
		t.Errorf("%s: %s %q, want %s %q", name, e.Level, e.Message, level, message)
	}
	for _, w := range want {
		if !strings.Contains(e.Description, w) {
			t.Errorf("%s: description %q lacks %q", name, e.Description, w)
		}
	}
	if _, ok := e.Data["url"]; !ok {
		t.Errorf("%s: data without url: %v", name, e.Data)
	}
	if _, ok := e.Data["statusCode"]; !ok {
		t.Errorf("%s: data without statusCode: %v", name, e.Data)
	}
}

func TestPageEntries(t *testing.T) {
	c := testCrawl(func(c *crawl.Crawl) { c.Extraction = "the price" })
	stored := crawl.Page{ID: 7, URL: "https://example.com/a", State: crawl.PageStored, StatusCode: ptr(200), FetchMS: ptr(12),
		Title: ptr("A"), ExtractedAt: ptr(time.Now())}
	for _, tc := range []struct {
		name    string
		page    crawl.Page
		level   Level
		message string
		want    string
		entries int
	}{
		{"stored", stored, Info, "Page crawled", "Fetched https://example.com/a (depth 0, status 200, 12 ms)", 1},
		{"stored with a note", with(stored, func(p *crawl.Page) { p.Error = ptr("the response was cut off at 10 bytes") }),
			Warn, "Page crawled", "Note: the response was cut off at 10 bytes.", 1},
		{"fragments removed", with(stored, func(p *crawl.Page) { p.Fragments, p.FragmentsRemoved = ptr(5), ptr(2) }),
			Info, "Page crawled", "2 of its 5 text fragments already appeared", 1},
		{"all fragments removed", with(stored, func(p *crawl.Page) { p.Fragments, p.FragmentsRemoved = ptr(5), ptr(5) }),
			Info, "Page crawled", "its deduplicated markdown is empty", 1},
		{"words counted", with(stored, func(p *crawl.Page) {
			p.Words = json.RawMessage(`{"kept":420,"sections":30,"around":4,"outvoted":55}`)
		}), Info, "Page crawled", "Its markdown holds 420 words; of the page's others, 30 in sections named or laid out as the site's furniture " +
			"(navigation, header, footer, comments, related stories), 4 around the article (asides, bylines, credits, other stories after it), " +
			"55 that neither independent extractor took for the article (what followed it, short lines in it).", 1},
		{"extraction failed", with(stored, func(p *crawl.Page) { p.ExtractionError = ptr("refused") }),
			Info, "Page crawled", "and stored its markdown", 2},
		{"extraction never finished", with(stored, func(p *crawl.Page) { p.ExtractedAt = nil }),
			Info, "Page crawled", "and stored its markdown", 2},
		{"404 is the site's state", crawl.Page{ID: 8, URL: "https://example.com/gone", State: crawl.PageFailed, StatusCode: ptr(404),
			Error: ptr("the server answered 404")}, Error, "Page failed", "Could not crawl https://example.com/gone: the server answered 404.", 1},
		{"429 is a failure", crawl.Page{ID: 9, URL: "https://example.com/busy", State: crawl.PageFailed, StatusCode: ptr(429),
			Error: ptr("the server answered 429")}, Error, "Page failed", "answered 429", 1},
		{"404 after retries", crawl.Page{ID: 10, URL: "https://example.com/x", State: crawl.PageFailed, StatusCode: ptr(404), Attempts: 2,
			Error: ptr("the server answered 404 (after 3 attempts)")}, Error, "Page failed", "after 3 attempts", 1},
		{"skipped", crawl.Page{ID: 11, URL: "https://example.com/r", State: crawl.PageSkipped, Error: ptr("disallowed by the site's robots.txt")},
			Info, "Page skipped", "Skipped https://example.com/r: disallowed by the site's robots.txt.", 1},
		{"duplicate", crawl.Page{ID: 12, URL: "https://example.com/a?id=b", State: crawl.PageDuplicate, DuplicateOf: ptr(int64(3)),
			Error: ptr(SameContent(3, "https://example.com/a"))}, Info, "Page repeats another",
			"Fetched https://example.com/a?id=b: the same content as https://example.com/a (page 3), which the crawl keeps", 1},
	} {
		entries := Pages(c, tc.page)
		if len(entries) != tc.entries {
			t.Errorf("%s: %d entries, want %d", tc.name, len(entries), tc.entries)
			continue
		}
		check(t, tc.name, entries[0], tc.level, tc.message, tc.want)
		if entries[0].Key != fmt.Sprintf("page:%d", tc.page.ID) {
			t.Errorf("%s: key %q", tc.name, entries[0].Key)
		}
		if tc.entries == 2 {
			check(t, tc.name, entries[1], Error, "Extraction failed", "The page is kept without an extraction.")
		}
	}
	for _, s := range []crawl.PageState{crawl.PageQueued, crawl.PageClaimed, crawl.PageFetched, crawl.PageConverted} {
		if got := Pages(c, crawl.Page{State: s}); got != nil {
			t.Errorf("a page %s has entries: %v", s, got)
		}
	}
}

func with(p crawl.Page, edit func(*crawl.Page)) crawl.Page {
	edit(&p)
	return p
}

func TestCrawlEntries(t *testing.T) {
	c := testCrawl(nil)
	check(t, "start", Started(c, 100, 16), Info, "Crawl started", "Crawling https://example.com/ (maxDepth 3, engine auto, 16 pages at a time, timeout 600s)")
	unbounded := testCrawl(func(c *crawl.Crawl) { c.EntireWebsite = true })
	check(t, "start unbounded", Started(unbounded, 5000, 4), Info, "Crawl started", "no depth limit, up to 5000 pages")

	check(t, "engine auto", EngineChosen(c, crawl.EngineCheerio), Info, "Engine chosen", "unless the start page turns out to need JavaScript")
	react := testCrawl(func(c *crawl.Crawl) { c.Stack = "react" })
	check(t, "react with a browser", EngineChosen(react, crawl.EnginePlaywright), Info, "Engine chosen", "rendered by the browser engine")
	check(t, "react without a browser", EngineChosen(react, crawl.EngineCheerio), Warn, "Engine chosen", "which this server does not run")
	asked := testCrawl(func(c *crawl.Crawl) { c.EngineType = crawl.EngineCheerio })
	check(t, "engine asked for", EngineChosen(asked, crawl.EngineCheerio), Info, "Engine chosen", "as the crawl asks")
	check(t, "engine switch", EngineSwitched(c, []JavaScriptPage{{URL: "https://example.com/", Sign: crawl.JavaScriptSign{Kind: crawl.SignNoTextScripts, Scripts: 4}}}),
		Info, "Engine switched", "(https://example.com/: the page shows no text without its 4 scripts)")

	check(t, "no sitemap", SitemapRead(c, nil, 0), Warn, "No sitemap found", "follows links instead")
	check(t, "empty sitemap", SitemapRead(c, []string{"https://example.com/sitemap.xml"}, 0), Warn, "Sitemap lists no page in scope")
	check(t, "sitemap", SitemapRead(c, []string{"https://example.com/sitemap.xml"}, 12), Info, "Sitemap read", "Queued 12 pages from 1 sitemaps")

	paused := hostbudget.Wait{Host: "example.com", Until: time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC),
		Cause: hostbudget.Throttle{Status: 429, RetryAfter: 30 * time.Second}}
	check(t, "host paused", HostThrottled(c, paused), Warn, "Waiting for the site",
		"Requests to example.com wait until 10:00:30: the site answered 429 with Retry-After 30s.")
	// A Retry-After under half a second is still named; a throttle
	// another worker recorded without its status still reads.
	short := hostbudget.Wait{Host: "example.com", Until: time.Date(2026, 11, 27, 10, 0, 1, 0, time.UTC),
		Cause: hostbudget.Throttle{Status: 429, RetryAfter: 300 * time.Millisecond}}
	check(t, "host paused briefly", HostThrottled(c, short), Warn, "Waiting for the site", "the site answered 429 with Retry-After 0s.")
	unknown := hostbudget.Wait{Host: "example.com", Until: short.Until}
	check(t, "host paused, cause unknown", HostThrottled(c, unknown), Warn, "Waiting for the site", "the site asked for fewer requests.")
	slowed := hostbudget.Wait{Host: "example.com", Cause: hostbudget.Throttle{Status: 503}, Limit: 8, Since: time.Unix(1, 0)}
	check(t, "host slowed", HostThrottled(c, slowed), Warn, "Slowing down for the site",
		"Requests to example.com wait for their turn: the site answered 503. Every crawl of the site sends it at most 8 requests at once")

	retry := Retried(c, crawl.Page{ID: 3, URL: "https://example.com/a"}, 503, crawl.PageCause{Kind: crawl.PageStatus, Status: 503}, crawl.Retry{Attempt: 2, Attempts: 6, In: 2 * time.Second})
	check(t, "retry", retry, Warn, "Page retried", "Attempt 2 of 6 to fetch https://example.com/a failed: the server answered 503. It is tried again in 2s.")
	if retry.Key != "retry:3:2" {
		t.Errorf("retry key %q", retry.Key)
	}

	limited := testCrawl(func(c *crawl.Crawl) { c.MaxResults = ptr(10) })
	check(t, "maxResults", LimitReached(limited, 1000, 7), Info, "maxResults reached", "maxResults (10 pages); 7 discovered pages")
	check(t, "server cap", LimitReached(unbounded, 1000, 7), Warn, "Server page cap reached", "cap of 1000 pages per crawl")
}

// fakeEnder ends the crawl it holds as the database would.
type fakeEnder struct {
	crawl    *crawl.Crawl
	unlogged []crawl.Page
	written  []crawl.CrawlLog
}

func (f *fakeEnder) EndCrawl(_ context.Context, _ uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	if !f.crawl.Status.Terminal() {
		f.crawl.Status, f.crawl.ErrorMessage = status, message
		now := f.crawl.CreatedAt.Add(90 * time.Second)
		f.crawl.CompletedAt = &now
	}
	f.written = append(f.written, logs(f.crawl, f.unlogged)...)
	return f.crawl, nil
}

func TestEnd(t *testing.T) {
	store := &fakeEnder{crawl: testCrawl(func(c *crawl.Crawl) { c.TotalPages = 4; c.CreatedAt = time.Now() }),
		unlogged: []crawl.Page{{ID: 1, URL: "https://example.com/x", State: crawl.PageSkipped, Error: ptr("the crawl ended before this page was finished")}}}
	got, err := End(context.Background(), store, store.crawl.ID, crawl.StatusAborted, Because(EndAbortedByAPI))
	if err != nil || got.Status != crawl.StatusAborted {
		t.Fatalf("End: %v %v", got, err)
	}
	if len(store.written) != 2 {
		t.Fatalf("End wrote %d entries, want the unlogged page's and the last", len(store.written))
	}
	check(t, "unlogged page", store.written[0], Info, "Page skipped", "the crawl ended before this page was finished")
	last := store.written[1]
	check(t, "end", last, Warn, "Crawl aborted", "The crawl ended aborted with 4 pages. The crawl was aborted through the API.")
	if last.Key != "end" || last.Data["durationInSeconds"] != int64(90) {
		t.Errorf("end entry: key %q, data %v", last.Key, last.Data)
	}

	// Ended by another party first: the entry tells that ending.
	store.written = nil
	if got, _ := End(context.Background(), store, store.crawl.ID, crawl.StatusSucceeded, Because(EndDone)); got.Status != crawl.StatusAborted {
		t.Errorf("a second End changed the status to %s", got.Status)
	}
	check(t, "end again", store.written[1], Warn, "Crawl aborted", "The crawl was aborted through the API.")

	for status, level := range map[crawl.Status]Level{crawl.StatusSucceeded: Info, crawl.StatusFailed: Error,
		crawl.StatusTimedOut: Warn, crawl.StatusError: Error} {
		c := testCrawl(func(c *crawl.Crawl) { c.Status = status })
		if e := Ended(c, status, ""); e.Level != string(level) || e.Message == "" {
			t.Errorf("ended %s: level %s, message %q", status, e.Level, e.Message)
		}
	}
}

// Every kind of ending has its own sentence; only EndDone has none.
func TestEndCauseSentences(t *testing.T) {
	seen := map[string]EndKind{}
	for _, k := range []EndKind{EndTimeout, EndNothingCrawled, EndCancelled, EndInternal, EndAbortedByAPI, EndNotStarted,
		EndWorkflowMissing, EndWorkflowTerminate, EndWorkflowTimedOut, EndWorkflowCancelled, EndWorkflowFailed, EndWorkflowNoStatus} {
		s := EndCause{Kind: k, TimeoutSeconds: 60, Detail: "boom"}.Sentence()
		if s == "" || strings.Contains(s, "The crawl ended (") {
			t.Errorf("%s: %q", k, s)
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s share %q", k, other, s)
		}
		seen[s] = k
	}
	if s := Because(EndDone).Sentence(); s != "" {
		t.Errorf("EndDone: %q", s)
	}
	if s := TimedOut(90).Sentence(); !strings.Contains(s, "90 seconds") {
		t.Errorf("TimedOut(90): %q", s)
	}
	if s := Internal("the database is gone").Sentence(); s != "Internal error: the database is gone" {
		t.Errorf("Internal: %q", s)
	}
}
