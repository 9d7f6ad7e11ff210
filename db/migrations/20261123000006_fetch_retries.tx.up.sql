-- A page whose fetch failed for a passing reason (429, 503, a reset
-- connection) goes back to the frontier until not_before; attempts counts
-- its failed fetches.
ALTER TABLE pages ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN not_before timestamptz;
