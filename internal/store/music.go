package store

import (
	"context"
	"strings"
)

// Song is one composed song of a workspace: the audio is in the blob store under BlobKey.
type Song struct {
	ID, WorkspaceID, UserID, APIKeyID string
	Title, Prompt, PlanJSON           string
	Seed                              int64
	Engine, Format                    string
	DurationMs, Credits               int64
	BlobKey                           string
	CreatedAt                         int64
}

const songCols = `id, workspace_id, user_id, api_key_id, title, prompt, plan_json, seed, engine, format, duration_ms, credits, blob_key, created_at_unix`

func scanSong(row rowScanner) (*Song, error) {
	s := &Song{}
	err := row.Scan(&s.ID, &s.WorkspaceID, &s.UserID, &s.APIKeyID, &s.Title, &s.Prompt, &s.PlanJSON, &s.Seed, &s.Engine, &s.Format,
		&s.DurationMs, &s.Credits, &s.BlobKey, &s.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return s, nil
}

// InsertSong adds a song (in the transaction that commits its charge).
func (tx *Tx) InsertSong(ctx context.Context, s *Song) error {
	_, err := tx.exec(ctx, `INSERT INTO music_songs (`+songCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.WorkspaceID, s.UserID, s.APIKeyID, s.Title, s.Prompt, s.PlanJSON, s.Seed, s.Engine, s.Format, s.DurationMs, s.Credits,
		s.BlobKey, s.CreatedAt)
	return err
}

// Song returns one song of the workspace.
func (db *DB) Song(ctx context.Context, workspaceID, id string) (*Song, error) {
	return scanSong(db.queryRow(ctx, `SELECT `+songCols+` FROM music_songs WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}

// SongFilter selects a page of one member's songs, newest first; Search matches the title or the
// prompt (case-insensitive, LIKE wildcards literal).
type SongFilter struct {
	UserID        string
	Search        string
	Offset, Limit int
}

// ListSongs returns a page of the workspace member's songs and whether more follow.
func (db *DB) ListSongs(ctx context.Context, workspaceID string, f SongFilter) ([]Song, bool, error) {
	q := `SELECT ` + songCols + ` FROM music_songs WHERE workspace_id = ? AND user_id = ?`
	args := []any{workspaceID, f.UserID}
	if f.Search != "" {
		like := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
		q += ` AND (LOWER(title) LIKE ? ESCAPE '\' OR LOWER(prompt) LIKE ? ESCAPE '\')`
		args = append(args, like, like)
	}
	q += ` ORDER BY created_at_unix DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, f.Limit+1, f.Offset)
	out, err := collect(scanSong)(db.query(ctx, q, args...))
	if err != nil {
		return nil, false, err
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, nil
}

// DeleteSong removes one song of the workspace (ErrNotFound if there is none) and returns it, so
// that the caller can delete its audio.
func (db *DB) DeleteSong(ctx context.Context, workspaceID, id string) (*Song, error) {
	return scanSong(db.queryRow(ctx, `DELETE FROM music_songs WHERE workspace_id = ? AND id = ? RETURNING `+songCols, workspaceID, id))
}
