-- render marks a queued page that a static fetch found to need JavaScript:
-- only the browser engine claims it.
ALTER TABLE pages ADD COLUMN render boolean NOT NULL DEFAULT false;
