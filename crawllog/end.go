package crawllog

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
)

// Ender is what End needs of the database: to end a crawl and write the
// entries the ending calls for, in one transaction.
type Ender interface {
	EndCrawl(ctx context.Context, id uuid.UUID, status crawl.Status, message string,
		logs func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, error)
}

// End ends a running crawl with status (compare-and-set: a crawl that
// already ended keeps its status), closes the pages it left half-done, and
// writes the entries of pages a cancelled batch did not log and then the
// crawl's last entry for whichever status it ended with, in one
// transaction. The workflow (through the FinishCrawl activity), the API
// and the reconciler all end crawls through it; it is idempotent.
func End(ctx context.Context, store Ender, id uuid.UUID, status crawl.Status, cause EndCause) (*crawl.Crawl, error) {
	return EndWith(ctx, store, id, status, cause.Sentence())
}

// EndWith is End with the reason worded already: a FinishCrawl sent by a
// workflow from before typed causes.
func EndWith(ctx context.Context, store Ender, id uuid.UUID, status crawl.Status, reason string) (*crawl.Crawl, error) {
	return store.EndCrawl(ctx, id, status, reason, func(c *crawl.Crawl, unlogged []crawl.Page) []crawl.CrawlLog {
		var logs []crawl.CrawlLog
		for _, p := range unlogged {
			logs = append(logs, Pages(c, p)...)
		}
		return append(logs, Ended(c, status, reason))
	})
}

// Ended is a crawl's last entry; asked is the status the ending asked
// for, reason why. When another party ended the crawl first, the entry
// tells its status and message.
func Ended(c *crawl.Crawl, asked crawl.Status, reason string) crawl.CrawlLog {
	if c.Status != asked {
		reason = c.ErrorMessage
	}
	level := Info
	switch c.Status {
	case crawl.StatusFailed, crawl.StatusError:
		level = Error
	case crawl.StatusAborted, crawl.StatusTimedOut:
		level = Warn
	}
	desc := fmt.Sprintf("The crawl ended %s with %d pages.", c.Status, c.TotalPages)
	if reason != "" {
		desc += " " + reason
	}
	return entry(c, "end", level, endMessages[c.Status], desc, crawlData(c,
		"status", c.Status, "totalPages", c.TotalPages,
		"durationInSeconds", crawl.Duration(c.CreatedAt, c.CompletedAt, c.UpdatedAt)))
}

var endMessages = map[crawl.Status]string{
	crawl.StatusSucceeded: "Crawl succeeded",
	crawl.StatusFailed:    "Crawl failed",
	crawl.StatusAborted:   "Crawl aborted",
	crawl.StatusTimedOut:  "Crawl timed out",
	crawl.StatusError:     "Crawl stopped by an internal error",
}
