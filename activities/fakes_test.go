package activities

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/batch"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
)

// fakeStore is an in-memory database: canned answers in, recorded calls
// out. It implements every activity's small interface; each test sets only
// what its activity asks for. Its methods may be called from the
// goroutines of a batch, hence the lock.
type fakeStore struct {
	// The batch's methods are package batch's, tested there with a fake
	// of their own: calling one here panics.
	batch.Store

	mu sync.Mutex

	crawl *crawl.Crawl // nil: no such crawl
	// fail makes the method of that name return the error.
	fail map[string]error

	// Answers.
	counts     map[crawl.PageState]int // CountPages
	robots     map[string]db.Robots    // Robots, by origin; SaveRobots adds
	fetched    []int64                 // FetchedPages
	pages      map[int64]crawl.Page    // PagesWithHTML, BatchPages
	stored     db.StoreResult          // StoreConverted; adds Stored to TotalPages
	pending    []int64                 // PendingExtractions
	source     db.ExtractionSource     // ExtractionSource
	batchPages []crawl.Page            // BatchPages
	results    []crawl.Page            // StoredAfter, by ID; ResultPages
	hooks      []db.WebhookEvent       // webhook events (see webhooks_fake_test.go)
	// Change tracking (see changes_fake_test.go).
	baseline     *uuid.UUID
	changeCounts crawl.ChangeCounts
	removed      []crawl.Page // RemovedAfter, by ID
	// Schedules (see schedules_test.go).
	schedule *db.Schedule
	noKey    bool

	// Calls.
	enqueued      []db.NewPage
	logs          []crawl.CrawlLog // InsertLogs, and EndCrawl's entries after them
	ended         []crawl.Status
	endReason     string
	savedRobots   []db.Robots
	htmlLoads     [][]int64 // PagesWithHTML's ids, a slice a call
	converted     []db.Converted
	storeCalls    []storeCall
	pendingAsked  int
	chunkAnswers  []chunkAnswer
	tokens        int64 // what CountTokens was told
	extractions   []extraction
	settled       map[int64]db.Settled // SaveSettled, by page
	settledTimes  map[int64]int        // SaveSettled calls, by page
	largestSettle int                  // the most pages one SaveSettled call saved
	calls         []string             // every method called, in order
}

var _ Store = (*fakeStore)(nil)

type storeCall struct {
	batch, budget int
}

type chunkAnswer struct {
	pageID        int64
	chunk, chunks int
	answer        db.ChunkAnswer
}

type extraction struct {
	pageID  int64
	value   string
	failure string
}

// call records a call of method and returns the error it is to fail with.
// The caller holds f.mu.
func (f *fakeStore) call(method string) error {
	f.calls = append(f.calls, method)
	return f.fail[method]
}

func (f *fakeStore) called(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == method {
			n++
		}
	}
	return n
}

func (f *fakeStore) CrawlByID(_ context.Context, id uuid.UUID) (*crawl.Crawl, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CrawlByID"); err != nil {
		return nil, err
	}
	if f.crawl == nil || f.crawl.ID != id {
		return nil, crawl.Errorf(crawl.ENOTFOUND, "no crawl %s", id)
	}
	c := *f.crawl
	return &c, nil
}

func (f *fakeStore) EndCrawl(_ context.Context, id uuid.UUID, status crawl.Status, message string,
	logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("EndCrawl"); err != nil {
		return nil, err
	}
	f.ended, f.endReason = append(f.ended, status), message
	if !f.crawl.Status.Terminal() { // compare-and-set, as the database does
		f.crawl.Status, f.crawl.ErrorMessage = status, message
	}
	c := *f.crawl
	f.logs = append(f.logs, logs(&c, nil)...)
	return &c, nil
}

func (f *fakeStore) Enqueue(_ context.Context, _ uuid.UUID, pages []db.NewPage) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Enqueue"); err != nil {
		return 0, err
	}
	f.enqueued = append(f.enqueued, pages...)
	return len(pages), nil
}

func (f *fakeStore) InsertLogs(_ context.Context, logs []crawl.CrawlLog) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("InsertLogs"); err != nil {
		return err
	}
	f.logs = append(f.logs, logs...)
	return nil
}

func (f *fakeStore) CountPages(context.Context, uuid.UUID) (map[crawl.PageState]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts, f.call("CountPages")
}

func (f *fakeStore) Robots(_ context.Context, _ uuid.UUID, origins []string) (map[string]db.Robots, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]db.Robots{}
	for _, o := range origins {
		if r, ok := f.robots[o]; ok {
			out[o] = r
		}
	}
	return out, f.call("Robots")
}

func (f *fakeStore) SaveRobots(_ context.Context, rows []db.Robots) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SaveRobots"); err != nil {
		return err
	}
	f.savedRobots = append(f.savedRobots, rows...)
	if f.robots == nil {
		f.robots = map[string]db.Robots{}
	}
	for _, r := range rows {
		f.robots[r.Origin] = r
	}
	return nil
}

func (f *fakeStore) FetchedPages(context.Context, uuid.UUID, int) ([]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetched, f.call("FetchedPages")
}

func (f *fakeStore) PagesWithHTML(_ context.Context, _ uuid.UUID, ids []int64) ([]crawl.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.htmlLoads = append(f.htmlLoads, append([]int64(nil), ids...))
	var out []crawl.Page
	for _, id := range ids {
		out = append(out, f.pages[id])
	}
	return out, f.call("PagesWithHTML")
}

func (f *fakeStore) SaveConverted(_ context.Context, _ uuid.UUID, pages []db.Converted) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SaveConverted"); err != nil {
		return err
	}
	f.converted = append(f.converted, pages...)
	return nil
}

func (f *fakeStore) SkipPage(context.Context, uuid.UUID, int64, string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.call("SkipPage")
}

func (f *fakeStore) StoreConverted(_ context.Context, _ uuid.UUID, batch, budget int) (db.StoreResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("StoreConverted"); err != nil {
		return db.StoreResult{}, err
	}
	f.storeCalls = append(f.storeCalls, storeCall{batch, budget})
	f.crawl.TotalPages += f.stored.Stored
	return f.stored, nil
}

func (f *fakeStore) StoredAfter(_ context.Context, _ uuid.UUID, after int64, limit int) ([]crawl.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []crawl.Page
	for _, p := range f.results {
		if p.ID > after && len(out) < limit {
			out = append(out, p)
		}
	}
	return out, f.call("StoredAfter")
}

func (f *fakeStore) StoredPages(_ context.Context, _ uuid.UUID, ids []int64) ([]crawl.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []crawl.Page
	for _, p := range f.results {
		if slices.Contains(ids, p.ID) {
			out = append(out, p)
		}
	}
	return out, f.call("StoredPages")
}

func (f *fakeStore) SaveSettled(_ context.Context, _ uuid.UUID, pages []db.Settled) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SaveSettled"); err != nil {
		return err
	}
	if f.settled == nil {
		f.settled, f.settledTimes = map[int64]db.Settled{}, map[int64]int{}
	}
	f.largestSettle = max(f.largestSettle, len(pages))
	for _, p := range pages {
		f.settledTimes[p.PageID]++
		if p.Whole { // the markdown stored stays, as the database keeps it
			for _, r := range f.results {
				if r.ID == p.PageID && r.Markdown != nil {
					p.Markdown = *r.Markdown
				}
			}
		}
		f.settled[p.PageID] = p
	}
	return nil
}

func (f *fakeStore) PendingExtractions(context.Context, uuid.UUID, int) ([]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pendingAsked++
	return f.pending, f.call("PendingExtractions")
}

func (f *fakeStore) ExtractionSource(context.Context, uuid.UUID, int64) (db.ExtractionSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.source, f.call("ExtractionSource")
}

func (f *fakeStore) SaveChunkAnswer(_ context.Context, pageID int64, chunk, chunks int, a db.ChunkAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SaveChunkAnswer"); err != nil {
		return err
	}
	f.chunkAnswers = append(f.chunkAnswers, chunkAnswer{pageID, chunk, chunks, a})
	return nil
}

func (f *fakeStore) CountTokens(_ context.Context, _ uuid.UUID, in, out int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens += in + out
	return f.call("CountTokens")
}

func (f *fakeStore) SaveExtraction(_ context.Context, _ uuid.UUID, pageID int64, value json.RawMessage, failure string, _ int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("SaveExtraction"); err != nil {
		return err
	}
	f.extractions = append(f.extractions, extraction{pageID, string(value), failure})
	return nil
}

func (f *fakeStore) BatchPages(context.Context, uuid.UUID, int) ([]crawl.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.batchPages, f.call("BatchPages")
}

// fakeLLM answers chunks by index; answers[i] for chunk i, or errs[i].
type fakeLLM struct {
	chunks  []string // Split's chunk texts
	answers map[int]string
	errs    map[int]error

	// repairs answer, in turn, the calls that ask again after an answer
	// that did not validate against the schema; repairAsks holds their
	// instructions.
	repairs    []string
	repairAsks []string

	split int
	asked []int
}

var _ llmExtractor = (*fakeLLM)(nil)

func (l *fakeLLM) Split(pageURL, _, _ string) ([]extract.Chunk, error) {
	l.split++
	out := make([]extract.Chunk, len(l.chunks))
	for i, t := range l.chunks {
		out[i] = extract.Chunk{URL: pageURL, Index: i, Count: len(l.chunks), Text: t}
	}
	return out, nil
}

func (l *fakeLLM) Ask(_ context.Context, instructions string, c extract.Chunk) (string, extract.Tokens, error) {
	if strings.Contains(instructions, "does not validate") {
		l.repairAsks = append(l.repairAsks, instructions)
		answer := l.repairs[0]
		l.repairs = l.repairs[1:]
		return answer, extract.Tokens{In: 10, Out: 2}, nil
	}
	l.asked = append(l.asked, c.Index)
	if err := l.errs[c.Index]; err != nil {
		return "", extract.Tokens{}, err
	}
	return l.answers[c.Index], extract.Tokens{In: 10, Out: 2}, nil
}

// newCrawl is a running crawl of startURLs with options o.
func newCrawl(o crawl.Options) *crawl.Crawl {
	if o.TimeoutSeconds == 0 {
		o.TimeoutSeconds = 1800
	}
	if o.EngineType == "" {
		o.EngineType = crawl.EngineCheerio
	}
	return &crawl.Crawl{ID: uuid.New(), TeamID: uuid.New(), Status: crawl.StatusRunning, Options: o}
}

// settings are a server's with two pages fetched at a time.
var settings = Settings{
	MaxPagesPerCrawl:       100,
	DefaultConcurrentPages: 2,
	MaxConcurrentPages:     8,
	UserAgent:              "durablecrawl/test",
	BrowserTaskQueue:       "browser",
	LLMTaskQueue:           "llm",
}

// wantNonRetryable fails the test unless err fails the activity for good.
func wantNonRetryable(t *testing.T, err error) {
	t.Helper()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() {
		t.Errorf("error %v, want a non-retryable application error", err)
	}
}

// messages returns the messages of log entries.
func messages(logs []crawl.CrawlLog) []string {
	var out []string
	for _, l := range logs {
		out = append(out, l.Message)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// wantRetryable fails the test if err fails the activity for good.
func wantRetryable(t *testing.T, err error) {
	t.Helper()
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.NonRetryable() {
		t.Errorf("error %v is not retried", err)
	}
}
