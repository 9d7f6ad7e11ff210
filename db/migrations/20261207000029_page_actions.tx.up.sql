-- Page actions (package pageaction): the steps the browser takes on each
-- page of a crawl before reading it, and how its screenshots are taken.
ALTER TABLE crawls
    ADD COLUMN actions jsonb,
    ADD COLUMN screenshot_quality integer NOT NULL DEFAULT 0,
    ADD COLUMN screenshot_viewport jsonb;
