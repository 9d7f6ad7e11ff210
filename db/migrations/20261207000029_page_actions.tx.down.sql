ALTER TABLE crawls DROP COLUMN actions, DROP COLUMN screenshot_quality, DROP COLUMN screenshot_viewport;
