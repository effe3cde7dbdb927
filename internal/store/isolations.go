package store

import (
	"context"
	"strings"
)

// Isolation is one voice isolation of a workspace: the isolated audio is in the blob store
// under BlobKey.
type Isolation struct {
	ID, WorkspaceID, UserID, APIKeyID string
	Title, Format                     string
	DurationSecs                      float64
	BlobKey                           string
	PreviewB64                        string
	CreatedAt                         int64
}

const isolationCols = `id, workspace_id, user_id, api_key_id, title, format, duration_secs, blob_key, preview_b64, created_at_unix`

func scanIsolation(row interface{ Scan(...any) error }) (*Isolation, error) {
	i := &Isolation{}
	err := row.Scan(&i.ID, &i.WorkspaceID, &i.UserID, &i.APIKeyID, &i.Title, &i.Format, &i.DurationSecs, &i.BlobKey,
		&i.PreviewB64, &i.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return i, nil
}

// InsertIsolation adds an isolation (in the transaction that commits its charge).
func (tx *Tx) InsertIsolation(ctx context.Context, i *Isolation) error {
	_, err := tx.exec(ctx, `INSERT INTO audio_isolations (`+isolationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		i.ID, i.WorkspaceID, i.UserID, i.APIKeyID, i.Title, i.Format, i.DurationSecs, i.BlobKey, i.PreviewB64, i.CreatedAt)
	return err
}

// Isolation returns one isolation of the workspace.
func (db *DB) Isolation(ctx context.Context, workspaceID, id string) (*Isolation, error) {
	return scanIsolation(db.queryRow(ctx, `SELECT `+isolationCols+` FROM audio_isolations WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}

// IsolationFilter selects a page of one member's isolations, newest first; Search matches the
// title (case-insensitive, LIKE wildcards literal).
type IsolationFilter struct {
	UserID        string
	Search        string
	Offset, Limit int
}

// ListIsolations returns a page of the workspace member's isolations and whether more follow.
func (db *DB) ListIsolations(ctx context.Context, workspaceID string, f IsolationFilter) ([]Isolation, bool, error) {
	q := `SELECT ` + isolationCols + ` FROM audio_isolations WHERE workspace_id = ? AND user_id = ?`
	args := []any{workspaceID, f.UserID}
	if f.Search != "" {
		q += ` AND LOWER(title) LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(strings.ToLower(f.Search))+"%")
	}
	q += ` ORDER BY created_at_unix DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, f.Limit+1, f.Offset)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []Isolation
	for rows.Next() {
		i, err := scanIsolation(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, *i)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, nil
}

// DeleteIsolation removes one isolation of the workspace (ErrNotFound if there is none) and
// returns it, so that the caller can delete its audio.
func (db *DB) DeleteIsolation(ctx context.Context, workspaceID, id string) (*Isolation, error) {
	return scanIsolation(db.queryRow(ctx, `DELETE FROM audio_isolations WHERE workspace_id = ? AND id = ? RETURNING `+isolationCols, workspaceID, id))
}
