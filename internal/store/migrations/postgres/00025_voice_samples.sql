-- +goose Up
-- The recordings a cloned voice was made from: the audio is in the blob store (blob_key), its
-- voiceprint (voiceprint.Print JSON) is kept so that deleting or adding a sample re-merges
-- without analysing the others again. position keeps the order they were added in.
CREATE TABLE voice_samples (
    sample_id TEXT PRIMARY KEY,
    voice_id TEXT NOT NULL REFERENCES voices(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    hash TEXT NOT NULL,
    duration_secs DOUBLE PRECISION NOT NULL,
    remove_background_noise BOOLEAN NOT NULL DEFAULT FALSE,
    blob_key TEXT NOT NULL,
    voiceprint TEXT NOT NULL,
    position BIGINT NOT NULL DEFAULT 0,
    created_at_unix BIGINT NOT NULL
);
CREATE INDEX voice_samples_voice ON voice_samples(workspace_id, voice_id, position);

-- Voice adds and edits in the current billing period (reset with character_count).
ALTER TABLE workspaces ADD COLUMN voice_add_edit_count BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE workspaces DROP COLUMN voice_add_edit_count;
DROP INDEX voice_samples_voice;
DROP TABLE voice_samples;
