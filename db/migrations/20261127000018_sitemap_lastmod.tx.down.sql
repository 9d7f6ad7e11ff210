ALTER TABLE pages DROP COLUMN sitemap_lastmod;
