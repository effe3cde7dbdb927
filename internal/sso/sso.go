// Package sso is single sign-on for workspaces: each workspace may register OIDC or SAML identity
// providers covering email domains; users of those domains sign in through their provider
// (/app/sso → GET /api/sso/start → the IdP → a callback here), and, when the workspace allows
// auto-provisioning, first-time users get an account on the spot.
package sso

import (
	"context"
	"net"
	"net/http"
	"time"

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
	DB        Store
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
