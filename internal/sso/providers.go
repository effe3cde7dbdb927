package sso

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"strings"

	"github.com/crewjam/saml"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// Identity provider configuration: what admins register, checked and stored.

// ProviderInput is what an admin sends to create or change a provider. Nil fields are left as
// they are on update.
type ProviderInput struct {
	Type         *string   `json:"type"`
	Name         *string   `json:"name"`
	Enabled      *bool     `json:"enabled"`
	Domains      *[]string `json:"domains"`
	Issuer       *string   `json:"issuer"`
	ClientID     *string   `json:"client_id"`
	ClientSecret *string   `json:"client_secret"`
	Scopes       *string   `json:"scopes"`
	EntityID     *string   `json:"identity_provider_entity_id"`
	SSOURL       *string   `json:"sso_url"`
	Certificate  *string   `json:"certificate"`
	MetadataXML  *string   `json:"metadata_xml"`
}

var domainRe = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// apply validates in against p (the current provider, or a new one) and writes the changes into
// p. Every problem is reported with its field.
func (s *Service) apply(p *store.SSOProvider, in *ProviderInput, creating bool) error {
	var v errs.Validator
	str := func(ptr *string) string {
		if ptr == nil {
			return ""
		}
		return strings.TrimSpace(*ptr)
	}
	if creating {
		switch t := str(in.Type); t {
		case store.SSOTypeOIDC, store.SSOTypeSAML:
			p.Type = t
		case "":
			v.Add("body", "type", "missing", "Field required: oidc or saml.")
		default:
			v.Add("body", "type", "value_error", "The type must be oidc or saml.")
		}
	} else if in.Type != nil && str(in.Type) != p.Type {
		v.Add("body", "type", "value_error", "The type of an identity provider cannot change; create a new one instead.")
	}
	if in.Name != nil || creating {
		n := str(in.Name)
		switch {
		case n == "":
			v.Add("body", "name", "missing", "Please give the identity provider a name.")
		case len([]rune(n)) > 100:
			v.Add("body", "name", "value_error", "The name must be at most 100 characters.")
		default:
			p.Name = n
		}
	}
	if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	if in.Domains != nil || creating {
		var ds []string
		if in.Domains != nil {
			ds = *in.Domains
		}
		var clean []string
		for _, d := range ds {
			d = strings.ToLower(strings.TrimSpace(d))
			if !domainRe.MatchString(d) || len(d) > 253 {
				v.Add("body", "domains", "value_error", fmt.Sprintf("%q is not a domain name (like example.com).", d))
				continue
			}
			clean = append(clean, d)
		}
		switch {
		case len(ds) == 0:
			v.Add("body", "domains", "missing", "List at least one email domain the provider signs in.")
		case len(ds) > 50:
			v.Add("body", "domains", "value_error", "A provider covers at most 50 domains.")
		}
		p.Domains = clean
	}
	switch p.Type {
	case store.SSOTypeOIDC:
		for _, f := range []struct {
			name string
			set  bool
		}{{"identity_provider_entity_id", in.EntityID != nil}, {"sso_url", in.SSOURL != nil}, {"certificate", in.Certificate != nil}, {"metadata_xml", in.MetadataXML != nil}} {
			if f.set {
				v.Add("body", f.name, "value_error", "This field belongs to SAML providers; this one is OIDC.")
			}
		}
		if in.Issuer != nil || creating {
			iss := str(in.Issuer) // kept exactly: OIDC compares the issuer byte for byte
			if err := s.checkURL(iss); err != "" {
				v.Add("body", "issuer", "value_error", "The issuer "+err)
			} else {
				p.OIDCIssuer = iss
			}
		}
		if in.ClientID != nil || creating {
			switch c := str(in.ClientID); {
			case c == "":
				v.Add("body", "client_id", "missing", "Field required: the client id the provider gave Timbre.")
			case len(c) > 255:
				v.Add("body", "client_id", "value_error", "The client id must be at most 255 characters.")
			default:
				p.OIDCClientID = c
			}
		}
		if in.ClientSecret != nil || creating {
			switch c := str(in.ClientSecret); {
			case c == "":
				v.Add("body", "client_secret", "missing", "Field required: the client secret the provider gave Timbre.")
			case len(c) > 1024:
				v.Add("body", "client_secret", "value_error", "The client secret must be at most 1024 characters.")
			default:
				enc, err := s.Box.Seal(c, "sso-client-secret:"+p.ID)
				if err != nil {
					return err
				}
				p.OIDCClientSecretEnc = enc
			}
		}
		if in.Scopes != nil {
			sc := strings.Join(strings.Fields(str(in.Scopes)), " ")
			if len(sc) > 500 {
				v.Add("body", "scopes", "value_error", "The scopes must be at most 500 characters.")
			} else {
				p.OIDCScopes = sc
			}
		}
	case store.SSOTypeSAML:
		for _, f := range []struct {
			name string
			set  bool
		}{{"issuer", in.Issuer != nil}, {"client_id", in.ClientID != nil}, {"client_secret", in.ClientSecret != nil}, {"scopes", in.Scopes != nil}} {
			if f.set {
				v.Add("body", f.name, "value_error", "This field belongs to OIDC providers; this one is SAML.")
			}
		}
		if in.MetadataXML != nil {
			ent, sso, cert, msg := parseIdPMetadata(str(in.MetadataXML))
			if msg != "" {
				v.Add("body", "metadata_xml", "value_error", msg)
				break
			}
			p.SAMLEntityID, p.SAMLSSOURL, p.SAMLCertificate = ent, sso, cert
		}
		if in.EntityID != nil || (creating && in.MetadataXML == nil) {
			switch e := str(in.EntityID); {
			case e == "":
				v.Add("body", "identity_provider_entity_id", "missing", "Field required: the IdP's entity id (or send metadata_xml).")
			case len(e) > 1024:
				v.Add("body", "identity_provider_entity_id", "value_error", "The entity id must be at most 1024 characters.")
			default:
				p.SAMLEntityID = e
			}
		}
		if in.SSOURL != nil || (creating && in.MetadataXML == nil) {
			u := str(in.SSOURL)
			if err := s.checkURL(u); err != "" {
				v.Add("body", "sso_url", "value_error", "The SSO URL "+err)
			} else {
				p.SAMLSSOURL = u
			}
		}
		if in.Certificate != nil || (creating && in.MetadataXML == nil) {
			c, msg := normCertificate(str(in.Certificate))
			if msg != "" {
				v.Add("body", "certificate", "value_error", msg)
			} else {
				p.SAMLCertificate = c
			}
		}
	}
	return v.Err()
}

// checkURL returns why u is not an acceptable provider URL, or "".
func (s *Service) checkURL(u string) string {
	if u == "" {
		return "is required."
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" || pu.User != nil || pu.Fragment != "" {
		return "must be an absolute URL like https://idp.example.com."
	}
	if pu.Scheme != "https" && !(s.AllowInsecureIdP && pu.Scheme == "http") {
		return "must use https."
	}
	if len(u) > 2048 {
		return "must be at most 2048 characters."
	}
	return ""
}

// normCertificate accepts a PEM certificate or its base64 DER body and returns PEM.
func normCertificate(s string) (string, string) {
	if s == "" {
		return "", "Field required: the IdP's signing certificate (PEM)."
	}
	der := []byte(nil)
	if b, _ := pem.Decode([]byte(s)); b != nil && b.Type == "CERTIFICATE" {
		der = b.Bytes
	} else if raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), "")); err == nil {
		der = raw
	}
	if _, err := x509.ParseCertificate(der); err != nil {
		return "", "The certificate is not a readable X.509 certificate (paste the PEM block)."
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), ""
}

// parseIdPMetadata reads an IdP's SAML metadata: entity id, the HTTP-Redirect SSO location and the
// first signing certificate.
func parseIdPMetadata(doc string) (entityID, ssoURL, certPEM, problem string) {
	if doc == "" || len(doc) > 512<<10 {
		return "", "", "", "Paste the identity provider's SAML metadata XML (at most 512 KiB)."
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal([]byte(doc), &ed); err != nil {
		return "", "", "", "The metadata is not a SAML EntityDescriptor: " + err.Error()
	}
	if ed.EntityID == "" || len(ed.IDPSSODescriptors) == 0 {
		return "", "", "", "The metadata has no entityID or no IDPSSODescriptor."
	}
	for _, d := range ed.IDPSSODescriptors {
		for _, sso := range d.SingleSignOnServices {
			if sso.Binding == saml.HTTPRedirectBinding && ssoURL == "" {
				ssoURL = sso.Location
			}
		}
		for _, kd := range d.KeyDescriptors {
			if (kd.Use == "" || kd.Use == "signing") && len(kd.KeyInfo.X509Data.X509Certificates) > 0 && certPEM == "" {
				c, msg := normCertificate(kd.KeyInfo.X509Data.X509Certificates[0].Data)
				if msg != "" {
					return "", "", "", msg
				}
				certPEM = c
			}
		}
	}
	if ssoURL == "" {
		return "", "", "", "The metadata lists no SingleSignOnService with the HTTP-Redirect binding."
	}
	if certPEM == "" {
		return "", "", "", "The metadata lists no signing certificate."
	}
	return ed.EntityID, ssoURL, certPEM, ""
}

// ErrDomainTaken is the answer when another provider of the workspace claims a domain, or another
// workspace has verified it.
var ErrDomainTaken = errs.Errorf(errs.Conflict, "sso_domain_taken", "One of these domains is already covered by another identity provider.")

// CreateProvider validates and stores a new provider for the workspace.
func (s *Service) CreateProvider(ctx context.Context, workspaceID, userID string, in *ProviderInput) (*store.SSOProvider, error) {
	now := s.now().Unix()
	p := &store.SSOProvider{ID: store.NewID(), WorkspaceID: workspaceID, Enabled: true, CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := s.apply(p, in, true); err != nil {
		return nil, err
	}
	err := s.DB.CreateSSOProvider(ctx, *p)
	if store.IsUniqueViolation(err) || errors.Is(err, store.ErrSSODomainTaken) {
		return nil, ErrDomainTaken
	}
	if err != nil {
		return nil, err
	}
	return s.DB.SSOProvider(ctx, workspaceID, p.ID)
}

// UpdateProvider changes a provider of the workspace.
func (s *Service) UpdateProvider(ctx context.Context, workspaceID, id string, in *ProviderInput) (*store.SSOProvider, error) {
	p, err := s.DB.SSOProvider(ctx, workspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSuchProvider
	}
	if err != nil {
		return nil, err
	}
	if err := s.apply(p, in, false); err != nil {
		return nil, err
	}
	p.UpdatedAt = s.now().Unix()
	err = s.DB.UpdateSSOProvider(ctx, *p)
	if store.IsUniqueViolation(err) || errors.Is(err, store.ErrSSODomainTaken) {
		return nil, ErrDomainTaken
	}
	if err != nil {
		return nil, err
	}
	return s.DB.SSOProvider(ctx, workspaceID, id)
}

// FindProvider returns the enabled provider for an email's domain, or, given an invite code, the
// provider of the invite's workspace covering that domain.
func (s *Service) FindProvider(ctx context.Context, email, inviteCode string) (*store.SSOProvider, error) {
	domain, err := emailDomain(email, "query")
	if err != nil {
		return nil, err
	}
	p, err := s.DB.SSOProviderByDomain(ctx, domain)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrProviderNotFound
	}
	if err != nil {
		return nil, err
	}
	if !p.Enabled {
		return nil, ErrProviderNotFound
	}
	if inviteCode != "" && s.InviteWorkspace != nil {
		ws, err := s.InviteWorkspace(ctx, inviteCode)
		if err != nil || ws != p.WorkspaceID {
			// The invitation is to a workspace whose provider does not cover this email: the user
			// signs in (or up) with a password and accepts it.
			return nil, ErrProviderNotFound
		}
	}
	return p, nil
}

func emailDomain(email, where string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return "", errs.Field(where, "email", "missing", "Please enter your email address.")
	}
	a, err := mail.ParseAddress(email)
	at := strings.LastIndexByte(email, '@')
	if err != nil || a.Address != email || at < 1 || len(email) > 254 {
		return "", errs.Field(where, "email", "value_error", "Please enter a valid email address.")
	}
	return email[at+1:], nil
}

// DeleteProvider removes an identity provider of the workspace.
func (s *Service) DeleteProvider(ctx context.Context, workspaceID, id string) error {
	if err := s.DB.DeleteSSOProvider(ctx, workspaceID, id); errors.Is(err, store.ErrNotFound) {
		return errNoSuchProvider
	} else if err != nil {
		return err
	}
	return nil
}

// Settings reads the workspace's auto-provisioning and whether it requires SSO.
func (s *Service) Settings(ctx context.Context, workspaceID string) (*store.AutoProvisioning, bool, error) {
	ap, err := s.DB.SSOAutoProvisioning(ctx, workspaceID)
	if err != nil {
		return nil, false, err
	}
	req, err := s.DB.SSORequired(ctx, workspaceID)
	if err != nil {
		return nil, false, err
	}
	return ap, req, nil
}

// SettingChange is one SSO setting that changed value.
type SettingChange struct {
	Setting string // user_auto_provisioning_enabled or sso_required
	To      bool
}

// SettingsChanged is what UpdateSettings changed, and by whom (the email auto-provisioning
// records as its enabler).
type SettingsChanged struct {
	ByEmail       string
	Changes       []SettingChange
	EndedSessions int64 // password sessions ended because SSO became required
}

// UpdateSettings turns auto-provisioning and Require SSO on or off (nil leaves one as it is).
// It reports the settings whose value changed, also those changed before a later step failed.
func (s *Service) UpdateSettings(ctx context.Context, workspaceID, userID string, autoProvisioning, ssoRequired *bool) (SettingsChanged, error) {
	var out SettingsChanged
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return out, err
	}
	out.ByEmail = u.Email
	if autoProvisioning != nil {
		before, err := s.DB.SSOAutoProvisioning(ctx, workspaceID)
		if err != nil {
			return out, err
		}
		if err := s.DB.SetSSOAutoProvisioning(ctx, workspaceID, *autoProvisioning, u.Email, s.now()); err != nil {
			return out, err
		}
		if before.Enabled != *autoProvisioning {
			out.Changes = append(out.Changes, SettingChange{"user_auto_provisioning_enabled", *autoProvisioning})
		}
	}
	if ssoRequired != nil {
		before, err := s.DB.SSORequired(ctx, workspaceID)
		if err != nil {
			return out, err
		}
		if err := s.DB.SetSSORequired(ctx, workspaceID, *ssoRequired); err != nil {
			return out, err
		}
		if before != *ssoRequired {
			out.Changes = append(out.Changes, SettingChange{"sso_required", *ssoRequired})
		}
		if !before && *ssoRequired {
			// Sessions opened with a password (or another workspace's SSO) end now; the
			// request-time check would refuse them anyway, this signs them out everywhere.
			if out.EndedSessions, err = s.DB.EndPasswordSessions(ctx, workspaceID); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
