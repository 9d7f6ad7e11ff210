package api

import (
	"context"
	"errors"
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

// catchupBytes bounds the documents a watch's catchup message holds; the
// documents past it follow as document messages.
const catchupBytes = 32 << 20

// The close frames that end a watch, as Firecrawl sends them: 1000 with
// a done message when the crawl has ended and every document was sent,
// 1011 with an error message when the crawl could not be read.
var (
	watchDone  = websocket.FormatCloseMessage(websocket.CloseNormalClosure, `{"type":"done"}`)
	watchError = websocket.FormatCloseMessage(websocket.CloseInternalServerErr, `{"type":"error","error":"the crawl could not be read; try again"}`)
)

// fcWatch speaks Firecrawl's watch protocol: a catchup message with the
// crawl's status and every document stored so far, then a document
// message for each page stored after (a heartbeat each second nothing
// new is stored), and, once the crawl has ended and every document was
// sent, a close frame (1000, {"type":"done"}). It follows the pages it
// sent by their IDs, not by their place in the crawl's order: pages
// stored at once may become visible in another order than they sort in.
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
	end := func(frame []byte) {
		_ = conn.WriteControl(websocket.CloseMessage, frame, time.Now().Add(5*time.Second))
		// Wait a moment for the client's close frame, as the protocol has it.
		select {
		case <-gone:
		case <-time.After(2 * time.Second):
		}
	}
	w := &watch{server: s, target: t, sent: map[int64]bool{}}
	ended, err := w.catchup(conn)
	if err != nil {
		if !errors.Is(err, errWatchWrite) {
			end(watchError)
		}
		return
	}
	for !ended {
		select {
		case <-gone:
			return
		case <-time.After(watchPoll):
		}
		var n int
		n, ended, err = w.next(func(d firecrawl.Document) error { return conn.WriteJSON(watchMessage{Type: "document", Data: d}) })
		switch {
		case errors.Is(err, errWatchWrite):
			return
		case err != nil:
			end(watchError)
			return
		case n == 0 && !ended:
			// Nothing new: a heartbeat, which the SDKs pass over, so that
			// a watcher waiting quietly for a message does not read the
			// status over HTTP meanwhile, find the crawl ended and stop
			// before its last documents arrive.
			if err := conn.WriteJSON(watchMessage{Type: "heartbeat"}); err != nil {
				return
			}
		}
	}
	end(watchDone)
}

// errWatchWrite is a watch whose client could not be written to.
var errWatchWrite = errors.New("the watch's client could not be written to")

// watch is what a watch has sent of its crawl: the stored pages, by ID.
type watch struct {
	server *server
	target watchTarget
	sent   map[int64]bool
}

// read reads the crawl, then the IDs of its stored pages not sent yet,
// in the crawl's order, and how many are stored in all. A crawl read as
// ended has all its pages stored before the IDs are read.
func (w *watch) read(ctx context.Context) (*crawl.Crawl, []int64, int, error) {
	rec, err := w.server.Store.GetCrawl(ctx, w.target.team, w.target.id)
	if err != nil {
		return nil, nil, 0, err
	}
	ids, err := w.server.Store.StoredPageIDs(ctx, rec.ID)
	if err != nil {
		return nil, nil, 0, err
	}
	var unsent []int64
	for _, id := range ids {
		if !w.sent[id] {
			unsent = append(unsent, id)
		}
	}
	return rec, unsent, len(ids), nil
}

// documents reads the documents of ids, firecrawl.MaxDocuments at a time,
// and hands each to each, until each says stop (it returns false).
func (w *watch) documents(ctx context.Context, rec *crawl.Crawl, ids []int64, each func(firecrawl.Document) (more bool, err error)) error {
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), firecrawl.MaxDocuments)]
		ids = ids[len(chunk):]
		pages, err := w.server.Store.StoredPagesByID(ctx, rec.ID, chunk)
		if err != nil {
			return err
		}
		prev, err := w.server.previousOf(ctx, rec, pages)
		if err != nil {
			return err
		}
		for _, p := range pages {
			w.sent[p.ID] = true
			more, err := each(firecrawl.StoredDocument(p, rec, prev, w.target.base))
			if err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// catchup sends the catchup message: the crawl's status and the documents
// stored so far, up to catchupBytes of them (the catchup then says the
// crawl is scraping, and the rest follow as document messages). It
// returns whether the crawl had ended with all of them sent.
func (w *watch) catchup(conn *websocket.Conn) (ended bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*w.server.RequestTimeout)
	defer cancel()
	rec, ids, stored, err := w.read(ctx)
	if err != nil {
		return false, err
	}
	counts, err := w.server.Store.CountPages(ctx, rec.ID)
	if err != nil {
		return false, err
	}
	status := fcStatus(rec, counts, stored)
	all, size := []firecrawl.Document{}, 0
	err = w.documents(ctx, rec, ids, func(d firecrawl.Document) (bool, error) {
		all = append(all, d)
		size += d.Size()
		return size <= catchupBytes, nil
	})
	if err != nil {
		return false, err
	}
	// A crawl that ended with documents still to send is scraping to
	// this client until they are sent.
	more := len(all) < len(ids)
	if more && rec.Status.Terminal() {
		status.Status = firecrawl.StatusOf(crawl.StatusRunning)
	}
	status.Data = all
	if err := conn.WriteJSON(watchMessage{Type: "catchup", Data: status}); err != nil {
		return false, errWatchWrite
	}
	return rec.Status.Terminal() && !more, nil
}

// next hands send the documents stored since the last read (and those the
// catchup left), and returns how many, and whether the crawl has ended
// with all of them sent.
func (w *watch) next(send func(firecrawl.Document) error) (int, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*w.server.RequestTimeout)
	defer cancel()
	rec, ids, _, err := w.read(ctx)
	if err != nil {
		return 0, false, err
	}
	n := 0
	err = w.documents(ctx, rec, ids, func(d firecrawl.Document) (bool, error) {
		n++
		if err := send(d); err != nil {
			return false, errWatchWrite
		}
		return true, nil
	})
	return n, err == nil && rec.Status.Terminal(), err
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
