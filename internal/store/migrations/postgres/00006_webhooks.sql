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
    is_disabled              BOOLEAN NOT NULL DEFAULT FALSE,
    is_auto_disabled         BOOLEAN NOT NULL DEFAULT FALSE,
    retry_enabled            BOOLEAN NOT NULL DEFAULT TRUE,
    consecutive_failures     BIGINT NOT NULL DEFAULT 0,
    last_failure_code        BIGINT,
    last_failure_unix        BIGINT,
    created_by_user_id       TEXT NOT NULL DEFAULT '',
    created_at_unix          BIGINT NOT NULL
);
CREATE INDEX webhooks_workspace ON webhooks(workspace_id, created_at_unix);

CREATE TABLE webhook_deliveries (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    webhook_id    TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    delivery_id   TEXT NOT NULL,
    event_type    TEXT NOT NULL,
    attempt       BIGINT NOT NULL,
    seq           BIGINT NOT NULL,
    at_unix_ms    BIGINT NOT NULL,
    status_code   BIGINT NOT NULL DEFAULT 0,
    duration_ms   BIGINT NOT NULL DEFAULT 0,
    error         TEXT NOT NULL DEFAULT '',
    success       BOOLEAN NOT NULL DEFAULT FALSE,
    will_retry    BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries(workspace_id, webhook_id, seq DESC);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
