package store

import (
	"context"
	"strings"
)

// SoundGeneration is one generated sound effect of a workspace: the audio is in the blob store
// under BlobKey; Settings is the request's settings as JSON (recipes and seed included).
type SoundGeneration struct {
	ID, WorkspaceID, UserID, APIKeyID string
	Text, Settings, Format            string
	DurationSecs                      float64
	BlobKey                           string
	CreatedAt                         int64
}

const soundCols = `id, workspace_id, user_id, api_key_id, text, settings, format, duration_secs, blob_key, created_at_unix`

func scanSound(row rowScanner) (*SoundGeneration, error) {
	g := &SoundGeneration{}
	err := row.Scan(&g.ID, &g.WorkspaceID, &g.UserID, &g.APIKeyID, &g.Text, &g.Settings, &g.Format, &g.DurationSecs, &g.BlobKey, &g.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return g, nil
}

// InsertSoundGeneration adds a sound effect (in the transaction that commits its charge).
func (tx *Tx) InsertSoundGeneration(ctx context.Context, g *SoundGeneration) error {
	_, err := tx.exec(ctx, `INSERT INTO sound_generations (`+soundCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.WorkspaceID, g.UserID, g.APIKeyID, g.Text, g.Settings, g.Format, g.DurationSecs, g.BlobKey, g.CreatedAt)
	return err
}

// SoundGeneration returns one sound effect of the workspace.
func (db *DB) SoundGeneration(ctx context.Context, workspaceID, id string) (*SoundGeneration, error) {
	return scanSound(db.queryRow(ctx, `SELECT `+soundCols+` FROM sound_generations WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}

// SoundFilter selects a page of one member's sound effects, newest first; Search matches the
// prompt (case-insensitive, LIKE wildcards literal).
type SoundFilter struct {
	UserID        string
	Search        string
	Offset, Limit int
}

// ListSoundGenerations returns a page of the workspace member's sound effects and whether more
// follow.
func (db *DB) ListSoundGenerations(ctx context.Context, workspaceID string, f SoundFilter) ([]SoundGeneration, bool, error) {
	q := `SELECT ` + soundCols + ` FROM sound_generations WHERE workspace_id = ? AND user_id = ?`
	args := []any{workspaceID, f.UserID}
	if f.Search != "" {
		q += ` AND LOWER(text) LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(strings.ToLower(f.Search))+"%")
	}
	q += ` ORDER BY created_at_unix DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, f.Limit+1, f.Offset)
	out, err := collect(scanSound)(db.query(ctx, q, args...))
	if err != nil {
		return nil, false, err
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, nil
}

// DeleteSoundGeneration removes one sound effect of the workspace (ErrNotFound if there is
// none) and returns it, so that the caller can delete its audio.
func (db *DB) DeleteSoundGeneration(ctx context.Context, workspaceID, id string) (*SoundGeneration, error) {
	return scanSound(db.queryRow(ctx, `DELETE FROM sound_generations WHERE workspace_id = ? AND id = ? RETURNING `+soundCols, workspaceID, id))
}
