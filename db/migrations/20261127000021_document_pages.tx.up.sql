-- How many pages a document (a PDF) stored as a crawl's page has.
ALTER TABLE pages ADD COLUMN document_pages integer;
