package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"timbre/internal/app"
	"timbre/internal/auth"
	"timbre/internal/jobs"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestCleanupJob: the periodic clean-up, run by River on start, deletes expired rate-limit
// counters, action codes, MFA challenges and SSO flows, and keeps the live ones.
func TestCleanupJob(t *testing.T) {
	for _, l := range []time.Duration{auth.LimitSignInAccount.Window, auth.LimitSignInIP.Window, auth.LimitMFAAccount.Window, auth.LimitMFAIP.Window,
		auth.LimitCodeIP.Window, auth.LimitEmailCodeUser.Window, auth.LimitResetMailTo.Window, auth.LimitResetMailIP.Window,
		auth.LimitVerifyMailTo.Window, auth.LimitVerifyMailIP.Window, auth.LimitEmailChangeMail.Window} {
		if l > app.RateLimitRetention {
			t.Fatalf("a rate limit's window (%v) is longer than RateLimitRetention", l)
		}
	}
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		past := now.Add(-48 * time.Hour) // a "now" at which every row, live or expired, is valid
		u, ws, err := db.CreateUserWithWorkspace(ctx, "cleanup@example.com", "", true, "free", now)
		if err != nil {
			t.Fatal(err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		// Rate limits: one whose window began two hours ago, one ten minutes ago.
		_, err = db.HitRateLimit(ctx, "old", time.Hour, now.Add(-2*time.Hour))
		must(err)
		_, err = db.HitRateLimit(ctx, "fresh", time.Hour, now.Add(-10*time.Minute))
		must(err)
		must(db.CreateActionCode(ctx, "expired-code", u.ID, store.CodeResetPassword, now.Add(-time.Minute)))
		must(db.CreateActionCode(ctx, "live-code", u.ID, store.CodeResetPassword, now.Add(time.Hour)))
		must(db.CreateMFAChallenge(ctx, "expired-mfa", store.MFAChallenge{UserID: u.ID, ExpiresAt: now.Add(-time.Minute).Unix()}))
		must(db.CreateMFAChallenge(ctx, "live-mfa", store.MFAChallenge{UserID: u.ID, ExpiresAt: now.Add(5 * time.Minute).Unix()}))
		pid := store.NewID()
		must(db.CreateSSOProvider(ctx, store.SSOProvider{ID: pid, WorkspaceID: ws.ID, Type: "oidc", Name: "IdP", Enabled: true, CreatedAt: now.Unix(), UpdatedAt: now.Unix()}))
		must(db.CreateSSOFlow(ctx, "expired-flow", store.SSOFlow{ProviderID: pid, WorkspaceID: ws.ID, ExpiresAt: now.Add(-time.Minute).Unix()}, now))
		must(db.CreateSSOFlow(ctx, "live-flow", store.SSOFlow{ProviderID: pid, WorkspaceID: ws.ID, ExpiresAt: now.Add(10 * time.Minute).Unix()}, now))
		// Voice design previews: one a day old (expired), one made now.
		must(db.InTx(ctx, func(tx *store.Tx) error {
			for id, at := range map[string]time.Time{"expired-preview": now.Add(-25 * time.Hour), "live-preview": now} {
				if err := tx.InsertVoicePreview(ctx, &store.VoicePreview{ID: id, WorkspaceID: ws.ID, Description: "a calm voice", Params: "{}",
					Text: "hello", Language: "en", CreatedAt: at.Unix(), ExpiresAt: at.Add(24 * time.Hour).Unix()}); err != nil {
					return err
				}
			}
			return nil
		}))

		exists := map[string]func() bool{
			"old":   func() bool { n, _ := db.RateLimitHits(ctx, "old", 72*time.Hour, now); return n > 0 },
			"fresh": func() bool { n, _ := db.RateLimitHits(ctx, "fresh", 72*time.Hour, now); return n > 0 },
			"expired-code": func() bool {
				_, err := db.PeekActionCode(ctx, "expired-code", store.CodeResetPassword, past)
				return err == nil
			},
			"live-code": func() bool {
				_, err := db.PeekActionCode(ctx, "live-code", store.CodeResetPassword, past)
				return err == nil
			},
			"expired-mfa": func() bool { _, err := db.MFAChallengeByToken(ctx, "expired-mfa", past); return err == nil },
			"live-mfa":    func() bool { _, err := db.MFAChallengeByToken(ctx, "live-mfa", past); return err == nil },
			"expired-preview": func() bool {
				_, err := db.VoicePreview(ctx, ws.ID, "expired-preview", past.Unix())
				return err == nil
			},
			"live-preview": func() bool { _, err := db.VoicePreview(ctx, ws.ID, "live-preview", past.Unix()); return err == nil },
		}
		for name, f := range exists {
			if !f() {
				t.Fatalf("%s missing before the clean-up", name)
			}
		}

		must(jobs.Migrate(ctx, db, slog.New(slog.DiscardHandler)))
		workers := river.NewWorkers()
		river.AddWorker(workers, &app.CleanupWorker{DB: db})
		client, err := jobs.NewWithConfig(db, jobs.Config{Logger: slog.New(slog.DiscardHandler), Workers: workers, QueueWorkers: 1,
			FetchPollInterval: 50 * time.Millisecond, PeriodicJobs: []*river.PeriodicJob{app.CleanupJob()}})
		must(err)
		events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
		defer cancel()
		must(client.Start(ctx))
		t.Cleanup(func() {
			sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
			defer c()
			_ = client.Stop(sctx)
			_ = client.Close()
		})
		select {
		case ev := <-events:
			if ev.Kind != river.EventKindJobCompleted || ev.Job.Kind != (app.CleanupArgs{}).Kind() {
				t.Fatalf("event %s for %s: %v", ev.Kind, ev.Job.Kind, ev.Job.Errors)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the clean-up did not run on start")
		}
		for name, f := range exists {
			if want := name == "fresh" || strings.HasPrefix(name, "live"); f() != want {
				t.Errorf("%s exists = %v after the clean-up, want %v", name, !want, want)
			}
		}
		// SSO flows: the expired one is gone (a live one can still be used once).
		if _, err := db.UseSSOFlow(ctx, "expired-flow", past); err == nil {
			t.Error("expired SSO flow kept")
		}
		if _, err := db.UseSSOFlow(ctx, "live-flow", now); err != nil {
			t.Errorf("live SSO flow deleted: %v", err)
		}
	})
}
