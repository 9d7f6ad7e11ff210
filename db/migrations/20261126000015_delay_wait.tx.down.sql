ALTER TABLE crawls DROP COLUMN regex_on_full_url;

--bun:split

ALTER TABLE crawls DROP COLUMN mobile;

--bun:split

ALTER TABLE crawls DROP COLUMN headers;

--bun:split

ALTER TABLE crawls DROP COLUMN allow_external;

--bun:split

ALTER TABLE crawls DROP COLUMN allow_subdomains;

--bun:split

ALTER TABLE crawls DROP COLUMN ignore_query;

--bun:split

ALTER TABLE crawls DROP COLUMN wait_for_ms;

--bun:split

ALTER TABLE crawls DROP COLUMN delay_ms;
