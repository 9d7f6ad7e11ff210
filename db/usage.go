package db

// A team's usage (package usage): result pages and LLM tokens added to
// usage_daily in the transaction that stores them, so that a page stored
// once is counted once, whatever restarts come between; the operator's
// quotas in team_quotas.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/usage"
)

// countUsage adds pages and tokens to the day's usage of crawl crawlID's
// team and key, within tx.
func countUsage(ctx context.Context, tx bun.IDB, crawlID uuid.UUID, pages, tokensIn, tokensOut int64) error {
	if pages == 0 && tokensIn == 0 && tokensOut == 0 {
		return nil
	}
	_, err := tx.NewRaw(`
INSERT INTO usage_daily (team_id, day, key_id, shard, pages, tokens_in, tokens_out)
SELECT team_id, (clock_timestamp() AT TIME ZONE 'UTC')::date, coalesce(key_id, ?::uuid), ?, ?, ?, ? FROM crawls WHERE id = ?
ON CONFLICT (team_id, day, key_id, shard) DO UPDATE SET pages = usage_daily.pages + excluded.pages,
    tokens_in = usage_daily.tokens_in + excluded.tokens_in, tokens_out = usage_daily.tokens_out + excluded.tokens_out`,
		uuid.Nil, shardOf(crawlID), pages, tokensIn, tokensOut, crawlID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("count the usage of crawl %s: %w", crawlID, err)
	}
	return nil
}

// usageShards is how many rows a team's day of usage (per key) is
// spread over; a crawl always counts into the same one (shardOf).
const usageShards = 16

// shardOf is the shard crawl id counts into.
func shardOf(id uuid.UUID) int16 {
	return int16(id[15] % usageShards)
}

// CountTokens adds LLM tokens spent for crawl crawlID that no stored
// answer carries (a schema's repair round) to its team's usage.
func (s *Store) CountTokens(ctx context.Context, crawlID uuid.UUID, in, out int64) error {
	return countUsage(ctx, s.db, crawlID, 0, in, out)
}

// usageRow is a row of usage_daily.
type usageRow struct {
	bun.BaseModel `bun:"table:usage_daily"`

	TeamID    uuid.UUID `bun:"team_id,type:uuid"`
	Day       time.Time `bun:"day,type:date"`
	KeyID     uuid.UUID `bun:"key_id,type:uuid"`
	Pages     int64     `bun:"pages"`
	TokensIn  int64     `bun:"tokens_in"`
	TokensOut int64     `bun:"tokens_out"`
}

// UsageDays returns the team's usage from the day of from to the day
// before to (UTC), oldest first.
func (s *Store) UsageDays(ctx context.Context, team uuid.UUID, from, to time.Time) ([]usage.Day, error) {
	var rows []usageRow
	err := s.db.NewSelect().Model((*usageRow)(nil)).Column("team_id", "day", "key_id").
		ColumnExpr("sum(pages) AS pages, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out").
		Where("team_id = ?", team).
		Where("day >= ?::date", from.UTC().Format(time.DateOnly)).Where("day < ?::date", to.UTC().Format(time.DateOnly)).
		Group("team_id", "day", "key_id").Order("day", "key_id").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("usage of team %s: %w", team, err)
	}
	out := make([]usage.Day, len(rows))
	for i, r := range rows {
		out[i] = usage.Day{Day: r.Day, KeyID: r.KeyID, Pages: r.Pages, TokensIn: r.TokensIn, TokensOut: r.TokensOut}
	}
	return out, nil
}

// quotaRow is a row of team_quotas.
type quotaRow struct {
	bun.BaseModel `bun:"table:team_quotas"`

	TeamID        uuid.UUID `bun:"team_id,pk,type:uuid"`
	MonthlyPages  *int64    `bun:"monthly_pages"`
	MonthlyTokens *int64    `bun:"monthly_tokens"`
	Concurrency   *int      `bun:"concurrency"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,notnull,default:now()"`
}

// TeamQuota returns the team's quota (no bounds when none is set).
func (s *Store) TeamQuota(ctx context.Context, team uuid.UUID) (usage.Quota, error) {
	var r quotaRow
	err := s.db.NewSelect().Model(&r).Where("team_id = ?", team).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return usage.Quota{}, nil
	}
	if err != nil {
		return usage.Quota{}, fmt.Errorf("quota of team %s: %w", team, err)
	}
	return usage.Quota{MonthlyPages: r.MonthlyPages, MonthlyTokens: r.MonthlyTokens, Concurrency: r.Concurrency}, nil
}

// SetTeamQuota sets the quota of the team named teamName (each nil field
// is no bound), and answers the team's ID; ENOTFOUND when there is no
// such team.
func (s *Store) SetTeamQuota(ctx context.Context, teamName string, q usage.Quota) (uuid.UUID, error) {
	var team Team
	if err := s.db.NewSelect().Model(&team).Where("name = ?", strings.TrimSpace(teamName)).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return uuid.Nil, crawl.Errorf(crawl.ENOTFOUND, "no team named %q", teamName)
		}
		return uuid.Nil, fmt.Errorf("team %q: %w", teamName, err)
	}
	r := quotaRow{TeamID: team.ID, MonthlyPages: q.MonthlyPages, MonthlyTokens: q.MonthlyTokens, Concurrency: q.Concurrency}
	_, err := s.db.NewInsert().Model(&r).Column("team_id", "monthly_pages", "monthly_tokens", "concurrency").
		On("CONFLICT (team_id) DO UPDATE").
		Set("monthly_pages = EXCLUDED.monthly_pages, monthly_tokens = EXCLUDED.monthly_tokens, concurrency = EXCLUDED.concurrency, updated_at = now()").
		Exec(ctx)
	if err != nil {
		return uuid.Nil, fmt.Errorf("set the quota of team %q: %w", teamName, err)
	}
	return team.ID, nil
}

// TeamIDByName returns the ID of the team named name, or ENOTFOUND.
func (s *Store) TeamIDByName(ctx context.Context, name string) (uuid.UUID, error) {
	var team Team
	if err := s.db.NewSelect().Model(&team).Where("name = ?", strings.TrimSpace(name)).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return uuid.Nil, crawl.Errorf(crawl.ENOTFOUND, "no team named %q", name)
		}
		return uuid.Nil, fmt.Errorf("team %q: %w", name, err)
	}
	return team.ID, nil
}

// TeamJobs are a team's crawls running now, and when its last crawl
// that succeeded ended.
type TeamJobs struct {
	Running     int
	LastSuccess *time.Time
}

// TeamJobs reads the team's running crawls and its last success.
func (s *Store) TeamJobs(ctx context.Context, team uuid.UUID) (TeamJobs, error) {
	var out TeamJobs
	n, err := s.db.NewSelect().Model((*crawl.Crawl)(nil)).Where("team_id = ?", team).Where("status = ?", crawl.StatusRunning).Count(ctx)
	if err != nil {
		return out, fmt.Errorf("running crawls of team %s: %w", team, err)
	}
	out.Running = int(n)
	var last []time.Time
	err = s.db.NewSelect().Model((*crawl.Crawl)(nil)).Column("completed_at").Where("team_id = ?", team).
		Where("status = ?", crawl.StatusSucceeded).Where("completed_at IS NOT NULL").
		Order("completed_at DESC").Limit(1).Scan(ctx, &last)
	if err != nil {
		return out, fmt.Errorf("last success of team %s: %w", team, err)
	}
	if len(last) == 1 {
		out.LastSuccess = &last[0]
	}
	return out, nil
}

// CountTeamTokens adds LLM tokens spent for a team's request that stores
// nothing (a crawl's planning) to its usage, under key (uuid.Nil: none).
func (s *Store) CountTeamTokens(ctx context.Context, team, key uuid.UUID, in, out int64) error {
	if in == 0 && out == 0 {
		return nil
	}
	_, err := s.db.NewRaw(`
INSERT INTO usage_daily (team_id, day, key_id, shard, tokens_in, tokens_out)
VALUES (?, (clock_timestamp() AT TIME ZONE 'UTC')::date, ?, 0, ?, ?)
ON CONFLICT (team_id, day, key_id, shard) DO UPDATE SET
    tokens_in = usage_daily.tokens_in + excluded.tokens_in, tokens_out = usage_daily.tokens_out + excluded.tokens_out`,
		team, key, in, out).Exec(ctx)
	if err != nil {
		return fmt.Errorf("count the tokens of team %s: %w", team, err)
	}
	return nil
}
