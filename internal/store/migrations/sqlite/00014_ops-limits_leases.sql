-- +goose Up
-- The per-plan concurrency limit, shared by every server process: a running speech request holds
-- a lease until it ends; a lease its holder stopped renewing (a crashed process) lapses at
-- expires_at_ms (the database's clock, in milliseconds).
CREATE TABLE concurrency_leases (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    holder        TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
CREATE INDEX concurrency_leases_workspace ON concurrency_leases(workspace_id, expires_at_ms);

-- +goose Down
DROP TABLE concurrency_leases;
