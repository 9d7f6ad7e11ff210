-- What a throttled host answered, as data (the status and its Retry-After):
-- the crawl log words it. The worded reason column is no longer written.
ALTER TABLE host_budgets ADD COLUMN throttle_status integer NOT NULL DEFAULT 0,
    ADD COLUMN throttle_retry_after_ms bigint NOT NULL DEFAULT 0;
