-- +goose Up
-- The voice library (issue 9 §2): a workspace voice published with its sharing settings, and the
-- copies other workspaces made of it (status 'copied', original_voice_id naming the library
-- voice). public_owner_id is the workspace's public id, the only owner detail the library shows.
CREATE TABLE voice_shares (
    voice_id TEXT PRIMARY KEY REFERENCES voices(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    public_owner_id TEXT NOT NULL,
    status TEXT NOT NULL,
    original_voice_id TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    financial_rewards_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    free_users_allowed BOOLEAN NOT NULL DEFAULT TRUE,
    live_moderation_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    voice_mixing_allowed BOOLEAN NOT NULL DEFAULT FALSE,
    featured BOOLEAN NOT NULL DEFAULT FALSE,
    reader_app_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    notice_period INTEGER NOT NULL DEFAULT 0,
    disable_at_unix INTEGER NOT NULL DEFAULT 0,
    date_unix INTEGER NOT NULL,
    cloned_by_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX voice_shares_status ON voice_shares(status, date_unix);
CREATE INDEX voice_shares_original ON voice_shares(workspace_id, original_voice_id);

-- Voice collections: a workspace's named groups of voices.
CREATE TABLE voice_collections (
    collection_id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    icon TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    created_at_unix INTEGER NOT NULL
);
CREATE INDEX voice_collections_workspace ON voice_collections(workspace_id, title);
CREATE TABLE voice_collection_voices (
    collection_id TEXT NOT NULL REFERENCES voice_collections(collection_id) ON DELETE CASCADE,
    voice_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    added_at_unix INTEGER NOT NULL,
    PRIMARY KEY (collection_id, voice_id)
);
CREATE INDEX voice_collection_voices_voice ON voice_collection_voices(workspace_id, voice_id);

-- +goose Down
DROP INDEX voice_collection_voices_voice;
DROP TABLE voice_collection_voices;
DROP INDEX voice_collections_workspace;
DROP TABLE voice_collections;
DROP INDEX voice_shares_original;
DROP INDEX voice_shares_status;
DROP TABLE voice_shares;
