-- +goose Up
-- Key pairs the installation itself signs with, one row per use ("saml-sp": the SAML service
-- provider's AuthnRequest signing key). The private key is sealed with the server key (PEM,
-- secret.Box); the self-signed certificate is public and goes into the SP metadata.
CREATE TABLE service_keys (
    name             TEXT PRIMARY KEY,
    private_key_enc  TEXT NOT NULL,
    certificate      TEXT NOT NULL,
    created_at_unix  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE service_keys;
