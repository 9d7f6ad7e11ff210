-- The page cache (Firecrawl's maxAge): a scrape may be answered with a
-- page another crawl of the team stored, when both read pages the same
-- way (cache_key; '' keeps a crawl's pages out) and the page is young
-- enough. Stored pages are found by their normalized URL, newest first.
ALTER TABLE crawls
    ADD COLUMN cache_key text NOT NULL DEFAULT '',
    ADD COLUMN keep_out_of_cache boolean NOT NULL DEFAULT false;

--bun:split

CREATE INDEX pages_cache ON pages (normalized_url, stored_at DESC) WHERE state = 'stored';
