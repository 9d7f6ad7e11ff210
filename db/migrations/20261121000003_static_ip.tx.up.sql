-- The egress address a useStaticIps crawl was sent from.
ALTER TABLE crawls ADD COLUMN static_ip text;
