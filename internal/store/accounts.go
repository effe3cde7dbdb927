package store

import (
	"context"
	"strings"
	"time"
)

// User is an account.
type User struct {
	ID            string
	Email         string
	PasswordHash  string
	EmailVerified bool
	FirstName     string
	WorkspaceID   string // the workspace the user works in by default
	CreatedAt     int64
	// IsServiceAccount marks a workspace's service account: API keys only, never a password
	// sign-in, a reset mail or a seat.
	IsServiceAccount bool
}

// Workspace owns voices, history, keys and the character allowance.
type Workspace struct {
	ID              string
	Name            string
	OwnerID         string
	Tier            string
	CharacterCount  int64
	PeriodStartUnix int64
	NextResetUnix   int64
	CreatedAt       int64
	BillingPeriod   string // monthly_period or annual_period
	// VoiceAddEditCount counts voice adds and edits in the current period (reset with CharacterCount).
	VoiceAddEditCount int
	// ExtraProVoiceSlots are professional voice slots on top of the plan's.
	ExtraProVoiceSlots int
}

// DefaultWorkspaceSuffix follows the owner's email (or, after the survey, first name) in the
// name of the workspace a sign-up creates.
const DefaultWorkspaceSuffix = "'s workspace"

// CreateUserWithWorkspace creates a user, their own workspace on tier, and the admin membership,
// all or nothing. The email must be unique (case-insensitively).
func (db *DB) CreateUserWithWorkspace(ctx context.Context, email, passwordHash string, verified bool, tier string, now time.Time) (*User, *Workspace, error) {
	u := &User{ID: NewID(), Email: strings.ToLower(strings.TrimSpace(email)), PasswordHash: passwordHash, EmailVerified: verified, CreatedAt: now.Unix()}
	w := &Workspace{ID: NewID(), OwnerID: u.ID, Tier: tier, PeriodStartUnix: now.Unix(), NextResetUnix: now.AddDate(0, 1, 0).Unix(), CreatedAt: now.Unix(), BillingPeriod: "monthly_period"}
	w.Name = u.Email + DefaultWorkspaceSuffix
	u.WorkspaceID = w.ID
	err := db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO workspaces (id, name, owner_id, tier, character_count, period_start_unix, next_reset_unix, created_at_unix) VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
			w.ID, w.Name, w.OwnerID, w.Tier, w.PeriodStartUnix, w.NextResetUnix, w.CreatedAt); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO users (id, email, password_hash, email_verified, first_name, workspace_id, created_at_unix) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Email, u.PasswordHash, u.EmailVerified, u.FirstName, u.WorkspaceID, u.CreatedAt); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'admin')`, w.ID, u.ID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return u, w, nil
}

const userCols = `id, email, password_hash, email_verified, first_name, workspace_id, created_at_unix, is_service_account`

func scanUser(row interface{ Scan(...any) error }) (*User, error) {
	u := &User{}
	if err := row.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.EmailVerified, &u.FirstName, &u.WorkspaceID, &u.CreatedAt, &u.IsServiceAccount); err != nil {
		return nil, notFound(err)
	}
	return u, nil
}

// UserByEmail finds a user by email, case-insensitively.
func (db *DB) UserByEmail(ctx context.Context, email string) (*User, error) {
	return scanUser(db.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE email = ?`, strings.ToLower(strings.TrimSpace(email))))
}

// UserByID finds a user.
func (db *DB) UserByID(ctx context.Context, id string) (*User, error) {
	return scanUser(db.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
}

// SetEmailVerified marks the user's email as confirmed.
func (db *DB) SetEmailVerified(ctx context.Context, userID string) error {
	return db.InTx(ctx, func(tx *Tx) error { return tx.SetEmailVerified(ctx, userID) })
}

const workspaceCols = `id, name, owner_id, tier, character_count, period_start_unix, next_reset_unix, created_at_unix, billing_period, voice_add_edit_count, extra_professional_voice_slots`

// Workspace loads a workspace, rolling its character period forward when it has ended.
func (db *DB) Workspace(ctx context.Context, id string, now time.Time) (*Workspace, error) {
	read := func() (*Workspace, error) {
		w := &Workspace{}
		err := db.queryRow(ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = ?`, id).Scan(
			&w.ID, &w.Name, &w.OwnerID, &w.Tier, &w.CharacterCount, &w.PeriodStartUnix, &w.NextResetUnix, &w.CreatedAt, &w.BillingPeriod, &w.VoiceAddEditCount, &w.ExtraProVoiceSlots)
		return w, notFound(err)
	}
	w, err := read()
	if err != nil || now.Unix() < w.NextResetUnix {
		return w, err
	}
	// The period ended: roll it over (a write, so only when needed) and read again.
	if err := db.InTx(ctx, func(tx *Tx) error { return tx.rollPeriod(ctx, id, now) }); err != nil {
		return nil, err
	}
	return read()
}

// rollPeriod starts a new monthly character period (counts back to zero) once the old one ended.
func (tx *Tx) rollPeriod(ctx context.Context, workspaceID string, now time.Time) error {
	var next int64
	err := tx.queryRow(ctx, `SELECT next_reset_unix FROM workspaces WHERE id = ?`, workspaceID).Scan(&next)
	if err != nil {
		return notFound(err)
	}
	if now.Unix() < next {
		return nil
	}
	start := time.Unix(next, 0)
	for !start.AddDate(0, 1, 0).After(now) {
		start = start.AddDate(0, 1, 0)
	}
	_, err = tx.exec(ctx, `UPDATE workspaces SET character_count = 0, voice_add_edit_count = 0, period_start_unix = ?, next_reset_unix = ? WHERE id = ? AND next_reset_unix = ?`,
		start.Unix(), start.AddDate(0, 1, 0).Unix(), workspaceID, next)
	return err
}

// SetExtraProVoiceSlots sets the professional voice slots a workspace has on top of its plan's.
func (db *DB) SetExtraProVoiceSlots(ctx context.Context, workspaceID string, n int) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET extra_professional_voice_slots = ? WHERE id = ?`, n, workspaceID))
}

// SetTier changes a workspace's plan.
func (db *DB) SetTier(ctx context.Context, workspaceID, tier string) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET tier = ? WHERE id = ?`, tier, workspaceID))
}

// Role returns the user's role in a workspace, or ErrNotFound if not an (unlocked) member.
func (db *DB) Role(ctx context.Context, workspaceID, userID string) (string, error) {
	var role string
	// A locked member keeps the membership but may not act in the workspace.
	err := db.queryRow(ctx, `SELECT role FROM workspace_members WHERE workspace_id = ? AND user_id = ? AND is_locked = ?`, workspaceID, userID, false).Scan(&role)
	return role, notFound(err)
}

// Session is a signed-in browser.
type Session struct {
	UserID      string
	WorkspaceID string
	CSRFToken   string
	ExpiresAt   int64
}

// CreateSession stores a session under the hash of token.
func (db *DB) CreateSession(ctx context.Context, token string, s Session, now time.Time) error {
	_, err := db.exec(ctx, `INSERT INTO sessions (token_hash, user_id, workspace_id, csrf_token, created_at_unix, expires_at_unix) VALUES (?, ?, ?, ?, ?, ?)`,
		HashToken(token), s.UserID, s.WorkspaceID, s.CSRFToken, now.Unix(), s.ExpiresAt)
	return err
}

// SessionByToken finds an unexpired session.
func (db *DB) SessionByToken(ctx context.Context, token string, now time.Time) (*Session, error) {
	s := &Session{}
	err := db.queryRow(ctx, `SELECT user_id, workspace_id, csrf_token, expires_at_unix FROM sessions WHERE token_hash = ? AND expires_at_unix > ?`,
		HashToken(token), now.Unix()).Scan(&s.UserID, &s.WorkspaceID, &s.CSRFToken, &s.ExpiresAt)
	if err != nil {
		return nil, notFound(err)
	}
	return s, nil
}

// DeleteSession ends a session.
func (db *DB) DeleteSession(ctx context.Context, token string) error {
	_, err := db.exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, HashToken(token))
	return err
}

// Action code kinds.
const (
	CodeVerifyEmail   = "verify_email"
	CodeResetPassword = "reset_password"
)

// CreateActionCode stores a one-time code (by hash) for an email action.
func (db *DB) CreateActionCode(ctx context.Context, code, userID, kind string, expires time.Time) error {
	_, err := db.exec(ctx, `INSERT INTO action_codes (code_hash, user_id, kind, expires_at_unix, used) VALUES (?, ?, ?, ?, ?)`,
		HashToken(code), userID, kind, expires.Unix(), false)
	return err
}

// PeekActionCode returns the user a valid, unused code belongs to, without using it.
func (db *DB) PeekActionCode(ctx context.Context, code, kind string, now time.Time) (string, error) {
	var userID string
	err := db.queryRow(ctx, `SELECT user_id FROM action_codes WHERE code_hash = ? AND kind = ? AND used = ? AND expires_at_unix > ?`,
		HashToken(code), kind, false, now.Unix()).Scan(&userID)
	return userID, notFound(err)
}

// UseActionCode marks a valid code used inside tx and returns its user; a code works once.
func (tx *Tx) UseActionCode(ctx context.Context, code, kind string, now time.Time) (string, error) {
	var userID string
	err := tx.queryRow(ctx, `UPDATE action_codes SET used = ? WHERE code_hash = ? AND kind = ? AND used = ? AND expires_at_unix > ? RETURNING user_id`,
		true, HashToken(code), kind, false, now.Unix()).Scan(&userID)
	return userID, notFound(err)
}

// SetEmailVerified marks the user's email as confirmed inside tx.
func (tx *Tx) SetEmailVerified(ctx context.Context, userID string) error {
	return affected(tx.exec(ctx, `UPDATE users SET email_verified = ? WHERE id = ?`, true, userID))
}

// SetPassword replaces the password hash and ends every session of the user, inside tx.
func (tx *Tx) SetPassword(ctx context.Context, userID, hash string) error {
	if err := affected(tx.exec(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID)); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	return err
}

// CharacterCount reads the workspace's count inside tx.
func (tx *Tx) CharacterCount(ctx context.Context, workspaceID string) (int64, error) {
	var n int64
	err := tx.queryRow(ctx, `SELECT character_count FROM workspaces WHERE id = ?`, workspaceID).Scan(&n)
	return n, notFound(err)
}
