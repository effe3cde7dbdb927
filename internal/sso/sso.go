// Package sso is single sign-on for workspaces: each workspace may register OIDC or SAML identity
// providers covering email domains; users of those domains sign in through their provider
// (/app/sso → GET /api/sso/start → the IdP → a callback here), and, when the workspace allows
// auto-provisioning, first-time users get an account on the spot.
package sso

import (
	"context"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"
	"golang.org/x/oauth2"

	"timbre/internal/errs"
	"timbre/internal/netguard"
	"timbre/internal/secret"
	"timbre/internal/store"
)

// FlowTTL is how long a sign-in may take between start and callback.
const FlowTTL = 10 * time.Minute

// DefaultRedirect is where a signed-in user lands when the flow named no page.
const DefaultRedirect = "/app/speech-synthesis/text-to-speech"

// Service holds SSO configuration and the sign-in flows.
type Service struct {
	DB        *store.DB
	Box       *secret.Box
	PublicURL string // the address browsers reach; SAML's entity id and ACS URL derive from it

	// OpenSession starts a web session for a user in u.WorkspaceID, remembering the request's
	// browser (auth.Service.OpenSessionFor with auth.ClientOf(r)).
	OpenSession func(ctx context.Context, r *http.Request, u *store.User) (token, csrf string, err error)

	// HTTPClient makes the server's calls to OIDC providers. Nil means a client that only reaches
	// addresses Guard allows.
	HTTPClient *http.Client
	// Guard is the address policy for issuer requests; nil refuses every internal address.
	Guard *netguard.Guard
	// AllowInsecureIdP accepts http:// issuers (tests, labs). With HTTPClient nil it does not
	// lift the public-address guard.
	AllowInsecureIdP bool

	// SeatCheck, when set, is asked before auto-provisioning a user into a workspace (seats per
	// tier); an error refuses the sign-in with that error's message.
	SeatCheck func(ctx context.Context, workspaceID string) error
	// InviteWorkspace, when set, resolves an invite code to its workspace (find-sso-provider's
	// invite_code).
	InviteWorkspace func(ctx context.Context, code string) (workspaceID string, err error)

	// Resolver looks up the TXT records that prove domain ownership (domains.go); nil means
	// net.DefaultResolver. NewResolver points one at a chosen DNS server.
	Resolver *net.Resolver

	Now func() time.Time

	spKeys spKeyCache // the SAML SP signing key pair, once loaded (samlsign.go)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Errors.
var (
	ErrProviderNotFound = errs.Errorf(errs.NotFound, "sso_provider_not_found", "No single sign-on provider handles this email address. Sign in with your password instead.")
	errNoSuchProvider   = errs.Errorf(errs.NotFound, "sso_provider_not_found", "No identity provider with that id in this workspace.")
)

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

// ---- the sign-in flow ---------------------------------------------------------------------------

// flowError is a failed callback: the browser is sent to /app/sso with its code and message.
type flowError struct {
	Code, Message string
	WorkspaceID   string
	cause         error
}

func (e *flowError) Error() string {
	if e.cause != nil {
		return e.Code + ": " + e.cause.Error()
	}
	return e.Code + ": " + e.Message
}

func failf(code, msg string, cause error) *flowError {
	return &flowError{Code: code, Message: msg, cause: cause}
}

// Flow failure messages.
const (
	msgState      = "This sign-in link has expired or was already used. Please start signing in again."
	msgIdP        = "The identity provider did not sign you in. Please try again or contact your workspace admin."
	msgToken      = "The identity provider's answer could not be verified, so you were not signed in."
	msgDomain     = "Your identity provider vouched for an email address outside the domains it is set up for."
	msgNotMember  = "Your account is not a member of this workspace. Ask a workspace admin to invite you."
	msgNoAccount  = "There is no Timbre account for this email, and the workspace does not create accounts automatically. Ask a workspace admin to invite you."
	msgNoEmail    = "The identity provider did not share a verified email address."
	msgDisabled   = "Single sign-on for this workspace is turned off."
	msgMisconfig  = "The workspace's identity provider is not set up correctly. Contact your workspace admin."
	codeState     = "sso_state_invalid"
	codeIdP       = "sso_idp_error"
	codeToken     = "sso_response_invalid"
	codeDomain    = "sso_domain_mismatch"
	codeNotMember = "sso_not_member"
	codeNoAccount = "sso_no_account"
	codeNoEmail   = "sso_email_missing"
	codeDisabled  = "sso_disabled"
	codeMisconfig = "sso_misconfigured"
)

// Started is where to send the browser to sign in, and the state to bind to it.
type Started struct {
	URL   string
	State string
}

// Start begins a sign-in for email: OIDC authorization code with PKCE, state and nonce, or a SAML
// AuthnRequest over the HTTP-Redirect binding.
func (s *Service) Start(ctx context.Context, email, redirect string) (*Started, *store.SSOProvider, error) {
	p, err := s.FindProvider(ctx, email, "")
	if err != nil {
		return nil, nil, err
	}
	state := store.RandomString(43)
	flow := store.SSOFlow{ProviderID: p.ID, WorkspaceID: p.WorkspaceID, RedirectPath: safeRedirect(redirect), ExpiresAt: s.now().Add(FlowTTL).Unix()}
	var to string
	switch p.Type {
	case store.SSOTypeOIDC:
		cfg, _, err := s.oidcConfig(ctx, p)
		if err != nil {
			return nil, nil, errs.Errorf(errs.Upstream, codeMisconfig, "%s", msgMisconfig)
		}
		nonce := store.RandomString(32)
		verifier := oauth2.GenerateVerifier()
		if flow.VerifierEnc, err = s.Box.Seal(verifier, "sso-pkce:"+state); err != nil {
			return nil, nil, err
		}
		flow.NonceHash = store.HashToken(nonce)
		to = cfg.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("login_hint", strings.ToLower(strings.TrimSpace(email))))
	case store.SSOTypeSAML:
		sp, err := s.serviceProvider(p)
		if err != nil {
			return nil, nil, errs.Errorf(errs.Upstream, codeMisconfig, "%s", msgMisconfig)
		}
		req, err := sp.MakeAuthenticationRequest(p.SAMLSSOURL, saml.HTTPRedirectBinding, saml.HTTPPostBinding)
		if err != nil {
			return nil, nil, err
		}
		u, err := req.Redirect(state, sp)
		if err != nil {
			return nil, nil, err
		}
		flow.SAMLRequestID = req.ID
		to = u.String()
	default:
		return nil, nil, fmt.Errorf("sso: provider %s has unknown type %q", p.ID, p.Type)
	}
	if err := s.DB.CreateSSOFlow(ctx, state, flow, s.now()); err != nil {
		return nil, nil, err
	}
	return &Started{URL: to, State: state}, p, nil
}

// safeRedirect keeps a same-origin app path, or returns "" (the default).
func safeRedirect(r string) string {
	if r == "" || len(r) > 512 || !strings.HasPrefix(r, "/app/") || strings.ContainsAny(r, "\\%:@\r\n\t ") ||
		strings.Contains(r, "//") || strings.Contains(r, "/..") || strings.Contains(r, "/./") {
		return ""
	}
	return r
}

func (s *Service) oidcContext(ctx context.Context) context.Context {
	c := s.client()
	return oidc.ClientContext(context.WithValue(ctx, oauth2.HTTPClient, c), c)
}

// oidcConfig discovers the provider and builds the OAuth2 client configuration.
func (s *Service) oidcConfig(ctx context.Context, p *store.SSOProvider) (*oauth2.Config, *oidc.Provider, error) {
	secret, err := s.Box.Open(p.OIDCClientSecretEnc, "sso-client-secret:"+p.ID)
	if err != nil {
		return nil, nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(s.oidcContext(dctx), p.OIDCIssuer)
	if err != nil {
		return nil, nil, err
	}
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	if p.OIDCScopes != "" {
		scopes = append([]string{oidc.ScopeOpenID}, strings.Fields(p.OIDCScopes)...)
	}
	return &oauth2.Config{ClientID: p.OIDCClientID, ClientSecret: secret, Endpoint: op.Endpoint(), Scopes: scopes,
		RedirectURL: s.PublicURL + "/api/sso/oidc/callback"}, op, nil
}

// SignedIn is a finished SSO sign-in.
type SignedIn struct {
	User        *store.User
	WorkspaceID string
	Token, CSRF string
	Redirect    string
	Provisioned bool
	ProviderID  string
}

// useFlow checks the state against the browser's binding cookie and uses the flow once.
func (s *Service) useFlow(ctx context.Context, state, cookie string) (*store.SSOFlow, *store.SSOProvider, error) {
	if state == "" || cookie == "" || subtle.ConstantTimeCompare([]byte(state), []byte(cookie)) != 1 {
		return nil, nil, failf(codeState, msgState, errors.New("state missing or not bound to this browser"))
	}
	f, err := s.DB.UseSSOFlow(ctx, state, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, failf(codeState, msgState, errors.New("unknown, used or expired state"))
	}
	if err != nil {
		return nil, nil, err
	}
	p, err := s.DB.SSOProvider(ctx, f.WorkspaceID, f.ProviderID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, failf(codeState, msgState, errors.New("provider deleted during the flow"))
	}
	if err != nil {
		return nil, nil, err
	}
	if !p.Enabled {
		return nil, nil, &flowError{Code: codeDisabled, Message: msgDisabled, WorkspaceID: p.WorkspaceID}
	}
	return f, p, nil
}

// OIDCCallback finishes an OIDC sign-in: it checks state, exchanges the code with the PKCE
// verifier, verifies the ID token (signature, issuer, audience, expiry) and its nonce.
func (s *Service) OIDCCallback(r *http.Request, cookie string) (*SignedIn, error) {
	ctx, q := r.Context(), r.URL.Query()
	f, p, err := s.useFlow(ctx, q.Get("state"), cookie)
	if err != nil {
		return nil, err
	}
	wrap := func(e *flowError) error { e.WorkspaceID = p.WorkspaceID; return e }
	if p.Type != store.SSOTypeOIDC {
		return nil, wrap(failf(codeState, msgState, errors.New("flow is not an OIDC flow")))
	}
	if e := q.Get("error"); e != "" {
		return nil, wrap(failf(codeIdP, msgIdP, fmt.Errorf("idp error %q: %s", e, q.Get("error_description"))))
	}
	code := q.Get("code")
	if code == "" {
		return nil, wrap(failf(codeIdP, msgIdP, errors.New("no code")))
	}
	cfg, op, err := s.oidcConfig(ctx, p)
	if err != nil {
		return nil, wrap(failf(codeMisconfig, msgMisconfig, err))
	}
	verifier, err := s.Box.Open(f.VerifierEnc, "sso-pkce:"+q.Get("state"))
	if err != nil {
		return nil, err
	}
	octx := s.oidcContext(ctx)
	tok, err := cfg.Exchange(octx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, wrap(failf(codeToken, msgToken, fmt.Errorf("code exchange: %w", err)))
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, wrap(failf(codeToken, msgToken, errors.New("no id_token in the token response")))
	}
	idt, err := op.Verifier(&oidc.Config{ClientID: p.OIDCClientID, Now: s.now}).Verify(octx, raw)
	if err != nil {
		return nil, wrap(failf(codeToken, msgToken, fmt.Errorf("id_token: %w", err)))
	}
	if subtle.ConstantTimeCompare([]byte(store.HashToken(idt.Nonce)), []byte(f.NonceHash)) != 1 || idt.Nonce == "" {
		return nil, wrap(failf(codeToken, msgToken, errors.New("id_token nonce does not match the flow")))
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified *bool  `json:"email_verified"`
		GivenName     string `json:"given_name"`
		Name          string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return nil, wrap(failf(codeToken, msgToken, err))
	}
	// A provider that does not say the address is verified has not verified it.
	if claims.Email == "" || claims.EmailVerified == nil || !*claims.EmailVerified {
		return nil, wrap(failf(codeNoEmail, msgNoEmail, errors.New("email missing or unverified")))
	}
	first := claims.GivenName
	if first == "" {
		first, _, _ = strings.Cut(claims.Name, " ")
	}
	return s.complete(r, p, claims.Email, first, f.RedirectPath)
}

// SAMLACS finishes a SAML sign-in: crewjam/saml checks the response's signature (or the
// assertion's), issuer, destination, recipient, InResponseTo (this flow's request), expiry and
// audience.
func (s *Service) SAMLACS(r *http.Request, cookie string) (*SignedIn, error) {
	ctx := r.Context()
	state := r.PostForm.Get("RelayState")
	f, p, err := s.useFlow(ctx, state, cookie)
	if err != nil {
		return nil, err
	}
	wrap := func(e *flowError) error { e.WorkspaceID = p.WorkspaceID; return e }
	if p.Type != store.SSOTypeSAML {
		return nil, wrap(failf(codeState, msgState, errors.New("flow is not a SAML flow")))
	}
	sp, err := s.serviceProvider(p)
	if err != nil {
		return nil, wrap(failf(codeMisconfig, msgMisconfig, err))
	}
	a, err := sp.ParseResponse(r, []string{f.SAMLRequestID})
	if err != nil {
		var ire *saml.InvalidResponseError
		if errors.As(err, &ire) && ire.PrivateErr != nil {
			err = ire.PrivateErr
		}
		return nil, wrap(failf(codeToken, msgToken, fmt.Errorf("saml response: %w", err)))
	}
	email := assertionEmail(a)
	if email == "" {
		return nil, wrap(failf(codeNoEmail, msgNoEmail, errors.New("no email in the assertion")))
	}
	first := ""
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			if (at.Name == "givenName" || at.FriendlyName == "givenName" || strings.HasSuffix(at.Name, "/givenname")) && len(at.Values) > 0 {
				first = at.Values[0].Value
			}
		}
	}
	return s.complete(r, p, email, first, f.RedirectPath)
}

// assertionEmail is the NameID when it is an email address, else an email attribute.
func assertionEmail(a *saml.Assertion) string {
	if a.Subject != nil && a.Subject.NameID != nil && strings.Contains(a.Subject.NameID.Value, "@") {
		return a.Subject.NameID.Value
	}
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			n := strings.ToLower(at.Name)
			if (n == "email" || n == "mail" || n == "emailaddress" || strings.HasSuffix(n, "/emailaddress") || n == "urn:oid:0.9.2342.19200300.100.1.3") && len(at.Values) > 0 {
				return at.Values[0].Value
			}
		}
	}
	return ""
}

// serviceProvider is Timbre as a SAML SP facing provider p.
func (s *Service) serviceProvider(p *store.SSOProvider) (*saml.ServiceProvider, error) {
	sp, err := s.spBase()
	if err != nil {
		return nil, err
	}
	if p == nil {
		return sp, nil
	}
	b, _ := pem.Decode([]byte(p.SAMLCertificate))
	if b == nil {
		return nil, errors.New("sso: provider certificate is not PEM")
	}
	sp.IDPMetadata = &saml.EntityDescriptor{
		EntityID: p.SAMLEntityID,
		IDPSSODescriptors: []saml.IDPSSODescriptor{{
			SSODescriptor: saml.SSODescriptor{RoleDescriptor: saml.RoleDescriptor{
				ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol",
				KeyDescriptors: []saml.KeyDescriptor{{Use: "signing", KeyInfo: saml.KeyInfo{X509Data: saml.X509Data{
					X509Certificates: []saml.X509Certificate{{Data: base64.StdEncoding.EncodeToString(b.Bytes)}}}}}},
			}},
			SingleSignOnServices: []saml.Endpoint{{Binding: saml.HTTPRedirectBinding, Location: p.SAMLSSOURL}},
		}},
	}
	return sp, nil
}

// spBase is Timbre's SP without an IdP: entity id, ACS, and the signing key pair, so crewjam signs
// every AuthnRequest with RSA-SHA256 (the query string on HTTP-Redirect, an enveloped signature
// on HTTP-POST).
func (s *Service) spBase() (*saml.ServiceProvider, error) {
	key, cert, err := s.spKeyPair()
	if err != nil {
		return nil, err
	}
	meta, _ := url.Parse(s.PublicURL + "/api/sso/saml/metadata")
	acs, _ := url.Parse(s.PublicURL + "/api/sso/saml/acs")
	sp := &saml.ServiceProvider{
		EntityID:          meta.String(),
		MetadataURL:       *meta,
		AcsURL:            *acs,
		AuthnNameIDFormat: saml.EmailAddressNameIDFormat,
		Key:               key,
		Certificate:       cert,
		SignatureMethod:   dsig.RSASHA256SignatureMethod,
	}
	// crewjam accepts an assertion with no AudienceRestriction at all; Timbre requires one naming it.
	sp.ValidateAudienceRestriction = func(a *saml.Assertion) error {
		if a.Conditions != nil {
			for _, ar := range a.Conditions.AudienceRestrictions {
				if ar.Audience.Value == sp.EntityID {
					return nil
				}
			}
		}
		return fmt.Errorf("no AudienceRestriction names %q", sp.EntityID)
	}
	return sp, nil
}

// Metadata is Timbre's SAML SP metadata, for IdP admins: AuthnRequestsSigned="true" and the
// signing certificate.
func (s *Service) Metadata() ([]byte, error) {
	sp, err := s.spBase()
	if err != nil {
		return nil, err
	}
	ed := sp.Metadata()
	// crewjam also offers the certificate for encryption; Timbre publishes it for signing only,
	// so IdPs keep sending signed, unencrypted assertions.
	for i := range ed.SPSSODescriptors {
		kds := ed.SPSSODescriptors[i].KeyDescriptors[:0]
		for _, kd := range ed.SPSSODescriptors[i].KeyDescriptors {
			if kd.Use == "signing" {
				kds = append(kds, kd)
			}
		}
		ed.SPSSODescriptors[i].KeyDescriptors = kds
	}
	b, err := xml.MarshalIndent(ed, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

// complete finds or provisions the user the IdP vouched for and opens a session in the
// provider's workspace.
func (s *Service) complete(r *http.Request, p *store.SSOProvider, email, firstName, redirect string) (*SignedIn, error) {
	ctx := r.Context()
	wrap := func(e *flowError) error { e.WorkspaceID = p.WorkspaceID; return e }
	email = strings.ToLower(strings.TrimSpace(email))
	domain, err := emailDomain(email, "body")
	if err != nil {
		return nil, wrap(failf(codeNoEmail, msgNoEmail, fmt.Errorf("unusable email %q", email)))
	}
	covered := false
	for _, d := range p.VerifiedDomains { // a claim the workspace has not proven covers no one
		covered = covered || d == domain
	}
	if !covered {
		return nil, wrap(failf(codeDomain, msgDomain, fmt.Errorf("email %s outside the provider's verified domains %v", email, p.VerifiedDomains)))
	}
	out := &SignedIn{WorkspaceID: p.WorkspaceID, ProviderID: p.ID, Redirect: redirect}
	if out.Redirect == "" {
		out.Redirect = DefaultRedirect
	}
	u, err := s.DB.UserByEmail(ctx, email)
	switch {
	case err == nil:
		// An existing account is only signed in where it is already a member: an identity
		// provider of one workspace must not be able to take over accounts it did not create.
		if _, err := s.DB.Role(ctx, p.WorkspaceID, u.ID); errors.Is(err, store.ErrNotFound) {
			return nil, wrap(failf(codeNotMember, msgNotMember, fmt.Errorf("%s is not a member", email)))
		} else if err != nil {
			return nil, err
		}
	case errors.Is(err, store.ErrNotFound):
		ap, err := s.DB.SSOAutoProvisioning(ctx, p.WorkspaceID)
		if err != nil {
			return nil, err
		}
		if !ap.Enabled {
			return nil, wrap(failf(codeNoAccount, msgNoAccount, fmt.Errorf("no account for %s and auto-provisioning is off", email)))
		}
		if s.SeatCheck != nil {
			if err := s.SeatCheck(ctx, p.WorkspaceID); err != nil {
				msg := err.Error()
				var ae *errs.Error
				if errors.As(err, &ae) {
					msg = ae.Message
				}
				return nil, wrap(failf("sso_no_seats", msg, err))
			}
		}
		u, err = s.DB.CreateSSOUser(ctx, email, firstName, p.WorkspaceID, s.now())
		if store.IsUniqueViolation(err) { // created by a parallel sign-in
			if u, err = s.DB.UserByEmail(ctx, email); err == nil {
				if _, err = s.DB.Role(ctx, p.WorkspaceID, u.ID); errors.Is(err, store.ErrNotFound) {
					return nil, wrap(failf(codeNotMember, msgNotMember, fmt.Errorf("%s is not a member", email)))
				}
			}
		} else {
			out.Provisioned = err == nil
			if out.Provisioned { // a provisioned user is new: the onboarding survey comes first
				err = s.DB.MarkOnboardingPending(ctx, u.ID)
			}
		}
		if err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	su := *u
	su.WorkspaceID = p.WorkspaceID // the session works in the provider's workspace
	if out.Token, out.CSRF, err = s.OpenSession(ctx, r, &su); err != nil {
		return nil, err
	}
	out.User = u
	return out, nil
}
