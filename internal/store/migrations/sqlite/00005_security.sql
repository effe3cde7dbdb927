-- +goose Up
-- Account security (issue 3): MFA, session metadata, throttling, email actions, support access.
ALTER TABLE users ADD COLUMN agrees_to_product_updates INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN totp_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_pending_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_enabled_at_unix INTEGER;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;

ALTER TABLE action_codes ADD COLUMN payload TEXT NOT NULL DEFAULT '';

ALTER TABLE sessions ADD COLUMN public_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN last_seen_unix INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET public_id = substr(token_hash, 1, 20), last_seen_unix = created_at_unix;

CREATE TABLE mfa_backup_codes (
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash       TEXT NOT NULL,
    created_at_unix INTEGER NOT NULL,
    used_at_unix    INTEGER,
    PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE mfa_challenges (
    token_hash      TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_to     TEXT NOT NULL DEFAULT '',
    user_agent      TEXT NOT NULL DEFAULT '',
    ip              TEXT NOT NULL DEFAULT '',
    expires_at_unix INTEGER NOT NULL
);
CREATE INDEX mfa_challenges_user ON mfa_challenges(user_id);

CREATE TABLE rate_limits (
    bucket            TEXT PRIMARY KEY,
    window_start_unix INTEGER NOT NULL,
    hits              INTEGER NOT NULL
);

CREATE TABLE support_access_grants (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    granted_at_unix INTEGER NOT NULL,
    expires_at_unix INTEGER NOT NULL
);
CREATE INDEX support_access_grants_user ON support_access_grants(user_id);

-- +goose Down
DROP TABLE support_access_grants;
DROP TABLE rate_limits;
DROP TABLE mfa_challenges;
DROP TABLE mfa_backup_codes;
ALTER TABLE sessions DROP COLUMN last_seen_unix;
ALTER TABLE sessions DROP COLUMN ip;
ALTER TABLE sessions DROP COLUMN user_agent;
ALTER TABLE sessions DROP COLUMN public_id;
ALTER TABLE action_codes DROP COLUMN payload;
ALTER TABLE users DROP COLUMN totp_last_step;
ALTER TABLE users DROP COLUMN totp_enabled_at_unix;
ALTER TABLE users DROP COLUMN totp_enabled;
ALTER TABLE users DROP COLUMN totp_pending_secret;
ALTER TABLE users DROP COLUMN totp_secret;
ALTER TABLE users DROP COLUMN agrees_to_product_updates;
