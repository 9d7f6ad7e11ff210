-- What a throttled host answered, as data (the status and its Retry-After):
-- the crawl log words it. The worded reason column is no longer written; the
-- throttles it holds are carried over ("the site answered 429 with
-- Retry-After 1m30s").
ALTER TABLE host_budgets ADD COLUMN throttle_status integer NOT NULL DEFAULT 0,
    ADD COLUMN throttle_retry_after_ms bigint NOT NULL DEFAULT 0;
UPDATE host_budgets SET
    throttle_status = coalesce(substring(reason FROM 'answered ([0-9]+)')::integer, 0),
    throttle_retry_after_ms = coalesce(substring(reason FROM 'Retry-After ([0-9]+)m')::bigint * 60000, 0)
        + coalesce(substring(reason FROM 'Retry-After (?:[0-9]+m)?([0-9]+)s')::bigint * 1000, 0)
WHERE reason <> '';
