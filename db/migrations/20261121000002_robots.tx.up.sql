-- robots.txt as a crawl read it, once per origin (scheme://host:port), so
-- that every batch and every retry of a crawl applies the same rules.
CREATE TABLE robots (
    crawl_id    uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
    origin      text NOT NULL,
    status_code integer NOT NULL,
    body        text NOT NULL DEFAULT '',
    fetched_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (crawl_id, origin)
);
