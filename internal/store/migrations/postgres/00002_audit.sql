-- +goose Up
CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL,
    seq             BIGINT NOT NULL,
    at_unix_ms      BIGINT NOT NULL,
    actor_user_id   TEXT NOT NULL DEFAULT '',
    actor_email     TEXT NOT NULL DEFAULT '',
    actor_key_id    TEXT NOT NULL DEFAULT '',
    ip              TEXT NOT NULL DEFAULT '',
    class_name      TEXT NOT NULL,
    activity_name   TEXT NOT NULL,
    target          TEXT NOT NULL DEFAULT '',
    details         TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_page ON audit_log(workspace_id, seq DESC);

-- +goose Down
DROP TABLE audit_log;
