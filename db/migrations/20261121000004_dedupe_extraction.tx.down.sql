DROP TABLE IF EXISTS extraction_chunks;

--bun:split

DROP TABLE IF EXISTS fragments;

--bun:split

UPDATE pages SET state = 'skipped' WHERE state = 'converted';

--bun:split

ALTER TABLE pages
    DROP COLUMN IF EXISTS raw_markdown,
    DROP COLUMN IF EXISTS fragments,
    DROP COLUMN IF EXISTS fragments_removed,
    DROP COLUMN IF EXISTS extraction,
    DROP COLUMN IF EXISTS extraction_error,
    DROP COLUMN IF EXISTS extraction_ms,
    DROP COLUMN IF EXISTS extracted_at;

--bun:split

ALTER TABLE pages DROP CONSTRAINT pages_state_check;

--bun:split

ALTER TABLE pages ADD CONSTRAINT pages_state_check
    CHECK (state IN ('queued', 'claimed', 'fetched', 'stored', 'failed', 'skipped'));
