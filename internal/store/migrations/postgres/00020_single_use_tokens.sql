-- +goose Up
-- Single-use tokens (POST /v1/single-use-token/{token_type}): a browser or app given one may
-- make one request of that type (?token=…) on behalf of the key or session that made it, within
-- 15 minutes. Only the token's hash is kept.
CREATE TABLE single_use_tokens (
    token_hash      TEXT PRIMARY KEY,
    token_type      TEXT NOT NULL,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    api_key_id      TEXT NOT NULL DEFAULT '',
    expires_at_unix BIGINT NOT NULL,
    used            BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX single_use_tokens_expiry ON single_use_tokens(expires_at_unix);

-- +goose Down
DROP TABLE single_use_tokens;
