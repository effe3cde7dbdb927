package history

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"timbre/internal/blob"
	"timbre/internal/store"
)

// PurgeArgs asks for the audio of deleted history items to be removed for good.
type PurgeArgs struct{}

// Kind implements river.JobArgs.
func (PurgeArgs) Kind() string { return "history_purge" }

// PurgeWorker removes the audio and rows of history items deleted longer ago than Retention
// (deletion hides an item at once; the bytes go later, in batches, off the request path).
type PurgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	DB        Store
	Blob      *blob.Store
	Retention time.Duration
}

// Work implements river.Worker.
func (w *PurgeWorker) Work(ctx context.Context, job *river.Job[PurgeArgs]) error {
	for {
		items, err := w.DB.PurgeableHistory(ctx, time.Now().Add(-w.Retention), 200)
		if err != nil {
			return err
		}
		for _, it := range items {
			if it.BlobKey != "" {
				if err := w.Blob.Delete(ctx, it.BlobKey); err != nil {
					return err
				}
			}
			if err := w.DB.PurgeHistoryRow(ctx, it.WorkspaceID, it.ID); err != nil && err != store.ErrNotFound {
				return err
			}
		}
		if len(items) < 200 {
			return nil
		}
	}
}
