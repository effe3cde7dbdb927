package server

import (
	"context"

	"timbre/internal/store"
)

// Store is what the server needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	Ping(ctx context.Context) error
}

var _ Store = (*store.DB)(nil)
