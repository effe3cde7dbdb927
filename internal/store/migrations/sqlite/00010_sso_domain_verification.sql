-- +goose Up
-- Domain ownership (issue 3): an email domain only routes sign-ins to a workspace's identity
-- provider once the workspace has published a DNS TXT record with the claim's token. Claims of
-- several workspaces may wait side by side (an unproven claim must not block the real owner);
-- only one may be verified. Existing domains become unverified: their workspaces verify them.
CREATE TABLE sso_domains_v2 (
    domain              TEXT NOT NULL,
    provider_id         TEXT NOT NULL REFERENCES sso_providers(id) ON DELETE CASCADE,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    verification_token  TEXT NOT NULL,
    verified            INTEGER NOT NULL DEFAULT 0,
    verified_at_unix    INTEGER,
    verified_by_user_id TEXT NOT NULL DEFAULT '',
    created_at_unix     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, domain)
);
INSERT INTO sso_domains_v2 (domain, provider_id, workspace_id, verification_token, verified, created_at_unix)
    SELECT domain, provider_id, workspace_id, lower(hex(randomblob(16))), 0, CAST(strftime('%s', 'now') AS INTEGER) FROM sso_domains;
DROP TABLE sso_domains;
ALTER TABLE sso_domains_v2 RENAME TO sso_domains;
CREATE INDEX sso_domains_provider ON sso_domains(provider_id);
CREATE UNIQUE INDEX sso_domains_verified ON sso_domains(domain) WHERE verified = 1;
CREATE INDEX sso_domains_domain ON sso_domains(domain); -- sign-in's lookup by email domain

-- Password sign-in, sign-up and reset refused for the workspace's verified domains.
ALTER TABLE workspaces ADD COLUMN sso_required INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE workspaces DROP COLUMN sso_required;
CREATE TABLE sso_domains_v1 (
    domain       TEXT PRIMARY KEY,
    provider_id  TEXT NOT NULL REFERENCES sso_providers(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE
);
-- One claim per domain survives: the verified one, else the oldest.
INSERT INTO sso_domains_v1 (domain, provider_id, workspace_id)
    SELECT domain, provider_id, workspace_id FROM sso_domains d
    WHERE NOT EXISTS (SELECT 1 FROM sso_domains o WHERE o.domain = d.domain AND
        (o.verified > d.verified OR (o.verified = d.verified AND (o.created_at_unix < d.created_at_unix OR
            (o.created_at_unix = d.created_at_unix AND o.workspace_id < d.workspace_id)))));
DROP TABLE sso_domains;
ALTER TABLE sso_domains_v1 RENAME TO sso_domains;
CREATE INDEX sso_domains_provider ON sso_domains(provider_id);
