package activities

import (
	"context"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/changes"
	"github.com/durablecrawl/crawler/crawl"
)

// The fake store's change tracking: ChooseBaseline answers f.baseline,
// SettleChanges f.changeCounts and RemovedAfter f.removed.

func (f *fakeStore) ChooseBaseline(_ context.Context, c *crawl.Crawl) (*uuid.UUID, error) {
	if err := f.call("ChooseBaseline"); err != nil {
		return nil, err
	}
	return f.baseline, nil
}

func (f *fakeStore) SettleChanges(_ context.Context, _ uuid.UUID, _ *uuid.UUID, _ bool, _ string) (crawl.ChangeCounts, error) {
	if err := f.call("SettleChanges"); err != nil {
		return crawl.ChangeCounts{}, err
	}
	return f.changeCounts, nil
}

func (f *fakeStore) RemovedAfter(_ context.Context, _ uuid.UUID, after int64, limit int) ([]crawl.Page, error) {
	if err := f.call("RemovedAfter"); err != nil {
		return nil, err
	}
	var out []crawl.Page
	for _, p := range f.removed {
		if p.ID > after && len(out) < limit {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *fakeStore) PreviousOf(context.Context, []crawl.Page) (map[int64]changes.Previous, error) {
	return map[int64]changes.Previous{}, f.call("PreviousOf")
}

func (f *fakeStore) SetSitemapLastMod(context.Context, uuid.UUID, map[string]time.Time) error {
	return f.call("SetSitemapLastMod")
}

// ApplyChange: the fake applies nothing (the integration tests do).
func (f *fakeStore) ApplyChange(_ context.Context, _ uuid.UUID, _ crawl.Change, _ func(u *url.URL) bool, _ string,
	_ func(c *crawl.Crawl, skipped []crawl.Page) []crawl.CrawlLog) (*crawl.Crawl, []crawl.Page, bool, error) {
	if err := f.call("ApplyChange"); err != nil {
		return nil, nil, false, err
	}
	c := *f.crawl
	return &c, nil, true, nil
}
