DROP TABLE host_leases;
DROP TABLE host_budgets;
