package voice

import (
	"context"
	"time"

	"timbre/internal/account"
	"timbre/internal/store"
)

// Store is what the voice catalogue needs of the database (*store.DB has it all). Keeping it narrow
// lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	DeletePremadeVoicesExcept(ctx context.Context, keep []string) error
	ListVoices(ctx context.Context, workspaceID string, f store.VoiceFilter) ([]store.Voice, int, error)
	SetVoiceSettings(ctx context.Context, workspaceID, voiceID, settings string) error
	SharedRole(ctx context.Context, workspaceID, typ, id, userID string) (string, error)
	UpsertPremadeVoice(ctx context.Context, v store.Voice) error
	Voice(ctx context.Context, workspaceID, id string) (*store.Voice, error)
	VoiceSettings(ctx context.Context, workspaceID, voiceID string) (string, error)
	// Cloned voices: their samples, the plan's counters, and the transactions that change them.
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	VoiceSamples(ctx context.Context, workspaceID, voiceID string) ([]store.VoiceSample, error)
	VoiceSamplesOf(ctx context.Context, workspaceID string, voiceIDs []string) (map[string][]store.VoiceSample, error)
	VoiceSample(ctx context.Context, workspaceID, voiceID, sampleID string) (*store.VoiceSample, error)
	// Voice safety: the operator's controls and each workspace's voice captcha.
	OperatorVoice(ctx context.Context, id string) (*store.Voice, error)
	SetVoiceSafety(ctx context.Context, voiceID, control string, nowUnix int64) error
	VoiceSafetyOf(ctx context.Context, voiceID string) (store.VoiceSafety, error)
	IssueVoiceCaptcha(ctx context.Context, workspaceID, voiceID, text string, nowUnix int64) error
	VoiceCaptchaOf(ctx context.Context, workspaceID, voiceID string) (*store.VoiceCaptcha, error)
	FailVoiceCaptcha(ctx context.Context, workspaceID, voiceID string, issuedAt int64) (int, error)
	PassVoiceCaptcha(ctx context.Context, workspaceID, voiceID string, nowUnix int64) error
	// The voice library and collections.
	account.ChecklistWriter
	VoiceShare(ctx context.Context, workspaceID, voiceID string) (*store.VoiceShare, error)
	CopyOriginOf(ctx context.Context, workspaceID, voiceID string) (*store.CopyOrigin, error)
	LibraryUsage(ctx context.Context, originalIDs []string, since7d, since1y int64) (map[string][2]int64, error)
	VoiceSharesOf(ctx context.Context, workspaceID string, voiceIDs []string) (map[string]store.VoiceShare, error)
	UpsertVoiceShare(ctx context.Context, s store.VoiceShare) error
	ListLibrary(ctx context.Context, f store.LibraryFilter) ([]store.LibraryVoice, int, error)
	LibraryVoiceByOwner(ctx context.Context, publicOwnerID, voiceID string) (*store.LibraryVoice, error)
	CopiedVoiceIDs(ctx context.Context, workspaceID string, originals []string) (map[string]bool, error)
	CreateVoiceCollection(ctx context.Context, c store.VoiceCollection) error
	VoiceCollections(ctx context.Context, workspaceID string) ([]store.VoiceCollection, error)
	VoiceCollection(ctx context.Context, workspaceID, id string) (*store.VoiceCollection, error)
	UpdateVoiceCollection(ctx context.Context, c store.VoiceCollection) error
	DeleteVoiceCollection(ctx context.Context, workspaceID, id string) error
	AddVoiceToCollection(ctx context.Context, workspaceID, collectionID, voiceID string, now int64) error
	RemoveVoiceFromCollection(ctx context.Context, workspaceID, collectionID, voiceID string) error
}

var _ Store = (*store.DB)(nil)
