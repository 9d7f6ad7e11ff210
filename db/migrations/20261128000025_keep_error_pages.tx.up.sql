-- A Firecrawl scrape keeps a page answered 404 (or another error status)
-- with a body, as its result with the status noted.
ALTER TABLE crawls ADD COLUMN keep_error_pages boolean NOT NULL DEFAULT false;
