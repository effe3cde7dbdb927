package capabilities

import (
	"context"
	"time"

	"timbre/internal/store"
)

// Store is what the capabilities report needs of the database (*store.DB has it all). Keeping it
// narrow lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
}

var _ Store = (*store.DB)(nil)
