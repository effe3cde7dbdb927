package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// ---- sessions: metadata, listing, revocation, inactivity --------------------------------------

// SessionMeta is what a session remembers about the browser that opened it, and how its user
// proved who they are.
type SessionMeta struct {
	PublicID       string // the id shown in the session list (never the token or its hash)
	UserAgent      string
	IP             string
	MFADone        bool   // the sign-in answered a TOTP or backup code
	SSOWorkspaceID string // an SSO sign-in: the workspace whose identity provider vouched
}

// CreateSessionWithMeta stores a session under the hash of token, with its browser's details and
// last-seen time set to now.
func (db *DB) CreateSessionWithMeta(ctx context.Context, token string, s Session, m SessionMeta, now time.Time) error {
	_, err := db.exec(ctx, `INSERT INTO sessions (token_hash, user_id, workspace_id, csrf_token, created_at_unix, expires_at_unix, public_id, user_agent, ip, last_seen_unix, mfa_done, sso_workspace_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		HashToken(token), s.UserID, s.WorkspaceID, s.CSRFToken, now.Unix(), s.ExpiresAt, m.PublicID, m.UserAgent, m.IP, now.Unix(), m.MFADone, m.SSOWorkspaceID)
	return err
}

// MarkSessionMFADone records that the session answered a TOTP code (it enrolled one).
func (db *DB) MarkSessionMFADone(ctx context.Context, token string) error {
	return affected(db.exec(ctx, `UPDATE sessions SET mfa_done = ? WHERE token_hash = ?`, true, HashToken(token)))
}

// SessionState is an unexpired session with what authentication needs to judge it: when it was
// last used, its workspace's MFA and inactivity settings, and whether its user has MFA.
type SessionState struct {
	Session
	PublicID          string
	CreatedAt         int64
	LastSeen          int64
	MFARequired       bool   // the workspace's mfa_required_for_users
	InactivityTimeout int64  // the workspace's session_inactivity_timeout in seconds; 0 = none
	TOTPEnabled       bool   // the user has enrolled TOTP
	MFADone           bool   // this session answered a TOTP or backup code
	SSOWorkspaceID    string // the workspace whose identity provider signed this session in, if any
	// SSORequiredHere: the session's workspace requires SSO for the user's email domain (it
	// verified the domain for an enabled provider and turned "Require SSO" on).
	SSORequiredHere bool
}

// SessionStateByToken finds an unexpired session with its workspace's security settings, in one query.
func (db *DB) SessionStateByToken(ctx context.Context, token string, now time.Time) (*SessionState, error) {
	s := &SessionState{}
	var mfa sql.NullBool
	var timeout sql.NullInt64
	err := db.queryRow(ctx, `SELECT s.user_id, s.workspace_id, s.csrf_token, s.expires_at_unix, s.public_id, s.created_at_unix, s.last_seen_unix,
			w.mfa_required_for_users, w.session_inactivity_timeout, u.totp_enabled, s.mfa_done, s.sso_workspace_id,
			EXISTS (SELECT 1 FROM sso_domains d JOIN sso_providers p ON p.id = d.provider_id AND p.workspace_id = d.workspace_id
				WHERE d.workspace_id = s.workspace_id AND d.verified = ? AND p.enabled = ? AND w.sso_required = ?
				AND substr(u.email, length(u.email) - length(d.domain)) = '@' || d.domain)
		FROM sessions s JOIN workspaces w ON w.id = s.workspace_id JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = ? AND s.expires_at_unix > ?`, true, true, true, HashToken(token), now.Unix()).Scan(
		&s.UserID, &s.WorkspaceID, &s.CSRFToken, &s.ExpiresAt, &s.PublicID, &s.CreatedAt, &s.LastSeen, &mfa, &timeout, &s.TOTPEnabled, &s.MFADone, &s.SSOWorkspaceID, &s.SSORequiredHere)
	if err != nil {
		return nil, notFound(err)
	}
	s.MFARequired = mfa.Valid && mfa.Bool
	if timeout.Valid && timeout.Int64 > 0 {
		s.InactivityTimeout = timeout.Int64
	}
	return s, nil
}

// TouchSession moves a session's last-seen time to now when it is at least every old (so an
// active browser writes at most once per interval).
func (db *DB) TouchSession(ctx context.Context, token string, now time.Time, every time.Duration) error {
	_, err := db.exec(ctx, `UPDATE sessions SET last_seen_unix = ? WHERE token_hash = ? AND last_seen_unix <= ?`,
		now.Unix(), HashToken(token), now.Add(-every).Unix())
	return err
}

// SessionInfo is a row of the user's session list.
type SessionInfo struct {
	PublicID    string
	WorkspaceID string
	UserAgent   string
	IP          string
	CreatedAt   int64
	LastSeen    int64
	ExpiresAt   int64
}

// ListSessions lists a user's unexpired sessions, most recently used first.
func (db *DB) ListSessions(ctx context.Context, userID string, now time.Time) ([]SessionInfo, error) {
	rows, err := db.query(ctx, `SELECT public_id, workspace_id, user_agent, ip, created_at_unix, last_seen_unix, expires_at_unix FROM sessions
		WHERE user_id = ? AND expires_at_unix > ? ORDER BY last_seen_unix DESC, created_at_unix DESC, public_id`, userID, now.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SessionInfo
	for rows.Next() {
		var s SessionInfo
		if err := rows.Scan(&s.PublicID, &s.WorkspaceID, &s.UserAgent, &s.IP, &s.CreatedAt, &s.LastSeen, &s.ExpiresAt); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DeleteSessionByPublicID ends one of the user's sessions; ErrNotFound when the user has none with that id.
func (db *DB) DeleteSessionByPublicID(ctx context.Context, userID, publicID string) error {
	if publicID == "" {
		return ErrNotFound
	}
	return affected(db.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND public_id = ?`, userID, publicID))
}

// DeleteUserSessions ends every session of the user except the one with keepToken ("" ends all),
// and returns how many ended.
func (db *DB) DeleteUserSessions(ctx context.Context, userID, keepToken string) (int64, error) {
	res, err := db.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?`, userID, HashToken(keepToken))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ---- MFA: TOTP and backup codes ----------------------------------------------------------------

// MFA is a user's second-factor state. Secrets are as stored (encrypted by the caller).
type MFA struct {
	TOTPSecret    string
	PendingSecret string
	Enabled       bool
	EnabledAt     *int64
	LastStep      int64
	BackupLeft    int
}

// UserMFA reads a user's MFA state.
func (db *DB) UserMFA(ctx context.Context, userID string) (*MFA, error) {
	m := &MFA{}
	var at sql.NullInt64
	err := db.queryRow(ctx, `SELECT totp_secret, totp_pending_secret, totp_enabled, totp_enabled_at_unix, totp_last_step,
		(SELECT COUNT(*) FROM mfa_backup_codes b WHERE b.user_id = users.id AND b.used_at_unix IS NULL)
		FROM users WHERE id = ?`, userID).Scan(&m.TOTPSecret, &m.PendingSecret, &m.Enabled, &at, &m.LastStep, &m.BackupLeft)
	if err != nil {
		return nil, notFound(err)
	}
	if at.Valid {
		m.EnabledAt = &at.Int64
	}
	return m, nil
}

// SetPendingTOTP stores a TOTP secret awaiting its first code (enrolment started).
func (db *DB) SetPendingTOTP(ctx context.Context, userID, secret string) error {
	return affected(db.exec(ctx, `UPDATE users SET totp_pending_secret = ? WHERE id = ?`, secret, userID))
}

// EnableTOTP turns the pending secret (which must still be pending) into the user's TOTP factor,
// records the step of the code that proved it, and replaces the backup codes, all at once.
func (db *DB) EnableTOTP(ctx context.Context, userID, pendingSecret string, step int64, backupHashes []string, now time.Time) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if err := affected(tx.exec(ctx, `UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = '', totp_enabled = ?, totp_enabled_at_unix = ?, totp_last_step = ?
			WHERE id = ? AND totp_pending_secret = ? AND totp_pending_secret <> ''`, true, now.Unix(), step, userID, pendingSecret)); err != nil {
			return err
		}
		return tx.replaceBackupCodes(ctx, userID, backupHashes, now)
	})
}

// DisableTOTP removes the user's TOTP factor and backup codes.
func (db *DB) DisableTOTP(ctx context.Context, userID string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if err := affected(tx.exec(ctx, `UPDATE users SET totp_secret = '', totp_pending_secret = '', totp_enabled = ?, totp_enabled_at_unix = NULL, totp_last_step = 0 WHERE id = ?`, false, userID)); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM mfa_backup_codes WHERE user_id = ?`, userID)
		return err
	})
}

// UseTOTPStep records that the code of a time step was used; ErrNotFound when that step (or a
// later one) was used already, so a code cannot be replayed.
func (db *DB) UseTOTPStep(ctx context.Context, userID string, step int64) error {
	return affected(db.exec(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_enabled = ? AND totp_last_step < ?`, step, userID, true, step))
}

// ReplaceBackupCodes swaps the user's backup codes for new ones (stored as hashes).
func (db *DB) ReplaceBackupCodes(ctx context.Context, userID string, hashes []string, now time.Time) error {
	return db.InTx(ctx, func(tx *Tx) error { return tx.replaceBackupCodes(ctx, userID, hashes, now) })
}

func (tx *Tx) replaceBackupCodes(ctx context.Context, userID string, hashes []string, now time.Time) error {
	if _, err := tx.exec(ctx, `DELETE FROM mfa_backup_codes WHERE user_id = ?`, userID); err != nil {
		return err
	}
	for _, h := range hashes {
		if _, err := tx.exec(ctx, `INSERT INTO mfa_backup_codes (user_id, code_hash, created_at_unix) VALUES (?, ?, ?)`, userID, h, now.Unix()); err != nil {
			return err
		}
	}
	return nil
}

// UseBackupCode spends one unused backup code; ErrNotFound when it is wrong or used.
func (db *DB) UseBackupCode(ctx context.Context, userID, hash string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE mfa_backup_codes SET used_at_unix = ? WHERE user_id = ? AND code_hash = ? AND used_at_unix IS NULL`, now.Unix(), userID, hash))
}

// MFAChallenge is a sign-in waiting for its second factor.
type MFAChallenge struct {
	UserID     string
	RedirectTo string
	UserAgent  string
	IP         string
	ExpiresAt  int64
}

// CreateMFAChallenge stores a challenge under the hash of token.
func (db *DB) CreateMFAChallenge(ctx context.Context, token string, c MFAChallenge) error {
	_, err := db.exec(ctx, `INSERT INTO mfa_challenges (token_hash, user_id, redirect_to, user_agent, ip, expires_at_unix) VALUES (?, ?, ?, ?, ?, ?)`,
		HashToken(token), c.UserID, c.RedirectTo, c.UserAgent, c.IP, c.ExpiresAt)
	return err
}

// MFAChallengeByToken finds an unexpired challenge.
func (db *DB) MFAChallengeByToken(ctx context.Context, token string, now time.Time) (*MFAChallenge, error) {
	c := &MFAChallenge{}
	err := db.queryRow(ctx, `SELECT user_id, redirect_to, user_agent, ip, expires_at_unix FROM mfa_challenges WHERE token_hash = ? AND expires_at_unix > ?`,
		HashToken(token), now.Unix()).Scan(&c.UserID, &c.RedirectTo, &c.UserAgent, &c.IP, &c.ExpiresAt)
	if err != nil {
		return nil, notFound(err)
	}
	return c, nil
}

// DeleteMFAChallenge uses up a challenge; ErrNotFound when it was already used (so two
// concurrent verifications cannot both open a session).
func (db *DB) DeleteMFAChallenge(ctx context.Context, token string) error {
	return affected(db.exec(ctx, `DELETE FROM mfa_challenges WHERE token_hash = ?`, HashToken(token)))
}

// ---- throttling ----------------------------------------------------------------------------------

// HitRateLimit counts one attempt in bucket's fixed window (a new window starts when the old
// one is window old) and returns the attempts in the current window, this one included. The
// counter lives in the database, so every server process shares it.
func (db *DB) HitRateLimit(ctx context.Context, bucket string, window time.Duration, now time.Time) (int64, error) {
	var hits int64
	expired := now.Add(-window).Unix()
	err := db.write.QueryRowContext(ctx, db.rebind(`INSERT INTO rate_limits (bucket, window_start_unix, hits) VALUES (?, ?, 1)
		ON CONFLICT (bucket) DO UPDATE SET
			hits = CASE WHEN rate_limits.window_start_unix <= ? THEN 1 ELSE rate_limits.hits + 1 END,
			window_start_unix = CASE WHEN rate_limits.window_start_unix <= ? THEN ? ELSE rate_limits.window_start_unix END
		RETURNING hits`), bucket, now.Unix(), expired, expired, now.Unix()).Scan(&hits)
	return hits, err
}

// RateLimitHits returns the attempts counted in bucket's current window (0 once it has ended).
func (db *DB) RateLimitHits(ctx context.Context, bucket string, window time.Duration, now time.Time) (int64, error) {
	var hits int64
	err := db.queryRow(ctx, `SELECT hits FROM rate_limits WHERE bucket = ? AND window_start_unix > ?`, bucket, now.Add(-window).Unix()).Scan(&hits)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return hits, err
}

// UnhitRateLimit takes one attempt back from bucket's current window (never below zero).
func (db *DB) UnhitRateLimit(ctx context.Context, bucket string, window time.Duration, now time.Time) error {
	_, err := db.exec(ctx, `UPDATE rate_limits SET hits = hits - 1 WHERE bucket = ? AND window_start_unix > ? AND hits > 0`, bucket, now.Add(-window).Unix())
	return err
}

// ClearRateLimit forgets a bucket's attempts (after a success).
func (db *DB) ClearRateLimit(ctx context.Context, bucket string) error {
	_, err := db.exec(ctx, `DELETE FROM rate_limits WHERE bucket = ?`, bucket)
	return err
}

// ---- email actions, email change, product updates, support access --------------------------------

// Action code kinds of the account-security flows.
const (
	CodeChangeEmail   = "change_email"    // payload: the new address
	CodeRecoverEmail  = "recover_email"   // payload: the address before the change
	CodeOptOutUpdates = "opt_out_updates" // no payload
	CodeSupportSignIn = "support_sign_in" // no payload
)

// CreateActionCodeWithPayload stores a one-time code (by hash) that carries a value.
func (db *DB) CreateActionCodeWithPayload(ctx context.Context, code, userID, kind, payload string, expires time.Time) error {
	_, err := db.exec(ctx, `INSERT INTO action_codes (code_hash, user_id, kind, expires_at_unix, used, payload) VALUES (?, ?, ?, ?, ?, ?)`,
		HashToken(code), userID, kind, expires.Unix(), false, payload)
	return err
}

// CreateActionCodeWithPayload is the same inside tx.
func (tx *Tx) CreateActionCodeWithPayload(ctx context.Context, code, userID, kind, payload string, expires time.Time) error {
	_, err := tx.exec(ctx, `INSERT INTO action_codes (code_hash, user_id, kind, expires_at_unix, used, payload) VALUES (?, ?, ?, ?, ?, ?)`,
		HashToken(code), userID, kind, expires.Unix(), false, payload)
	return err
}

// UseActionCodePayload marks a valid code used inside tx and returns its user and payload.
func (tx *Tx) UseActionCodePayload(ctx context.Context, code, kind string, now time.Time) (userID, payload string, err error) {
	err = tx.queryRow(ctx, `UPDATE action_codes SET used = ? WHERE code_hash = ? AND kind = ? AND used = ? AND expires_at_unix > ? RETURNING user_id, payload`,
		true, HashToken(code), kind, false, now.Unix()).Scan(&userID, &payload)
	return userID, payload, notFound(err)
}

// UseUserActionCode is UseActionCodePayload for a code that must also belong to userID (codes the
// user types while signed in).
func (tx *Tx) UseUserActionCode(ctx context.Context, userID, code, kind string, now time.Time) (payload string, err error) {
	err = tx.queryRow(ctx, `UPDATE action_codes SET used = ? WHERE code_hash = ? AND user_id = ? AND kind = ? AND used = ? AND expires_at_unix > ? RETURNING payload`,
		true, HashToken(code), userID, kind, false, now.Unix()).Scan(&payload)
	return payload, notFound(err)
}

// SetEmail changes a user's email inside tx and marks it verified (the change was proven by a
// code mailed to it).
func (tx *Tx) SetEmail(ctx context.Context, userID, email string) error {
	return affected(tx.exec(ctx, `UPDATE users SET email = ?, email_verified = ? WHERE id = ?`, email, true, userID))
}

// VoidUserCodes uses up every outstanding code of the user inside tx (after a password reset or
// an email change, codes mailed before must not work). Email-recovery and opt-out links stay:
// they are the owner's way back, and harmless.
func (tx *Tx) VoidUserCodes(ctx context.Context, userID string) error {
	_, err := tx.exec(ctx, `UPDATE action_codes SET used = ? WHERE user_id = ? AND used = ? AND kind NOT IN (?, ?)`,
		true, userID, false, CodeRecoverEmail, CodeOptOutUpdates)
	return err
}

// DeleteUserAPIKeys revokes every API key the user made, in every workspace, inside tx.
func (tx *Tx) DeleteUserAPIKeys(ctx context.Context, userID string) error {
	_, err := tx.exec(ctx, `DELETE FROM api_keys WHERE user_id = ?`, userID)
	return err
}

// EndOtherSessions ends every session of the user except the one with keepToken, inside tx.
func (tx *Tx) EndOtherSessions(ctx context.Context, userID, keepToken string) error {
	_, err := tx.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?`, userID, HashToken(keepToken))
	return err
}

// EndUserSessions ends every session of the user inside tx.
func (tx *Tx) EndUserSessions(ctx context.Context, userID string) error {
	_, err := tx.exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	return err
}

// SetProductUpdates records whether the user agrees to product-update mail.
func (db *DB) SetProductUpdates(ctx context.Context, userID string, agrees bool) error {
	return affected(db.exec(ctx, `UPDATE users SET agrees_to_product_updates = ? WHERE id = ?`, agrees, userID))
}

// SetProductUpdates is the same inside tx.
func (tx *Tx) SetProductUpdates(ctx context.Context, userID string, agrees bool) error {
	return affected(tx.exec(ctx, `UPDATE users SET agrees_to_product_updates = ? WHERE id = ?`, agrees, userID))
}

// AgreesToProductUpdates reads the user's product-update consent.
func (db *DB) AgreesToProductUpdates(ctx context.Context, userID string) (bool, error) {
	var v bool
	err := db.queryRow(ctx, `SELECT agrees_to_product_updates FROM users WHERE id = ?`, userID).Scan(&v)
	return v, notFound(err)
}

// SupportGrant is a user's permission for support staff to sign in to the account until ExpiresAt.
type SupportGrant struct {
	ID        string
	UserID    string
	GrantedAt int64
	ExpiresAt int64
}

// GrantSupportAccess stores a grant inside tx.
func (tx *Tx) GrantSupportAccess(ctx context.Context, g SupportGrant) error {
	_, err := tx.exec(ctx, `INSERT INTO support_access_grants (id, user_id, granted_at_unix, expires_at_unix) VALUES (?, ?, ?, ?)`, g.ID, g.UserID, g.GrantedAt, g.ExpiresAt)
	return err
}

// ActiveSupportGrant returns the user's latest unexpired grant, or ErrNotFound.
func (db *DB) ActiveSupportGrant(ctx context.Context, userID string, now time.Time) (*SupportGrant, error) {
	g := &SupportGrant{}
	err := db.queryRow(ctx, `SELECT id, user_id, granted_at_unix, expires_at_unix FROM support_access_grants WHERE user_id = ? AND expires_at_unix > ?
		ORDER BY expires_at_unix DESC LIMIT 1`, userID, now.Unix()).Scan(&g.ID, &g.UserID, &g.GrantedAt, &g.ExpiresAt)
	if err != nil {
		return nil, notFound(err)
	}
	return g, nil
}

// ---- account deletion ------------------------------------------------------------------------------

// DeletedAccount reports what DeleteAccount removed.
type DeletedAccount struct {
	Workspaces []string // workspaces deleted because the user was their only member
	Left       []string // workspaces the user left (others remain members)
	BlobKeys   []string // blobs of the deleted workspaces, for the caller to remove after commit
}

// DeleteAccount removes a user in one transaction: their sessions, keys, codes, MFA rows and
// memberships; every workspace where they were the only member, with its history, voices and
// audit log; in workspaces that others share, their history is kept but anonymised and, when they
// owned it, ownership passes to another admin (or the longest-standing member, made admin).
func (db *DB) DeleteAccount(ctx context.Context, userID string) (*DeletedAccount, error) {
	out := &DeletedAccount{}
	err := db.InTx(ctx, func(tx *Tx) error {
		var email string
		if err := tx.queryRow(ctx, `SELECT email FROM users WHERE id = ?`, userID).Scan(&email); err != nil {
			return notFound(err)
		}
		// Service accounts do not count as other members: a workspace whose only person leaves
		// goes, its service accounts with it.
		rows, err := tx.tx.QueryContext(ctx, db.rebind(`SELECT m.workspace_id, (SELECT COUNT(*) FROM workspace_members o JOIN users ou ON ou.id = o.user_id
				WHERE o.workspace_id = m.workspace_id AND o.user_id <> m.user_id AND ou.is_service_account = ?)
			FROM workspace_members m WHERE m.user_id = ? ORDER BY m.workspace_id`), false, userID)
		if err != nil {
			return err
		}
		type membership struct {
			ws     string
			others int64
		}
		var ms []membership
		for rows.Next() {
			var m membership
			if err := rows.Scan(&m.ws, &m.others); err != nil {
				rows.Close()
				return err
			}
			ms = append(ms, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// The user's default workspace, even if (oddly) no longer a member of it.
		var own string
		if err := tx.queryRow(ctx, `SELECT workspace_id FROM users WHERE id = ?`, userID).Scan(&own); err != nil {
			return err
		}
		found := false
		for _, m := range ms {
			found = found || m.ws == own
		}
		if !found {
			var others int64
			if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspace_members o JOIN users ou ON ou.id = o.user_id WHERE o.workspace_id = ? AND ou.is_service_account = ?`, own, false).Scan(&others); err != nil {
				return err
			}
			ms = append(ms, membership{own, others})
		}
		for _, m := range ms {
			if m.others > 0 {
				out.Left = append(out.Left, m.ws)
				if err := tx.leaveSharedWorkspace(ctx, m.ws, userID); err != nil {
					return err
				}
				continue
			}
			out.Workspaces = append(out.Workspaces, m.ws)
			keys, err := tx.column(ctx, `SELECT blob_key FROM history WHERE workspace_id = ? AND blob_key <> ''
				UNION SELECT preview_key FROM voices WHERE workspace_id = ? AND preview_key <> ''
				UNION SELECT blob_key FROM audio_isolations WHERE workspace_id = ?
				UNION SELECT blob_key FROM sound_generations WHERE workspace_id = ?
				UNION SELECT blob_key FROM music_songs WHERE workspace_id = ?
				UNION SELECT blob_key FROM voice_samples WHERE workspace_id = ?
				UNION SELECT audio_key FROM transcripts WHERE workspace_id = ? AND audio_key <> ''`, m.ws, m.ws, m.ws, m.ws, m.ws, m.ws, m.ws)
			if err != nil {
				return err
			}
			out.BlobKeys = append(out.BlobKeys, keys...)
			// A professional voice's review documents (identity papers, recordings) are listed in
			// the voice package's JSON document in voices.pvc, as manual_files.
			docs, err := tx.column(ctx, `SELECT pvc FROM voices WHERE workspace_id = ? AND pvc <> ''`, m.ws)
			if err != nil {
				return err
			}
			for _, d := range docs {
				var pvc struct {
					ManualFiles []string `json:"manual_files"`
				}
				if err := json.Unmarshal([]byte(d), &pvc); err != nil {
					return fmt.Errorf("voices.pvc of workspace %s: %w", m.ws, err)
				}
				out.BlobKeys = append(out.BlobKeys, pvc.ManualFiles...)
			}
		}
		// The mail held for the user by the development mailbox goes too.
		if _, err := tx.exec(ctx, `DELETE FROM mail_outbox WHERE recipient = ?`, email); err != nil {
			return err
		}
		// Audit entries elsewhere keep the (opaque) user id but lose the email.
		if _, err := tx.exec(ctx, `UPDATE audit_log SET actor_email = '' WHERE actor_user_id = ?`, userID); err != nil {
			return err
		}
		// The user row first (cascading to sessions, keys, codes, MFA, memberships, grants),
		// then the workspaces that were theirs alone (cascading to history, keys, settings, …).
		if err := affected(tx.exec(ctx, `DELETE FROM users WHERE id = ?`, userID)); err != nil {
			return err
		}
		for _, ws := range out.Workspaces {
			if err := tx.rehomeUsers(ctx, ws, out.Workspaces); err != nil {
				return err
			}
			for _, q := range []string{
				`DELETE FROM voices WHERE workspace_id = ?`,
				`DELETE FROM history WHERE workspace_id = ?`,
				`DELETE FROM audit_log WHERE workspace_id = ?`,
			} {
				if _, err := tx.exec(ctx, q, ws); err != nil {
					return err
				}
			}
			if _, err := tx.exec(ctx, `DELETE FROM users WHERE workspace_id = ? AND is_service_account = ?`, ws, true); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `DELETE FROM workspaces WHERE id = ?`, ws); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rehomeUsers gives every other person whose default workspace is ws (about to be deleted) a new
// default before it goes: a workspace they are a member of (not one being deleted), else a new
// workspace of their own on the free plan. Such users exist when they were removed from ws (or
// were provisioned into it by SSO and later removed): they are no longer members, but the
// users row still points there.
func (tx *Tx) rehomeUsers(ctx context.Context, ws string, deleting []string) error {
	people, err := tx.column(ctx, `SELECT id FROM users WHERE workspace_id = ? AND is_service_account = ?`, ws, false)
	if err != nil {
		return err
	}
	for _, id := range people {
		member, err := tx.column(ctx, `SELECT workspace_id FROM workspace_members WHERE user_id = ? ORDER BY joined_at_unix, workspace_id`, id)
		if err != nil {
			return err
		}
		next := ""
		for _, m := range member {
			if !slices.Contains(deleting, m) {
				next = m
				break
			}
		}
		if next == "" {
			var email string
			if err := tx.queryRow(ctx, `SELECT email FROM users WHERE id = ?`, id).Scan(&email); err != nil {
				return err
			}
			now := time.Now()
			next = NewID()
			if _, err := tx.exec(ctx, `INSERT INTO workspaces (id, name, owner_id, tier, character_count, period_start_unix, next_reset_unix, created_at_unix) VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
				next, email+"'s workspace", id, "free" /* plan.Default */, now.Unix(), now.AddDate(0, 1, 0).Unix(), now.Unix()); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at_unix) VALUES (?, ?, 'admin', ?)`, next, id, now.Unix()); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `UPDATE users SET workspace_id = ? WHERE id = ?`, next, id); err != nil {
			return err
		}
		// Sessions in ws cascade away with it; API keys of ws likewise.
	}
	return nil
}

// leaveSharedWorkspace hands ownership on when the leaving user owned the workspace, and their
// history there to the (new) owner: kept without their name, and still listed for someone.
func (tx *Tx) leaveSharedWorkspace(ctx context.Context, workspaceID, userID string) error {
	var owner string
	if err := tx.queryRow(ctx, `SELECT owner_id FROM workspaces WHERE id = ?`, workspaceID).Scan(&owner); err != nil {
		return notFound(err)
	}
	if owner == userID {
		// Only a person may own a workspace: a service account (API keys only) never inherits it.
		var next string
		err := tx.queryRow(ctx, `SELECT m.user_id FROM workspace_members m JOIN users u ON u.id = m.user_id
			WHERE m.workspace_id = ? AND m.user_id <> ? AND u.is_service_account = ?
			ORDER BY CASE WHEN m.role = 'admin' THEN 0 ELSE 1 END, m.user_id LIMIT 1`, workspaceID, userID, false).Scan(&next)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.exec(ctx, `UPDATE workspace_members SET role = 'admin' WHERE workspace_id = ? AND user_id = ?`, workspaceID, next); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE workspaces SET owner_id = ? WHERE id = ?`, next, workspaceID); err != nil {
			return err
		}
		owner = next
	}
	_, err := tx.exec(ctx, `UPDATE history SET user_id = ? WHERE workspace_id = ? AND user_id = ?`, owner, workspaceID, userID)
	return err
}

// column runs a one-column query inside tx.
func (tx *Tx) column(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := tx.tx.QueryContext(ctx, tx.db.rebind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
