package db_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/usage"
)

// TestUsageCounts: tokens counted for crawls of one key (in several
// shards) and without a key add up by day and key; a quota is kept and
// read back.
func TestUsageCounts(t *testing.T) {
	ctx := context.Background()
	key, err := store.CreateAPIKey(ctx, "usage-team-"+uuid.NewString()[:8], nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	o, err := crawl.ParseRequest([]byte(`{"startUrl":"https://example.com/","maxResults":3}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	var crawls []uuid.UUID
	for i := range 5 {
		id := uuid.New()
		c := crawl.NewCrawl(id, p.TeamID, nil, "crawl-"+id.String(), o, json.RawMessage(`{}`), time.Now().UTC())
		if i < 4 {
			c.KeyID = &p.KeyID
		}
		if err := store.InsertCrawl(ctx, c); err != nil {
			t.Fatal(err)
		}
		crawls = append(crawls, id)
	}
	for _, id := range crawls {
		if err := store.CountTokens(ctx, id, 100, 10); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.CountTeamTokens(ctx, p.TeamID, p.KeyID, 5, 5); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	days, err := store.UsageDays(ctx, p.TeamID, now.AddDate(0, 0, -1), now.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[uuid.UUID]usage.Day{}
	for _, d := range days {
		byKey[d.KeyID] = d
	}
	if len(days) != 2 || byKey[p.KeyID].TokensIn != 405 || byKey[p.KeyID].TokensOut != 45 || byKey[uuid.Nil].Tokens() != 110 {
		t.Errorf("usage: %+v", days)
	}
	pages := int64(1000)
	if _, err := store.SetTeamQuota(ctx, p.TeamName, usage.Quota{MonthlyPages: &pages}); err != nil {
		t.Fatal(err)
	}
	q, err := store.TeamQuota(ctx, p.TeamID)
	if err != nil || q.MonthlyPages == nil || *q.MonthlyPages != 1000 || q.MonthlyTokens != nil || q.Concurrency != nil {
		t.Errorf("quota: %+v, %v", q, err)
	}
	if _, err := store.SetTeamQuota(ctx, "no-such-team-"+uuid.NewString(), q); crawl.ErrorCode(err) != crawl.ENOTFOUND {
		t.Errorf("a quota of no team: %v", err)
	}
}
