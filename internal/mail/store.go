package mail

import (
	"context"

	"timbre/internal/store"
)

// Store is what outbound mail needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	AddMail(ctx context.Context, m store.Mail) error
}

var _ Store = (*store.DB)(nil)
