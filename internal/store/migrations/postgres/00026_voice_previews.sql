-- +goose Up
-- Voice design previews: the parametric voice (engine, base voice, pitch, formant, rate, range) a
-- description produced, and the text it read. The audio is made again from them when streamed,
-- so no audio is kept; rows expire after a day (the cleanup job deletes them).
CREATE TABLE voice_previews (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL DEFAULT '',
    source_voice_id TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL,
    params TEXT NOT NULL,
    text TEXT NOT NULL,
    language TEXT NOT NULL,
    created_at_unix BIGINT NOT NULL,
    expires_at_unix BIGINT NOT NULL
);
CREATE INDEX voice_previews_workspace ON voice_previews(workspace_id, id);
CREATE INDEX voice_previews_expiry ON voice_previews(expires_at_unix);

-- +goose Down
DROP TABLE voice_previews;
