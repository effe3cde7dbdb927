package store

import (
	"context"
	"time"
)

// Expired counts what DeleteExpired removed, by table.
type Expired struct {
	RateLimits, ActionCodes, MFAChallenges, SSOFlows, SingleUseTokens, VoicePreviews int64
}

// Total is the number of rows removed.
func (e Expired) Total() int64 {
	return e.RateLimits + e.ActionCodes + e.MFAChallenges + e.SSOFlows + e.SingleUseTokens + e.VoicePreviews
}

// DeleteExpired removes rows that can no longer be used: rate-limit counters whose window began
// before rateLimitsBefore (the caller passes now less the longest limit window), and action
// codes, MFA challenges, SSO sign-in flows, single-use tokens and voice design previews expired by now.
func (db *DB) DeleteExpired(ctx context.Context, now, rateLimitsBefore time.Time) (Expired, error) {
	var out Expired
	for _, q := range []struct {
		sql string
		arg int64
		n   *int64
	}{
		{`DELETE FROM rate_limits WHERE window_start_unix <= ?`, rateLimitsBefore.Unix(), &out.RateLimits},
		{`DELETE FROM action_codes WHERE expires_at_unix <= ?`, now.Unix(), &out.ActionCodes},
		{`DELETE FROM mfa_challenges WHERE expires_at_unix <= ?`, now.Unix(), &out.MFAChallenges},
		{`DELETE FROM sso_flows WHERE expires_at_unix <= ?`, now.Unix(), &out.SSOFlows},
		{`DELETE FROM single_use_tokens WHERE expires_at_unix <= ?`, now.Unix(), &out.SingleUseTokens},
		{`DELETE FROM voice_previews WHERE expires_at_unix <= ?`, now.Unix(), &out.VoicePreviews},
	} {
		res, err := db.exec(ctx, q.sql, q.arg)
		if err != nil {
			return out, err
		}
		if *q.n, err = res.RowsAffected(); err != nil {
			return out, err
		}
	}
	return out, nil
}
