package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// DeleteExpired purges action codes expired by now (the expiry instant included), used or not,
// and keeps live ones redeemable. Codes are keyed by hash across all users, so a purged code's
// digits can be issued again. Rate-limit counters go by their own cut-off.
func TestDeleteExpiredActionCodes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "codes@example.com")
		v, _ := newUser(t, db, "other@example.com")
		must(t, "expired", db.CreateActionCode(ctx, "111111", u.ID, store.CodeVerifyEmail, t0.Add(-time.Second)))
		must(t, "expires now", db.CreateActionCodeWithPayload(ctx, "222222", v.ID, store.CodeChangeEmail, "x@example.com", t0))
		must(t, "live", db.CreateActionCode(ctx, "333333", u.ID, store.CodeResetPassword, t0.Add(10*time.Minute)))
		must(t, "live, used", db.CreateActionCode(ctx, "444444", v.ID, store.CodeVerifyEmail, t0.Add(10*time.Minute)))
		must(t, "use", db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.UseActionCode(ctx, "444444", store.CodeVerifyEmail, t0.Add(-time.Minute))
			return err
		}))
		// The digits of an unpurged code cannot be issued again (the hash is the key).
		if err := db.CreateActionCode(ctx, "111111", v.ID, store.CodeVerifyEmail, t0.Add(time.Hour)); !store.IsUniqueViolation(err) {
			t.Fatalf("reissuing an expired, unpurged code: %v", err)
		}
		_, err := db.HitRateLimit(ctx, "login:old", time.Minute, t0.Add(-2*time.Hour))
		must(t, "old counter", err)
		_, err = db.HitRateLimit(ctx, "login:new", time.Minute, t0)
		must(t, "new counter", err)

		n, err := db.DeleteExpired(ctx, t0, t0.Add(-time.Hour))
		must(t, "DeleteExpired", err)
		if n.ActionCodes != 2 || n.RateLimits != 1 || n.Total() != 3 {
			t.Fatalf("deleted %+v, want 2 action codes and 1 rate limit", n)
		}
		if got, err := db.PeekActionCode(ctx, "333333", store.CodeResetPassword, t0); err != nil || got != u.ID {
			t.Fatalf("live code after the purge: %q, %v", got, err)
		}
		if _, err := db.PeekActionCode(ctx, "111111", store.CodeVerifyEmail, t0.Add(-time.Hour)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("purged code still found (before its expiry): %v", err)
		}
		if hits, _ := db.RateLimitHits(ctx, "login:new", time.Minute, t0); hits != 1 {
			t.Fatalf("live counter has %d hits after the purge, want 1", hits)
		}
		// Purged digits can be issued again, and work.
		must(t, "reissue", db.CreateActionCode(ctx, "111111", v.ID, store.CodeVerifyEmail, t0.Add(time.Hour)))
		if got, err := db.PeekActionCode(ctx, "111111", store.CodeVerifyEmail, t0); err != nil || got != v.ID {
			t.Fatalf("reissued code: %q, %v", got, err)
		}
		// Nothing more has expired: a second run deletes nothing (the used, live code stays until it expires).
		if n, err := db.DeleteExpired(ctx, t0, t0.Add(-time.Hour)); err != nil || n.Total() != 0 {
			t.Fatalf("second run deleted %+v, %v", n, err)
		}
		if n, err := db.DeleteExpired(ctx, t0.Add(10*time.Minute), t0.Add(-time.Hour)); err != nil || n.ActionCodes != 2 {
			t.Fatalf("at the live codes' expiry deleted %+v, %v; want both", n, err)
		}
	})
}
