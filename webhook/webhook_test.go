package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/netguard"
)

func TestSign(t *testing.T) {
	body := []byte(`{"type":"crawl.page"}`)
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write(body)
	if got, want := Sign([]byte("s3cret"), body), "sha256="+hex.EncodeToString(m.Sum(nil)); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestParse(t *testing.T) {
	c, bad := Parse([]byte(`"https://hooks.example/in"`), nil)
	if len(bad) > 0 || c.URL != "https://hooks.example/in" || !c.Wants(Page) || c.Type(Started) != "crawl.started" {
		t.Errorf("a URL alone: %+v %v", c, bad)
	}
	cases := map[string]string{
		`{"headers":{}}`: "url",
		`{"url":"https://h.example/","events":[1]}`:          "events",
		`{"url":"https://h.example/","metadata":[]}`:         "metadata",
		`{"url":"https://user:pw@h.example/"}`:               "url",
		`{"url":"http://localhost:8080/in"}`:                 "url",
		`{"url":"https://h.example/","headers":{"a b":"c"}}`: "headers",
		`42`: "",
	}
	internal := func(host string) bool { return host == "localhost" }
	for in, field := range cases {
		if _, bad := Parse([]byte(in), internal); len(bad) == 0 || bad[0].Field != field {
			t.Errorf("Parse(%s) = %v, want a problem with %q", in, bad, field)
		}
	}
}

func TestNextAttempt(t *testing.T) {
	now := time.Unix(0, 0)
	for attempts, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 5: 32 * time.Second, 30: MaxRetry} {
		if got := NextAttempt(attempts, now).Sub(now); got != want {
			t.Errorf("NextAttempt(%d) in %s, want %s", attempts, got, want)
		}
	}
}

// TestSender: an event goes with the caller's headers, its ID and a
// signature of the exact body; a 5xx is a failure; a private address is
// refused unless allowed.
func TestSender(t *testing.T) {
	var got *http.Request
	var body []byte
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		w.WriteHeader(status)
	}))
	defer srv.Close()
	c := &Config{URL: srv.URL + "/in", Headers: map[string]string{"Authorization": "Bearer t"}}
	s := NewSender("s3cret", "test-agent", true)
	sent := []byte(`{"type":"crawl.started"}`)
	if code, err := s.Send(context.Background(), c, "ev-1", sent); err != nil || code != 200 {
		t.Fatalf("Send = %d, %v", code, err)
	}
	if got.Header.Get("Authorization") != "Bearer t" || got.Header.Get(EventIDHeader) != "ev-1" ||
		got.Header.Get(SignatureHeader) != Sign([]byte("s3cret"), body) || string(body) != string(sent) {
		t.Errorf("request headers %v, body %s", got.Header, body)
	}
	status = http.StatusServiceUnavailable
	if code, err := s.Send(context.Background(), c, "ev-1", sent); err == nil || code != 503 {
		t.Errorf("a 503: %d, %v; want a failure", code, err)
	}
	guarded := NewSender("", "test-agent", false)
	if _, err := guarded.Send(context.Background(), c, "ev-2", sent); !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Errorf("a loopback receiver without allowPrivate: %v, want refused", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
