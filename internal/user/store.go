package user

import (
	"context"
	"time"

	"timbre/internal/store"
)

// Store is what /v1/user needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	AccountExtras(ctx context.Context, userID string) (*store.AccountExtras, error)
	Role(ctx context.Context, workspaceID, userID string) (string, error)
	UserByID(ctx context.Context, id string) (*store.User, error)
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	CountWorkspaceVoices(ctx context.Context, workspaceID string, categories ...string) (int, error)
}

var _ Store = (*store.DB)(nil)
