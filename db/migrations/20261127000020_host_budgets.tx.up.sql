-- One politeness budget per host, shared by every worker (package
-- hostbudget): a host's back-off after 429/503 answers, and each worker's
-- lease of a share of its requests in flight and per second.
CREATE TABLE host_budgets (
    host text PRIMARY KEY,
    factor double precision NOT NULL DEFAULT 1,
    throttled_at timestamptz,
    backoff_until timestamptz,
    reason text NOT NULL DEFAULT ''
);

CREATE TABLE host_leases (
    host text NOT NULL,
    holder text NOT NULL,
    slots integer NOT NULL,
    wanted integer NOT NULL,
    rate double precision NOT NULL,
    crawl_delay_ms integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (host, holder)
);
CREATE INDEX host_leases_holder ON host_leases (holder);
