-- noindex marks a page that asks search engines not to index it (a print
-- version, a tag page): deduplication lets its text go to the pages it
-- repeats.
ALTER TABLE pages ADD COLUMN noindex boolean NOT NULL DEFAULT false;

--bun:split

-- Deduplication is decided when a crawl ends, from the result pages
-- themselves: fragments are no longer claimed as pages are stored.
DROP TABLE fragments;
