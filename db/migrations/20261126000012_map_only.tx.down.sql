ALTER TABLE crawls DROP COLUMN sitemap_and_links;

--bun:split

ALTER TABLE crawls DROP COLUMN map_only;
