package store

import (
	"context"
	"database/sql"
	"timbre/internal/errs"
	"time"
)

// Workspace membership, invites, groups and per-resource sharing. Every query names the
// workspace in SQL: a caller of workspace B can never read or change rows of workspace A.

// Errors of the workspace methods.
var (
	// ErrSeatsExhausted: members plus pending invites would exceed the workspace's seats.
	ErrSeatsExhausted = errs.New(errs.Conflict, "seats_exhausted", "The workspace has no seat left.")
	// ErrOwner: the workspace owner cannot be removed, locked or demoted.
	ErrOwner = errs.New(errs.Conflict, "workspace_owner", "The workspace owner cannot be changed.")
)

// WorkspaceSettings are the workspace's security and privacy settings (SSO auto-provisioning is
// changed through SetSSOAutoProvisioning).
type WorkspaceSettings struct {
	SessionInactivityTimeout    *int64 // seconds; nil = no inactivity logout
	TrainingOptOut              bool
	TrainingOptOutAtUnix        *int64
	MFARequiredForUsers         bool
	UserAutoProvisioningEnabled bool
	UserAutoProvisioningAtUnix  *int64
	UserAutoProvisioningByEmail string
	MaxSeats                    *int64 // operator override; honoured for enterprise only
}

func wsIntPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

// WorkspaceSettings reads a workspace's settings.
func (db *DB) WorkspaceSettings(ctx context.Context, workspaceID string) (*WorkspaceSettings, error) {
	s := &WorkspaceSettings{}
	var timeout, optAt, provAt, seats sql.NullInt64
	var by sql.NullString
	err := db.queryRow(ctx, `SELECT session_inactivity_timeout, training_opt_out, training_opt_out_at_unix, mfa_required_for_users,
		user_auto_provisioning_enabled, user_auto_provisioning_enabled_at_unix, user_auto_provisioning_enabled_by_user_email, max_seats
		FROM workspaces WHERE id = ?`, workspaceID).Scan(&timeout, &s.TrainingOptOut, &optAt, &s.MFARequiredForUsers,
		&s.UserAutoProvisioningEnabled, &provAt, &by, &seats)
	if err != nil {
		return nil, notFound(err)
	}
	s.SessionInactivityTimeout, s.TrainingOptOutAtUnix, s.UserAutoProvisioningAtUnix, s.MaxSeats = wsIntPtr(timeout), wsIntPtr(optAt), wsIntPtr(provAt), wsIntPtr(seats)
	s.UserAutoProvisioningByEmail = by.String
	return s, nil
}

// SetTrainingOptOut records the workspace's training opt-out and when it was set.
func (db *DB) SetTrainingOptOut(ctx context.Context, workspaceID string, optOut bool, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET training_opt_out = ?, training_opt_out_at_unix = ? WHERE id = ?`, optOut, now.Unix(), workspaceID))
}

// SetSessionInactivityTimeout sets (or, with nil, clears) the inactivity logout in seconds.
func (db *DB) SetSessionInactivityTimeout(ctx context.Context, workspaceID string, seconds *int64) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET session_inactivity_timeout = ? WHERE id = ?`, wsNullableInt(seconds), workspaceID))
}

// SetMFARequired sets mfa_required_for_users.
func (db *DB) SetMFARequired(ctx context.Context, workspaceID string, required bool) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET mfa_required_for_users = ? WHERE id = ?`, required, workspaceID))
}

// SetMaxSeats sets (or, with nil, clears) the operator's seat override.
func (db *DB) SetMaxSeats(ctx context.Context, workspaceID string, seats *int64) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET max_seats = ? WHERE id = ?`, wsNullableInt(seats), workspaceID))
}

func wsNullableInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Membership is one workspace a user belongs to.
type Membership struct {
	WorkspaceID string
	Name        string
	Tier        string
	Role        string
	IsOwner     bool
	IsLocked    bool
}

// UserWorkspaces lists the workspaces the user belongs to, by name.
func (db *DB) UserWorkspaces(ctx context.Context, userID string) ([]Membership, error) {
	rows, err := db.query(ctx, `SELECT w.id, w.name, w.tier, m.role, w.owner_id, m.is_locked FROM workspace_members m
		JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? ORDER BY w.name, w.id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Membership
	for rows.Next() {
		var m Membership
		var owner string
		if err := rows.Scan(&m.WorkspaceID, &m.Name, &m.Tier, &m.Role, &owner, &m.IsLocked); err != nil {
			return nil, err
		}
		m.IsOwner = owner == userID
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetSessionWorkspace moves the session (by its token) to another workspace of its user; it
// finds nothing unless the user is an unlocked member of that workspace.
func (db *DB) SetSessionWorkspace(ctx context.Context, token, userID, workspaceID string) error {
	return affected(db.exec(ctx, `UPDATE sessions SET workspace_id = ? WHERE token_hash = ? AND user_id = ?
		AND EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = ? AND user_id = ? AND is_locked = ?)`,
		workspaceID, HashToken(token), userID, workspaceID, userID, false))
}

func wsNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
