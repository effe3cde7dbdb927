-- +goose Up
-- How a session proved who its user is: mfa_done once it answered a TOTP or backup code;
-- sso_workspace_id, for an SSO sign-in, the workspace whose identity provider vouched for it
-- (an SSO sign-in satisfies that workspace's MFA requirement, and only that one's).
ALTER TABLE sessions ADD COLUMN mfa_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN sso_workspace_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE sessions DROP COLUMN sso_workspace_id;
ALTER TABLE sessions DROP COLUMN mfa_done;
