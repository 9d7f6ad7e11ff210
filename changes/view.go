package changes

import (
	"encoding/json"
	"time"

	"github.com/durablecrawl/crawler/crawl"
)

// Previous is what a page's answer shows of its page in the previous
// crawl: when it was fetched, and (for a changed page) its markdown and
// extraction to compare with.
type Previous struct {
	ID         int64           `bun:"id"`
	FetchedAt  *time.Time      `bun:"fetched_at"`
	Markdown   *string         `bun:"raw_markdown"`
	Extraction json.RawMessage `bun:"extraction,type:jsonb"`
	// Current is the raw markdown of the changed page that this one
	// preceded, which its diff is made against.
	Current *string `bun:"current"`
}

// ViewOf is how page p compares with its previous page, from what the
// store read of the previous pages (prev); nil for a page of a crawl
// without change tracking.
func ViewOf(p crawl.Page, prev map[int64]Previous) *View {
	if p.ChangeStatus == nil {
		return nil
	}
	var q Previous
	if p.PreviousPageID != nil {
		q = prev[*p.PreviousPageID]
	}
	current := q.Current
	if current == nil {
		current = p.RawMarkdown
	}
	v := Describe(Status(*p.ChangeStatus), q.FetchedAt, orEmpty(q.Markdown), orEmpty(current), q.Extraction, p.Extraction)
	return &v
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
