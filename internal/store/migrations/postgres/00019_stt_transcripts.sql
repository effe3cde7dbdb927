-- +goose Up
-- A speech-to-text transcription: who asked, its state (processing while the recogniser runs,
-- then completed or failed), and the finished transcript as the API returns it (result, JSON).
-- Audio is not kept. A request with enable_logging=false leaves no row.
CREATE TABLE transcripts (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id             TEXT NOT NULL DEFAULT '',
    api_key_id          TEXT NOT NULL DEFAULT '',
    model_id            TEXT NOT NULL,
    language_code       TEXT NOT NULL DEFAULT '',
    file_name           TEXT NOT NULL DEFAULT '',
    state               TEXT NOT NULL,
    duration_secs       DOUBLE PRECISION NOT NULL DEFAULT 0,
    result              TEXT NOT NULL DEFAULT '',
    error               TEXT NOT NULL DEFAULT '',
    webhook_metadata    TEXT NOT NULL DEFAULT '',
    created_at_unix     BIGINT NOT NULL,
    completed_at_unix   BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX transcripts_workspace ON transcripts(workspace_id, created_at_unix);

-- +goose Down
DROP TABLE transcripts;
