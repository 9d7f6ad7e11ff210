-- A crawl's webhook (URL, headers, metadata, events), and the events of
-- crawls with one: each row is one event, tried until delivered or given
-- up. ord puts started (0) before page events (1) before the end (2).
ALTER TABLE crawls ADD COLUMN webhook jsonb;

--bun:split

CREATE TABLE webhook_events (
    id uuid PRIMARY KEY,
    crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    event text NOT NULL CHECK (event IN ('started', 'page', 'completed', 'failed')),
    ord smallint NOT NULL,
    page_id bigint,
    attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    delivered_at timestamptz,
    given_up_at timestamptz,
    last_status int NOT NULL DEFAULT 0,
    last_error text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);

--bun:split

-- One started and one end event per crawl, one event per result page.
CREATE UNIQUE INDEX webhook_events_once ON webhook_events (crawl_id, ord) WHERE ord <> 1;

--bun:split

CREATE UNIQUE INDEX webhook_events_page ON webhook_events (crawl_id, page_id) WHERE page_id IS NOT NULL;

--bun:split

CREATE INDEX webhook_events_pending ON webhook_events (crawl_id, next_attempt_at)
    WHERE delivered_at IS NULL AND given_up_at IS NULL;
