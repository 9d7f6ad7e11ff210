-- The kind of cause of a failed or skipped page (robots-disallowed,
-- status, ...), which its error column words: what the API reads to sort
-- pages (Firecrawl's robotsBlocked), where the words are for people.
ALTER TABLE pages ADD COLUMN cause text;
