package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
)

// MemberAccess is what membership gives a user in a workspace: the role, and the permissions of
// every group they belong to (merged, sorted, without repeats).
type MemberAccess struct {
	Role             string
	GroupPermissions []string
}

// Access returns the user's role and group permissions in a workspace in one query, or
// ErrNotFound if the user is not an (unlocked) member.
func (db *DB) Access(ctx context.Context, workspaceID, userID string) (*MemberAccess, error) {
	// A locked member keeps the membership but may not act in the workspace.
	rows, err := db.query(ctx, `SELECT m.role, g.permissions FROM workspace_members m
		LEFT JOIN workspace_group_members gm ON gm.workspace_id = m.workspace_id AND gm.user_id = m.user_id
		LEFT JOIN workspace_groups g ON g.id = gm.group_id AND g.workspace_id = m.workspace_id
		WHERE m.workspace_id = ? AND m.user_id = ? AND m.is_locked = ?`, workspaceID, userID, false)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var a *MemberAccess
	for rows.Next() {
		var role string
		var perms sql.NullString
		if err := rows.Scan(&role, &perms); err != nil {
			return nil, err
		}
		if a == nil {
			a = &MemberAccess{Role: role}
		}
		if perms.Valid {
			var ps []string
			_ = json.Unmarshal([]byte(perms.String), &ps)
			a.GroupPermissions = append(a.GroupPermissions, ps...)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, ErrNotFound
	}
	slices.Sort(a.GroupPermissions)
	a.GroupPermissions = slices.Compact(a.GroupPermissions)
	return a, nil
}

// Resource roles, weakest first (the API's share roles).
var resourceRoles = []string{"viewer", "commenter", "editor", "admin"}

// ResourceRoleRank orders resource roles: 0 for none, then viewer < commenter < editor < admin.
func ResourceRoleRank(role string) int { return slices.Index(resourceRoles, role) + 1 }

// visibleShare is the SQL condition "a grant on the resource reaches user ?": given to them, to
// one of their groups, or to the whole workspace. It takes the user id twice.
const visibleShare = `(s.principal_type = 'default'
		OR (s.principal_type = 'user' AND s.principal_id = ?)
		OR (s.principal_type = 'group' AND s.principal_id IN (SELECT gm.group_id FROM workspace_group_members gm WHERE gm.workspace_id = s.workspace_id AND gm.user_id = ?)))`

// SharedRole returns the strongest role that grants on a resource give a user (through a grant
// to them, to one of their groups or to the workspace), or "" when none reaches them. Being the
// resource's creator is not a grant: callers check that first.
func (db *DB) SharedRole(ctx context.Context, workspaceID, typ, id, userID string) (string, error) {
	rows, err := db.query(ctx, `SELECT s.role FROM resource_shares s
		WHERE s.workspace_id = ? AND s.resource_type = ? AND s.resource_id = ? AND `+visibleShare, workspaceID, typ, id, userID, userID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	best := ""
	for rows.Next() {
		var role string
		if err := rows.Scan(&role); err != nil {
			return "", err
		}
		if ResourceRoleRank(role) > ResourceRoleRank(best) {
			best = role
		}
	}
	return best, rows.Err()
}
