package tts

import (
	"context"
	"time"

	"timbre/internal/account"
	"timbre/internal/metering"
	"timbre/internal/store"
)

// Store is what text to speech needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	account.ChecklistWriter
	metering.ProgressWriter

	AcquireLease(ctx context.Context, workspaceID, holder string, limit int, ttl time.Duration) (id string, held int, err error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	ListVoices(ctx context.Context, workspaceID string, f store.VoiceFilter) ([]store.Voice, int, error)
	ReleaseLease(ctx context.Context, id string) error
	RenewLease(ctx context.Context, id string, ttl time.Duration) error
	SetVoicePreview(ctx context.Context, voiceID, key string) error
	Voice(ctx context.Context, workspaceID, id string) (*store.Voice, error)
	PublishedVoice(ctx context.Context, voiceID string) (*store.Voice, error)
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
}

var _ Store = (*store.DB)(nil)
