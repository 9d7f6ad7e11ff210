// Package egress is the browser's way out to the network: a forward proxy
// on the loopback interface that Chromium is told to send every request
// through (pages, their scripts' fetches, redirects, WebSockets, the
// requests of a page's actions). Each connection it opens passes the
// network guard (package netguard) on the address actually dialled, so
// that what a page's own script or a caller's executeJavascript asks for
// reaches nothing the static fetcher may not. With an upstream proxy, the
// target's addresses are checked before the request is handed on.
//
// A refused request is answered 403 by the proxy itself, marked with
// RefusedHeader: a tunnel (CONNECT) so answered fails in the browser, and
// a plain request's 403 carries nothing of the address asked for.
package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/durablecrawl/crawler/netguard"
)

// Options configure a Proxy.
type Options struct {
	// Guard says which addresses may be reached.
	Guard netguard.Policy
	// Upstream, when set (http://[user:pass@]host:port), carries every
	// request on to the network; the proxy checks the target's addresses
	// first, since the upstream resolves and dials them itself.
	Upstream *url.URL
	// DialTimeout bounds one connection's dial (default 10 s).
	DialTimeout time.Duration
}

// Proxy is a running forward proxy. Close it when done.
type Proxy struct {
	opts    Options
	ln      net.Listener
	srv     *http.Server
	dialer  *net.Dialer
	refused atomic.Int64
	carried atomic.Int64
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
}

// Start listens on a free loopback port and serves until Close.
func Start(o Options) (*Proxy, error) {
	if o.DialTimeout == 0 {
		o.DialTimeout = 10 * time.Second
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen: %w", err)
	}
	p := &Proxy{opts: o, ln: ln, dialer: netguard.DialerFor(o.Guard, o.DialTimeout), conns: map[net.Conn]struct{}{}}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil,
		ConnState: p.track}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the proxy's address, for the browser's proxy setting.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Refused counts the requests the guard refused; Carried those passed on.
func (p *Proxy) Refused() int64 { return p.refused.Load() }

// Carried counts the requests and tunnels the proxy passed on.
func (p *Proxy) Carried() int64 { return p.carried.Load() }

// Close stops the proxy and closes every connection it holds, tunnels
// included.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	return p.srv.Close()
}

// track keeps the connections the server has, and those it handed over
// to a tunnel, so that Close ends them all.
func (p *Proxy) track(c net.Conn, s http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch s {
	case http.StateNew:
		p.conns[c] = struct{}{}
	case http.StateClosed:
		delete(p.conns, c)
	}
}

// adopt records a connection the proxy dialled; it returns false when the
// proxy is closed (the connection is then closed).
func (p *Proxy) adopt(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) forget(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// ServeHTTP answers a proxy request: CONNECT opens a tunnel, anything
// else (absolute-form) is forwarded, protocol upgrades (WebSockets)
// included.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || (r.URL.Scheme != "http" && r.URL.Scheme != "https") {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	p.forward(w, r)
}

// ErrRefused wraps every refusal of the guard.
var ErrRefused = netguard.ErrForbiddenAddress

// dial opens a connection to addr (host:port) for a request, through the
// upstream proxy when there is one (a CONNECT tunnel to addr).
func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	if p.opts.Upstream == nil {
		return p.dialer.DialContext(ctx, "tcp", addr)
	}
	if err := p.checkTarget(ctx, addr); err != nil {
		return nil, err
	}
	c, err := p.dialUpstream(ctx)
	if err != nil {
		return nil, err
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	p.authorize(req.Header)
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(p.opts.DialTimeout))
	}
	if err := req.Write(c); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("ask the upstream proxy for %s: %w", addr, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("the upstream proxy's answer for %s: %w", addr, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_ = c.Close()
		return nil, fmt.Errorf("the upstream proxy answered %s for %s", resp.Status, addr)
	}
	_ = c.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// dialUpstream connects to the upstream proxy.
func (p *Proxy) dialUpstream(ctx context.Context) (net.Conn, error) {
	up := p.opts.Upstream
	port := up.Port()
	if port == "" {
		port = "80"
		if up.Scheme == "https" {
			port = "443"
		}
	}
	d := net.Dialer{Timeout: p.opts.DialTimeout, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(up.Hostname(), port))
	if err != nil {
		return nil, fmt.Errorf("dial the upstream proxy: %w", err)
	}
	return c, nil
}

// authorize adds the upstream proxy's credentials, if its URL has them,
// to a request's headers for it.
func (p *Proxy) authorize(h http.Header) {
	u := p.opts.Upstream.User
	if u == nil {
		return
	}
	pass, _ := u.Password()
	r := &http.Request{Header: http.Header{}}
	r.SetBasicAuth(u.Username(), pass)
	h.Set("Proxy-Authorization", r.Header.Get("Authorization"))
}

// checkTarget resolves addr's host and refuses it when any of its
// addresses is one the guard forbids: an upstream proxy dials it itself.
func (p *Proxy) checkTarget(ctx context.Context, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.opts.Guard.Check(ip)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		if err := p.opts.Guard.Check(ip); err != nil {
			return err
		}
	}
	return nil
}

// tunnel answers CONNECT: the target is dialled (and checked), then bytes
// flow both ways until either side closes.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	addr := r.Host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "443")
	}
	target, err := p.dial(r.Context(), addr)
	if err != nil {
		p.fail(w, err)
		return
	}
	if !p.adopt(target) {
		return
	}
	defer p.forget(target)
	p.carried.Add(1)
	client, from, err := hijack(w, "HTTP/1.1 200 Connection established\r\n\r\n")
	if err != nil {
		_ = target.Close()
		return
	}
	splice(client, from, target)
}

// hijack takes the client's connection from the server, writes head to
// it, and answers it with what to read from it (the bytes the server had
// read ahead first).
func hijack(w http.ResponseWriter, head string) (net.Conn, io.Reader, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "the connection cannot be taken over", http.StatusInternalServerError)
		return nil, nil, errors.New("the response writer cannot hijack")
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.WriteString(client, head); err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	var from io.Reader = client
	if n := rw.Reader.Buffered(); n > 0 {
		ahead, _ := rw.Reader.Peek(n)
		from = io.MultiReader(bytes.NewReader(bytes.Clone(ahead)), client)
	}
	return client, from, nil
}

// splice copies between a and b (reading a's side from aIn) until both
// directions end, then closes both.
func splice(a net.Conn, aIn io.Reader, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, aIn); closeWrite(b); done <- struct{}{} }()
	go func() { _, _ = io.Copy(a, b); closeWrite(a); done <- struct{}{} }()
	<-done
	<-done
	_ = a.Close()
	_ = b.Close()
}

func closeWrite(c net.Conn) {
	type writeCloser interface{ CloseWrite() error }
	if wc, ok := c.(writeCloser); ok {
		_ = wc.CloseWrite()
		return
	}
	_ = c.Close()
}

// hopHeaders are the headers of one connection, not passed on.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding"}

// forward sends a plain (absolute-form) request on to its target over a
// connection of its own, and copies the answer back. An upgrade
// (WebSocket) keeps the connection open both ways after the answer.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	host := r.URL.Host
	if r.URL.Port() == "" {
		port := "80"
		if r.URL.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(r.URL.Hostname(), port)
	}
	if r.URL.Scheme == "https" {
		// A browser sends https through CONNECT; anything else asking
		// for it in the clear is not one of ours.
		http.Error(w, "https goes through CONNECT", http.StatusBadRequest)
		return
	}
	upgrade := strings.EqualFold(r.Header.Get("Connection"), "upgrade") || r.Header.Get("Upgrade") != ""
	// Through an upstream, a plain request is handed on as it came (an
	// upgrade goes through a tunnel, which proxies carry as they are).
	viaUpstream := p.opts.Upstream != nil && !upgrade
	var target net.Conn
	var err error
	if viaUpstream {
		if err = p.checkTarget(r.Context(), host); err == nil {
			target, err = p.dialUpstream(r.Context())
		}
	} else {
		target, err = p.dial(r.Context(), host)
	}
	if err != nil {
		p.fail(w, err)
		return
	}
	if !p.adopt(target) {
		return
	}
	defer p.forget(target)
	p.carried.Add(1)
	out := r.Clone(r.Context())
	out.RequestURI = ""
	upgradeTo := r.Header.Get("Upgrade")
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if upgrade {
		out.Header.Set("Connection", "Upgrade")
		out.Header.Set("Upgrade", upgradeTo)
	} else {
		out.Header.Set("Connection", "close")
	}
	out.Close = !upgrade
	write := out.Write
	if viaUpstream {
		p.authorize(out.Header)
		write = out.WriteProxy
	}
	if err := write(target); err != nil {
		_ = target.Close()
		p.fail(w, err)
		return
	}
	br := bufio.NewReader(target)
	resp, err := http.ReadResponse(br, out)
	if err != nil {
		_ = target.Close()
		p.fail(w, err)
		return
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		p.switchProtocols(w, resp, target, br)
		return
	}
	defer target.Close()
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// switchProtocols passes a 101 answer back and joins the two connections.
func (p *Proxy) switchProtocols(w http.ResponseWriter, resp *http.Response, target net.Conn, br *bufio.Reader) {
	var head strings.Builder
	if err := resp.Write(&head); err != nil {
		_ = target.Close()
		return
	}
	client, from, err := hijack(w, head.String())
	if err != nil {
		_ = target.Close()
		return
	}
	splice(client, from, &bufferedConn{Conn: target, r: br})
}

// RefusedHeader marks the proxy's own answer to a request the guard
// refused (a 403), so that a caller tells it from the site's.
const RefusedHeader = "X-Crawler-Refused"

// fail answers a request that could not be carried: 403 for one the
// guard refused, marked with RefusedHeader (a browser fails a tunnel so
// answered, and a page's script sees a 403 that came from no site); 502
// for any other error. The connection to the browser stays usable: a
// proxy that drops connections is one a browser stops using.
func (p *Proxy) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, netguard.ErrForbiddenAddress) {
		p.refused.Add(1)
		w.Header().Set(RefusedHeader, "network-guard")
		http.Error(w, "refused by the crawler's network guard: "+err.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, "could not reach the address: "+err.Error(), http.StatusBadGateway)
}

// bufferedConn is a connection whose first bytes were read ahead into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *bufferedConn) CloseWrite() error {
	type writeCloser interface{ CloseWrite() error }
	if wc, ok := c.Conn.(writeCloser); ok {
		return wc.CloseWrite()
	}
	return c.Conn.Close()
}
