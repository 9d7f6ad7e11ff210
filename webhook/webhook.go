// Package webhook is what a crawl tells the URL its caller gave: the
// caller's settings (Config, read from a request by Parse), the body of
// each event (Body), its signature (Sign), one attempt to deliver it
// (Sender) and when to try again (NextAttempt).
//
// Bodies follow Firecrawl's webhook payload (success, type, id, data,
// metadata, error, timestamp), so that receivers written for Firecrawl
// work unchanged; eventId is this service's addition, the same on every
// attempt of one event, for receivers to deduplicate on.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/durablecrawl/crawler/netguard"
)

// The events a caller may ask for. A crawl sends Started once, Page for
// each result page, then Completed (it ended succeeded) or Failed (any
// other end), only after every page event was delivered or given up.
const (
	Started   = "started"
	Page      = "page"
	Completed = "completed"
	Failed    = "failed"
)

// Events are the events in the order a crawl sends them.
var Events = []string{Started, Page, Completed, Failed}

// The kinds of job an event's type names: "crawl.page",
// "batch_scrape.completed".
const (
	KindCrawl       = "crawl"
	KindBatchScrape = "batch_scrape"
)

// Limits of a webhook's settings.
const (
	MaxURLLength     = 2048
	MaxHeaders       = 50
	MaxMetadataBytes = 16 << 10
)

// Config is a crawl's webhook as its caller gave it, stored with the
// crawl (never in workflow history: headers may hold credentials).
type Config struct {
	URL string `json:"url"`
	// Headers are sent with every event.
	Headers map[string]string `json:"headers,omitempty"`
	// Metadata is sent back in every event's metadata.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Events are those the caller wants; empty means all.
	Events []string `json:"events,omitempty"`
	// Kind is KindCrawl or KindBatchScrape, set by the API the crawl came
	// through; empty means KindCrawl.
	Kind string `json:"kind,omitempty"`
	// ChangedOnly, on a crawl with change tracking, sends page events
	// only for what changed since the previous crawl: pages new or
	// changed, and (once the crawl has ended) those removed.
	ChangedOnly bool `json:"changedOnly,omitempty"`
}

// Wants reports whether the caller asked for event.
func (c *Config) Wants(event string) bool {
	if len(c.Events) == 0 {
		return true
	}
	for _, e := range c.Events {
		if e == event {
			return true
		}
	}
	return false
}

// Type is the event's type as its body names it: "crawl.page".
func (c *Config) Type(event string) string {
	kind := c.Kind
	if kind == "" {
		kind = KindCrawl
	}
	return kind + "." + event
}

// Redacted is c with its header values hidden, for answers that show a
// crawl's options.
func (c *Config) Redacted() *Config {
	if c == nil {
		return nil
	}
	r := *c
	if len(c.Headers) > 0 {
		r.Headers = make(map[string]string, len(c.Headers))
		for k := range c.Headers {
			r.Headers[k] = "(hidden)"
		}
	}
	return &r
}

// Problem is a bad part of a webhook's settings: Field is relative to
// the webhook ("url", "events[1]"; "" for the whole value).
type Problem struct {
	Field, Message string
}

// Parse reads a webhook from a request: a URL alone, or an object with
// url, headers, metadata and events. internal reports whether a host names
// an address the server must not reach (nil: every host is allowed).
func Parse(raw json.RawMessage, internal func(host string) bool) (*Config, []Problem) {
	raw = bytes.TrimSpace(raw)
	var c Config
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &c.URL); err != nil {
			return nil, []Problem{{"", "must be a URL or an object with url, headers, metadata and events"}}
		}
	} else {
		var obj struct {
			URL      *string         `json:"url"`
			Headers  json.RawMessage `json:"headers"`
			Metadata json.RawMessage `json:"metadata"`
			Events   json.RawMessage `json:"events"`
			// changedOnly is this service's own field.
			ChangedOnly json.RawMessage `json:"changedOnly"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			return nil, []Problem{{"", "must be a URL or an object with url, headers, metadata and events: " + err.Error()}}
		}
		if obj.URL == nil {
			return nil, []Problem{{"url", "is required"}}
		}
		c.URL = *obj.URL
		var bad []Problem
		if !null(obj.Headers) && json.Unmarshal(obj.Headers, &c.Headers) != nil {
			bad = append(bad, Problem{"headers", "must be an object of strings"})
		}
		if !null(obj.Metadata) {
			if json.Unmarshal(obj.Metadata, &c.Metadata) != nil {
				bad = append(bad, Problem{"metadata", "must be an object"})
			} else if len(obj.Metadata) > MaxMetadataBytes {
				bad = append(bad, Problem{"metadata", fmt.Sprintf("must be at most %d bytes of JSON", MaxMetadataBytes)})
			}
		}
		if !null(obj.Events) && json.Unmarshal(obj.Events, &c.Events) != nil {
			bad = append(bad, Problem{"events", "must be an array of strings"})
		}
		if !null(obj.ChangedOnly) && json.Unmarshal(obj.ChangedOnly, &c.ChangedOnly) != nil {
			bad = append(bad, Problem{"changedOnly", "must be true or false"})
		}
		if len(bad) > 0 {
			return nil, bad
		}
	}
	c.URL = strings.TrimSpace(c.URL)
	if bad := c.check(internal); len(bad) > 0 {
		return nil, bad
	}
	return &c, nil
}

func null(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// check reports what is wrong with c's URL, headers and events.
func (c *Config) check(internal func(host string) bool) []Problem {
	var bad []Problem
	u, err := url.Parse(c.URL)
	switch {
	case c.URL == "":
		bad = append(bad, Problem{"url", "is required"})
	case len(c.URL) > MaxURLLength:
		bad = append(bad, Problem{"url", fmt.Sprintf("must be at most %d characters", MaxURLLength)})
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "":
		bad = append(bad, Problem{"url", "must be an absolute http or https URL"})
	case u.User != nil:
		bad = append(bad, Problem{"url", "must not carry credentials (send them in headers)"})
	case internal != nil && internal(u.Hostname()):
		bad = append(bad, Problem{"url", "is on a private, loopback or reserved address, which this server does not call"})
	}
	if len(c.Headers) > MaxHeaders {
		bad = append(bad, Problem{"headers", fmt.Sprintf("at most %d headers", MaxHeaders)})
	}
	for name, value := range c.Headers {
		if !httpguts.ValidHeaderFieldName(name) {
			bad = append(bad, Problem{"headers", fmt.Sprintf("%q is not a valid header name", name)})
		} else if !httpguts.ValidHeaderFieldValue(value) {
			bad = append(bad, Problem{"headers." + name, "is not a valid header value"})
		}
	}
	for i, e := range c.Events {
		known := false
		for _, k := range Events {
			known = known || e == k
		}
		if !known {
			bad = append(bad, Problem{fmt.Sprintf("events[%d]", i), "must be one of: " + strings.Join(Events, ", ")})
		}
	}
	return bad
}

// Body is an event as it is sent.
type Body struct {
	Success bool   `json:"success"`
	Type    string `json:"type"`
	// ID is the crawl's (or batch's) ID.
	ID string `json:"id"`
	// Data holds a page event's document; it is empty otherwise.
	Data     []json.RawMessage `json:"data"`
	Metadata map[string]any    `json:"metadata"`
	Error    *string           `json:"error,omitempty"`
	// Timestamp is when the event happened (not when it is sent).
	Timestamp string `json:"timestamp"`
	// EventID is the same on every attempt of an event.
	EventID string `json:"eventId"`
}

// Sign returns the value of X-Firecrawl-Signature for body:
// "sha256=" and the hex HMAC-SHA256 of the exact bytes sent.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// SignatureHeader and EventIDHeader are the headers every event carries
// (the signature only when the server has a secret).
const (
	SignatureHeader = "X-Firecrawl-Signature"
	EventIDHeader   = "X-Webhook-Event-Id"
)

// AttemptTimeout bounds one attempt: connecting, sending and the answer.
const AttemptTimeout = 10 * time.Second

// Sender delivers events.
type Sender struct {
	client *http.Client
	secret []byte
	agent  string
}

// NewSender returns a Sender that signs with secret (none when empty),
// names itself userAgent, and refuses private addresses unless
// allowPrivate (checked on the address dialled, so a name that resolves
// to one is refused too).
func NewSender(secret, userAgent string, allowPrivate bool) *Sender {
	tr := &http.Transport{
		DialContext:         netguard.Dialer(allowPrivate, AttemptTimeout).DialContext,
		TLSHandshakeTimeout: AttemptTimeout,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Sender{
		client: &http.Client{Transport: tr, Timeout: AttemptTimeout,
			// An event is sent where the caller said, not where a redirect points.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		secret: []byte(secret), agent: userAgent,
	}
}

// Signed reports whether the sender signs its events.
func (s *Sender) Signed() bool { return len(s.secret) > 0 }

// Send makes one attempt to deliver body to c. It returns the answer's
// status (0 when none came) and, unless the receiver answered 2xx, why
// the attempt failed.
func (s *Sender) Send(ctx context.Context, c *Config, eventID string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.agent)
	req.Header.Set(EventIDHeader, eventID)
	if s.Signed() {
		req.Header.Set(SignatureHeader, Sign(s.secret, body))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// Without the URL, whose path or query may hold a token: the
		// error goes to the crawl's log.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// Retry schedule: the wait after the first failed attempt, its growth,
// and the longest wait between two attempts.
const (
	FirstRetry = 2 * time.Second
	MaxRetry   = 10 * time.Minute
)

// DefaultRetryFor is how long an event is tried before it is given up.
const DefaultRetryFor = 6 * time.Hour

// NextAttempt is when to try an event again after its attempts-th failed
// attempt: the wait doubles from FirstRetry up to MaxRetry.
func NextAttempt(attempts int, now time.Time) time.Time {
	wait := FirstRetry
	for i := 1; i < attempts && wait < MaxRetry; i++ {
		wait *= 2
	}
	return now.Add(min(wait, MaxRetry))
}
