package history

import (
	"context"
	"time"

	"timbre/internal/account"
	"timbre/internal/store"
)

// Store is what history needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	account.PublicNames // share links show who shared

	History(ctx context.Context, workspaceID, id string) (*store.HistoryItem, error)
	HistoryByShareToken(ctx context.Context, token string) (*store.HistoryItem, error)
	ListHistory(ctx context.Context, workspaceID string, f store.HistoryFilter) ([]store.HistoryItem, bool, error)
	MarkHistoryDeleted(ctx context.Context, workspaceID, id string, now time.Time) error
	PurgeHistoryRow(ctx context.Context, workspaceID, id string) error
	PurgeableHistory(ctx context.Context, deletedBefore time.Time, limit int) ([]store.HistoryItem, error)
	SetFeedback(ctx context.Context, workspaceID, id, feedbackJSON string) error
	SetShareToken(ctx context.Context, workspaceID, id, token string) (string, error)
	SharedRole(ctx context.Context, workspaceID, typ, id, userID string) (string, error)
	UserByID(ctx context.Context, id string) (*store.User, error)
}

var _ Store = (*store.DB)(nil)
