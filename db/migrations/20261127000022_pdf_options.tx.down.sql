ALTER TABLE crawls DROP COLUMN skip_pdfs, DROP COLUMN pdf_max_pages;
