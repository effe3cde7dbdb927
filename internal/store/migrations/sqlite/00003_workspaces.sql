-- +goose Up
-- Workspace settings (names as the spec's Workspace entity).
ALTER TABLE workspaces ADD COLUMN session_inactivity_timeout INTEGER;
ALTER TABLE workspaces ADD COLUMN training_opt_out INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN training_opt_out_at_unix INTEGER;
ALTER TABLE workspaces ADD COLUMN mfa_required_for_users INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN user_auto_provisioning_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN user_auto_provisioning_enabled_at_unix INTEGER;
ALTER TABLE workspaces ADD COLUMN user_auto_provisioning_enabled_by_user_email TEXT;
ALTER TABLE workspaces ADD COLUMN max_seats INTEGER;

-- A member can be locked out of one workspace without leaving it.
ALTER TABLE workspace_members ADD COLUMN is_locked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspace_members ADD COLUMN joined_at_unix INTEGER NOT NULL DEFAULT 0;
CREATE INDEX workspace_members_user ON workspace_members(user_id);

-- Pending invitations; the code itself is never stored, only its SHA-256.
CREATE TABLE workspace_invites (
    id                 TEXT PRIMARY KEY,
    workspace_id       TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    email              TEXT NOT NULL,
    role               TEXT NOT NULL,
    code_hash          TEXT NOT NULL UNIQUE,
    group_ids          TEXT NOT NULL DEFAULT '[]',
    invited_by_user_id TEXT NOT NULL DEFAULT '',
    created_at_unix    INTEGER NOT NULL,
    expires_at_unix    INTEGER NOT NULL,
    UNIQUE (workspace_id, email)
);

CREATE TABLE workspace_groups (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    permissions     TEXT NOT NULL DEFAULT '[]',
    created_at_unix INTEGER NOT NULL,
    UNIQUE (workspace_id, name)
);

-- Group members must be members of the group's workspace; leaving the workspace leaves its groups.
CREATE TABLE workspace_group_members (
    group_id     TEXT NOT NULL REFERENCES workspace_groups(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    PRIMARY KEY (group_id, user_id),
    FOREIGN KEY (workspace_id, user_id) REFERENCES workspace_members(workspace_id, user_id) ON DELETE CASCADE
);
CREATE INDEX workspace_group_members_user ON workspace_group_members(workspace_id, user_id);

-- Per-resource grants: to a user, a group, or the workspace's baseline ('default').
CREATE TABLE resource_shares (
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    resource_type   TEXT NOT NULL,
    resource_id     TEXT NOT NULL,
    principal_type  TEXT NOT NULL,
    principal_id    TEXT NOT NULL,
    role            TEXT NOT NULL,
    created_at_unix INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, resource_type, resource_id, principal_type, principal_id)
);
CREATE INDEX resource_shares_principal ON resource_shares(workspace_id, principal_type, principal_id);

-- +goose Down
DROP TABLE resource_shares;
DROP TABLE workspace_group_members;
DROP TABLE workspace_groups;
DROP TABLE workspace_invites;
DROP INDEX workspace_members_user;
ALTER TABLE workspace_members DROP COLUMN joined_at_unix;
ALTER TABLE workspace_members DROP COLUMN is_locked;
ALTER TABLE workspaces DROP COLUMN max_seats;
ALTER TABLE workspaces DROP COLUMN user_auto_provisioning_enabled_by_user_email;
ALTER TABLE workspaces DROP COLUMN user_auto_provisioning_enabled_at_unix;
ALTER TABLE workspaces DROP COLUMN user_auto_provisioning_enabled;
ALTER TABLE workspaces DROP COLUMN mfa_required_for_users;
ALTER TABLE workspaces DROP COLUMN training_opt_out_at_unix;
ALTER TABLE workspaces DROP COLUMN training_opt_out;
ALTER TABLE workspaces DROP COLUMN session_inactivity_timeout;
