DROP TABLE screenshots;
