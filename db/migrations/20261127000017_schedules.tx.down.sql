DROP INDEX crawls_schedule;

--bun:split

DROP TABLE schedules;
