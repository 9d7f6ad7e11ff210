ALTER TABLE host_budgets DROP COLUMN throttle_status, DROP COLUMN throttle_retry_after_ms;
