CREATE TABLE teams (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

--bun:split

-- API keys are stored as SHA-256 hashes; the key itself is shown once.
CREATE TABLE api_keys (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    team_id    uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    brand_id   text,
    key_hash   text NOT NULL UNIQUE,
    key_prefix text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

--bun:split

CREATE TABLE crawls (
    id                     uuid PRIMARY KEY,
    team_id                uuid NOT NULL REFERENCES teams (id),
    brand_id               text,
    status                 text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'aborted', 'timed_out', 'error')),
    request_shape          text NOT NULL CHECK (request_shape IN ('current', 'legacy')),
    request                jsonb NOT NULL,
    start_urls             text[] NOT NULL,
    max_results            integer,
    max_depth              integer NOT NULL,
    use_sitemap            boolean NOT NULL,
    entire_website         boolean NOT NULL,
    exclude_non_main_tags  boolean NOT NULL,
    include_links          boolean NOT NULL,
    deduplicate_content    boolean NOT NULL,
    extraction             text NOT NULL DEFAULT '',
    engine_type            text NOT NULL,
    use_static_ips         boolean NOT NULL,
    timeout_seconds        integer NOT NULL,
    origin                 text NOT NULL,
    include_external_links boolean NOT NULL DEFAULT false,
    include_only_paths     text[] NOT NULL DEFAULT '{}',
    exclude_paths          text[] NOT NULL DEFAULT '{}',
    include_only_tags      text[] NOT NULL DEFAULT '{}',
    exclude_tags           text[] NOT NULL DEFAULT '{}',
    max_concurrent_pages   integer,
    stack                  text NOT NULL DEFAULT '',
    total_pages            integer NOT NULL DEFAULT 0,
    workflow_id            text NOT NULL,
    error_message          text NOT NULL DEFAULT '',
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    completed_at           timestamptz
);

--bun:split

CREATE INDEX crawls_team_created ON crawls (team_id, created_at DESC);

--bun:split

CREATE INDEX crawls_running ON crawls (created_at) WHERE status = 'running';

--bun:split

-- pages is both the crawl's frontier and its results. A row is created when
-- a URL is discovered (state queued), claimed by one fetch batch, and ends
-- stored (a result page), failed or skipped. (crawl_id, normalized_url) is
-- the visited set: no URL is fetched twice in a crawl.
CREATE TABLE pages (
    id             bigserial PRIMARY KEY,
    crawl_id       uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    url            text NOT NULL,
    normalized_url text NOT NULL,
    depth          integer NOT NULL,
    -- rank orders pages of one depth as a sequential breadth-first crawl
    -- would: the parent's rank followed by the link's position on the
    -- parent. Batches claim by (depth, rank), so the same site gives the
    -- same crawl whatever the concurrency.
    rank           text COLLATE "C" NOT NULL DEFAULT '',
    state          text NOT NULL CHECK (state IN ('queued', 'claimed', 'fetched', 'stored', 'failed', 'skipped')),
    batch          integer,
    final_url      text,
    status_code    integer,
    content_type   text,
    title          text,
    html           text,
    markdown       text,
    engine         text,
    error          text,
    bytes          integer,
    fetch_ms       integer,
    convert_ms     integer,
    discovered_at  timestamptz NOT NULL DEFAULT now(),
    fetched_at     timestamptz,
    stored_at      timestamptz,
    UNIQUE (crawl_id, normalized_url)
);

--bun:split

CREATE INDEX pages_frontier ON pages (crawl_id, depth, rank, id) WHERE state = 'queued';

--bun:split

CREATE INDEX pages_batch ON pages (crawl_id, batch);

--bun:split

CREATE INDEX pages_results ON pages (crawl_id, stored_at, id) WHERE state = 'stored';

--bun:split

-- key makes log writes idempotent under activity retries.
CREATE TABLE crawl_logs (
    id          bigserial PRIMARY KEY,
    crawl_id    uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    team_id     uuid NOT NULL,
    key         text NOT NULL,
    level       text NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
    message     text NOT NULL,
    description text NOT NULL DEFAULT '',
    data        jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (crawl_id, key)
);

--bun:split

CREATE INDEX crawl_logs_order ON crawl_logs (crawl_id, created_at, id);
