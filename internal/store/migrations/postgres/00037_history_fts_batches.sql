-- +goose Up
-- SQLite's full-text index takes new rows in batches (a queue table and new triggers);
-- PostgreSQL's trigram indexes need nothing. The number is kept so both trees stay in step.
SELECT 1;

-- +goose Down
SELECT 1;
