package app

import (
	"context"
	"fmt"
	"log/slog"

	"timbre/internal/config"
	"timbre/internal/jobs"
	"timbre/internal/secret"
	"timbre/internal/store"
	"timbre/internal/voice"
	"timbre/internal/webhook"
)

// wireVoiceSafety gives the voice service what removal notices need: the webhooks that carry
// them and the workspaces holding copies of a library voice, so serve and the operator command
// notify the same workspaces.
func wireVoiceSafety(v *voice.Service, hooks *webhook.Service, db *store.DB) {
	v.Removals = hooks
	v.CopiedBy = db.WorkspacesThatCopied
}

// VoiceSafety builds the voice service for the operator's `timbre admin voice-safety` over an
// open database: the removal notices a ban sends are queued on the job queue, and the serving
// processes' workers deliver them. close releases the queue's client.
func VoiceSafety(ctx context.Context, cfg *config.Config, db *store.DB, log *slog.Logger) (svc *voice.Service, close func() error, err error) {
	if err := MigrateJobs(ctx, db); err != nil {
		return nil, nil, err
	}
	box, err := secret.Load(cfg.DataDir, cfg.SecretKey)
	if err != nil {
		return nil, nil, fmt.Errorf("secret key: %w", err)
	}
	hooks, err := webhook.New(db, box, webhook.Config{AllowPrivate: cfg.WebhookAllowPrivate, AllowCIDRs: cfg.WebhookAllowCIDRs,
		AllowHTTP: cfg.WebhookAllowHTTP, MaxFailures: cfg.WebhookMaxFailures}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("webhooks: %w", err)
	}
	q, err := jobs.NewInsertOnly(db, log)
	if err != nil {
		return nil, nil, err
	}
	hooks.SetJobs(q)
	svc = &voice.Service{DB: db}
	wireVoiceSafety(svc, hooks, db)
	return svc, q.Close, nil
}
