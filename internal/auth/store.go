package auth

import (
	"context"
	"time"

	"timbre/internal/apikey"
	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what the auth area needs of the database (*store.DB has it all). Keeping it narrow lets
// store.DB be cut into smaller stores later without touching this package.
type Store interface {
	audit.Writer
	apikey.KeyCreator // sign-up makes the first key

	APIKeyBySecret(ctx context.Context, secret string) (*store.APIKey, error)
	Access(ctx context.Context, workspaceID, userID string) (*store.MemberAccess, error)
	ClearRateLimit(ctx context.Context, bucket string) error
	CreateActionCode(ctx context.Context, code, userID, kind string, expires time.Time) error
	CreateActionCodeWithPayload(ctx context.Context, code, userID, kind, payload string, expires time.Time) error
	CreateMFAChallenge(ctx context.Context, token string, c store.MFAChallenge) error
	CreateSingleUseToken(ctx context.Context, token string, t store.SingleUseToken) error
	CreateSessionWithMeta(ctx context.Context, token string, s store.Session, m store.SessionMeta, now time.Time) error
	CreateUserWithWorkspace(ctx context.Context, email, passwordHash string, verified bool, tier string, now time.Time) (*store.User, *store.Workspace, error)
	DeleteAPIKey(ctx context.Context, workspaceID, id string) error
	DeleteAccount(ctx context.Context, userID string) (*store.DeletedAccount, error)
	DeleteMFAChallenge(ctx context.Context, token string) error
	UseSingleUseToken(ctx context.Context, token, tokenType string, now time.Time) (*store.SingleUseToken, error)
	DeleteSession(ctx context.Context, token string) error
	DeleteSessionByPublicID(ctx context.Context, userID, publicID string) error
	DeleteUserSessions(ctx context.Context, userID, keepToken string) (int64, error)
	DisableTOTP(ctx context.Context, userID string) error
	EnableTOTP(ctx context.Context, userID, pendingSecret string, step int64, backupHashes []string, now time.Time) error
	HitRateLimit(ctx context.Context, bucket string, window time.Duration, now time.Time) (int64, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	ListAPIKeys(ctx context.Context, workspaceID string) ([]store.APIKey, error)
	ListMail(ctx context.Context, limit int) ([]store.Mail, error)
	ListSessions(ctx context.Context, userID string, now time.Time) ([]store.SessionInfo, error)
	MFAChallengeByToken(ctx context.Context, token string, now time.Time) (*store.MFAChallenge, error)
	MarkOnboardingPending(ctx context.Context, userID string) error
	MarkSessionMFADone(ctx context.Context, token string) error
	MarkSessionSensitiveVerified(ctx context.Context, token string, now time.Time) error
	PeekActionCode(ctx context.Context, code, kind string, now time.Time) (string, error)
	RateLimitHits(ctx context.Context, bucket string, window time.Duration, now time.Time) (int64, error)
	ReferralLinkCode(ctx context.Context, userID, newCode string) (string, error)
	ReplaceBackupCodes(ctx context.Context, userID string, hashes []string, now time.Time) error
	SessionSensitiveVerifiedAt(ctx context.Context, token string) (int64, error)
	SessionStateByToken(ctx context.Context, token string, now time.Time) (*store.SessionState, error)
	SetPendingTOTP(ctx context.Context, userID, secret string) error
	SetProductUpdates(ctx context.Context, userID string, agrees bool) error
	SetReferredBy(ctx context.Context, userID, code string) error
	TouchAPIKey(ctx context.Context, id string, now time.Time) error
	TouchSession(ctx context.Context, token string, now time.Time, every time.Duration) error
	UnhitRateLimit(ctx context.Context, bucket string, window time.Duration, now time.Time) error
	UseBackupCode(ctx context.Context, userID, hash string, now time.Time) error
	UseTOTPStep(ctx context.Context, userID string, step int64) error
	UserByEmail(ctx context.Context, email string) (*store.User, error)
	UserByID(ctx context.Context, id string) (*store.User, error)
	UserMFA(ctx context.Context, userID string) (*store.MFA, error)
}

var _ Store = (*store.DB)(nil)
