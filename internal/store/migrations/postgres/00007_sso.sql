-- +goose Up
-- Identity providers of a workspace: OIDC (issuer + client_id; the client secret only encrypted)
-- or SAML (the IdP's entity id, SSO URL and signing certificate).
CREATE TABLE sso_providers (
    id                      TEXT PRIMARY KEY,
    workspace_id            TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    type                    TEXT NOT NULL,
    name                    TEXT NOT NULL,
    enabled                 BOOLEAN NOT NULL DEFAULT TRUE,
    oidc_issuer             TEXT NOT NULL DEFAULT '',
    oidc_client_id          TEXT NOT NULL DEFAULT '',
    oidc_client_secret_enc  TEXT NOT NULL DEFAULT '',
    oidc_scopes             TEXT NOT NULL DEFAULT '',
    saml_entity_id          TEXT NOT NULL DEFAULT '',
    saml_sso_url            TEXT NOT NULL DEFAULT '',
    saml_certificate        TEXT NOT NULL DEFAULT '',
    created_by_user_id      TEXT NOT NULL DEFAULT '',
    created_at_unix         BIGINT NOT NULL,
    updated_at_unix         BIGINT NOT NULL
);
CREATE INDEX sso_providers_workspace ON sso_providers(workspace_id);

-- The email domains a provider signs in; a domain belongs to one provider across all workspaces.
CREATE TABLE sso_domains (
    domain       TEXT PRIMARY KEY,
    provider_id  TEXT NOT NULL REFERENCES sso_providers(id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE
);
CREATE INDEX sso_domains_provider ON sso_domains(provider_id);

-- Sign-in attempts in flight: state (hashed), OIDC nonce (hashed) and PKCE verifier (encrypted),
-- or the SAML AuthnRequest id; each usable once, for a few minutes.
CREATE TABLE sso_flows (
    state_hash       TEXT PRIMARY KEY,
    provider_id      TEXT NOT NULL REFERENCES sso_providers(id) ON DELETE CASCADE,
    workspace_id     TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    nonce_hash       TEXT NOT NULL DEFAULT '',
    verifier_enc     TEXT NOT NULL DEFAULT '',
    saml_request_id  TEXT NOT NULL DEFAULT '',
    redirect_path    TEXT NOT NULL DEFAULT '',
    created_at_unix  BIGINT NOT NULL,
    expires_at_unix  BIGINT NOT NULL,
    used             BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX sso_flows_expiry ON sso_flows(expires_at_unix);

-- +goose Down
DROP TABLE sso_flows;
DROP TABLE sso_domains;
DROP TABLE sso_providers;
