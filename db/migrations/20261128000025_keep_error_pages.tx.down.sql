ALTER TABLE crawls DROP COLUMN keep_error_pages;
