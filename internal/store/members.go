package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Workspace members and seats.

// Member is a user of a workspace.
type Member struct {
	UserID    string
	Email     string
	FirstName string
	Role      string
	IsOwner   bool
	IsLocked  bool
}

const memberSelect = `SELECT u.id, u.email, u.first_name, m.role, w.owner_id, m.is_locked FROM workspace_members m
	JOIN users u ON u.id = m.user_id JOIN workspaces w ON w.id = m.workspace_id`

func scanMember(row interface{ Scan(...any) error }) (*Member, error) {
	m := &Member{}
	var owner string
	if err := row.Scan(&m.UserID, &m.Email, &m.FirstName, &m.Role, &owner, &m.IsLocked); err != nil {
		return nil, notFound(err)
	}
	m.IsOwner = owner == m.UserID
	return m, nil
}

// ListMembers lists the workspace's members (service accounts excluded), by email.
func (db *DB) ListMembers(ctx context.Context, workspaceID string) ([]Member, error) {
	return collect(scanMember)(db.query(ctx, memberSelect+` WHERE m.workspace_id = ? AND u.is_service_account = ? ORDER BY u.email`, workspaceID, false))
}

// MemberByEmail finds a member of the workspace by email.
func (db *DB) MemberByEmail(ctx context.Context, workspaceID, email string) (*Member, error) {
	return scanMember(db.queryRow(ctx, memberSelect+` WHERE m.workspace_id = ? AND u.email = ?`, workspaceID, strings.ToLower(strings.TrimSpace(email))))
}

// MemberByID finds a member of the workspace by user id.
func (db *DB) MemberByID(ctx context.Context, workspaceID, userID string) (*Member, error) {
	return scanMember(db.queryRow(ctx, memberSelect+` WHERE m.workspace_id = ? AND u.id = ?`, workspaceID, userID))
}

// UpdateMember changes a member's role and/or lock; the owner can be neither demoted nor locked.
func (db *DB) UpdateMember(ctx context.Context, workspaceID, userID string, role *string, locked *bool) error {
	return db.InTx(ctx, func(tx *Tx) error {
		var owner string
		if err := tx.queryRow(ctx, `SELECT w.owner_id FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
			WHERE m.workspace_id = ? AND m.user_id = ?`, workspaceID, userID).Scan(&owner); err != nil {
			return notFound(err)
		}
		if owner == userID && ((role != nil && *role != "admin") || (locked != nil && *locked)) {
			return ErrOwner
		}
		if role != nil {
			if _, err := tx.exec(ctx, `UPDATE workspace_members SET role = ? WHERE workspace_id = ? AND user_id = ?`, *role, workspaceID, userID); err != nil {
				return err
			}
		}
		if locked != nil {
			if _, err := tx.exec(ctx, `UPDATE workspace_members SET is_locked = ? WHERE workspace_id = ? AND user_id = ?`, *locked, workspaceID, userID); err != nil {
				return err
			}
		}
		return nil
	})
}

// RemoveMember takes a user out of a workspace, all or nothing: their group memberships (by the
// foreign key), their grants on the workspace's resources and their API keys there go; their
// sessions in it move to their own workspace; their history there passes to the workspace's
// owner (history is personal: it would otherwise be listed for nobody). The owner cannot be
// removed.
func (db *DB) RemoveMember(ctx context.Context, workspaceID, userID string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		var owner string
		if err := tx.queryRow(ctx, `SELECT w.owner_id FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
			WHERE m.workspace_id = ? AND m.user_id = ?`, workspaceID, userID).Scan(&owner); err != nil {
			return notFound(err)
		}
		if owner == userID {
			return ErrOwner
		}
		steps := []struct {
			q    string
			args []any
		}{
			{`DELETE FROM workspace_group_members WHERE workspace_id = ? AND user_id = ?`, []any{workspaceID, userID}},
			{`DELETE FROM resource_shares WHERE workspace_id = ? AND principal_type = 'user' AND principal_id = ?`, []any{workspaceID, userID}},
			{`DELETE FROM api_keys WHERE workspace_id = ? AND user_id = ?`, []any{workspaceID, userID}},
			{`UPDATE sessions SET workspace_id = (SELECT workspace_id FROM users WHERE id = ?) WHERE workspace_id = ? AND user_id = ?`, []any{userID, workspaceID, userID}},
			{`DELETE FROM sessions WHERE workspace_id = ? AND user_id = ?`, []any{workspaceID, userID}}, // the user's own workspace was this one
			{`UPDATE history SET user_id = ? WHERE workspace_id = ? AND user_id = ?`, []any{owner, workspaceID, userID}},
			{`DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?`, []any{workspaceID, userID}},
		}
		for _, s := range steps {
			if _, err := tx.exec(ctx, s.q, s.args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// SeatsUsed counts the workspace's members (service accounts excluded) and unexpired invites.
func (db *DB) SeatsUsed(ctx context.Context, workspaceID string, now time.Time) (members, pending int, err error) {
	err = db.queryRow(ctx, seatsQuery, workspaceID, false, workspaceID, now.Unix()).Scan(&members, &pending)
	return members, pending, err
}

const seatsQuery = `SELECT
	(SELECT COUNT(*) FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.is_service_account = ?),
	(SELECT COUNT(*) FROM workspace_invites WHERE workspace_id = ? AND expires_at_unix > ?)`

// SeatRule turns a workspace's tier and seat override into its number of seats (plan.Seats).
type SeatRule func(tier string, maxSeats *int64) int

// seatLimit reads the workspace's seats inside tx.
func (tx *Tx) seatLimit(ctx context.Context, workspaceID string, rule SeatRule) (int, error) {
	var tier string
	var seats sql.NullInt64
	if err := tx.queryRow(ctx, `SELECT tier, max_seats FROM workspaces WHERE id = ?`, workspaceID).Scan(&tier, &seats); err != nil {
		return 0, notFound(err)
	}
	return rule(tier, wsIntPtr(seats)), nil
}

// lockWorkspace serialises seat-counting transactions of one workspace (a no-op update takes the
// row lock in PostgreSQL; SQLite has one writer anyway).
func (tx *Tx) lockWorkspace(ctx context.Context, workspaceID string) error {
	return affected(tx.exec(ctx, `UPDATE workspaces SET id = id WHERE id = ?`, workspaceID))
}
