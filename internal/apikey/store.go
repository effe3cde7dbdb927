package apikey

import (
	"context"

	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what API-key management needs of the database (*store.DB has it all). Keeping it narrow
// lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	audit.Writer
	KeyCreator

	CreateServiceAccount(ctx context.Context, sa store.ServiceAccount, max int) error
	DeleteServiceAccount(ctx context.Context, workspaceID, userID string) error
	DeleteServiceAccountAPIKey(ctx context.Context, workspaceID, userID, id string) error
	ListServiceAccountAPIKeys(ctx context.Context, workspaceID, userID string) ([]store.APIKey, error)
	ListServiceAccounts(ctx context.Context, workspaceID string) ([]store.ServiceAccount, error)
	ServiceAccountByID(ctx context.Context, workspaceID, userID string) (*store.ServiceAccount, error)
	UpdateAPIKey(ctx context.Context, workspaceID, userID, id string, u store.APIKeyUpdate) error
}

// KeyCreator is what Create needs of the store, so that sign-up can make a key through its own
// narrow store.
type KeyCreator interface {
	APIKeyByID(ctx context.Context, workspaceID, id string) (*store.APIKey, error)
	CreateAPIKey(ctx context.Context, k store.APIKey, secret string) error
}

var _ Store = (*store.DB)(nil)
