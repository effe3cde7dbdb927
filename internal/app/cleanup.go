package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"timbre/internal/store"
)

// CleanupInterval is how often expired security rows are deleted.
const CleanupInterval = time.Hour

// RateLimitRetention is how long a rate-limit counter is kept after its window began: the
// longest window of internal/auth's limits (an hour), so no live counter is deleted.
const RateLimitRetention = time.Hour

// CleanupArgs is the periodic job that deletes expired rate-limit counters, action codes, MFA
// challenges, SSO sign-in flows and single-use tokens (store.DeleteExpired).
type CleanupArgs struct{}

// Kind implements river.JobArgs.
func (CleanupArgs) Kind() string { return "expired_cleanup" }

// CleanupWorker runs CleanupArgs.
type CleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	DB  *store.DB
	Log *slog.Logger
	Now func() time.Time
}

// Work deletes what has expired.
func (w *CleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) error {
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	n, err := w.DB.DeleteExpired(ctx, now, now.Add(-RateLimitRetention))
	if err != nil {
		return err
	}
	if n.Total() > 0 && w.Log != nil {
		w.Log.Info("expired rows deleted", "rate_limits", n.RateLimits, "action_codes", n.ActionCodes,
			"mfa_challenges", n.MFAChallenges, "sso_flows", n.SSOFlows, "single_use_tokens", n.SingleUseTokens, "voice_previews", n.VoicePreviews)
	}
	return nil
}

// CleanupJob is the hourly (and on start) periodic job for CleanupArgs.
func CleanupJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(CleanupInterval),
		func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})
}
