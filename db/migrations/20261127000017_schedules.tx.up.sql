-- A crawl schedule: its owner and the crawl request each run makes (in
-- the service's own shape or Firecrawl's). When it runs, and whether it is
-- paused, is its Temporal Schedule's (schedule-<id>); the cron expression
-- or interval it was given is kept here too, as Temporal answers cron
-- expressions in its own calendar form. deleted_at is set when it is
-- deleted: its runs' crawls stay readable.
CREATE TABLE schedules (
    id          uuid PRIMARY KEY,
    team_id     uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    brand_id    text,
    name        text NOT NULL,
    shape       text NOT NULL CHECK (shape IN ('native', 'firecrawl')),
    request     jsonb NOT NULL,
    timing      jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    deleted_at  timestamptz
);

--bun:split

CREATE INDEX schedules_team ON schedules (team_id, created_at DESC) WHERE deleted_at IS NULL;

--bun:split

CREATE INDEX crawls_schedule ON crawls (schedule_id, created_at DESC) WHERE schedule_id IS NOT NULL;
