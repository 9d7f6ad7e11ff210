-- Going back removes the crawls only the newer shape can describe.
DELETE FROM crawls WHERE request_shape = 'firecrawl';

--bun:split

ALTER TABLE crawls DROP CONSTRAINT crawls_request_shape_check;

--bun:split

ALTER TABLE crawls ADD CONSTRAINT crawls_request_shape_check CHECK (request_shape IN ('current', 'legacy'));
