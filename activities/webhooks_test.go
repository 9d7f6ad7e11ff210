package activities

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/webhook"
)

// fakeSender records every attempt and fails the first failFirst attempts
// of each event with a 503.
type fakeSender struct {
	mu        sync.Mutex
	failFirst int
	tries     map[string]int
	bodies    []webhook.Body // in the order attempted
}

func (s *fakeSender) Send(_ context.Context, _ *webhook.Config, eventID string, raw []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b webhook.Body
	if err := json.Unmarshal(raw, &b); err != nil || b.EventID != eventID {
		return 0, errors.New("bad body")
	}
	s.bodies = append(s.bodies, b)
	if s.tries == nil {
		s.tries = map[string]int{}
	}
	s.tries[eventID]++
	if s.tries[eventID] <= s.failFirst {
		return 503, errors.New("the receiver answered 503")
	}
	return 200, nil
}

// due makes every pending event due now, as if its retry wait elapsed.
func (f *fakeStore) due() {
	for i := range f.hooks {
		f.hooks[i].NextAttemptAt = time.Now()
	}
}

func hookCrawl() *fakeStore {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"},
		Webhook: &webhook.Config{URL: "https://hooks.example/in", Metadata: map[string]any{"project": "docs"}}})
	md := "# Page"
	return &fakeStore{crawl: c, results: []crawl.Page{
		{ID: 1, URL: "https://example.com/", Markdown: &md}, {ID: 2, URL: "https://example.com/a", Markdown: &md}}}
}

// TestWebhooksRetriedThenCompleted: events that fail are tried again with
// the same ID, and the end event goes only once every page event is done.
func TestWebhooksRetriedThenCompleted(t *testing.T) {
	f := hookCrawl()
	s := &fakeSender{failFirst: 1}
	ctx := context.Background()
	in := DeliverWebhooksInput{CrawlID: f.crawl.ID.String()}

	res, err := deliverWebhooks(ctx, f, s, settings, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending != 3 || res.RetryIn <= 0 || res.RetryIn > webhook.FirstRetry {
		t.Fatalf("after started failed: %+v, want 3 pending (the pages held back), retry within %s", res, webhook.FirstRetry)
	}
	// The crawl ends while its page events wait for a retry: the end
	// event waits for them.
	f.crawl.Status = crawl.StatusSucceeded
	in.Final = true
	if res, err = deliverWebhooks(ctx, f, s, settings, in); err != nil || res.Pending != 3 {
		t.Fatalf("final call before the retries are due: %+v, %v; want the 3 retries pending, the end not added yet", res, err)
	}
	f.due()
	if res, err = deliverWebhooks(ctx, f, s, settings, in); err != nil || res.Pending != 2 {
		t.Fatalf("after started's retry: %+v, %v; want the two pages pending after their first attempt", res, err)
	}
	f.due()
	if res, err = deliverWebhooks(ctx, f, s, settings, in); err != nil {
		t.Fatal(err)
	}
	if res.Pending != 1 {
		t.Fatalf("after the pages' retries: %+v, want the end event pending after its failed attempt", res)
	}
	f.due()
	if res, err = deliverWebhooks(ctx, f, s, settings, in); err != nil || res.Pending != 0 {
		t.Fatalf("after every retry: %+v, %v; want nothing pending", res, err)
	}
	var types []string
	for _, b := range s.bodies {
		types = append(types, strings.TrimPrefix(b.Type, "crawl."))
		if b.ID != f.crawl.ID.String() || b.Metadata["project"] != "docs" {
			t.Errorf("body %+v: want the crawl's ID and the caller's metadata", b)
		}
	}
	// started fails first; the pages wait for it, then fail once each.
	want := "started started page page page page completed completed"
	if strings.Join(types, " ") != want {
		t.Errorf("attempts %v, want %s", types, want)
	}
	for id, n := range s.tries {
		if n != 2 {
			t.Errorf("event %s tried %d times, want 2 (one failure, one delivery, same ID)", id, n)
		}
	}
	if page := s.bodies[3]; len(page.Data) != 1 || !strings.Contains(string(page.Data[0]), `"markdown":"# Page"`) {
		t.Errorf("page event data %s, want the page's document", page.Data)
	}
	levels := map[string]int{}
	for _, l := range f.logs {
		levels[l.Message]++
	}
	if levels["Webhook attempt failed"] != 4 || levels["Webhook delivered"] != 4 {
		t.Errorf("log entries %v, want 4 failed attempts and 4 deliveries", levels)
	}
}

// TestWebhookGivenUp: an event that keeps failing past the retry window
// is given up and logged as an error; a failed crawl's end event then
// goes, with success false and the crawl's error.
func TestWebhookGivenUp(t *testing.T) {
	f := hookCrawl()
	f.results = f.results[:1]
	f.crawl.Status, f.crawl.ErrorMessage = crawl.StatusTimedOut, "The crawl's timeout elapsed."
	f.crawl.Webhook.Events = []string{webhook.Page, webhook.Failed}
	s := &fakeSender{failFirst: 1 << 30}
	set := settings
	set.WebhookRetryFor = time.Nanosecond
	res, err := deliverWebhooks(context.Background(), f, s, set, DeliverWebhooksInput{CrawlID: f.crawl.ID.String(), Final: true})
	if err != nil || res.Pending != 0 {
		t.Fatalf("%+v, %v; want everything given up", res, err)
	}
	if len(s.bodies) != 2 || s.bodies[0].Type != "crawl.page" || s.bodies[1].Type != "crawl.failed" ||
		s.bodies[1].Success || s.bodies[1].Error == nil || *s.bodies[1].Error != f.crawl.ErrorMessage {
		t.Fatalf("attempts %+v, want the page event then crawl.failed with the crawl's error", s.bodies)
	}
	for _, l := range f.logs {
		if l.Message != "Webhook given up" || l.Level != "error" {
			t.Errorf("entry %q (%s), want each event given up as an error", l.Message, l.Level)
		}
	}
}

// TestWebhookPageWaitsForExtraction: while a crawl with extraction runs,
// a page's event waits for its extraction (its document then holds it);
// once the crawl has ended, every result page gets its event.
func TestWebhookPageWaitsForExtraction(t *testing.T) {
	f := hookCrawl()
	f.crawl.Extraction = "the prices"
	f.crawl.Webhook.Events = []string{webhook.Page}
	now := time.Now()
	f.results[0].ExtractedAt = &now
	s := &fakeSender{}
	in := DeliverWebhooksInput{CrawlID: f.crawl.ID.String()}
	if _, err := deliverWebhooks(context.Background(), f, s, settings, in); err != nil || len(s.bodies) != 1 {
		t.Fatalf("while crawling: %d events sent (%v), want the extracted page's only", len(s.bodies), err)
	}
	f.crawl.Status, in.Final = crawl.StatusAborted, true
	if _, err := deliverWebhooks(context.Background(), f, s, settings, in); err != nil || len(s.bodies) != 2 {
		t.Fatalf("after the end: %d events sent (%v), want the other page's too", len(s.bodies), err)
	}
}
