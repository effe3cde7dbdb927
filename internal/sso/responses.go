package sso

import (
	"strings"

	"timbre/internal/store"
)

// The JSON bodies the SSO routes answer with; api/ documents them.

// providerResponse is an identity provider as the admin routes show it; only the fields of its
// own protocol appear (the embedded pointer of the other one is nil).
type providerResponse struct {
	ProviderID      string   `json:"provider_id"`
	WorkspaceID     string   `json:"workspace_id"`
	Type            string   `json:"type"`
	Name            string   `json:"name"`
	Enabled         bool     `json:"enabled"`
	Domains         []string `json:"domains"`
	VerifiedDomains []string `json:"verified_domains"`
	CreatedAtUnix   int64    `json:"created_at_unix"`
	UpdatedAtUnix   int64    `json:"updated_at_unix"`
	*OIDCProviderFields
	*SAMLProviderFields
}

// OIDCProviderFields are an OIDC provider's settings (never its secret, only whether it has one).
type OIDCProviderFields struct {
	Issuer          string `json:"issuer"`
	ClientID        string `json:"client_id"`
	Scopes          string `json:"scopes"`
	HasClientSecret bool   `json:"has_client_secret"`
}

// SAMLProviderFields are a SAML identity provider's settings.
type SAMLProviderFields struct {
	EntityID    string `json:"identity_provider_entity_id"`
	SSOURL      string `json:"sso_url"`
	Certificate string `json:"certificate"`
}

func providerJSON(p *store.SSOProvider) providerResponse {
	domains, verified := p.Domains, p.VerifiedDomains
	if domains == nil {
		domains = []string{}
	}
	if verified == nil {
		verified = []string{}
	}
	out := providerResponse{ProviderID: p.ID, WorkspaceID: p.WorkspaceID, Type: p.Type, Name: p.Name, Enabled: p.Enabled,
		Domains: domains, VerifiedDomains: verified, CreatedAtUnix: p.CreatedAt, UpdatedAtUnix: p.UpdatedAt}
	switch p.Type {
	case store.SSOTypeOIDC:
		out.OIDCProviderFields = &OIDCProviderFields{Issuer: p.OIDCIssuer, ClientID: p.OIDCClientID, Scopes: p.OIDCScopes,
			HasClientSecret: p.OIDCClientSecretEnc != ""}
	case store.SSOTypeSAML:
		out.SAMLProviderFields = &SAMLProviderFields{EntityID: p.SAMLEntityID, SSOURL: p.SAMLSSOURL, Certificate: p.SAMLCertificate}
	}
	return out
}

type providersResponse struct {
	IdentityProviders []providerResponse `json:"identity_providers"`
}

// foundProviderResponse is GET /v1/workspace/find-sso-provider: where an email signs in.
type foundProviderResponse struct {
	ProviderID   string `json:"provider_id"`
	ProviderType string `json:"provider_type"`
	WorkspaceID  string `json:"workspace_id"`
	Name         string `json:"name"`
	SSOStartURL  string `json:"sso_start_url"`
}

// settingsResponse is the workspace's SSO settings and what to tell the identity provider.
type settingsResponse struct {
	UserAutoProvisioning autoProvisioningSetting `json:"user_auto_provisioning"`
	SSORequired          bool                    `json:"sso_required"`
	ServiceProvider      serviceProviderInfo     `json:"service_provider"`
}

type autoProvisioningSetting struct {
	Enabled            bool    `json:"enabled"`
	EnabledAtUnix      *int64  `json:"enabled_at_unix"`
	EnabledByUserEmail *string `json:"enabled_by_user_email"`
}

// serviceProviderInfo are this server's addresses an administrator enters at the identity provider.
type serviceProviderInfo struct {
	OIDCRedirectURI string `json:"oidc_redirect_uri"`
	SAMLEntityID    string `json:"saml_entity_id"`
	SAMLACSURL      string `json:"saml_acs_url"`
	SAMLMetadataURL string `json:"saml_metadata_url"`
}

func settingsJSON(publicURL string, ap *store.AutoProvisioning, ssoRequired bool) settingsResponse {
	base := strings.TrimRight(publicURL, "/")
	return settingsResponse{
		UserAutoProvisioning: autoProvisioningSetting{Enabled: ap.Enabled, EnabledAtUnix: ap.EnabledAtUnix,
			EnabledByUserEmail: orNull(ap.EnabledByEmail)},
		SSORequired: ssoRequired,
		ServiceProvider: serviceProviderInfo{
			OIDCRedirectURI: base + "/api/sso/oidc/callback",
			SAMLEntityID:    base + "/api/sso/saml/metadata",
			SAMLACSURL:      base + "/api/sso/saml/acs",
			SAMLMetadataURL: base + "/api/sso/saml/metadata",
		},
	}
}

// domainResponse is a claimed email domain and the TXT record that proves it.
type domainResponse struct {
	Domain              string    `json:"domain"`
	ProviderID          string    `json:"provider_id"`
	ProviderName        string    `json:"provider_name"`
	Status              string    `json:"status"` // pending or verified
	Verified            bool      `json:"verified"`
	VerifiedAtUnix      *int64    `json:"verified_at_unix"`
	VerifiedByUserEmail *string   `json:"verified_by_user_email"`
	CreatedAtUnix       int64     `json:"created_at_unix"`
	TXTRecord           txtRecord `json:"txt_record"`
}

type txtRecord struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

func domainJSON(d *store.SSODomain, providerName string) domainResponse {
	name, value := ChallengeRecord(d)
	out := domainResponse{Domain: d.Domain, ProviderID: d.ProviderID, ProviderName: providerName, Status: "pending", Verified: d.Verified,
		VerifiedByUserEmail: orNull(d.VerifiedByEmail), CreatedAtUnix: d.CreatedAt, TXTRecord: txtRecord{Type: "TXT", Name: name, Value: value}}
	if d.Verified {
		at := d.VerifiedAt
		out.Status, out.VerifiedAtUnix = "verified", &at
	}
	return out
}

type domainsResponse struct {
	Domains []domainResponse `json:"domains"`
}

// orNull is s, or JSON null when s is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
