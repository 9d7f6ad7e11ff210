-- Page HTML and markdown are written once and read about once each; lz4
-- compresses them at a small part of the CPU the default (pglz) takes.
-- A server built without lz4 keeps the default.
DO $$
BEGIN
    ALTER TABLE pages
        ALTER COLUMN html SET COMPRESSION lz4,
        ALTER COLUMN markdown SET COMPRESSION lz4,
        ALTER COLUMN raw_markdown SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 is not available; page columns keep the default compression';
END $$;
