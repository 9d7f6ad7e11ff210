-- When a change-tracking crawl's sitemap says a page last changed: a page
-- whose lastmod is not newer than the previous crawl's fetch of it is not
-- asked for again.
ALTER TABLE pages ADD COLUMN sitemap_lastmod timestamptz;
