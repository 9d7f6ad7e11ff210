-- A running crawl paused by a change (POST /crawls/{id}/pause): its
-- workflow waits, holding no worker, until it is resumed.
ALTER TABLE crawls ADD COLUMN paused boolean NOT NULL DEFAULT false;
