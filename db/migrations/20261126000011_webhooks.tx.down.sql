DROP TABLE webhook_events;

--bun:split

ALTER TABLE crawls DROP COLUMN webhook;
