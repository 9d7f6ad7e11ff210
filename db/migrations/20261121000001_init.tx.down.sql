DROP TABLE IF EXISTS crawl_logs;
--bun:split
DROP TABLE IF EXISTS pages;
--bun:split
DROP TABLE IF EXISTS crawls;
--bun:split
DROP TABLE IF EXISTS api_keys;
--bun:split
DROP TABLE IF EXISTS teams;
