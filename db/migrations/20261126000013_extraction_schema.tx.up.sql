-- The JSON Schema a crawl's extraction answers must validate against.
ALTER TABLE crawls ADD COLUMN extraction_schema jsonb;
