-- +goose Up
CREATE TABLE workspaces (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    owner_id         TEXT NOT NULL,
    tier             TEXT NOT NULL DEFAULT 'free',
    character_count  BIGINT NOT NULL DEFAULT 0,
    period_start_unix BIGINT NOT NULL,
    next_reset_unix  BIGINT NOT NULL,
    created_at_unix  BIGINT NOT NULL
);

CREATE TABLE users (
    id              TEXT PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE,
    password_hash   TEXT NOT NULL,
    email_verified  BOOLEAN NOT NULL DEFAULT FALSE,
    first_name      TEXT NOT NULL DEFAULT '',
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
    created_at_unix BIGINT NOT NULL
);

CREATE TABLE workspace_members (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role         TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
);

CREATE TABLE sessions (
    token_hash      TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    csrf_token      TEXT NOT NULL,
    created_at_unix BIGINT NOT NULL,
    expires_at_unix BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    key_hash        TEXT NOT NULL UNIQUE,
    key_preview     TEXT NOT NULL,
    created_at_unix BIGINT NOT NULL,
    last_used_unix  BIGINT
);
CREATE INDEX api_keys_workspace ON api_keys(workspace_id);

CREATE TABLE action_codes (
    code_hash       TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    expires_at_unix BIGINT NOT NULL,
    used            BOOLEAN NOT NULL DEFAULT FALSE
);

CREATE TABLE voices (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL DEFAULT '',
    name            TEXT NOT NULL,
    category        TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    labels          TEXT NOT NULL DEFAULT '{}',
    engine          TEXT NOT NULL,
    engine_voice    TEXT NOT NULL,
    language        TEXT NOT NULL,
    prosody         TEXT NOT NULL DEFAULT '{}',
    preview_key     TEXT NOT NULL DEFAULT '',
    sort_order      BIGINT NOT NULL DEFAULT 0,
    created_at_unix BIGINT NOT NULL
);
CREATE INDEX voices_workspace ON voices(workspace_id, name);

CREATE TABLE voice_settings (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    voice_id     TEXT NOT NULL,
    settings     TEXT NOT NULL,
    PRIMARY KEY (workspace_id, voice_id)
);

CREATE TABLE history (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    request_id      TEXT NOT NULL,
    voice_id        TEXT NOT NULL,
    voice_name      TEXT NOT NULL,
    voice_category  TEXT NOT NULL,
    model_id        TEXT NOT NULL,
    text            TEXT NOT NULL,
    settings        TEXT NOT NULL DEFAULT '{}',
    date_unix       BIGINT NOT NULL,
    seq             BIGINT NOT NULL,
    char_from       BIGINT NOT NULL,
    char_to         BIGINT NOT NULL,
    content_type    TEXT NOT NULL,
    output_format   TEXT NOT NULL,
    source          TEXT NOT NULL DEFAULT 'TTS',
    state           TEXT NOT NULL,
    blob_key        TEXT NOT NULL DEFAULT '',
    alignments      TEXT NOT NULL DEFAULT '',
    feedback        TEXT NOT NULL DEFAULT '',
    share_token     TEXT UNIQUE,
    deleted_at_unix BIGINT
);
CREATE INDEX history_page ON history(workspace_id, seq DESC);

CREATE TABLE mail_outbox (
    id              TEXT PRIMARY KEY,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    text_body       TEXT NOT NULL,
    html_body       TEXT NOT NULL,
    created_at_unix BIGINT NOT NULL
);

-- +goose Down
DROP TABLE mail_outbox;
DROP TABLE history;
DROP TABLE voice_settings;
DROP TABLE voices;
DROP TABLE action_codes;
DROP TABLE api_keys;
DROP TABLE sessions;
DROP TABLE workspace_members;
DROP TABLE users;
DROP TABLE workspaces;
