package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/urlpattern"
)

// TestNoteDuplicates: a pattern of addresses found MinPatternDuplicates
// times to lead to duplicates stops, once: its queued pages are skipped,
// the crawl's log says so, and the crawl's stopped patterns name it (the
// batches enqueue no links to it); a pattern that names result pages of
// their own does not stop.
func TestNoteDuplicates(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	var queued []db.NewPage
	for i := range 8 {
		queued = append(queued, page(fmt.Sprintf("/guide?id=h%d", i), 2, fmt.Sprintf("%06d", i)))
	}
	queued = append(queued, page("/other", 2, "000100"), page("/list?page=2", 1, "000"), page("/list?page=3", 1, "001"))
	if _, err := store.Enqueue(ctx, c.ID, queued); err != nil {
		t.Fatal(err)
	}
	// The two list pages are results of their own under ?page=.
	claimed, err := store.ClaimBatch(ctx, c.ID, 0, 2, db.ClaimAll)
	if err != nil || len(claimed) != 2 {
		t.Fatal(claimed, err)
	}
	var outs []db.FetchOutcome
	for i, p := range claimed {
		outs = append(outs, db.FetchOutcome{PageID: p.ID, State: crawl.PageConverted, StatusCode: 200,
			Converted: &db.Converted{Markdown: fmt.Sprint("list ", i)}})
	}
	if _, err := store.SaveFetches(ctx, c.ID, outs, words); err != nil {
		t.Fatal(err)
	}
	var logs int
	w := db.PatternWords{
		Skipped: func(p urlpattern.Pattern) string { return "skipped under " + p.String() },
		Stopped: func(p urlpattern.Pattern, duplicates, skipped int) crawl.CrawlLog {
			logs++
			return crawl.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: "pattern:" + string(p), Level: "info",
				Message: "Address pattern skipped", Description: fmt.Sprintf("%d duplicates, %d skipped", duplicates, skipped)}
		},
	}
	id, listed := urlpattern.Pattern("query:id"), urlpattern.Pattern("query:page")
	for i := 1; i <= db.MinPatternDuplicates+1; i++ {
		stopped, err := store.NoteDuplicates(ctx, c.ID, []urlpattern.Pattern{id, listed}, w)
		if err != nil {
			t.Fatal(err)
		}
		if want := i == db.MinPatternDuplicates; (len(stopped) == 1 && stopped[0] == id) != want || len(stopped) > 1 {
			t.Errorf("after %d duplicates: stopped %v", i, stopped)
		}
	}
	if logs != 1 {
		t.Errorf("%d log entries, want one", logs)
	}
	if got, err := store.StoppedPatterns(ctx, c.ID); err != nil || len(got) != 1 || got[0] != id {
		t.Errorf("stopped patterns %v (%v), want %s", got, err, id)
	}
	var got []crawl.Page
	if err := store.DB().NewSelect().Model(&got).Where("crawl_id = ?", c.ID).Order("id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	states := map[string]crawl.PageState{}
	for _, p := range got {
		states[p.URL[len("https://example.com"):]] = p.State
		if p.State == crawl.PageSkipped && deref(p.Error) != `skipped under the query parameter "id"` {
			t.Errorf("%s skipped for %q", p.URL, deref(p.Error))
		}
	}
	for path, want := range map[string]crawl.PageState{"/guide?id=h0": crawl.PageSkipped, "/guide?id=h7": crawl.PageSkipped,
		"/other": crawl.PageQueued, "/list?page=2": crawl.PageConverted} {
		if states[path] != want {
			t.Errorf("%s: %q, want %q", path, states[path], want)
		}
	}
}
