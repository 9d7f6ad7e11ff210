package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/netguard"
)

// serveOn starts a server on addr (host:0) that counts its requests and
// answers "hello from <path>"; a request for /upgrade switches to a line
// echo protocol.
func serveOn(t *testing.T, host string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/upgrade" {
			c, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
			_ = rw.Flush()
			line, _ := rw.ReadString('\n')
			_, _ = rw.WriteString("echo " + line)
			_ = rw.Flush()
			return
		}
		_, _ = io.WriteString(w, "hello from "+r.URL.Path)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}

// refused checks that the proxy answered a GET of u with its own 403.
func refused(t *testing.T, c *http.Client, u string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s through the proxy: %v", u, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RefusedHeader) == "" || strings.Contains(string(body), "hello") {
		t.Errorf("GET %s through the proxy answered %s %q, want the guard's 403", u, resp.Status, body)
	}
}

func proxyClient(p *Proxy) *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
}

// TestGuardRefusesPrivate: through the proxy, an allowed address is
// reached and a loopback one is not, whether asked in the clear or
// through a tunnel; the refused server sees no request.
func TestGuardRefusesPrivate(t *testing.T) {
	public, publicHits := serveOn(t, "127.0.0.2")
	private, privateHits := serveOn(t, "127.0.0.1")
	p, err := Start(Options{Guard: netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := proxyClient(p)

	resp, err := c.Get(public.URL + "/page")
	if err != nil {
		t.Fatalf("GET an allowed address through the proxy: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello from /page" || publicHits.Load() != 1 {
		t.Errorf("allowed address: body %q, hits %d", body, publicHits.Load())
	}

	refused(t, c, private.URL+"/secret")
	// A tunnel to the same address (as a browser asks for https).
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(private.URL, "http://")
	_, _ = io.WriteString(conn, "CONNECT "+addr+" HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if r, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil && r.StatusCode == 200 {
		t.Errorf("CONNECT to a loopback address was granted")
	}
	conn.Close()
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the loopback server saw %d requests through the guard", n)
	}
	if p.Refused() != 2 {
		t.Errorf("Refused() = %d, want 2", p.Refused())
	}
}

// TestUpgradeCarried: a protocol upgrade (as a WebSocket asks) goes
// through to an allowed address and both directions flow after it.
func TestUpgradeCarried(t *testing.T) {
	srv, _ := serveOn(t, "127.0.0.1")
	p, err := Start(Options{Guard: netguard.Policy{AllowPrivate: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	host := strings.TrimPrefix(srv.URL, "http://")
	_, _ = io.WriteString(conn, "GET "+srv.URL+"/upgrade HTTP/1.1\r\nHost: "+host+"\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade through the proxy: %v %v", resp, err)
	}
	_, _ = io.WriteString(conn, "ping\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "echo ping\n" {
		t.Errorf("after the upgrade: %q, %v", line, err)
	}
}

// TestUpstreamChecksTarget: with an upstream proxy, a private target is
// refused before anything is asked of the upstream, and an allowed one
// goes through it.
func TestUpstreamChecksTarget(t *testing.T) {
	public, _ := serveOn(t, "127.0.0.2")
	private, privateHits := serveOn(t, "127.0.0.1")
	var upstreamAsked atomic.Int32
	// The upstream is a tunnelling proxy that records what it was asked.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamAsked.Add(1)
		if r.Method != http.MethodConnect {
			if r.Header.Get("Proxy-Authorization") == "" {
				http.Error(w, "no credentials", http.StatusProxyAuthRequired)
				return
			}
			resp, err := http.DefaultTransport.RoundTrip(&http.Request{Method: r.Method, URL: r.URL, Header: http.Header{}})
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
			return
		}
		target, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		c, _, _ := w.(http.Hijacker).Hijack()
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n")
		splice(c, c, target)
	}))
	defer upstream.Close()
	up, _ := url.Parse(strings.Replace(upstream.URL, "http://", "http://user:pass@", 1))
	p, err := Start(Options{Upstream: up, Guard: netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := proxyClient(p)
	resp, err := c.Get(public.URL + "/via-upstream")
	if err != nil {
		t.Fatalf("GET through the upstream: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello from /via-upstream" || upstreamAsked.Load() != 1 {
		t.Errorf("through the upstream: %q, upstream asked %d times", body, upstreamAsked.Load())
	}
	refused(t, c, private.URL+"/secret")
	if upstreamAsked.Load() != 1 || privateHits.Load() != 0 {
		t.Errorf("a refused target reached the upstream (%d asks) or the server (%d hits)", upstreamAsked.Load(), privateHits.Load())
	}
}
