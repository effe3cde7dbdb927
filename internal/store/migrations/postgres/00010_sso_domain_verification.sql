-- +goose Up
-- Domain ownership (issue 3): an email domain only routes sign-ins to a workspace's identity
-- provider once the workspace has published a DNS TXT record with the claim's token. Claims of
-- several workspaces may wait side by side (an unproven claim must not block the real owner);
-- only one may be verified. Existing domains become unverified: their workspaces verify them.
ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey;
ALTER TABLE sso_domains ADD COLUMN verification_token TEXT NOT NULL DEFAULT '';
ALTER TABLE sso_domains ADD COLUMN verified BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE sso_domains ADD COLUMN verified_at_unix BIGINT;
ALTER TABLE sso_domains ADD COLUMN verified_by_user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sso_domains ADD COLUMN created_at_unix BIGINT NOT NULL DEFAULT 0;
UPDATE sso_domains SET verification_token = replace(gen_random_uuid()::text, '-', ''),
    created_at_unix = EXTRACT(EPOCH FROM now())::BIGINT;
ALTER TABLE sso_domains ALTER COLUMN verification_token DROP DEFAULT;
ALTER TABLE sso_domains ADD PRIMARY KEY (workspace_id, domain);
CREATE UNIQUE INDEX sso_domains_verified ON sso_domains(domain) WHERE verified;
CREATE INDEX sso_domains_domain ON sso_domains(domain); -- sign-in's lookup by email domain

-- Password sign-in, sign-up and reset refused for the workspace's verified domains.
ALTER TABLE workspaces ADD COLUMN sso_required BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE workspaces DROP COLUMN sso_required;
DROP INDEX sso_domains_verified;
DROP INDEX sso_domains_domain;
ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey;
-- One claim per domain survives: the verified one, else the oldest.
DELETE FROM sso_domains d WHERE EXISTS (SELECT 1 FROM sso_domains o WHERE o.domain = d.domain AND
    (o.verified::int > d.verified::int OR (o.verified = d.verified AND (o.created_at_unix < d.created_at_unix OR
        (o.created_at_unix = d.created_at_unix AND o.workspace_id < d.workspace_id)))));
ALTER TABLE sso_domains DROP COLUMN verification_token, DROP COLUMN verified, DROP COLUMN verified_at_unix,
    DROP COLUMN verified_by_user_id, DROP COLUMN created_at_unix;
ALTER TABLE sso_domains ADD PRIMARY KEY (domain);
