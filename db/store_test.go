package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/internal/testenv"
)

var store *db.Store

func TestMain(m *testing.M) {
	database, _, drop, err := testenv.Database(context.Background(), "crawler_db")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	store = db.NewStore(database)
	code := m.Run()
	drop()
	os.Exit(code)
}

// newCrawl stores a running crawl of a new team.
func newCrawl(t testing.TB) *crawl.Crawl {
	t.Helper()
	o, err := crawl.ParseRequest([]byte(`{"startUrl":"https://example.com/","maxResults":3}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	return insertCrawl(t, o)
}

func page(path string, depth int, rank string) db.NewPage {
	return db.NewPage{URL: "https://example.com" + path, NormalizedURL: "https://example.com" + path, Depth: depth, Rank: rank}
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	brand := "b1"
	k1, err := store.CreateAPIKey(ctx, "keys-team", &brand)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := store.CreateAPIKey(ctx, "keys-team", nil)
	if err != nil {
		t.Fatal(err)
	}
	p1, err1 := store.Authenticate(ctx, k1)
	p2, err2 := store.Authenticate(ctx, k2)
	if err1 != nil || err2 != nil || p1.TeamID != p2.TeamID {
		t.Fatalf("two keys of one team: %v %v %v %v", p1, p2, err1, err2)
	}
	if p1.BrandID == nil || *p1.BrandID != "b1" || p2.BrandID != nil {
		t.Errorf("brands: %v, %v", p1.BrandID, p2.BrandID)
	}
	if _, err := store.Authenticate(ctx, "ck_unknown"); crawl.ErrorCode(err) != crawl.EUNAUTHORIZED {
		t.Errorf("unknown key: %v", err)
	}
	var stored int
	if err := store.DB().NewSelect().Table("api_keys").ColumnExpr("count(*)").Where("key_hash = ?", k1).Scan(ctx, &stored); err != nil || stored != 0 {
		t.Errorf("a key is stored in clear (%d rows, %v)", stored, err)
	}
}

// TestRevokeAPIKey: keys are listed by team without the key itself; a
// revoked key, named by its ID or by the key, authenticates no more.
func TestRevokeAPIKey(t *testing.T) {
	ctx := context.Background()
	team := "revoke-" + uuid.NewString()
	k1, err1 := store.CreateAPIKey(ctx, team, nil)
	k2, err2 := store.CreateAPIKey(ctx, team, nil)
	k3, err3 := store.CreateAPIKey(ctx, "other-"+team, nil)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	keys, err := store.ListAPIKeys(ctx, team)
	if err != nil || len(keys) != 2 {
		t.Fatalf("ListAPIKeys: %d keys, %v; want 2", len(keys), err)
	}
	for i, k := range []string{k1, k2} {
		if keys[i].Team != team || keys[i].Prefix != k[:9] || keys[i].RevokedAt != nil || keys[i].ID == uuid.Nil {
			t.Errorf("key %d listed as %+v", i, keys[i])
		}
	}
	p1, _ := store.Authenticate(ctx, k1)
	if p1.KeyID != keys[0].ID {
		t.Errorf("principal's key ID %s, want %s", p1.KeyID, keys[0].ID)
	}

	if _, err := store.RevokeAPIKey(ctx, keys[0].ID.String()); err != nil {
		t.Fatal(err)
	}
	got, err := store.RevokeAPIKey(ctx, k2) // by the key itself
	if err != nil || got.ID != keys[1].ID || got.RevokedAt == nil {
		t.Fatalf("revoke by key: %+v, %v", got, err)
	}
	for _, k := range []string{k1, k2} {
		if _, err := store.Authenticate(ctx, k); crawl.ErrorCode(err) != crawl.EUNAUTHORIZED {
			t.Errorf("a revoked key authenticates: %v", err)
		}
	}
	if _, err := store.Authenticate(ctx, k3); err != nil {
		t.Errorf("another team's key was revoked too: %v", err)
	}
	again, err := store.RevokeAPIKey(ctx, k2)
	if err != nil || !again.RevokedAt.Equal(*got.RevokedAt) {
		t.Errorf("revoking twice moved the time: %v then %v (%v)", got.RevokedAt, again.RevokedAt, err)
	}
	_, err = store.RevokeAPIKey(ctx, "ck_unknownunknownunknown")
	if crawl.ErrorCode(err) != crawl.ENOTFOUND || strings.Contains(err.Error(), "unknownunknown") {
		t.Errorf("unknown key: %v, want not found without the key", err)
	}
}

// TestRunningCrawls: the reconciler's list holds what it decides on: a
// running crawl's ID, workflow, age and schedule.
func TestRunningCrawls(t *testing.T) {
	ctx := context.Background()
	first := newCrawl(t)
	id, schedule := uuid.New(), uuid.New()
	created := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(time.Now().UnixNano() % int64(time.Hour))).Truncate(time.Microsecond)
	c := crawl.NewCrawl(id, first.TeamID, nil, "crawl-"+id.String(), first.Options, json.RawMessage(`{}`), created)
	c.ScheduleID = &schedule
	if err := store.InsertCrawl(ctx, c); err != nil {
		t.Fatal(err)
	}
	running, err := store.RunningCrawls(ctx, created.Add(time.Second), uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(running, func(r crawl.Crawl) bool { return r.ID == id })
	if i < 0 {
		t.Fatalf("crawl %s not listed among %d running crawls", id, len(running))
	}
	got := running[i]
	if got.WorkflowID != c.WorkflowID || !got.CreatedAt.Equal(created) || got.ScheduleID == nil || *got.ScheduleID != schedule {
		t.Errorf("running crawl read as %s, %s, schedule %v; want %s, %s, schedule %s", got.WorkflowID, got.CreatedAt, got.ScheduleID,
			c.WorkflowID, created, schedule)
	}
}

// TestListCrawls: a team's crawls, newest first, filtered by status.
func TestListCrawls(t *testing.T) {
	ctx := context.Background()
	first := newCrawl(t)
	var ids []uuid.UUID
	for i := range 5 {
		id := uuid.New()
		o := first.Options
		c := crawl.NewCrawl(id, first.TeamID, nil, "crawl-"+id.String(), o, json.RawMessage(`{}`), first.CreatedAt.Add(time.Duration(i+1)*time.Second))
		if err := store.InsertCrawl(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, _, err := store.SetEndStatus(ctx, ids[1], crawl.StatusSucceeded, ""); err != nil {
		t.Fatal(err)
	}
	newCrawl(t) // another team's
	got, total, err := store.ListCrawls(ctx, first.TeamID, "", 1, 4)
	if err != nil || total != 6 || len(got) != 4 || got[0].ID != ids[4] || got[3].ID != ids[1] {
		t.Fatalf("page 1: %d of %d, %v", len(got), total, err)
	}
	got, _, _ = store.ListCrawls(ctx, first.TeamID, "", 2, 4)
	if len(got) != 2 || got[1].ID != first.ID {
		t.Errorf("page 2: %d crawls, want the 2 oldest", len(got))
	}
	got, total, _ = store.ListCrawls(ctx, first.TeamID, crawl.StatusSucceeded, 1, 10)
	if total != 1 || len(got) != 1 || got[0].ID != ids[1] {
		t.Errorf("succeeded: %d of %d", len(got), total)
	}
}

func TestClaimBatchIsRepeatable(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/b", 1, "001"), page("/a", 1, "000"), page("/", 0, "000"), page("/c", 2, "000000")}); err != nil {
		t.Fatal(err)
	}
	first, err := store.ClaimBatch(ctx, c.ID, 0, 3, db.ClaimAll)
	if err != nil {
		t.Fatal(err)
	}
	again, err := store.ClaimBatch(ctx, c.ID, 0, 3, db.ClaimAll)
	if err != nil {
		t.Fatal(err)
	}
	var got, gotAgain []string
	for i := range first {
		got = append(got, first[i].URL)
	}
	for i := range again {
		gotAgain = append(gotAgain, again[i].URL)
	}
	want := "https://example.com/ https://example.com/a https://example.com/b"
	if fmt.Sprint(got) != "["+want+"]" || fmt.Sprint(gotAgain) != fmt.Sprint(got) {
		t.Errorf("claims %v then %v, want [%s] twice", got, gotAgain, want)
	}
	next, err := store.ClaimBatch(ctx, c.ID, 1, 3, db.ClaimAll)
	if err != nil || len(next) != 1 || next[0].URL != "https://example.com/c" {
		t.Errorf("batch 1 = %v, %v", next, err)
	}
}

// TestClaimModes: a page sent back for the browser is left by static
// batches, counted as queued for the browser, and claimed by a browser
// batch; a crawl on one engine claims it like any page.
func TestClaimModes(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/", 0, "000"), page("/app", 1, "000000"), page("/doc", 1, "000001")}); err != nil {
		t.Fatal(err)
	}
	first, err := store.ClaimBatch(ctx, c.ID, 0, 10, db.ClaimStatic)
	if err != nil || len(first) != 3 {
		t.Fatalf("first static batch: %d pages, %v", len(first), err)
	}
	// /app needs JavaScript (one statement for the group); /doc is
	// saved page by page when the group cannot be, so both paths run.
	outs := []db.FetchOutcome{
		{PageID: first[0].ID, State: crawl.PageFetched, HTML: "<p>home</p>", StatusCode: 200},
		{PageID: first[1].ID, State: crawl.PageQueued, Render: true, Error: "needs JavaScript"},
		{PageID: first[2].ID, State: crawl.PageQueued, RetryIn: time.Millisecond},
	}
	if _, err := store.SaveFetches(ctx, c.ID, outs, words); err != nil {
		t.Fatal(err)
	}
	if n, err := store.RenderQueued(ctx, c.ID); err != nil || n != 1 {
		t.Errorf("RenderQueued = %d, %v; want 1", n, err)
	}
	time.Sleep(5 * time.Millisecond) // /doc's retry comes due
	static, err := store.ClaimBatch(ctx, c.ID, 1, 10, db.ClaimStatic)
	if err != nil || len(static) != 1 || static[0].URL != "https://example.com/doc" {
		t.Errorf("static batch after the hand-off: %v, %v; want /doc only", static, err)
	}
	rendered, err := store.ClaimBatch(ctx, c.ID, 2, 10, db.ClaimRender)
	if err != nil || len(rendered) != 1 || rendered[0].URL != "https://example.com/app" {
		t.Errorf("browser batch: %v, %v; want /app", rendered, err)
	}
	if n, _ := store.RenderQueued(ctx, c.ID); n != 0 {
		t.Errorf("RenderQueued after the browser batch = %d", n)
	}
}

func TestEnqueueKeepsTheClosestDiscovery(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/x", 3, "000000001")}); err != nil {
		t.Fatal(err)
	}
	// Found again closer to the start: moves up. Found again farther: stays.
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/x", 2, "000005")}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/x", 2, "000009"), page("/x", 4, "0")}); err != nil {
		t.Fatal(err)
	}
	pages, err := store.ClaimBatch(ctx, c.ID, 0, 10, db.ClaimAll)
	if err != nil || len(pages) != 1 {
		t.Fatalf("claim: %v %v", pages, err)
	}
	if pages[0].Depth != 2 || pages[0].Rank != "000005" {
		t.Errorf("depth %d rank %q, want 2 and 000005", pages[0].Depth, pages[0].Rank)
	}
}

// TestEnqueueSkipped: a link known never to be fetched (robots.txt
// disallows it) is recorded skipped with its cause, never claimed, and
// listed among the page errors with that cause; a failed page's cause is
// kept by SaveFetches.
func TestEnqueueSkipped(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	blocked := page("/private/x", 1, "000001")
	blocked.Skipped, blocked.Error = crawl.PageRobotsDisallowed, "disallowed by robots.txt"
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/", 0, "000"), blocked}); err != nil {
		t.Fatal(err)
	}
	pages, err := store.ClaimBatch(ctx, c.ID, 0, 10, db.ClaimAll)
	if err != nil || len(pages) != 1 || pages[0].URL != "https://example.com/" {
		t.Fatalf("claimed %v (%v), want the start page alone", pages, err)
	}
	if _, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{{PageID: pages[0].ID, State: crawl.PageFailed, StatusCode: 404,
		Error: "the server answered 404", Cause: crawl.PageStatus}}, words); err != nil {
		t.Fatal(err)
	}
	errs, err := store.ListPageErrors(ctx, c.ID, 10)
	if err != nil || len(errs) != 2 {
		t.Fatalf("page errors %v (%v)", errs, err)
	}
	for _, p := range errs {
		want := map[string]string{"https://example.com/": "status", "https://example.com/private/x": "robots-disallowed"}[p.URL]
		if p.Cause == nil || *p.Cause != want || p.Error == nil || *p.Error == "" {
			t.Errorf("%s: cause %v, error %v, want %s", p.URL, p.Cause, p.Error, want)
		}
	}
}

func TestSaveFetchAndStorePageAreIdempotent(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/", 0, "000")}); err != nil {
		t.Fatal(err)
	}
	pages, err := store.ClaimBatch(ctx, c.ID, 0, 1, db.ClaimAll)
	if err != nil || len(pages) != 1 {
		t.Fatal(pages, err)
	}
	out := db.FetchOutcome{PageID: pages[0].ID, State: crawl.PageFetched, StatusCode: 200, HTML: "<p>hi</p>",
		Links: []db.NewPage{page("/a", 1, "000000"), page("/b", 1, "000001")}}
	for i := 0; i < 2; i++ {
		saved, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{out}, words)
		if err != nil {
			t.Fatal(err)
		}
		// The second save finds the page saved: its links were enqueued
		// by the first.
		if want := []int64{pages[0].ID}; i == 0 && !slices.Equal(saved, want) || i == 1 && len(saved) != 0 {
			t.Errorf("save %d returned pages %v", i+1, saved)
		}
	}
	counts, err := store.CountPages(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if counts[crawl.PageFetched] != 1 || counts[crawl.PageQueued] != 2 {
		t.Errorf("after two saves: %v", counts)
	}
	conv := []db.Converted{{PageID: pages[0].ID, Title: "Hi", Markdown: "hi"}}
	for i := 0; i < 2; i++ {
		if err := store.SaveConverted(ctx, c.ID, conv); err != nil {
			t.Fatal(err)
		}
	}
	stored1, err1 := store.StoreConverted(ctx, c.ID, 0, 3)
	stored2, err2 := store.StoreConverted(ctx, c.ID, 0, 3)
	if err1 != nil || err2 != nil || stored1.Stored != 1 || stored2.Stored != 0 {
		t.Errorf("StoreConverted twice: %v %v %v %v, want 1 then 0", stored1, err1, stored2, err2)
	}
	got, err := store.CrawlByID(ctx, c.ID)
	if err != nil || got.TotalPages != 1 {
		t.Errorf("totalPages = %d (%v), want 1", got.TotalPages, err)
	}
}

// TestSaveFetchesConverted: a page converted as it was fetched is saved
// converted, with its markdown, title, noindex mark and note and without
// HTML, by the one statement of a group and, when the database refuses
// the group, page by page; the pages beside it keep their own states.
func TestSaveFetchesConverted(t *testing.T) {
	ctx := context.Background()
	for _, refused := range []bool{false, true} {
		c := newCrawl(t)
		for i, p := range []string{"/1", "/2", "/3"} {
			if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page(p, 0, fmt.Sprintf("%03d", i))}); err != nil {
				t.Fatal(err)
			}
		}
		pages, err := store.ClaimBatch(ctx, c.ID, 0, 3, db.ClaimAll)
		if err != nil || len(pages) != 3 {
			t.Fatal(pages, err)
		}
		outs := []db.FetchOutcome{
			{PageID: pages[0].ID, State: crawl.PageConverted, StatusCode: 200, Error: "cut at 1 MB",
				Converted: &db.Converted{Title: "One", Markdown: "# One\n\ntext", ConvertMS: 3, NoIndex: true}},
			{PageID: pages[1].ID, State: crawl.PageSkipped, StatusCode: 200, Error: "could not convert the page: broken"},
			{PageID: pages[2].ID, State: crawl.PageConverted, StatusCode: 200, Converted: &db.Converted{Title: "Three", Markdown: "three"},
				Links: []db.NewPage{page("/4", 1, "000000")}},
		}
		if refused {
			// A state the table's check refuses: the group statement
			// fails, and each page is saved alone (the refused one failed).
			outs[1].State = crawl.PageState("unheard-of")
		}
		if _, err := store.SaveFetches(ctx, c.ID, outs, words); err != nil {
			t.Fatal(err)
		}
		var got []crawl.Page
		if err := store.DB().NewSelect().Model(&got).Where("crawl_id = ?", c.ID).Order("id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 {
			t.Fatalf("refused %v: %d pages, want 3 and the link", refused, len(got))
		}
		one, two, three := got[0], got[1], got[2]
		if one.State != crawl.PageConverted || one.HTML != nil || deref(one.Title) != "One" || deref(one.RawMarkdown) != "# One\n\ntext" ||
			!one.NoIndex || deref(one.Error) != "cut at 1 MB" || one.ConvertMS == nil || *one.ConvertMS != 3 || one.Batch == nil {
			t.Errorf("refused %v: first page %s, title %q, markdown %q, noindex %v, error %q, html %v",
				refused, one.State, deref(one.Title), deref(one.RawMarkdown), one.NoIndex, deref(one.Error), one.HTML)
		}
		wantTwo := crawl.PageSkipped
		if refused {
			wantTwo = crawl.PageFailed
		}
		if two.State != wantTwo || two.RawMarkdown != nil {
			t.Errorf("refused %v: second page %s with markdown %v, want %s without", refused, two.State, two.RawMarkdown, wantTwo)
		}
		if three.State != crawl.PageConverted || deref(three.RawMarkdown) != "three" || three.NoIndex || three.Error != nil {
			t.Errorf("refused %v: third page %s, markdown %q, noindex %v, error %q", refused, three.State, deref(three.RawMarkdown), three.NoIndex, deref(three.Error))
		}
		if got[3].State != crawl.PageQueued {
			t.Errorf("refused %v: the link is %s, want queued", refused, got[3].State)
		}
		res, err := store.StoreConverted(ctx, c.ID, 0, 10)
		if err != nil || res.Stored != 2 {
			t.Errorf("refused %v: StoreConverted %+v, %v; want the two converted pages stored", refused, res, err)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// fetchedBatch enqueues paths as start pages ranked in order, claims them
// as batch 0 and saves them fetched; it returns their ids in rank order.
func fetchedBatch(t testing.TB, c *crawl.Crawl, paths ...string) []int64 {
	t.Helper()
	ctx := context.Background()
	for i, p := range paths {
		if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page(p, 0, fmt.Sprintf("%03d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := store.ClaimBatch(ctx, c.ID, 0, len(paths), db.ClaimAll)
	if err != nil {
		t.Fatal(err)
	}
	var outs []db.FetchOutcome
	var ids []int64
	for _, p := range pages {
		outs = append(outs, db.FetchOutcome{PageID: p.ID, State: crawl.PageFetched, StatusCode: 200})
		ids = append(ids, p.ID)
	}
	if _, err := store.SaveFetches(ctx, c.ID, outs, words); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestStoreConvertedRespectsBudgetAndStatus(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	ids := fetchedBatch(t, c, "/1", "/2", "/3")
	if err := store.SaveConverted(ctx, c.ID, []db.Converted{{PageID: ids[0]}, {PageID: ids[1]}}); err != nil {
		t.Fatal(err)
	}
	// Budget 1: of two pages stored at once, one is kept.
	res, err := store.StoreConverted(ctx, c.ID, 0, 1)
	if res.Stored != 1 || res.Skipped != 1 || err != nil {
		t.Fatalf("two pages under a budget of one: %+v, %v", res, err)
	}
	// The one kept is the first in crawl order, with its markdown.
	var first crawl.Page
	if err := store.DB().NewSelect().Model(&first).Where("id = ?", ids[0]).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if first.State != crawl.PageStored || first.Markdown == nil || first.StoredAt == nil {
		t.Errorf("first page after storing: state %s, markdown %v, stored at %v", first.State, first.Markdown, first.StoredAt)
	}
	if err := store.SaveConverted(ctx, c.ID, []db.Converted{{PageID: ids[2]}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.SetEndStatus(ctx, c.ID, crawl.StatusAborted, "test"); err != nil {
		t.Fatal(err)
	}
	if res, _ := store.StoreConverted(ctx, c.ID, 0, 10); res.Stored != 0 || res.Skipped != 1 {
		t.Errorf("after the crawl ended: %+v, want the page skipped", res)
	}
	got, _ := store.CrawlByID(ctx, c.ID)
	if got.TotalPages != 1 || got.Status != crawl.StatusAborted {
		t.Errorf("crawl after: %d pages, %s", got.TotalPages, got.Status)
	}
}

// TestSettledMarkdown: result pages are stored whole, in crawl order,
// with their noindex mark; StoredAfter reads them back by ID, and
// SaveSettled writes what deduplication left, the raw markdown kept.
func TestSettledMarkdown(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	ids := fetchedBatch(t, c, "/first", "/second")
	for _, i := range []int{1, 0} {
		if err := store.SaveConverted(ctx, c.ID, []db.Converted{{PageID: ids[i], Markdown: fmt.Sprintf("Shared.\n\nOwn %d.", i), NoIndex: i == 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.StoreConverted(ctx, c.ID, 0, 10); err != nil {
		t.Fatal(err)
	}
	first, err := store.StoredAfter(ctx, c.ID, 0, 1)
	if err != nil || len(first) != 1 || first[0].ID != min(ids[0], ids[1]) {
		t.Fatalf("first stored page: %+v, %v", first, err)
	}
	rest, err := store.StoredAfter(ctx, c.ID, first[0].ID, 10)
	if err != nil || len(rest) != 1 {
		t.Fatalf("stored pages after the first: %+v, %v", rest, err)
	}
	for _, p := range append(first, rest...) {
		if p.NoIndex != (p.ID == ids[1]) || p.RawMarkdown == nil || p.URL == "" {
			t.Errorf("page %d read back as %+v", p.ID, p)
		}
	}
	// StoredPages reads the pages asked for only.
	if got, err := store.StoredPages(ctx, c.ID, []int64{ids[1]}); err != nil || len(got) != 1 || got[0].ID != ids[1] || got[0].RawMarkdown == nil {
		t.Errorf("StoredPages(%d) = %+v, %v", ids[1], got, err)
	}
	// The first page loses nothing: saved whole, its markdown stays (the
	// Markdown given is not written) and its fragments are counted.
	if err := store.SaveSettled(ctx, c.ID, []db.Settled{{PageID: ids[1], Markdown: "Own 1.", Fragments: 2, Removed: 1},
		{PageID: ids[0], Markdown: "not written", Fragments: 2, Whole: true}}); err != nil {
		t.Fatal(err)
	}
	var counted crawl.Page
	if err := store.DB().NewSelect().Model(&counted).Where("id = ?", ids[0]).Scan(ctx); err != nil || counted.Fragments == nil || *counted.Fragments != 2 {
		t.Errorf("the page saved whole has fragments %v (%v), want 2", counted.Fragments, err)
	}
	want := map[int64][2]string{ids[0]: {"Shared.\n\nOwn 0.", "Shared.\n\nOwn 0."}, ids[1]: {"Own 1.", "Shared.\n\nOwn 1."}}
	for _, raw := range []bool{false, true} {
		results, _, err := store.ListResults(ctx, c.ID, 1, 10, db.ResultsQuery{Raw: raw})
		if err != nil || len(results) != 2 {
			t.Fatalf("results: %v, %v", results, err)
		}
		for i, r := range results {
			if r.ID != ids[i] {
				t.Errorf("result %d is page %d, want %d: results are in crawl order", i, r.ID, ids[i])
			}
			got, w := r.Markdown, want[r.ID][0]
			if raw {
				got, w = r.RawMarkdown, want[r.ID][1]
			}
			if got == nil || *got != w {
				t.Errorf("page %s (raw %v): markdown %v, want %q", r.URL, raw, got, w)
			}
		}
	}
}

// TestResultsSearched: a listing of results keeps the pages whose URL or
// title holds the text asked for, case aside, with LIKE's wildcards read
// as plain characters, counts only those, and leaves the markdown out
// when asked.
func TestResultsSearched(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	ids := fetchedBatch(t, c, "/guide/install", "/news/release", "/about")
	titles := []string{"Installing", "Release 100% done", "The Install_Guide team"}
	for i, id := range ids {
		if err := store.SaveConverted(ctx, c.ID, []db.Converted{{PageID: id, Title: titles[i], Markdown: "Text " + titles[i]}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.StoreConverted(ctx, c.ID, 0, 10); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		search string
		want   int
	}{{"INSTALL", 2}, {"/guide/", 1}, {"100%", 1}, {"%", 1}, {"install_guide", 1}, {"_", 1}, {"nothing", 0}, {"", 3}} {
		got, total, err := store.ListResults(ctx, c.ID, 1, 10, db.ResultsQuery{Search: tc.search, NoMarkdown: true})
		if err != nil || len(got) != tc.want || total != tc.want {
			t.Errorf("search %q: %d pages of %d (%v), want %d", tc.search, len(got), total, err, tc.want)
		}
		for _, p := range got {
			if p.Markdown != nil || p.URL == "" || p.Title == nil {
				t.Errorf("search %q: page %s read back with markdown %v, title %v", tc.search, p.URL, p.Markdown, p.Title)
			}
		}
	}
}

func TestFinishCrawlIsCompareAndSet(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	got, changed, err := store.SetEndStatus(ctx, c.ID, crawl.StatusTimedOut, "")
	if err != nil || !changed || got.Status != crawl.StatusTimedOut || got.CompletedAt == nil {
		t.Fatalf("first finish: %+v %v %v", got, changed, err)
	}
	got, changed, err = store.SetEndStatus(ctx, c.ID, crawl.StatusAborted, "")
	if err != nil || changed || got.Status != crawl.StatusTimedOut {
		t.Errorf("second finish changed the status: %s %v %v", got.Status, changed, err)
	}
}

// keptAs is the reason of a redirect target kept as page id.
func keptAs(id int64) string { return fmt.Sprintf("reached through a redirect; kept as page %d", id) }

// words word what SaveFetches decides: the reason of a page whose outcome
// the database refused, and that of a page repeating another's content.
var words = db.Words{
	NotRecorded: func(err error) string { return "the page could not be recorded: " + err.Error() },
	SameContent: func(page int64, url string) string { return fmt.Sprintf("the same content as %s (page %d)", url, page) },
}

func TestClaimRedirectTarget(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page("/old", 0, "000"), page("/queued", 1, "000000")}); err != nil {
		t.Fatal(err)
	}
	pages, _ := store.ClaimBatch(ctx, c.ID, 0, 1, db.ClaimAll)
	src := pages[0].ID
	// A new target is ours, also on retry.
	for i := 0; i < 2; i++ {
		if ok, err := store.ClaimRedirectTarget(ctx, c.ID, src, page("/new", 0, ""), keptAs(src)); !ok || err != nil {
			t.Errorf("attempt %d: new target not owned: %v", i, err)
		}
	}
	// A queued target is taken over: it will not be fetched.
	if ok, err := store.ClaimRedirectTarget(ctx, c.ID, src, page("/queued", 0, ""), keptAs(src)); !ok || err != nil {
		t.Errorf("queued target not taken over: %v", err)
	}
	if next, _ := store.ClaimBatch(ctx, c.ID, 1, 10, db.ClaimAll); len(next) != 0 {
		t.Errorf("the taken-over page is still queued: %v", next)
	}
	// Another page's target is not ours.
	if ok, _ := store.ClaimRedirectTarget(ctx, c.ID, src+1000, page("/new", 0, ""), keptAs(src+1000)); ok {
		t.Error("two pages own one redirect target")
	}
}

func TestLogs(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	var logs []crawl.CrawlLog
	for i := 0; i < 25; i++ {
		logs = append(logs, crawl.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: fmt.Sprintf("k%d", i), Level: "info", Message: fmt.Sprint(i)})
	}
	for i := 0; i < 2; i++ {
		if err := store.InsertLogs(ctx, logs); err != nil {
			t.Fatal(err)
		}
	}
	page2, total, err := store.ListLogs(ctx, c.ID, 2, 10, db.LogsQuery{})
	if err != nil || total != 25 || len(page2) != 10 || page2[0].Message != "10" || page2[9].Message != "19" {
		t.Errorf("page 2: %d entries of %d (%v), first %q", len(page2), total, err, page2[0].Message)
	}
	last, _, _ := store.ListLogs(ctx, c.ID, 3, 10, db.LogsQuery{})
	if len(last) != 5 {
		t.Errorf("last page holds %d entries, want 5", len(last))
	}
	// Filtered by level and by the page an entry is about.
	more := []crawl.CrawlLog{
		{CrawlID: c.ID, TeamID: c.TeamID, Key: "w1", Level: "warn", Message: "Page retried", Data: map[string]any{"url": "https://example.com/a"}},
		{CrawlID: c.ID, TeamID: c.TeamID, Key: "e1", Level: "error", Message: "Page failed", Data: map[string]any{"url": "https://example.com/a"}},
		{CrawlID: c.ID, TeamID: c.TeamID, Key: "e2", Level: "error", Message: "Page failed", Data: map[string]any{"url": "https://example.com/b"}},
	}
	if err := store.InsertLogs(ctx, more); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    db.LogsQuery
		want int
	}{{db.LogsQuery{Level: "error"}, 2}, {db.LogsQuery{URL: "https://example.com/a"}, 2}, {db.LogsQuery{Level: "warn", URL: "https://example.com/a"}, 1},
		{db.LogsQuery{Level: "info", URL: "https://example.com/a"}, 0}, {db.LogsQuery{}, 28}} {
		got, total, err := store.ListLogs(ctx, c.ID, 1, 100, tc.q)
		if err != nil || len(got) != tc.want || total != tc.want {
			t.Errorf("%+v: %d entries of %d (%v), want %d", tc.q, len(got), total, err, tc.want)
		}
	}
}

// BenchmarkStoreConverted measures DeduplicatePages' database side: a
// batch of 256 converted pages of 30 paragraphs stored in crawl order.
// ns/page is per page.
func BenchmarkStoreConverted(b *testing.B) {
	ctx := context.Background()
	const batch = 256
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c := newCrawl(b)
		var paths []string
		for i := 0; i < batch; i++ {
			paths = append(paths, fmt.Sprintf("/p%d", i))
		}
		ids := fetchedBatch(b, c, paths...)
		var conv []db.Converted
		for i, id := range ids {
			var lines []string
			for j := 0; j < 20; j++ {
				lines = append(lines, fmt.Sprintf("shared %d", j))
			}
			for j := 0; j < 10; j++ {
				lines = append(lines, fmt.Sprintf("own %d.%d", i, j))
			}
			conv = append(conv, db.Converted{PageID: id, Markdown: strings.Join(lines, "\n\n")})
		}
		if err := store.SaveConverted(ctx, c.ID, conv); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := store.StoreConverted(ctx, c.ID, 0, 10000)
		if err != nil || res.Stored != batch {
			b.Fatalf("stored %d: %v", res.Stored, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/page")
}

// TestSameContentIsSavedOnce: a converted page whose content (its key) a
// page of the crawl already has at an address of the same page (another
// query, a print view) is saved as that page's duplicate, without its
// markdown or links, whether the other page came in the same group (the
// one first in crawl order keeps it), in an earlier save, or in a group
// the database refused and saved page by page; a page saying the same at
// an unrelated address is a page of its own; a save repeated by a retry
// changes nothing; two batches saving the same page at once agree on one
// keeping it.
func TestSameContentIsSavedOnce(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	paths := []string{"/a", "/a?id=intro", "/b", "/a/print", "/c", "/d", "/d?x=1"}
	for i, p := range paths {
		if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page(p, 1, fmt.Sprintf("%03d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	byPath := map[string]int64{}
	claim := func(batch, n int) {
		claimed, err := store.ClaimBatch(ctx, c.ID, batch, n, db.ClaimAll)
		if err != nil || len(claimed) != n {
			t.Fatal(claimed, err)
		}
		for _, p := range claimed {
			byPath[strings.TrimPrefix(p.URL, "https://example.com")] = p.ID
		}
	}
	converted := func(path, md string, links ...db.NewPage) db.FetchOutcome {
		return db.FetchOutcome{PageID: byPath[path], URL: "https://example.com" + path, State: crawl.PageConverted, StatusCode: 200,
			ContentKey: "key of " + md, Converted: &db.Converted{Title: md, Markdown: md}, Links: links}
	}
	claim(0, 3)
	// The heading's copy comes first in the group; /a is first in crawl order.
	outs := []db.FetchOutcome{converted("/a?id=intro", "A", page("/from-the-copy", 2, "000")), converted("/a", "A"), converted("/b", "A")}
	if _, err := store.SaveFetches(ctx, c.ID, outs, words); err != nil {
		t.Fatal(err)
	}
	if outs[0].State != crawl.PageDuplicate || outs[0].DuplicateOf != byPath["/a"] || outs[0].Links != nil ||
		outs[0].DuplicateOfURL != "https://example.com/a" || outs[1].State != crawl.PageConverted || outs[2].State != crawl.PageConverted {
		t.Errorf("outcomes after the save: %s of %d with links %v, then %s and %s", outs[0].State, outs[0].DuplicateOf, outs[0].Links, outs[1].State, outs[2].State)
	}
	// A retry of the same save finds the pages saved.
	if saved, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{converted("/a?id=intro", "A"), converted("/a", "A")}, words); err != nil || len(saved) != 0 {
		t.Errorf("the save again: saved %v, %v", saved, err)
	}
	claim(1, 2)
	// A group the database refuses (a state its check does not know) is
	// saved page by page: the print view still repeats /a.
	bad := converted("/c", "C")
	bad.State = crawl.PageState("unheard-of")
	if _, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{converted("/a/print", "A"), bad}, words); err != nil {
		t.Fatal(err)
	}
	// Two batches save the same page at once.
	claim(2, 2)
	errs := make(chan error, 2)
	for _, path := range []string{"/d", "/d?x=1"} {
		go func() {
			_, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{converted(path, "D")}, words)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var got []crawl.Page
	if err := store.DB().NewSelect().Model(&got).Where("crawl_id = ?", c.ID).Order("id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	pages := map[string]crawl.Page{}
	for _, p := range got {
		pages[strings.TrimPrefix(p.URL, "https://example.com")] = p
	}
	if _, ok := pages["/from-the-copy"]; ok {
		t.Errorf("the copy's link was enqueued")
	}
	isDuplicate := func(path, of string) bool {
		p := pages[path]
		return p.State == crawl.PageDuplicate && p.DuplicateOf != nil && *p.DuplicateOf == byPath[of] && p.RawMarkdown == nil &&
			deref(p.Error) == fmt.Sprintf("the same content as https://example.com%s (page %d)", of, byPath[of])
	}
	for path, state := range map[string]crawl.PageState{"/a": crawl.PageConverted, "/b": crawl.PageConverted, "/c": crawl.PageFailed} {
		if pages[path].State != state {
			t.Errorf("%s is %s (%s), want %s", path, pages[path].State, deref(pages[path].Error), state)
		}
	}
	if !isDuplicate("/a?id=intro", "/a") || !isDuplicate("/a/print", "/a") {
		t.Errorf("the copies of /a: %s (%s), %s (%s)", pages["/a?id=intro"].State, deref(pages["/a?id=intro"].Error),
			pages["/a/print"].State, deref(pages["/a/print"].Error))
	}
	if !(pages["/d"].State == crawl.PageConverted && isDuplicate("/d?x=1", "/d") || pages["/d?x=1"].State == crawl.PageConverted && isDuplicate("/d", "/d?x=1")) {
		t.Errorf("saved at once: %s and %s, want one converted and one its duplicate", pages["/d"].State, pages["/d?x=1"].State)
	}
	counts, err := store.CountPages(ctx, c.ID)
	if err != nil || counts[crawl.PageDuplicate] != 3 {
		t.Errorf("counts %v (%v), want 3 duplicates", counts, err)
	}
}

// TestClaimLinkScripts: the first page rendered for the links a set of
// scripts draws holds it; another page running them does not get it, the
// same page asking again does, and other scripts are claimed apart.
func TestClaimLinkScripts(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	for _, tc := range []struct {
		page    int64
		scripts string
		want    bool
	}{
		{1, "https://example.com/menudata.js https://example.com/menu.js", true},
		{2, "https://example.com/menudata.js https://example.com/menu.js", false},
		{1, "https://example.com/menudata.js https://example.com/menu.js", true},
		{2, "https://example.com/navtree.js", true},
	} {
		if got, err := store.ClaimLinkScripts(ctx, c.ID, tc.page, tc.scripts); err != nil || got != tc.want {
			t.Errorf("page %d claims %q: %v (%v), want %v", tc.page, tc.scripts, got, err, tc.want)
		}
	}
	other := newCrawl(t)
	if got, err := store.ClaimLinkScripts(ctx, other.ID, 9, "https://example.com/navtree.js"); err != nil || !got {
		t.Errorf("another crawl's claim: %v (%v)", got, err)
	}
}

// TestCleanerAddressHoldsThePage: when a page's cleaner address (no query)
// comes after a copy of it was saved, it holds the page and the copy, not
// yet a result, becomes its duplicate with the copies that repeated it; a
// copy already stored as a result stays the result.
func TestCleanerAddressHoldsThePage(t *testing.T) {
	ctx := context.Background()
	c := newCrawl(t)
	for i, p := range []string{"/g?id=x", "/g?id=y", "/g", "/h?id=x", "/h"} {
		if _, err := store.Enqueue(ctx, c.ID, []db.NewPage{page(p, 1, fmt.Sprintf("%03d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]int64{}
	save := func(batch int, paths ...string) {
		t.Helper()
		claimed, err := store.ClaimBatch(ctx, c.ID, batch, len(paths), db.ClaimAll)
		if err != nil || len(claimed) != len(paths) {
			t.Fatal(claimed, err)
		}
		for _, p := range claimed {
			path := strings.TrimPrefix(p.URL, "https://example.com")
			ids[path] = p.ID
			md := strings.SplitN(path, "?", 2)[0]
			if _, err := store.SaveFetches(ctx, c.ID, []db.FetchOutcome{{PageID: p.ID, URL: p.URL, State: crawl.PageConverted,
				StatusCode: 200, ContentKey: "key of " + md, Converted: &db.Converted{Title: md, Markdown: md}}}, words); err != nil {
				t.Fatal(err)
			}
		}
	}
	save(0, "/g?id=x", "/g?id=y")
	save(1, "/g")
	save(2, "/h?id=x")
	if _, err := store.StoreConverted(ctx, c.ID, 2, 10); err != nil {
		t.Fatal(err)
	}
	save(3, "/h")
	var got []crawl.Page
	if err := store.DB().NewSelect().Model(&got).Where("crawl_id = ?", c.ID).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	pages := map[string]crawl.Page{}
	for _, p := range got {
		pages[strings.TrimPrefix(p.URL, "https://example.com")] = p
	}
	of := func(path string) int64 {
		if p := pages[path]; p.DuplicateOf != nil {
			return *p.DuplicateOf
		}
		return 0
	}
	if pages["/g"].State != crawl.PageConverted || pages["/g?id=x"].State != crawl.PageDuplicate || of("/g?id=x") != ids["/g"] ||
		pages["/g?id=x"].RawMarkdown != nil || of("/g?id=y") != ids["/g"] {
		t.Errorf("/g %s; ?id=x %s of %d (markdown %v); ?id=y %s of %d; want /g holding both", pages["/g"].State,
			pages["/g?id=x"].State, of("/g?id=x"), pages["/g?id=x"].RawMarkdown, pages["/g?id=y"].State, of("/g?id=y"))
	}
	if pages["/h?id=x"].State != crawl.PageStored || pages["/h"].State != crawl.PageDuplicate || of("/h") != ids["/h?id=x"] {
		t.Errorf("/h?id=x %s, /h %s of %d; want the stored copy kept", pages["/h?id=x"].State, pages["/h"].State, of("/h"))
	}
}
