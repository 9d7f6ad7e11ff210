-- Crawls started through the Firecrawl-compatible API (/v1, /v2) keep
-- the request shape "firecrawl": their options read with Firecrawl's
-- meanings (limit and depth on a whole domain, path regexes).
ALTER TABLE crawls DROP CONSTRAINT crawls_request_shape_check;

--bun:split

ALTER TABLE crawls ADD CONSTRAINT crawls_request_shape_check CHECK (request_shape IN ('current', 'legacy', 'firecrawl'));
