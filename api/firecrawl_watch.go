package api

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/firecrawl"
)

// Firecrawl's SDKs watch a crawl or batch over a WebSocket at its status
// URL, with the API key as the subprotocol. The watch sends what is
// stored, then each new document, then the final status; a client whose
// connection closes falls back to polling the status, as the SDKs do.

// watchPoll is how often a watch reads the crawl again.
const watchPoll = time.Second

// watchTarget is the crawl a watch follows, set before the upgrade.
type watchTarget struct {
	team, id uuid.UUID
	// base is the API's base URL as the client reached it, which
	// screenshot URLs start with.
	base string
}

const watchKey = "firecrawlWatch"

// firecrawlWatchRoutes adds the WebSocket watch of crawls and batches to
// app; requests that are not upgrades go on to the status routes.
func (s *server) firecrawlWatchRoutes(app *fiber.App) {
	watch := websocket.New(s.fcWatch)
	for _, path := range []string{"/v1/crawl/:id", "/v2/crawl/:id", "/v1/batch/scrape/:id", "/v2/batch/scrape/:id"} {
		app.Get(path, func(c *fiber.Ctx) error {
			if !websocket.IsWebSocketUpgrade(c) {
				return c.Next()
			}
			key := watchKeyOf(c)
			if key == "" {
				return crawl.Errorf(crawl.EUNAUTHORIZED, "missing API key: send it as the WebSocket subprotocol, or Authorization: Bearer <key>")
			}
			ctx, cancel := s.ctx(c)
			defer cancel()
			p, err := s.Store.Authenticate(ctx, key)
			if err != nil {
				return err
			}
			id, err := crawlID(c, "id")
			if err != nil {
				return err
			}
			if _, err := s.Store.GetCrawl(ctx, p.TeamID, id); err != nil {
				return err
			}
			c.Locals(watchKey, watchTarget{team: p.TeamID, id: id, base: c.BaseURL()})
			if proto := strings.TrimSpace(c.Get("Sec-WebSocket-Protocol")); proto != "" {
				// The client asked for the key as its subprotocol: it
				// must read it back, or it drops the connection.
				c.Set("Sec-WebSocket-Protocol", strings.TrimSpace(strings.Split(proto, ",")[0]))
			}
			return watch(c)
		})
	}
}

// watchKeyOf is the API key of a watch: the first subprotocol the client
// offered, or the Authorization header's bearer token.
func watchKeyOf(c *fiber.Ctx) string {
	if proto := strings.TrimSpace(c.Get("Sec-WebSocket-Protocol")); proto != "" {
		return strings.TrimSpace(strings.Split(proto, ",")[0])
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(c.Get(fiber.HeaderAuthorization)), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}

// watchMessage is one message of a watch.
type watchMessage struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// fcWatch sends a crawl's documents as they are stored: first a catchup
// of what is stored, then each new document, then its final status (the
// SDK ends the watch on a status that is completed, failed or
// cancelled).
func (s *server) fcWatch(conn *websocket.Conn) {
	t, ok := conn.Locals(watchKey).(watchTarget)
	if !ok {
		return
	}
	defer conn.Close()
	// The client sends nothing; reading tells when it has gone, so that
	// a watch of a long crawl does not outlive its client.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	sent, catchup := 0, true
	for {
		ctx, cancel := context.WithTimeout(context.Background(), s.RequestTimeout)
		rec, status, docs, err := s.readStatus(ctx, t, sent)
		cancel()
		if err != nil {
			_ = conn.WriteJSON(watchMessage{Type: "error", Data: nil})
			return
		}
		switch {
		case catchup:
			snapshot := status
			snapshot.Data = docs
			if err := conn.WriteJSON(watchMessage{Type: "catchup", Data: snapshot}); err != nil {
				return
			}
			catchup = false
		default:
			for _, d := range docs {
				if err := conn.WriteJSON(watchMessage{Type: "document", Data: d}); err != nil {
					return
				}
			}
		}
		sent += len(docs)
		if len(docs) == firecrawl.MaxDocuments {
			continue // more are stored: read on at once
		}
		if rec.Status.Terminal() {
			// The final status, without documents: they were all sent.
			status.Data = []firecrawl.Document{}
			_ = conn.WriteJSON(watchMessage{Type: "status", Data: status})
			return
		}
		select {
		case <-gone:
			return
		case <-time.After(watchPoll):
		}
	}
}

// readStatus reads crawl t's Firecrawl status (without documents) and up
// to firecrawl.MaxDocuments of its documents from the sent-th on.
func (s *server) readStatus(ctx context.Context, t watchTarget, sent int) (*crawl.Crawl, firecrawl.CrawlStatus, []firecrawl.Document, error) {
	rec, err := s.Store.GetCrawl(ctx, t.team, t.id)
	if err != nil {
		return nil, firecrawl.CrawlStatus{}, nil, err
	}
	counts, err := s.Store.CountPages(ctx, rec.ID)
	if err != nil {
		return nil, firecrawl.CrawlStatus{}, nil, err
	}
	pages, stored, err := s.Store.ListResultsFrom(ctx, rec.ID, sent, firecrawl.MaxDocuments)
	if err != nil {
		return nil, firecrawl.CrawlStatus{}, nil, err
	}
	prev, err := s.previousOf(ctx, rec, pages)
	if err != nil {
		return nil, firecrawl.CrawlStatus{}, nil, err
	}
	docs := make([]firecrawl.Document, 0, len(pages))
	for _, p := range pages {
		docs = append(docs, firecrawl.StoredDocument(p, rec, prev, t.base))
	}
	return rec, fcStatus(rec, counts, stored), docs, nil
}

// fcStatus is a crawl's Firecrawl status, without documents.
func fcStatus(rec *crawl.Crawl, counts map[crawl.PageState]int, stored int) firecrawl.CrawlStatus {
	return firecrawl.CrawlStatus{Success: true, Status: firecrawl.StatusOf(rec.Status), Completed: stored,
		Total:       stored + counts[crawl.PageQueued] + counts[crawl.PageClaimed] + counts[crawl.PageFetched] + counts[crawl.PageConverted] + counts[crawl.PageFailed],
		CreditsUsed: stored, ExpiresAt: firecrawl.ExpiresAt(rec.CreatedAt), Data: []firecrawl.Document{}}
}
