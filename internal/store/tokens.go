package store

import (
	"context"
	"time"
)

// SingleUseToken is a token that stands in for its maker's credentials for one request.
type SingleUseToken struct {
	Type                          string
	WorkspaceID, UserID, APIKeyID string
	ExpiresAt                     int64
}

// CreateSingleUseToken stores the hash of token.
func (db *DB) CreateSingleUseToken(ctx context.Context, token string, t SingleUseToken) error {
	_, err := db.exec(ctx, `INSERT INTO single_use_tokens (token_hash, token_type, workspace_id, user_id, api_key_id, expires_at_unix, used)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, HashToken(token), t.Type, t.WorkspaceID, t.UserID, t.APIKeyID, t.ExpiresAt, false)
	return err
}

// UseSingleUseToken spends a valid token of the given type and returns it; a token works once
// (one conditional UPDATE, so two requests racing with it cannot both have it). ErrNotFound when
// it is unknown, of another type, used or expired.
func (db *DB) UseSingleUseToken(ctx context.Context, token, tokenType string, now time.Time) (*SingleUseToken, error) {
	t := &SingleUseToken{Type: tokenType}
	err := db.write.QueryRowContext(ctx, db.rebind(`UPDATE single_use_tokens SET used = ? WHERE token_hash = ? AND token_type = ? AND used = ? AND expires_at_unix > ?
		RETURNING workspace_id, user_id, api_key_id, expires_at_unix`), true, HashToken(token), tokenType, false, now.Unix()).
		Scan(&t.WorkspaceID, &t.UserID, &t.APIKeyID, &t.ExpiresAt)
	if err != nil {
		return nil, notFound(err)
	}
	return t, nil
}
