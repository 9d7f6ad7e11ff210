ALTER TABLE pages DROP COLUMN document_pages;
