package account

import (
	"context"
	"time"

	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what the account area needs of the database (*store.DB has it all). Keeping it narrow
// lets store.DB be cut into smaller stores later without touching this package.
type Store interface {
	audit.Writer
	ChecklistWriter
	PublicNames

	AcceptBIPATerms(ctx context.Context, userID string, now time.Time) error
	AccountExtras(ctx context.Context, userID string) (*store.AccountExtras, error)
	CompleteOnboardingSurvey(ctx context.Context, userID, firstName, surveyJSON string) error
	CreateMessage(ctx context.Context, m *store.Message) error
	InitiateOnboardingChecklist(ctx context.Context, userID, checklistID string) (string, error)
	MarkAllMessagesRead(ctx context.Context, userID string, now time.Time) (int64, error)
	MarkMessageRead(ctx context.Context, userID, messageID string, now time.Time) error
	MarkOnboardingChecklistComplete(ctx context.Context, userID string) error
	Messages(ctx context.Context, userID string, unreadOnly bool, limit int) ([]store.Message, int, error)
	RequestAlphaAccess(ctx context.Context, userID string, now time.Time) error
	SetCCPAOptOut(ctx context.Context, userID string, optOut bool) error
	SetFirstName(ctx context.Context, userID, firstName string) error
	SetOnboardingChecklistHidden(ctx context.Context, userID string, hidden bool) error
	SetPublicUserName(ctx context.Context, userID, name string) error
}

// ChecklistWriter is the store method CompleteItem needs, so that any domain holding its own
// narrow store can tick a checklist step.
type ChecklistWriter interface {
	CompleteOnboardingItem(ctx context.Context, userID, itemID string, now time.Time) (bool, error)
}

// PublicNames is the store method PublicName needs.
type PublicNames interface {
	PublicUserName(ctx context.Context, userID string) (string, error)
}

var _ Store = (*store.DB)(nil)
