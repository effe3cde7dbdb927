package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
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

// AlreadyMemberError says an invited email already belongs to a member of the workspace.
type AlreadyMemberError struct{ Email string }

func (e *AlreadyMemberError) Error() string { return "store: " + e.Email + " is already a member" }

// PendingInviteError is CreateInvites' answer for an email with a pending invitation that the
// new one may not replace (NewInvite.KeepPending).
type PendingInviteError struct{ Email string }

func (e *PendingInviteError) Error() string { return "store: " + e.Email + " has a pending invitation" }

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

// Invite is a pending invitation to a workspace.
type Invite struct {
	ID          string
	WorkspaceID string
	Email       string
	Role        string
	GroupIDs    []string
	InvitedBy   string
	CreatedAt   int64
	ExpiresAt   int64
}

// NewInvite is an invitation to create, with its secret code (stored only as a hash).
type NewInvite struct {
	Invite
	Code string
	// KeepPending refuses (PendingInviteError) rather than replaces a pending invitation to the
	// email: a delegate must not rewrite the role and groups an admin's invitation gives.
	KeepPending bool
}

// CreateInvites stores invitations, all or nothing: it fails with *AlreadyMemberError when an
// email belongs to a member, and with ErrSeatsExhausted when members plus pending invites would
// exceed seats. Inviting an email that has a pending invite replaces it (new code, role, expiry).
func (db *DB) CreateInvites(ctx context.Context, workspaceID string, invites []NewInvite, rule SeatRule, now time.Time) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockWorkspace(ctx, workspaceID); err != nil {
			return err
		}
		seats, err := tx.seatLimit(ctx, workspaceID, rule)
		if err != nil {
			return err
		}
		fresh := 0
		for _, in := range invites {
			var n int
			if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.email = ?`,
				workspaceID, in.Email).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return &AlreadyMemberError{Email: in.Email}
			}
			if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_invites WHERE workspace_id = ? AND email = ? AND expires_at_unix > ?`,
				workspaceID, in.Email, now.Unix()).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				fresh++
			} else if in.KeepPending {
				return &PendingInviteError{Email: in.Email}
			}
		}
		var members, pending int
		if err := tx.queryRow(ctx, seatsQuery, workspaceID, false, workspaceID, now.Unix()).Scan(&members, &pending); err != nil {
			return err
		}
		if members+pending+fresh > seats {
			return ErrSeatsExhausted
		}
		for _, in := range invites {
			groups, _ := json.Marshal(wsNonNil(in.GroupIDs))
			if _, err := tx.exec(ctx, `INSERT INTO workspace_invites (id, workspace_id, email, role, code_hash, group_ids, invited_by_user_id, created_at_unix, expires_at_unix)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (workspace_id, email) DO UPDATE SET role = excluded.role, code_hash = excluded.code_hash, group_ids = excluded.group_ids,
				invited_by_user_id = excluded.invited_by_user_id, created_at_unix = excluded.created_at_unix, expires_at_unix = excluded.expires_at_unix`,
				NewID(), workspaceID, in.Email, in.Role, HashToken(in.Code), string(groups), in.InvitedBy, in.CreatedAt, in.ExpiresAt); err != nil {
				return err
			}
		}
		return nil
	})
}

func wsNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const inviteCols = `id, workspace_id, email, role, group_ids, invited_by_user_id, created_at_unix, expires_at_unix`

func scanInvite(row interface{ Scan(...any) error }) (*Invite, error) {
	in := &Invite{}
	var groups string
	if err := row.Scan(&in.ID, &in.WorkspaceID, &in.Email, &in.Role, &groups, &in.InvitedBy, &in.CreatedAt, &in.ExpiresAt); err != nil {
		return nil, notFound(err)
	}
	_ = json.Unmarshal([]byte(groups), &in.GroupIDs)
	return in, nil
}

// ListInvites lists the workspace's unexpired invites, newest first.
func (db *DB) ListInvites(ctx context.Context, workspaceID string, now time.Time) ([]Invite, error) {
	return collect(scanInvite)(db.query(ctx, `SELECT `+inviteCols+` FROM workspace_invites WHERE workspace_id = ? AND expires_at_unix > ? ORDER BY created_at_unix DESC, email`,
		workspaceID, now.Unix()))
}

// InviteByCode finds an unexpired invite by its code.
func (db *DB) InviteByCode(ctx context.Context, code string, now time.Time) (*Invite, error) {
	return scanInvite(db.queryRow(ctx, `SELECT `+inviteCols+` FROM workspace_invites WHERE code_hash = ? AND expires_at_unix > ?`, HashToken(code), now.Unix()))
}

// DeleteInvite withdraws the workspace's invite to email.
func (db *DB) DeleteInvite(ctx context.Context, workspaceID, email string) error {
	return affected(db.exec(ctx, `DELETE FROM workspace_invites WHERE workspace_id = ? AND email = ?`, workspaceID, strings.ToLower(strings.TrimSpace(email))))
}

// DeleteInviteByCode removes an invite by its code (declined), returning it.
func (db *DB) DeleteInviteByCode(ctx context.Context, code string, now time.Time) (*Invite, error) {
	return scanInvite(db.queryRow(ctx, `DELETE FROM workspace_invites WHERE code_hash = ? AND expires_at_unix > ? RETURNING `+inviteCols, HashToken(code), now.Unix()))
}

// AcceptInvite uses an unexpired invite for userID, all or nothing: the user becomes a member
// with the invite's role (or keeps their membership if they already are one), joins the invite's
// groups that still exist, the invite is used up, and — when sessionToken is set — that session
// moves to the workspace. check sees the invite before anything is written and may refuse it (the
// caller compares emails there). seats bounds the members after joining.
func (db *DB) AcceptInvite(ctx context.Context, code, userID, sessionToken string, rule SeatRule, now time.Time, check func(*Invite) error) (*Invite, error) {
	var in *Invite
	err := db.InTx(ctx, func(tx *Tx) error {
		var err error
		in, err = scanInvite(tx.queryRow(ctx, `SELECT `+inviteCols+` FROM workspace_invites WHERE code_hash = ? AND expires_at_unix > ?`, HashToken(code), now.Unix()))
		if err != nil {
			return err
		}
		if err := check(in); err != nil {
			return err
		}
		if err := tx.lockWorkspace(ctx, in.WorkspaceID); err != nil {
			return err
		}
		seats, err := tx.seatLimit(ctx, in.WorkspaceID, rule)
		if err != nil {
			return err
		}
		return tx.acceptInvite(ctx, in, userID, sessionToken, seats, now)
	})
	if err != nil {
		return nil, err
	}
	return in, nil
}

func (tx *Tx) acceptInvite(ctx context.Context, in *Invite, userID, sessionToken string, seats int, now time.Time) error {
	var already int
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ? AND user_id = ?`, in.WorkspaceID, userID).Scan(&already); err != nil {
		return err
	}
	if already == 0 {
		var members int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.is_service_account = ?`,
			in.WorkspaceID, false).Scan(&members); err != nil {
			return err
		}
		if members+1 > seats {
			return ErrSeatsExhausted
		}
		if _, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role, is_locked, joined_at_unix) VALUES (?, ?, ?, ?, ?)`,
			in.WorkspaceID, userID, in.Role, false, now.Unix()); err != nil {
			return err
		}
	}
	for _, g := range in.GroupIDs {
		if _, err := tx.exec(ctx, `INSERT INTO workspace_group_members (group_id, workspace_id, user_id)
			SELECT id, workspace_id, ? FROM workspace_groups WHERE id = ? AND workspace_id = ? ON CONFLICT DO NOTHING`, userID, g, in.WorkspaceID); err != nil {
			return err
		}
	}
	if _, err := tx.exec(ctx, `DELETE FROM workspace_invites WHERE id = ? AND workspace_id = ?`, in.ID, in.WorkspaceID); err != nil {
		return err
	}
	if sessionToken != "" {
		if _, err := tx.exec(ctx, `UPDATE sessions SET workspace_id = ? WHERE token_hash = ? AND user_id = ?`, in.WorkspaceID, HashToken(sessionToken), userID); err != nil {
			return err
		}
	}
	return nil
}

// AcceptInviteInTx is AcceptInvite inside an outer transaction (sign-up with an invite code):
// the invite must be for email.
func (tx *Tx) AcceptInviteInTx(ctx context.Context, code, userID, email string, rule SeatRule, now time.Time) (*Invite, error) {
	in, err := scanInvite(tx.queryRow(ctx, `SELECT `+inviteCols+` FROM workspace_invites WHERE code_hash = ? AND email = ? AND expires_at_unix > ?`,
		HashToken(code), strings.ToLower(strings.TrimSpace(email)), now.Unix()))
	if err != nil {
		return nil, err
	}
	if err := tx.lockWorkspace(ctx, in.WorkspaceID); err != nil {
		return nil, err
	}
	n, err := tx.seatLimit(ctx, in.WorkspaceID, rule)
	if err != nil {
		return nil, err
	}
	return in, tx.acceptInvite(ctx, in, userID, "", n, now)
}

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
