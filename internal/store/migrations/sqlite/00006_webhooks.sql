-- +goose Up
CREATE TABLE webhooks (
    id                       TEXT PRIMARY KEY,
    workspace_id             TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name                     TEXT NOT NULL,
    url                      TEXT NOT NULL,
    auth_type                TEXT NOT NULL DEFAULT 'hmac',
    secret_enc               TEXT NOT NULL,
    headers_enc              TEXT NOT NULL DEFAULT '',
    events                   TEXT NOT NULL DEFAULT '[]',
    is_disabled              INTEGER NOT NULL DEFAULT 0,
    is_auto_disabled         INTEGER NOT NULL DEFAULT 0,
    retry_enabled            INTEGER NOT NULL DEFAULT 1,
    consecutive_failures     INTEGER NOT NULL DEFAULT 0,
    last_failure_code        INTEGER,
    last_failure_unix        INTEGER,
    created_by_user_id       TEXT NOT NULL DEFAULT '',
    created_at_unix          INTEGER NOT NULL
);
CREATE INDEX webhooks_workspace ON webhooks(workspace_id, created_at_unix);

CREATE TABLE webhook_deliveries (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    webhook_id    TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    delivery_id   TEXT NOT NULL,
    event_type    TEXT NOT NULL,
    attempt       INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    at_unix_ms    INTEGER NOT NULL,
    status_code   INTEGER NOT NULL DEFAULT 0,
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    error         TEXT NOT NULL DEFAULT '',
    success       INTEGER NOT NULL DEFAULT 0,
    will_retry    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries(workspace_id, webhook_id, seq DESC);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
