-- Where a page's words went on the way to its markdown: kept, or out of
-- it for a named reason (markdown.Words as JSON), which its log entry says.
ALTER TABLE pages ADD COLUMN words jsonb;
