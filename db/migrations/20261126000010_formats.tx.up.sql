-- The forms of each page a crawl keeps besides its markdown (formats:
-- html, rawHtml, links, images, metadata), and a page's forms as one
-- JSON object, made when it is converted.
ALTER TABLE crawls ADD COLUMN formats text[] NOT NULL DEFAULT '{}';

--bun:split

ALTER TABLE pages ADD COLUMN formats jsonb;
