-- +goose Up
-- The metering ledger: one row per reservation of units for a workspace, settled later (committed
-- for what was delivered, the rest refunded). Every product charges through it; usage questions
-- (by product, day, key, voice, user, model) are answered from it.
CREATE TABLE metering_ledger (
    id                TEXT PRIMARY KEY,
    workspace_id      TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id           TEXT NOT NULL DEFAULT '',
    api_key_id        TEXT NOT NULL DEFAULT '',
    voice_id          TEXT NOT NULL DEFAULT '',
    model_id          TEXT NOT NULL DEFAULT '',
    product           TEXT NOT NULL,
    unit_kind         TEXT NOT NULL,
    units             INTEGER NOT NULL,
    credits           INTEGER NOT NULL,
    delivered_units   INTEGER NOT NULL DEFAULT 0,
    delivered_credits INTEGER NOT NULL DEFAULT 0,
    state             TEXT NOT NULL,
    history_id        TEXT NOT NULL DEFAULT '',
    period_start_unix INTEGER NOT NULL,
    created_at_unix   INTEGER NOT NULL,
    heartbeat_unix    INTEGER NOT NULL,
    settled_at_unix   INTEGER
);
CREATE INDEX metering_ledger_usage ON metering_ledger(workspace_id, created_at_unix);
CREATE INDEX metering_ledger_open ON metering_ledger(state, heartbeat_unix);

-- A member's own character quota (NULL: none), counted per workspace period like an API key's.
ALTER TABLE workspace_members ADD COLUMN character_limit INTEGER;
ALTER TABLE workspace_members ADD COLUMN character_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspace_members ADD COLUMN period_start_unix INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE workspace_members DROP COLUMN period_start_unix;
ALTER TABLE workspace_members DROP COLUMN character_count;
ALTER TABLE workspace_members DROP COLUMN character_limit;
DROP INDEX metering_ledger_open;
DROP INDEX metering_ledger_usage;
DROP TABLE metering_ledger;
