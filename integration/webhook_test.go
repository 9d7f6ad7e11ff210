package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/internal/testsite"
	"github.com/durablecrawl/crawler/webhook"
	"github.com/durablecrawl/crawler/workflows"
)

// webhookTaskQueue is the deployment of TestWebhookThroughRestart, whose
// worker the test stops and starts.
const webhookTaskQueue = "crawls-test-webhook"

// hookReceiver is a webhook endpoint that answers 503 until opened, and
// records each event it accepts.
type hookReceiver struct {
	mu       sync.Mutex
	open     bool
	refused  int
	accepted []webhook.Body
	badSigs  int
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.open {
		h.refused++
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var b webhook.Body
	if err := json.Unmarshal(body, &b); err != nil || r.Header.Get(webhook.EventIDHeader) != b.EventID {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if r.Header.Get(webhook.SignatureHeader) != webhook.Sign([]byte(webhookSecret), body) {
		h.badSigs++
	}
	h.accepted = append(h.accepted, b)
}

func (h *hookReceiver) got(typ string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.accepted {
		if b.Type == typ {
			return true
		}
	}
	return false
}

// TestWebhookThroughRestart: a native crawl's webhook receiver is down
// while the crawl runs and ends; its worker is stopped, the receiver comes
// back, another worker starts: every event is delivered (started, each
// page, completed last), signed, and only then does the crawl's workflow
// end.
func TestWebhookThroughRestart(t *testing.T) {
	t.Parallel()
	cfg := env.restartConfig
	cfg.TaskQueue, cfg.MaxPagesPerCrawl = webhookTaskQueue, 1000
	stop, err := startWorker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: webhookTaskQueue, Server: testServer}))
	site := httptest.NewServer(testsite.New(testsite.Options{Pages: 40}))
	defer site.Close()
	recv := &hookReceiver{}
	hooks := httptest.NewServer(recv)
	defer hooks.Close()

	c := create(t, base, env.keyA, map[string]any{"startUrl": site.URL + "/", "maxResults": 8,
		"webhook": map[string]any{"url": hooks.URL + "/in", "metadata": map[string]any{"test": "restart"}}})
	waitStatus(t, base, env.keyA, c.ID, time.Minute, "succeeded")
	stop()
	recv.mu.Lock()
	refused := recv.refused
	recv.open = true
	recv.mu.Unlock()
	// The page events wait for started, which the receiver refused.
	if refused < 1 {
		t.Errorf("the receiver refused %d attempts while down", refused)
	}
	stop, err = startWorker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var res workflows.CrawlResult
	if err := env.temporal.GetWorkflow(ctx, crawlflow.WorkflowID(c.ID), "").Get(ctx, &res); err != nil {
		t.Fatalf("the crawl's workflow: %v", err)
	}
	if !recv.got("crawl.completed") {
		t.Fatalf("the workflow ended before crawl.completed was delivered: %+v", recv.accepted)
	}
	recordHistories(t, c.ID, "succeeded-webhooks")

	recv.mu.Lock()
	defer recv.mu.Unlock()
	ids, pages := map[string]bool{}, map[string]bool{}
	var order []string
	for _, b := range recv.accepted {
		if ids[b.EventID] {
			continue // delivered twice (a worker stopped mid-send): the ID says so
		}
		ids[b.EventID] = true
		order = append(order, b.Type)
		if b.ID != c.ID || b.Metadata["test"] != "restart" || !b.Success {
			t.Errorf("event %+v", b)
		}
		if b.Type == "crawl.page" && len(b.Data) == 1 {
			var doc struct {
				Markdown string `json:"markdown"`
				Metadata struct {
					SourceURL string `json:"sourceURL"`
				} `json:"metadata"`
			}
			if json.Unmarshal(b.Data[0], &doc) == nil && doc.Markdown != "" {
				pages[doc.Metadata.SourceURL] = true
			}
		}
	}
	if recv.badSigs > 0 {
		t.Errorf("%d events with a wrong signature", recv.badSigs)
	}
	if len(order) != 10 || order[len(order)-1] != "crawl.completed" || len(pages) != 8 {
		t.Errorf("distinct events %v (%d pages), want started, 8 pages, completed last", order, len(pages))
	}
	logs := allLogs(t, base, env.keyA, c.ID, 200)
	if n := countMessages(logs, "Webhook delivered"); n != 10 {
		t.Errorf("%d deliveries in the log, want 10", n)
	}
	if n := countMessages(logs, "Webhook attempt failed"); n != refused {
		t.Errorf("%d failed attempts in the log, the receiver refused %d", n, refused)
	}
}

// TestWebhookGivenUp: events to a receiver that never answers 2xx are
// given up after the worker's retry window, each logged as an error; the
// end event, which waits for the page events, then goes (and is given up
// too), and the workflow ends.
func TestWebhookGivenUp(t *testing.T) {
	t.Parallel()
	cfg := env.restartConfig
	cfg.TaskQueue, cfg.MaxPagesPerCrawl, cfg.WebhookRetryFor = webhookTaskQueue+"-giveup", 1000, 3*time.Second
	stop, err := startWorker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	base := serve(api.New(api.Options{Store: env.store, Temporal: env.temporal, TaskQueue: cfg.TaskQueue, Server: testServer,
		WebhookRetryFor: cfg.WebhookRetryFor}))
	site := httptest.NewServer(testsite.New(testsite.Options{Pages: 20}))
	defer site.Close()
	recv := &hookReceiver{} // never opened
	hooks := httptest.NewServer(recv)
	defer hooks.Close()

	c := create(t, base, env.keyA, map[string]any{"startUrl": site.URL + "/", "maxResults": 3, "webhook": hooks.URL + "/in"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := env.temporal.GetWorkflow(ctx, crawlflow.WorkflowID(c.ID), "").Get(ctx, nil); err != nil {
		t.Fatalf("the crawl's workflow: %v", err)
	}
	logs := allLogs(t, base, env.keyA, c.ID, 200)
	var givenUp []string
	startedAttempts := 0.0
	for _, l := range logs {
		if l.Message == "Webhook given up" {
			if l.Level != "error" {
				t.Errorf("%q is %s, want error", l.Description, l.Level)
			}
			w, _ := l.Data["webhook"].(map[string]any)
			givenUp = append(givenUp, fmt.Sprint(w["event"]))
			if w["event"] == "crawl.started" {
				startedAttempts, _ = w["attempt"].(float64)
			}
		}
	}
	// started, three pages, completed: each tried for the window, then given up.
	if len(givenUp) != 5 || givenUp[0] != "crawl.started" || givenUp[4] != "crawl.completed" {
		t.Errorf("events given up: %v", givenUp)
	}
	// started was retried within its window (2 s, then 4 s); the pages,
	// held back by it past theirs, were tried once each.
	if startedAttempts < 2 || countMessages(logs, "Webhook attempt failed") < 1 {
		t.Errorf("started given up after %v attempts; %d failed attempts logged", startedAttempts, countMessages(logs, "Webhook attempt failed"))
	}
}
