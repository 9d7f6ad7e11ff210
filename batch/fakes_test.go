package batch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/urlpattern"
)

// fakeStore is the database as a batch sees it: canned answers in,
// recorded calls out. Its methods are called from the batch's goroutines,
// hence the lock.
type fakeStore struct {
	mu sync.Mutex

	crawl *crawl.Crawl
	// fail makes the method of that name return the error.
	fail map[string]error

	// Answers.
	claim           []crawl.Page               // ClaimBatch
	unsaved         map[int64]bool             // SaveFetches: pages an earlier attempt already saved
	renderQ         int                        // RenderQueued
	linkScripts     map[string]int64           // ClaimLinkScripts: the page of each set of scripts
	patterns        []urlpattern.Pattern       // NoteDuplicates' patterns, in order
	stoppedPatterns []urlpattern.Pattern       // StoppedPatterns
	waiting         int                        // RetriesWaiting
	retryIn         time.Duration              //
	owned           map[string]bool            // ClaimRedirectTarget, by target key
	states          map[string]crawl.PageState // StateOf
	robots          map[string]db.Robots       // Robots, by origin; SaveRobots adds
	previous        map[string]db.PreviousPage // PreviousPages, by key

	// Calls.
	logs        []crawl.CrawlLog
	outcomes    []db.FetchOutcome
	claimModes  []db.ClaimMode
	redirects   []db.NewPage // ClaimRedirectTarget's targets
	notes       []string     // and the notes they are claimed with
	notRecorded string       // SaveFetches' reason for a page it could not record, worded for an error "refused"
	savedRobots []db.Robots
	calls       []string // every method called, in order
}

var _ Store = (*fakeStore)(nil)

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

func (f *fakeStore) ClaimBatch(_ context.Context, _ uuid.UUID, _, _ int, mode db.ClaimMode) ([]crawl.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.claimModes = append(f.claimModes, mode)
	return f.claim, f.call("ClaimBatch")
}

func (f *fakeStore) RenderQueued(context.Context, uuid.UUID) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.renderQ, f.call("RenderQueued")
}

func (f *fakeStore) ClaimLinkScripts(_ context.Context, _ uuid.UUID, page int64, scripts string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.linkScripts == nil {
		f.linkScripts = map[string]int64{}
	}
	if _, ok := f.linkScripts[scripts]; !ok {
		f.linkScripts[scripts] = page
	}
	return f.linkScripts[scripts] == page, f.call("ClaimLinkScripts")
}

func (f *fakeStore) NoteDuplicates(_ context.Context, _ uuid.UUID, patterns []urlpattern.Pattern, _ db.PatternWords) ([]urlpattern.Pattern, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.patterns = append(f.patterns, patterns...)
	return nil, f.call("NoteDuplicates")
}

func (f *fakeStore) StoppedPatterns(context.Context, uuid.UUID) ([]urlpattern.Pattern, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stoppedPatterns, f.call("StoppedPatterns")
}

func (f *fakeStore) RetriesWaiting(context.Context, uuid.UUID) (int, time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting, f.retryIn, f.call("RetriesWaiting")
}

func (f *fakeStore) SaveFetches(_ context.Context, _ uuid.UUID, outs []db.FetchOutcome, w db.Words) ([]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notRecorded = w.NotRecorded(errors.New("refused"))
	if err := f.call("SaveFetches"); err != nil {
		return nil, err
	}
	f.outcomes = append(f.outcomes, outs...)
	var saved []int64
	for _, o := range outs {
		if !f.unsaved[o.PageID] {
			saved = append(saved, o.PageID)
		}
	}
	return saved, nil
}

func (f *fakeStore) ClaimRedirectTarget(_ context.Context, _ uuid.UUID, _ int64, target db.NewPage, note string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.redirects = append(f.redirects, target)
	f.notes = append(f.notes, note)
	return f.owned[target.NormalizedURL], f.call("ClaimRedirectTarget")
}

func (f *fakeStore) StateOf(_ context.Context, _ uuid.UUID, key string) (crawl.PageState, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	state, ok := f.states[key]
	return state, ok, f.call("StateOf")
}

func (f *fakeStore) PreviousPages(_ context.Context, _ uuid.UUID, keys []string) (map[string]db.PreviousPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]db.PreviousPage{}
	for _, k := range keys {
		if p, ok := f.previous[k]; ok {
			out[k] = p
		}
	}
	return out, f.call("PreviousPages")
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

// newCrawl is a running crawl with options o.
func newCrawl(o crawl.Options) *crawl.Crawl {
	if o.TimeoutSeconds == 0 {
		o.TimeoutSeconds = 1800
	}
	if o.EngineType == "" {
		o.EngineType = crawl.EngineCheerio
	}
	return &crawl.Crawl{ID: uuid.New(), TeamID: uuid.New(), Status: crawl.StatusRunning, Options: o}
}

// messages returns the messages of log entries.
func messages(logs []crawl.CrawlLog) []string {
	var out []string
	for _, l := range logs {
		out = append(out, l.Message)
	}
	return out
}
