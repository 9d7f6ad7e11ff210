-- A page whose content (its markdown before deduplication) repeats a page
-- the crawl already holds at an address of the same page is recorded as a
-- duplicate of that page (state 'duplicate', duplicate_of), not as a
-- result. page_contents holds, per crawl, the page that holds each content
-- at each page (key: a hash of the content and of the address without its
-- query or a view segment such as /print): its key is what makes two
-- batches saving the same page at once agree on it.
ALTER TABLE pages ADD COLUMN duplicate_of bigint;
CREATE TABLE page_contents (
    crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    key text NOT NULL,
    page_id bigint NOT NULL,
    PRIMARY KEY (crawl_id, key)
);
ALTER TABLE pages DROP CONSTRAINT pages_state_check;
ALTER TABLE pages ADD CONSTRAINT pages_state_check
    CHECK (state IN ('queued', 'claimed', 'fetched', 'converted', 'stored', 'failed', 'skipped', 'duplicate'));
-- The scripts that drew the links of a page rendered to find them
-- (engineType auto): a page running the same scripts draws the same
-- navigation and is not rendered again.
CREATE TABLE link_scripts (
    crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    scripts text NOT NULL,
    page_id bigint NOT NULL,
    PRIMARY KEY (crawl_id, scripts)
);
-- Patterns of addresses (a query parameter, a path suffix) under which
-- the crawl found pages repeating pages it has: counted, and once a
-- pattern has led to enough duplicates, stopped (its addresses are no
-- longer fetched).
CREATE TABLE url_patterns (
    crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    pattern text NOT NULL,
    duplicates integer NOT NULL DEFAULT 0,
    stopped boolean NOT NULL DEFAULT false,
    PRIMARY KEY (crawl_id, pattern)
);
-- Firecrawl's deduplicateSimilarURLs false and batch scrapes keep every
-- address's page as a result.
ALTER TABLE crawls ADD COLUMN keep_similar_urls boolean NOT NULL DEFAULT false;
