package sso

import (
	"context"
	"time"

	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what single sign-on needs of the database (*store.DB has it all). Keeping it narrow
// lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	audit.Writer

	// Identity providers and the workspace's SSO settings.
	ListSSOProviders(ctx context.Context, workspaceID string) ([]store.SSOProvider, error)
	SSOProvider(ctx context.Context, workspaceID, id string) (*store.SSOProvider, error)
	SSOProviderByDomain(ctx context.Context, domain string) (*store.SSOProvider, error)
	CreateSSOProvider(ctx context.Context, p store.SSOProvider) error
	UpdateSSOProvider(ctx context.Context, p store.SSOProvider) error
	DeleteSSOProvider(ctx context.Context, workspaceID, id string) error
	SSOAutoProvisioning(ctx context.Context, workspaceID string) (*store.AutoProvisioning, error)
	SetSSOAutoProvisioning(ctx context.Context, workspaceID string, enabled bool, byEmail string, now time.Time) error
	SSORequired(ctx context.Context, workspaceID string) (bool, error)
	SetSSORequired(ctx context.Context, workspaceID string, on bool) error
	EndPasswordSessions(ctx context.Context, workspaceID string) (int64, error)

	// Domains and their verification.
	ListSSODomains(ctx context.Context, workspaceID string) ([]store.SSODomain, error)
	SSODomain(ctx context.Context, workspaceID, domain string) (*store.SSODomain, error)
	VerifySSODomain(ctx context.Context, workspaceID, domain, userID string, now time.Time) error
	SSORequiredForDomain(ctx context.Context, domain string) (bool, error)

	// The sign-in flow and the users it signs in or creates.
	CreateSSOFlow(ctx context.Context, state string, f store.SSOFlow, now time.Time) error
	UseSSOFlow(ctx context.Context, state string, now time.Time) (*store.SSOFlow, error)
	UserByEmail(ctx context.Context, email string) (*store.User, error)
	UserByID(ctx context.Context, id string) (*store.User, error)
	CreateSSOUser(ctx context.Context, email, firstName, workspaceID string, now time.Time) (*store.User, error)
	MarkOnboardingPending(ctx context.Context, userID string) error
	Role(ctx context.Context, workspaceID, userID string) (string, error)

	// The SAML service provider's signing key.
	ServiceKey(ctx context.Context, name string) (*store.ServiceKey, error)
	EnsureServiceKey(ctx context.Context, k store.ServiceKey, now time.Time) (*store.ServiceKey, error)
}

var _ Store = (*store.DB)(nil)
