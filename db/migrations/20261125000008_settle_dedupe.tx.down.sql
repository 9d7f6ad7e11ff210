CREATE TABLE fragments (
    crawl_id uuid   NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    hash     bytea  NOT NULL,
    page_id  bigint NOT NULL,
    PRIMARY KEY (crawl_id, hash)
);

--bun:split

ALTER TABLE pages DROP COLUMN noindex;
