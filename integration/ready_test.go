package integration

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/durablecrawl/crawler/api"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/worker"
)

// TestReadyzWhenPostgresStops: an API whose Postgres goes away answers
// /readyz 503 naming postgres (Temporal still ok) and /healthz 200, and
// ready again when the database is back.
func TestReadyzWhenPostgresStops(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(env.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	p := newTCPProxy(t, u.Host)
	u.Host = p.addr
	database, err := db.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer database.Close()
	store := db.NewStore(database)
	base := serve(api.New(api.Options{Store: store, Temporal: env.temporal, TaskQueue: taskQueue, Server: testServer,
		Ready: worker.ReadyChecks(store, env.temporal)}))

	ready := func() (int, map[string]string) {
		var r struct{ Checks map[string]string }
		status, _ := call(t, "GET", base+"/readyz", "", nil, &r)
		return status, r.Checks
	}
	if status, checks := ready(); status != 200 || checks["postgres"] != "ok" || checks["temporal"] != "ok" {
		t.Fatalf("ready: %d %v", status, checks)
	}
	p.stop() // Postgres is gone: no new connection, open ones cut
	status, checks := ready()
	if status != http.StatusServiceUnavailable || checks["postgres"] == "ok" || checks["temporal"] != "ok" {
		t.Errorf("Postgres stopped: %d %v, want 503 naming postgres", status, checks)
	}
	if status, _ := call(t, "GET", base+"/healthz", "", nil, nil); status != 200 {
		t.Errorf("healthz with Postgres stopped: %d, want 200 (the process is alive)", status)
	}
	if status, raw := call(t, "GET", base+"/crawls", env.keyA, nil, nil); status < 500 || !strings.Contains(string(raw), `"error"`) {
		t.Errorf("a read with Postgres stopped: %d %s, want a JSON 5xx", status, raw)
	}
	p.start()
	if status, checks := ready(); status != 200 {
		t.Errorf("Postgres back: %d %v", status, checks)
	}
}

// tcpProxy forwards connections to a target until stopped.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target}
	p.start()
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) start() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

// stop refuses new connections and cuts the open ones, as a stopped
// server would.
func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
