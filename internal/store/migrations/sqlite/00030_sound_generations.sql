-- +goose Up
-- A generated sound effect: the prompt, the settings it was made with (recipes included), and
-- the audio kept in the blob store (blob_key) for GET /v1/sound-generation/history.
CREATE TABLE sound_generations (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id             TEXT NOT NULL DEFAULT '',
    api_key_id          TEXT NOT NULL DEFAULT '',
    text                TEXT NOT NULL,
    settings            TEXT NOT NULL DEFAULT '{}',
    format              TEXT NOT NULL,
    duration_secs       REAL NOT NULL,
    blob_key            TEXT NOT NULL,
    created_at_unix     INTEGER NOT NULL
);
CREATE INDEX sound_generations_owner ON sound_generations(workspace_id, user_id, created_at_unix);

-- +goose Down
DROP TABLE sound_generations;
