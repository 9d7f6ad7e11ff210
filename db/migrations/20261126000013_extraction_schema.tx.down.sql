ALTER TABLE crawls DROP COLUMN extraction_schema;
