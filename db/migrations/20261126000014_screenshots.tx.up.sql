-- Pages' screenshots (the screenshot formats), served by the API at
-- /screenshots/<token>; they go with their crawl.
CREATE TABLE screenshots (
    token text PRIMARY KEY,
    crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    page_id bigint NOT NULL,
    content_type text NOT NULL,
    data bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

--bun:split

CREATE INDEX screenshots_crawl ON screenshots (crawl_id);
