-- A converted page waits in state 'converted' for deduplication, which
-- makes it a result (stored) or not (skipped, over the page budget).
ALTER TABLE pages DROP CONSTRAINT pages_state_check;

--bun:split

ALTER TABLE pages ADD CONSTRAINT pages_state_check
    CHECK (state IN ('queued', 'claimed', 'fetched', 'converted', 'stored', 'failed', 'skipped'));

--bun:split

-- raw_markdown is the page's markdown before deduplication, kept so that a
-- crawl can be read either way; markdown is what the crawl's
-- deduplicateContent made of it.
ALTER TABLE pages
    ADD COLUMN raw_markdown      text,
    ADD COLUMN fragments         integer,
    ADD COLUMN fragments_removed integer,
    ADD COLUMN extraction        jsonb,
    ADD COLUMN extraction_error  text,
    ADD COLUMN extraction_ms     integer,
    ADD COLUMN extracted_at      timestamptz;

--bun:split

-- fragments records which page of a crawl owns each text fragment (hash of
-- its normalized text). The primary key decides ownership: the first page
-- whose INSERT ... ON CONFLICT DO NOTHING lands keeps the fragment.
CREATE TABLE fragments (
    crawl_id uuid   NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    hash     bytea  NOT NULL,
    page_id  bigint NOT NULL,
    PRIMARY KEY (crawl_id, hash)
);

--bun:split

-- extraction_chunks keeps the LLM's answer for each chunk of a page as it
-- arrives, so that a retried extraction does not pay for a chunk twice.
-- digest identifies what was asked (instructions and chunk text): an
-- answer is reused only for the same question.
CREATE TABLE extraction_chunks (
    page_id bigint  NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
    chunk   integer NOT NULL,
    chunks  integer NOT NULL,
    digest  text    NOT NULL,
    answer  text    NOT NULL,
    PRIMARY KEY (page_id, chunk)
);
