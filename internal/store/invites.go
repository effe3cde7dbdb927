package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// AlreadyMemberError says an invited email already belongs to a member of the workspace.
type AlreadyMemberError struct{ Email string }

func (e *AlreadyMemberError) Error() string { return "store: " + e.Email + " is already a member" }

// PendingInviteError is CreateInvites' answer for an email with a pending invitation that the
// new one may not replace (NewInvite.KeepPending).
type PendingInviteError struct{ Email string }

func (e *PendingInviteError) Error() string { return "store: " + e.Email + " has a pending invitation" }

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
