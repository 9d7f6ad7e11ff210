ALTER TABLE crawls DROP COLUMN keep_similar_urls;
DROP TABLE url_patterns;
DROP TABLE link_scripts;
UPDATE pages SET state = 'skipped' WHERE state = 'duplicate';
ALTER TABLE pages DROP CONSTRAINT pages_state_check;
ALTER TABLE pages ADD CONSTRAINT pages_state_check
    CHECK (state IN ('queued', 'claimed', 'fetched', 'converted', 'stored', 'failed', 'skipped'));
DROP TABLE page_contents;
ALTER TABLE pages DROP COLUMN duplicate_of;
