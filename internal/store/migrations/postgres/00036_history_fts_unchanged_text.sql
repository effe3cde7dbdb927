-- +goose Up
-- SQLite's full-text trigger changed (re-index only a changed text); PostgreSQL's trigram
-- indexes need nothing. The number is kept so both trees stay in step.
SELECT 1;

-- +goose Down
SELECT 1;
