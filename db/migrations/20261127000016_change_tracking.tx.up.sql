-- Change tracking: a crawl with change_tracking compares its pages with
-- those of an earlier crawl (previous_crawl_id, chosen when it starts
-- among the team's succeeded crawls with the same baseline_key: start
-- URLs, scope and conversion options, and the same schedule).
ALTER TABLE crawls
    ADD COLUMN change_tracking boolean NOT NULL DEFAULT false,
    ADD COLUMN baseline_key text NOT NULL DEFAULT '',
    ADD COLUMN schedule_id uuid,
    ADD COLUMN previous_crawl_id uuid,
    -- How many result pages are new, changed and same, and how many of the
    -- previous crawl's are removed; NULL until the crawl has ended.
    ADD COLUMN pages_new integer,
    ADD COLUMN pages_changed integer,
    ADD COLUMN pages_same integer,
    ADD COLUMN pages_removed integer;

--bun:split

CREATE INDEX crawls_baseline ON crawls (team_id, baseline_key, created_at DESC)
    WHERE change_tracking AND status = 'succeeded';

--bun:split

-- What a change-tracking crawl keeps of each page for the next one: the
-- response's validators (for If-None-Match / If-Modified-Since), hashes of
-- the body and of the markdown, and the page's links (a 304 has none); and
-- what it found: change_status (new, changed, same; removed on a page of
-- the previous crawl this one no longer has) against previous_page_id.
ALTER TABLE pages
    ADD COLUMN etag text,
    ADD COLUMN last_modified text,
    ADD COLUMN body_hash text,
    ADD COLUMN markdown_hash text,
    ADD COLUMN links jsonb,
    ADD COLUMN change_status text,
    ADD COLUMN previous_page_id bigint;

--bun:split

CREATE INDEX pages_changes ON pages (crawl_id, id) WHERE change_status IN ('new', 'changed', 'removed');
