package store

import (
	"context"
	"encoding/json"
	"strings"
)

// Group is a named set of workspace members with permissions.
type Group struct {
	ID           string
	WorkspaceID  string
	Name         string
	Permissions  []string
	MemberEmails []string
	CreatedAt    int64
}

// ListGroups lists the workspace's groups by name, with their members' emails; a non-empty
// nameLike keeps groups whose name contains it (case-insensitively).
func (db *DB) ListGroups(ctx context.Context, workspaceID, nameLike string) ([]Group, error) {
	q := `SELECT id, workspace_id, name, permissions, created_at_unix FROM workspace_groups WHERE workspace_id = ?`
	args := []any{workspaceID}
	if nameLike != "" {
		q += ` AND LOWER(name) LIKE ? ESCAPE '\'`
		args = append(args, "%"+wsEscapeLike(strings.ToLower(nameLike))+"%")
	}
	rows, err := db.query(ctx, q+` ORDER BY name, id`, args...)
	if err != nil {
		return nil, err
	}
	var out []Group
	idx := map[string]int{}
	for rows.Next() {
		var g Group
		var perms string
		if err := rows.Scan(&g.ID, &g.WorkspaceID, &g.Name, &perms, &g.CreatedAt); err != nil {
			rows.Close()
			return nil, err
		}
		_ = json.Unmarshal([]byte(perms), &g.Permissions)
		g.MemberEmails = []string{}
		idx[g.ID] = len(out)
		out = append(out, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	mrows, err := db.query(ctx, `SELECT gm.group_id, u.email FROM workspace_group_members gm JOIN users u ON u.id = gm.user_id
		WHERE gm.workspace_id = ? ORDER BY u.email`, workspaceID)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	for mrows.Next() {
		var gid, email string
		if err := mrows.Scan(&gid, &email); err != nil {
			return nil, err
		}
		if i, ok := idx[gid]; ok {
			out[i].MemberEmails = append(out[i].MemberEmails, email)
		}
	}
	return out, mrows.Err()
}

func wsEscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// GroupByID finds a group of the workspace.
func (db *DB) GroupByID(ctx context.Context, workspaceID, id string) (*Group, error) {
	g := &Group{}
	var perms string
	err := db.queryRow(ctx, `SELECT id, workspace_id, name, permissions, created_at_unix FROM workspace_groups WHERE workspace_id = ? AND id = ?`, workspaceID, id).
		Scan(&g.ID, &g.WorkspaceID, &g.Name, &perms, &g.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	_ = json.Unmarshal([]byte(perms), &g.Permissions)
	return g, nil
}

// CountGroups says how many of ids are groups of the workspace.
func (db *DB) CountGroups(ctx context.Context, workspaceID string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := []any{workspaceID}
	for _, id := range ids {
		args = append(args, id)
	}
	var n int
	err := db.queryRow(ctx, `SELECT COUNT(*) FROM workspace_groups WHERE workspace_id = ? AND id IN (`+placeholders(len(ids))+`)`, args...).Scan(&n)
	return n, err
}

// CreateGroup adds a group; a name already used in the workspace is a unique violation.
func (db *DB) CreateGroup(ctx context.Context, g *Group) error {
	perms, _ := json.Marshal(wsNonNil(g.Permissions))
	_, err := db.exec(ctx, `INSERT INTO workspace_groups (id, workspace_id, name, permissions, created_at_unix) VALUES (?, ?, ?, ?, ?)`,
		g.ID, g.WorkspaceID, g.Name, string(perms), g.CreatedAt)
	return err
}

// UpdateGroup renames a group and/or replaces its permissions.
func (db *DB) UpdateGroup(ctx context.Context, workspaceID, id string, name *string, perms []string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if name != nil {
			if err := affected(tx.exec(ctx, `UPDATE workspace_groups SET name = ? WHERE workspace_id = ? AND id = ?`, *name, workspaceID, id)); err != nil {
				return err
			}
		}
		if perms != nil {
			b, _ := json.Marshal(perms)
			if err := affected(tx.exec(ctx, `UPDATE workspace_groups SET permissions = ? WHERE workspace_id = ? AND id = ?`, string(b), workspaceID, id)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteGroup removes a group with its memberships and its grants on resources.
func (db *DB) DeleteGroup(ctx context.Context, workspaceID, id string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM resource_shares WHERE workspace_id = ? AND principal_type = 'group' AND principal_id = ?`, workspaceID, id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM workspace_group_members WHERE workspace_id = ? AND group_id = ?`, workspaceID, id); err != nil {
			return err
		}
		return affected(tx.exec(ctx, `DELETE FROM workspace_groups WHERE workspace_id = ? AND id = ?`, workspaceID, id))
	})
}

// AddGroupMember puts a member of the workspace into one of its groups (idempotent). It finds
// nothing when the group is not the workspace's or the user is not its member.
func (db *DB) AddGroupMember(ctx context.Context, workspaceID, groupID, userID string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		var n int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_groups g JOIN workspace_members m ON m.workspace_id = g.workspace_id
			WHERE g.workspace_id = ? AND g.id = ? AND m.user_id = ?`, workspaceID, groupID, userID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		_, err := tx.exec(ctx, `INSERT INTO workspace_group_members (group_id, workspace_id, user_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, groupID, workspaceID, userID)
		return err
	})
}

// RemoveGroupMember takes a user out of a group of the workspace.
func (db *DB) RemoveGroupMember(ctx context.Context, workspaceID, groupID, userID string) error {
	return affected(db.exec(ctx, `DELETE FROM workspace_group_members WHERE workspace_id = ? AND group_id = ? AND user_id = ?`, workspaceID, groupID, userID))
}
