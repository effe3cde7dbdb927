package metering

import (
	"context"
	"time"

	"timbre/internal/store"
)

// Store is what metering needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	ProgressWriter

	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	LedgerSeries(ctx context.Context, q store.UsageQuery) ([]store.UsagePoint, error)
	LedgerUsage(ctx context.Context, workspaceID string, from, to time.Time, product string, by store.UsageGroup) ([]store.UsageRow, error)
	OrphanedHistory(ctx context.Context, before time.Time, limit int) ([]store.HistoryItem, error)
	StaleLedger(ctx context.Context, before time.Time, limit int) ([]store.LedgerEntry, error)
}

// ProgressWriter is what Progress needs of the store, so that a product holding its own narrow
// store can record what it delivered.
type ProgressWriter interface {
	LedgerProgress(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) error
}

var _ Store = (*store.DB)(nil)
