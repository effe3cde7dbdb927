-- +goose Up
-- A voice isolation: who asked, the uploaded file's name (the title), and the isolated audio kept
-- in the blob store (blob_key) for GET /v1/audio-isolation/history and its download.
CREATE TABLE audio_isolations (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id             TEXT NOT NULL DEFAULT '',
    api_key_id          TEXT NOT NULL DEFAULT '',
    title               TEXT NOT NULL DEFAULT '',
    format              TEXT NOT NULL,
    duration_secs       DOUBLE PRECISION NOT NULL,
    blob_key            TEXT NOT NULL,
    preview_b64         TEXT NOT NULL DEFAULT '',
    created_at_unix     BIGINT NOT NULL
);
CREATE INDEX audio_isolations_owner ON audio_isolations(workspace_id, user_id, created_at_unix);

-- +goose Down
DROP TABLE audio_isolations;
