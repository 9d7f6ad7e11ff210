DROP TABLE team_quotas;

--bun:split

DROP TABLE usage_daily;

--bun:split

ALTER TABLE crawls DROP COLUMN key_id;
