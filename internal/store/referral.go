package store

import (
	"context"
	"database/sql"
	"time"
)

// CodeSensitiveAction is the kind of a mailed sensitive-action verification code (no payload).
const CodeSensitiveAction = "sensitive_action"

// SetReferredBy records the referral code a user signed up with.
func (db *DB) SetReferredBy(ctx context.Context, userID, code string) error {
	return affected(db.exec(ctx, `UPDATE users SET referred_by_code = ? WHERE id = ?`, code, userID))
}

// ReferredBy returns the referral code a user signed up with ("" when none).
func (db *DB) ReferredBy(ctx context.Context, userID string) (string, error) {
	var code string
	err := db.queryRow(ctx, `SELECT referred_by_code FROM users WHERE id = ?`, userID).Scan(&code)
	return code, notFound(err)
}

// ReferralLinkCode returns the user's own referral code, storing newCode first when the user has
// none yet (so the code is stable once made). A collision with another user's code comes back as
// a unique violation; the caller retries with another.
func (db *DB) ReferralLinkCode(ctx context.Context, userID, newCode string) (string, error) {
	if _, err := db.exec(ctx, `UPDATE users SET referral_link_code = ? WHERE id = ? AND referral_link_code IS NULL`, newCode, userID); err != nil {
		return "", err
	}
	var code sql.NullString
	if err := db.write.QueryRowContext(ctx, db.rebind(`SELECT referral_link_code FROM users WHERE id = ?`), userID).Scan(&code); err != nil {
		return "", notFound(err)
	}
	if !code.Valid {
		return "", ErrNotFound
	}
	return code.String, nil
}

// MarkSessionSensitiveVerified records that the session's user proved access to their email
// (a sensitive-action code) at now.
func (db *DB) MarkSessionSensitiveVerified(ctx context.Context, token string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE sessions SET sensitive_verified_at_unix = ? WHERE token_hash = ?`, now.Unix(), HashToken(token)))
}

// SessionSensitiveVerifiedAt is when the session last passed a sensitive-action check (0 = never).
func (db *DB) SessionSensitiveVerifiedAt(ctx context.Context, token string) (int64, error) {
	var at int64
	err := db.queryRow(ctx, `SELECT sensitive_verified_at_unix FROM sessions WHERE token_hash = ?`, HashToken(token)).Scan(&at)
	return at, notFound(err)
}
