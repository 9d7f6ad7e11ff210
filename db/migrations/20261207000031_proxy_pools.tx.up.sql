-- Firecrawl's proxy and location country: the operator's proxy pool a
-- crawl's requests go through (package proxypool).
ALTER TABLE crawls ADD COLUMN proxy_kind text NOT NULL DEFAULT '',
    ADD COLUMN proxy_country text NOT NULL DEFAULT '';
