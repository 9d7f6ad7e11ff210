-- Each team's usage, counted where the work is stored: result pages and
-- LLM tokens, per day and per API key (the nil key for work no key asked
-- for, a schedule's runs). A crawl remembers the key that started it.
-- Each crawl counts into one of 16 shards of its team's day (by its ID),
-- so that a team's crawls storing pages at once do not wait for one row;
-- reads add the shards up.
ALTER TABLE crawls ADD COLUMN key_id uuid;

--bun:split

CREATE TABLE usage_daily (
    team_id    uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    day        date NOT NULL,
    key_id     uuid NOT NULL,
    shard      smallint NOT NULL DEFAULT 0,
    pages      bigint NOT NULL DEFAULT 0,
    tokens_in  bigint NOT NULL DEFAULT 0,
    tokens_out bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (team_id, day, key_id, shard)
);

--bun:split

-- An operator's bounds on a team: pages and LLM tokens a calendar month
-- (UTC), and crawls running at once. NULL is no bound.
CREATE TABLE team_quotas (
    team_id        uuid PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
    monthly_pages  bigint CHECK (monthly_pages >= 0),
    monthly_tokens bigint CHECK (monthly_tokens >= 0),
    concurrency    integer CHECK (concurrency >= 1),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
