package audit

import (
	"context"

	"timbre/internal/store"
)

// Store is what the audit log needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	ListAudit(ctx context.Context, workspaceID string, f store.AuditFilter) ([]store.AuditEntry, bool, error)
	UserByID(ctx context.Context, id string) (*store.User, error)
}

var _ Store = (*store.DB)(nil)
