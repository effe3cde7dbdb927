package store

import (
	"context"
	"database/sql"
	"time"
)

// Resource types that can be shared.
const (
	ResourceVoice   = "voice"
	ResourceHistory = "history"
)

// Resource is a shareable thing of a workspace.
type Resource struct {
	Type          string
	ID            string
	Name          string
	CreatorUserID string // "" when unknown
	PublicLink    bool   // anyone with a link can read it
}

// ResourceOf finds a resource of the workspace (its own voices; its history items not deleted).
func (db *DB) ResourceOf(ctx context.Context, workspaceID, typ, id string) (*Resource, error) {
	res := &Resource{Type: typ, ID: id}
	switch typ {
	case ResourceVoice:
		err := db.queryRow(ctx, `SELECT name FROM voices WHERE workspace_id = ? AND id = ?`, workspaceID, id).Scan(&res.Name)
		return res, notFound(err)
	case ResourceHistory:
		var share sql.NullString
		err := db.queryRow(ctx, `SELECT text, user_id, share_token FROM history WHERE workspace_id = ? AND id = ? AND state <> ?`, workspaceID, id, StateDeleted).
			Scan(&res.Name, &res.CreatorUserID, &share)
		res.PublicLink = share.Valid && share.String != ""
		return res, notFound(err)
	case ResourcePronunciationDictionary:
		err := db.queryRow(ctx, `SELECT name, created_by FROM pronunciation_dictionaries WHERE workspace_id = ? AND id = ?`, workspaceID, id).
			Scan(&res.Name, &res.CreatorUserID)
		return res, notFound(err)
	}
	return nil, ErrNotFound
}

// Share is one grant on a resource.
type Share struct {
	PrincipalType string // user, group, default
	PrincipalID   string
	Role          string
}

// ListShares lists the grants on a resource of the workspace.
func (db *DB) ListShares(ctx context.Context, workspaceID, typ, id string) ([]Share, error) {
	rows, err := db.query(ctx, `SELECT principal_type, principal_id, role FROM resource_shares WHERE workspace_id = ? AND resource_type = ? AND resource_id = ?
		ORDER BY created_at_unix, principal_type, principal_id`, workspaceID, typ, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Share
	for rows.Next() {
		var s Share
		if err := rows.Scan(&s.PrincipalType, &s.PrincipalID, &s.Role); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// ShareResource grants (or changes) a role on a resource of the workspace. It finds nothing when
// the principal (a member or a group) is not the workspace's; the caller checks the resource.
func (db *DB) ShareResource(ctx context.Context, workspaceID, typ, id string, s Share, now time.Time) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if err := tx.principalExists(ctx, workspaceID, s); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO resource_shares (workspace_id, resource_type, resource_id, principal_type, principal_id, role, created_at_unix)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (workspace_id, resource_type, resource_id, principal_type, principal_id) DO UPDATE SET role = excluded.role`,
			workspaceID, typ, id, s.PrincipalType, s.PrincipalID, s.Role, now.Unix())
		return err
	})
}

func (tx *Tx) principalExists(ctx context.Context, workspaceID string, s Share) error {
	var n int
	var err error
	switch s.PrincipalType {
	case "user":
		err = tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ? AND user_id = ?`, workspaceID, s.PrincipalID).Scan(&n)
	case "group":
		err = tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_groups WHERE workspace_id = ? AND id = ?`, workspaceID, s.PrincipalID).Scan(&n)
	case "default":
		n = 1
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// UnshareResource removes a grant; it is not an error when there was none.
func (db *DB) UnshareResource(ctx context.Context, workspaceID, typ, id string, s Share) error {
	_, err := db.exec(ctx, `DELETE FROM resource_shares WHERE workspace_id = ? AND resource_type = ? AND resource_id = ? AND principal_type = ? AND principal_id = ?`,
		workspaceID, typ, id, s.PrincipalType, s.PrincipalID)
	return err
}

// APIKeyUserOf returns the user (a member or a service account) behind an API key of the workspace.
func (db *DB) APIKeyUserOf(ctx context.Context, workspaceID, keyID string) (string, error) {
	var userID string
	err := db.queryRow(ctx, `SELECT user_id FROM api_keys WHERE workspace_id = ? AND id = ?`, workspaceID, keyID).Scan(&userID)
	return userID, notFound(err)
}
