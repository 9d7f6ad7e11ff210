-- Firecrawl's parsers: PDFs left out, or read up to a number of pages.
ALTER TABLE crawls ADD COLUMN skip_pdfs boolean NOT NULL DEFAULT false,
    ADD COLUMN pdf_max_pages integer NOT NULL DEFAULT 0;
