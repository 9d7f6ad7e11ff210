ALTER TABLE pages DROP COLUMN formats;

--bun:split

ALTER TABLE crawls DROP COLUMN formats;
