package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
)

// previousOf reads what the answers about pages of crawl rec show of
// their pages in the previous crawl; nil for a crawl without change
// tracking.
func (s *server) previousOf(ctx context.Context, rec *crawl.Crawl, pages []crawl.Page) (map[int64]changes.Previous, error) {
	if !rec.ChangeTracking {
		return nil, nil
	}
	return s.Store.PreviousOf(ctx, pages)
}

// changeFields are what a page of a change-tracking crawl shows of how it
// compares with the previous crawl.
type changeFields struct {
	// ChangeStatus is new, changed, same or (GET /crawls/{id}/changes
	// only) removed; PreviousFetchedAt is when the previous crawl fetched
	// the page.
	ChangeStatus      changes.Status `json:"changeStatus,omitempty"`
	PreviousFetchedAt *time.Time     `json:"previousFetchedAt,omitempty"`
	// Diff, on a changed page, is the unified diff of its raw markdown
	// against the previous crawl's; ChangedFields the fields of its
	// extraction that changed, with their values then and now.
	Diff          string                         `json:"diff,omitempty"`
	ChangedFields map[string]changes.FieldChange `json:"changedFields,omitempty"`
}

// changeFieldsOf shows how page p compares, from what previousOf read.
func changeFieldsOf(p crawl.Page, prev map[int64]changes.Previous) changeFields {
	v := changes.ViewOf(p, prev)
	if v == nil {
		return changeFields{}
	}
	out := changeFields{ChangeStatus: v.Status, Diff: v.Diff, ChangedFields: v.Fields}
	if v.PreviousAt != nil {
		t := v.PreviousAt.UTC()
		out.PreviousFetchedAt = &t
	}
	return out
}

// changeJSON is one entry of GET /crawls/{id}/changes: a result page that
// is new or changed, or a page of the previous crawl that is removed (with
// the reason; its markdown is empty).
type changeJSON struct {
	pageJSON
	Reason string `json:"reason,omitempty"`
}

// listChanges handles GET /crawls/{id}/changes: what a change-tracking
// crawl found different from the previous crawl (pages new, changed and
// removed; the same ones are left out), in the order the crawl met them.
func (s *server) listChanges(c *fiber.Ctx) error {
	var prev map[int64]changes.Previous
	list := func(ctx context.Context, id uuid.UUID, page, limit int) ([]crawl.Page, int, error) {
		pages, total, err := s.Store.ListChanges(ctx, id, page, limit)
		if err != nil {
			return nil, 0, err
		}
		prev, err = s.Store.PreviousOf(ctx, pages)
		return pages, total, err
	}
	base := c.BaseURL()
	return paginate(s, c, "id", maxPagesLimit, list, func(p crawl.Page) changeJSON {
		v := changeJSON{pageJSON: resultView(p, false, base)}
		v.changeFields = changeFieldsOf(p, prev)
		if v.ChangeStatus == changes.Removed {
			v.Reason = str(p.Error)
		}
		return v
	})
}

// changeCountsJSON counts how a change-tracking crawl's pages compare
// with the previous crawl's, once it has ended.
type changeCountsJSON struct {
	New     int `json:"new"`
	Changed int `json:"changed"`
	Same    int `json:"same"`
	Removed int `json:"removed"`
}

// changeCountsOf is the counts of crawl c; nil until they are known.
func changeCountsOf(c *crawl.Crawl) *changeCountsJSON {
	if c.PagesNew == nil {
		return nil
	}
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return &changeCountsJSON{New: n(c.PagesNew), Changed: n(c.PagesChanged), Same: n(c.PagesSame), Removed: n(c.PagesRemoved)}
}
