-- Crawls of Firecrawl's map: pages fetched for their links only
-- (map_only), following links beside the sitemaps' pages
-- (sitemap_and_links, for sitemap "include").
ALTER TABLE crawls ADD COLUMN map_only boolean NOT NULL DEFAULT false;

--bun:split

ALTER TABLE crawls ADD COLUMN sitemap_and_links boolean NOT NULL DEFAULT false;
