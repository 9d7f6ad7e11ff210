package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestAllowed(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34":    true,
		"2606:4700::1111":  true,
		"8.8.8.8":          true,
		"127.0.0.1":        false,
		"127.8.9.10":       false,
		"10.1.2.3":         false,
		"172.16.0.1":       false,
		"172.31.255.255":   false,
		"172.32.0.1":       true,
		"192.168.1.1":      false,
		"169.254.169.254":  false, // cloud metadata
		"100.64.0.1":       false,
		"0.0.0.0":          false,
		"::1":              false,
		"::":               false,
		"fe80::1":          false,
		"fd00:ec2::254":    false, // cloud metadata over IPv6
		"::ffff:127.0.0.1": false,
		"::ffff:10.0.0.1":  false,
		"224.0.0.1":        false,
	} {
		if got := Allowed(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestDialerRefusesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()

	guarded := &http.Client{Transport: &http.Transport{DialContext: Dialer(false, time.Second).DialContext}}
	_, err := guarded.Get(srv.URL)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("guarded GET %s: err = %v, want ErrForbiddenAddress", srv.URL, err)
	}

	open := &http.Client{Transport: &http.Transport{DialContext: Dialer(true, time.Second).DialContext}}
	resp, err := open.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET with private networks allowed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Errorf("status = %d, want 204", resp.StatusCode)
	}
}

func TestDialerChecksResolvedAddress(t *testing.T) {
	// "localhost" passes no string check; the dialled address is what counts.
	_, err := Dialer(false, time.Second).DialContext(context.Background(), "tcp", net.JoinHostPort("localhost", "9"))
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("dial localhost: err = %v, want ErrForbiddenAddress", err)
	}
}
