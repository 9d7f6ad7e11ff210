ALTER TABLE crawls DROP COLUMN proxy_kind, DROP COLUMN proxy_country;
