package sso

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"
	"golang.org/x/oauth2"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// The sign-in flow: start at the provider, come back through the OIDC callback or the SAML
// ACS, and open a session (creating the user when the workspace auto-provisions).

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
