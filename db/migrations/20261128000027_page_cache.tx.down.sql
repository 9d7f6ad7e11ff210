DROP INDEX IF EXISTS pages_cache;

--bun:split

ALTER TABLE crawls DROP COLUMN cache_key, DROP COLUMN keep_out_of_cache;
