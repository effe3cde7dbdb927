package webhook

import (
	"context"
	"time"

	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what webhook delivery needs of the database (*store.DB has it all). Keeping it narrow
// lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	audit.Writer

	ActiveWebhooksFor(ctx context.Context, workspaceID, event string) ([]store.Webhook, error)
	CreateWebhook(ctx context.Context, w store.Webhook) error
	DeleteWebhook(ctx context.Context, workspaceID, id string) error
	ListWebhookAttempts(ctx context.Context, workspaceID, webhookID string, beforeSeq int64, limit int) ([]store.WebhookAttempt, bool, error)
	ListWebhooks(ctx context.Context, workspaceID string) ([]store.Webhook, error)
	RecordWebhookAttempt(ctx context.Context, a store.WebhookAttempt, maxFailures int64, now time.Time) (store.AttemptOutcome, error)
	UpdateWebhook(ctx context.Context, workspaceID, id string, u store.WebhookUpdate) error
	Webhook(ctx context.Context, workspaceID, id string) (*store.Webhook, error)
}

var _ Store = (*store.DB)(nil)
