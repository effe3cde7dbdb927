-- +goose Up
-- A composed song: who asked, the prompt (empty when composed from a plan), the composition plan
-- it was played from (JSON), its seed and length, and the audio kept in the blob store
-- (blob_key) for GET /v1/music/history and its download.
CREATE TABLE music_songs (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id             TEXT NOT NULL DEFAULT '',
    api_key_id          TEXT NOT NULL DEFAULT '',
    title               TEXT NOT NULL DEFAULT '',
    prompt              TEXT NOT NULL DEFAULT '',
    plan_json           TEXT NOT NULL,
    seed                BIGINT NOT NULL,
    engine              TEXT NOT NULL DEFAULT '',
    format              TEXT NOT NULL,
    duration_ms         BIGINT NOT NULL,
    credits             BIGINT NOT NULL DEFAULT 0,
    blob_key            TEXT NOT NULL,
    created_at_unix     BIGINT NOT NULL
);
CREATE INDEX music_songs_owner ON music_songs(workspace_id, user_id, created_at_unix);

-- +goose Down
DROP TABLE music_songs;
