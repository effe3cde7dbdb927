-- +goose Up
-- Service accounts are users without a password, members of exactly one workspace.
ALTER TABLE users ADD COLUMN is_service_account INTEGER NOT NULL DEFAULT 0;

-- API keys: the API's permissions (JSON list, or ["all"]), a per-key character quota counted per
-- workspace billing period (period_start_unix says which period character_count belongs to),
-- enable/disable, and the service account that owns the key, if any.
ALTER TABLE api_keys ADD COLUMN permissions TEXT NOT NULL DEFAULT '["all"]';
ALTER TABLE api_keys ADD COLUMN character_limit INTEGER;
ALTER TABLE api_keys ADD COLUMN character_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN period_start_unix INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN is_disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN disable_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN third_party_disable_allowed INTEGER;
ALTER TABLE api_keys ADD COLUMN is_service_account INTEGER NOT NULL DEFAULT 0;
CREATE INDEX api_keys_owner ON api_keys(workspace_id, user_id);
CREATE INDEX users_service_accounts ON users(workspace_id, is_service_account);

-- +goose Down
DROP INDEX users_service_accounts;
DROP INDEX api_keys_owner;
ALTER TABLE api_keys DROP COLUMN is_service_account;
ALTER TABLE api_keys DROP COLUMN third_party_disable_allowed;
ALTER TABLE api_keys DROP COLUMN disable_reason;
ALTER TABLE api_keys DROP COLUMN is_disabled;
ALTER TABLE api_keys DROP COLUMN period_start_unix;
ALTER TABLE api_keys DROP COLUMN character_count;
ALTER TABLE api_keys DROP COLUMN character_limit;
ALTER TABLE api_keys DROP COLUMN permissions;
ALTER TABLE users DROP COLUMN is_service_account;
