package crawllog

import (
	"fmt"
	"net/url"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
)

// Attempt is the outcome of one attempt to deliver a webhook event.
type Attempt struct {
	// Type is the event's type ("crawl.page"); PageURL the page of a page
	// event ("" for the others).
	Type, PageURL string
	// Receiver is the webhook's URL; only its host is written.
	Receiver string
	// Status is the receiver's answer (0: none came); Err why the attempt
	// failed (nil: delivered).
	Status int
	Err    error
	// GivenUp marks the last attempt of an event that failed.
	GivenUp bool
	// Retry is how long until the next attempt of a failed event.
	Retry string
	// Event is the event's ID, and Number which attempt this is (from 1).
	Event  uuid.UUID
	Number int
}

// WebhookAttempt is the entry of one attempt to deliver event ev.
func WebhookAttempt(c *crawl.Crawl, a Attempt) crawl.CrawlLog {
	host := a.Receiver
	if u, err := url.Parse(a.Receiver); err == nil && u.Host != "" {
		host = u.Host
	}
	what := a.Type + " event"
	if a.PageURL != "" {
		what += " of " + a.PageURL
	}
	pageURL := a.PageURL
	if pageURL == "" {
		pageURL = c.StartURLs[0]
	}
	data := map[string]any{"url": pageURL, "statusCode": 0, "webhook": map[string]any{
		"event": a.Type, "eventId": a.Event.String(), "attempt": a.Number, "receiverStatus": a.Status}}
	key := fmt.Sprintf("webhook:%s:%d", a.Event, a.Number)
	switch {
	case a.Err == nil:
		return entry(c, key, Info, "Webhook delivered",
			fmt.Sprintf("Delivered the %s to %s (attempt %d, answer %d).", what, host, a.Number, a.Status), data)
	case a.GivenUp:
		return entry(c, key, Error, "Webhook given up",
			fmt.Sprintf("Gave up the %s to %s after %d attempts: %v.", what, host, a.Number, a.Err), data)
	default:
		return entry(c, key, Warn, "Webhook attempt failed",
			fmt.Sprintf("Attempt %d of the %s to %s failed: %v; next attempt in %s.", a.Number, what, host, a.Err, a.Retry), data)
	}
}
