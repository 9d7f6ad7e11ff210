DROP INDEX pages_changes;

--bun:split

ALTER TABLE pages DROP COLUMN etag, DROP COLUMN last_modified, DROP COLUMN body_hash, DROP COLUMN markdown_hash,
    DROP COLUMN links, DROP COLUMN change_status, DROP COLUMN previous_page_id;

--bun:split

DROP INDEX crawls_baseline;

--bun:split

ALTER TABLE crawls DROP COLUMN change_tracking, DROP COLUMN baseline_key, DROP COLUMN schedule_id,
    DROP COLUMN previous_crawl_id, DROP COLUMN pages_new, DROP COLUMN pages_changed, DROP COLUMN pages_same,
    DROP COLUMN pages_removed;
