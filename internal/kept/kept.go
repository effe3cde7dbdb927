// Package kept serves the generated audio a workspace keeps for its members (voice isolations,
// sound effects, songs): only the member who made an item, or a workspace admin, reaches it;
// its audio lives in the blob store under the row's key.
package kept

import (
	"context"
	"errors"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/store"
)

// Row is one kept item as stored.
type Row interface {
	Owner() string       // the member who made it
	AudioKey() string    // its blob key
	AudioFormat() string // its output format (mp3_44100_128, …)
}

// Blobs holds the items' audio.
type Blobs interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Items is one kind of kept item: how to find and remove a row in a workspace (ErrNotFound
// when absent), where the audio is, and the error a caller sees for an item out of reach.
type Items[R Row] struct {
	Find     func(ctx context.Context, workspaceID, id string) (R, error)
	Remove   func(ctx context.Context, workspaceID, id string) (R, error)
	Blob     Blobs
	NotFound error
}

// Reach returns an item the caller may reach: their own, or any of the workspace's for an admin.
func (k Items[R]) Reach(ctx context.Context, c *access.Caller, id string) (R, error) {
	row, err := k.Find(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && row.Owner() != c.UserID && !c.MayAdminister("")) {
		var none R
		return none, k.NotFound
	}
	return row, err
}

// Audio returns an item's audio and its content type.
func (k Items[R]) Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error) {
	row, err := k.Reach(ctx, c, id)
	if err != nil {
		return nil, "", err
	}
	data, err := k.Blob.Get(ctx, row.AudioKey())
	if err != nil {
		return nil, "", err
	}
	f, err := audio.ParseFormat(row.AudioFormat())
	if err != nil {
		return nil, "", err
	}
	return data, f.ContentType(), nil
}

// Delete removes an item and its audio.
func (k Items[R]) Delete(ctx context.Context, c *access.Caller, id string) error {
	if _, err := k.Reach(ctx, c, id); err != nil {
		return err
	}
	row, err := k.Remove(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return k.NotFound
	}
	if err != nil {
		return err
	}
	// The row is gone: a blob left behind by a failed delete is unreachable, not an error to show.
	_ = k.Blob.Delete(context.WithoutCancel(ctx), row.AudioKey())
	return nil
}
