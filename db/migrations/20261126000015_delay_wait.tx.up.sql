-- Firecrawl's delay (a pause after each request) and waitFor (a wait in
-- the browser before a page is read), in milliseconds.
ALTER TABLE crawls ADD COLUMN delay_ms integer NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE crawls ADD COLUMN wait_for_ms integer NOT NULL DEFAULT 0;

--bun:split

-- Firecrawl's ignoreQueryParameters: URLs that differ only in their query
-- are one page.
ALTER TABLE crawls ADD COLUMN ignore_query boolean NOT NULL DEFAULT false;

--bun:split

-- Firecrawl's allowSubdomains and allowExternalLinks.
ALTER TABLE crawls ADD COLUMN allow_subdomains boolean NOT NULL DEFAULT false;

--bun:split

ALTER TABLE crawls ADD COLUMN allow_external boolean NOT NULL DEFAULT false;

--bun:split

-- Firecrawl's headers (sent with every page request) and mobile.
ALTER TABLE crawls ADD COLUMN headers jsonb;

--bun:split

ALTER TABLE crawls ADD COLUMN mobile boolean NOT NULL DEFAULT false;

--bun:split

-- Firecrawl's regexOnFullURL: path rules matched against the whole URL.
ALTER TABLE crawls ADD COLUMN regex_on_full_url boolean NOT NULL DEFAULT false;
