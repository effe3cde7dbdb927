package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"timbre/internal/errs"
	"time"
)

// APIKey is a workspace API key; the secret itself is never stored, only its SHA-256 (KeyHash).
type APIKey struct {
	ID          string
	WorkspaceID string
	UserID      string // the user, or service account, the key acts for
	Name        string
	Preview     string // the hint: the first and last characters of the secret
	KeyHash     string
	CreatedAt   int64
	LastUsed    *int64
	// Permissions are the API's permission names the key holds; ["all"] holds every one, also
	// those added later.
	Permissions []string
	// CharacterLimit caps the characters the key may spend per billing period of its workspace;
	// nil means no cap beyond the workspace's own.
	CharacterLimit *int64
	// CharacterCount is what the key spent in the workspace's current period.
	CharacterCount int64
	IsDisabled     bool
	DisableReason  string // the API's LockReason when disabled by the system or the holder; "" otherwise
	// ThirdPartyDisableAllowed says whether the holder may disable the key through the
	// self-disable route; nil means the workspace default (allowed).
	ThirdPartyDisableAllowed *bool
	ServiceAccount           bool // the key belongs to a service account
}

// PermissionAll is the permission value that grants every permission.
const PermissionAll = "all"

// AllPermissions says whether the key holds every permission.
func (k *APIKey) AllPermissions() bool {
	for _, p := range k.Permissions {
		if p == PermissionAll {
			return true
		}
	}
	return false
}

// ErrKeyQuotaExceeded is returned by ChargeAPIKey when a charge would pass the key's limit.
var ErrKeyQuotaExceeded = errs.New(errs.Quota, "quota_exceeded", "This API key has reached its character limit.")

// ErrLimitReached is returned when a workspace already has as many of something as it may.
var ErrLimitReached = errs.New(errs.Conflict, "limit_reached", "The limit for these has been reached.")

// encodePermissions stores a permission list; nil (not given) means every permission, an empty
// list none.
func encodePermissions(ps []string) string {
	if ps == nil {
		ps = []string{PermissionAll}
	}
	b, _ := json.Marshal(ps)
	return string(b)
}

// apiKeyCols reads a key joined with its workspace (k, w): the count of an older period reads 0.
const apiKeyCols = `k.id, k.workspace_id, k.user_id, k.name, k.key_preview, k.key_hash, k.created_at_unix, k.last_used_unix,
	k.permissions, k.character_limit, CASE WHEN k.period_start_unix = w.period_start_unix THEN k.character_count ELSE 0 END,
	k.is_disabled, k.disable_reason, k.third_party_disable_allowed, k.is_service_account
	FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id`

func scanAPIKey(row interface{ Scan(...any) error }) (*APIKey, error) {
	k := &APIKey{}
	var last, limit sql.NullInt64
	var third sql.NullBool
	var perms string
	if err := row.Scan(&k.ID, &k.WorkspaceID, &k.UserID, &k.Name, &k.Preview, &k.KeyHash, &k.CreatedAt, &last,
		&perms, &limit, &k.CharacterCount, &k.IsDisabled, &k.DisableReason, &third, &k.ServiceAccount); err != nil {
		return nil, notFound(err)
	}
	if last.Valid {
		k.LastUsed = &last.Int64
	}
	if limit.Valid {
		k.CharacterLimit = &limit.Int64
	}
	if third.Valid {
		k.ThirdPartyDisableAllowed = &third.Bool
	}
	if err := json.Unmarshal([]byte(perms), &k.Permissions); err != nil || len(k.Permissions) == 0 {
		k.Permissions = []string{} // unreadable: no permission rather than all
	}
	return k, nil
}

var scanAPIKeys = collect(scanAPIKey)

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

// CreateAPIKey stores the hash of secret. Nil Permissions mean ["all"]; the key's count starts
// in the workspace's current period.
func (db *DB) CreateAPIKey(ctx context.Context, k APIKey, secret string) error {
	_, err := db.exec(ctx, `INSERT INTO api_keys (id, workspace_id, user_id, name, key_hash, key_preview, created_at_unix,
		permissions, character_limit, character_count, period_start_unix, is_disabled, disable_reason, third_party_disable_allowed, is_service_account)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, period_start_unix, ?, '', ?, ? FROM workspaces WHERE id = ?`,
		k.ID, k.WorkspaceID, k.UserID, k.Name, HashToken(secret), k.Preview, k.CreatedAt,
		encodePermissions(k.Permissions), nullInt(k.CharacterLimit), k.IsDisabled, nullBool(k.ThirdPartyDisableAllowed), k.ServiceAccount, k.WorkspaceID)
	return err
}

// APIKeyBySecret finds the key whose hash matches secret.
func (db *DB) APIKeyBySecret(ctx context.Context, secret string) (*APIKey, error) {
	return scanAPIKey(db.queryRow(ctx, `SELECT `+apiKeyCols+` WHERE k.key_hash = ?`, HashToken(secret)))
}

// APIKeyByID finds a key of the workspace (a user's or a service account's).
func (db *DB) APIKeyByID(ctx context.Context, workspaceID, id string) (*APIKey, error) {
	return scanAPIKey(db.queryRow(ctx, `SELECT `+apiKeyCols+` WHERE k.workspace_id = ? AND k.id = ?`, workspaceID, id))
}

// TouchAPIKey records when a key was last used (at most once a minute, to spare the writer).
func (db *DB) TouchAPIKey(ctx context.Context, id string, now time.Time) error {
	_, err := db.exec(ctx, `UPDATE api_keys SET last_used_unix = ? WHERE id = ? AND (last_used_unix IS NULL OR last_used_unix < ?)`, now.Unix(), id, now.Unix()-60)
	return err
}

// ListAPIKeys lists a workspace's user keys (not its service accounts'), newest first.
func (db *DB) ListAPIKeys(ctx context.Context, workspaceID string) ([]APIKey, error) {
	return scanAPIKeys(db.query(ctx, `SELECT `+apiKeyCols+` WHERE k.workspace_id = ? AND k.is_service_account = ? ORDER BY k.created_at_unix DESC, k.id`,
		workspaceID, false))
}

// ListServiceAccountAPIKeys lists the keys of the workspace's service accounts (of one when
// userID is set), newest first.
func (db *DB) ListServiceAccountAPIKeys(ctx context.Context, workspaceID, userID string) ([]APIKey, error) {
	q := `SELECT ` + apiKeyCols + ` WHERE k.workspace_id = ? AND k.is_service_account = ?`
	args := []any{workspaceID, true}
	if userID != "" {
		q += ` AND k.user_id = ?`
		args = append(args, userID)
	}
	return scanAPIKeys(db.query(ctx, q+` ORDER BY k.created_at_unix DESC, k.id`, args...))
}

// DeleteAPIKey removes a user key of the workspace (service accounts' keys go through
// DeleteServiceAccountAPIKey).
func (db *DB) DeleteAPIKey(ctx context.Context, workspaceID, id string) error {
	return affected(db.exec(ctx, `DELETE FROM api_keys WHERE workspace_id = ? AND id = ? AND is_service_account = ?`, workspaceID, id, false))
}

// DeleteServiceAccountAPIKey removes a key of a service account of the workspace.
func (db *DB) DeleteServiceAccountAPIKey(ctx context.Context, workspaceID, userID, id string) error {
	return affected(db.exec(ctx, `DELETE FROM api_keys WHERE workspace_id = ? AND user_id = ? AND id = ? AND is_service_account = ?`,
		workspaceID, userID, id, true))
}

// APIKeyUpdate is a change to a key; nil or false fields stay as they are.
type APIKeyUpdate struct {
	Name                *string
	Permissions         []string // nil: unchanged
	CharacterLimit      *int64
	ClearCharacterLimit bool
	Disabled            *bool
	DisableReason       string // with Disabled=true
	ThirdPartyDisable   *bool
	ClearThirdParty     bool
}

// UpdateAPIKey changes a key of userID in the workspace.
func (db *DB) UpdateAPIKey(ctx context.Context, workspaceID, userID, id string, u APIKeyUpdate) error {
	var sets []string
	var args []any
	set := func(col string, v any) { sets = append(sets, col+" = ?"); args = append(args, v) }
	if u.Name != nil {
		set("name", *u.Name)
	}
	if u.Permissions != nil {
		set("permissions", encodePermissions(u.Permissions))
	}
	if u.ClearCharacterLimit {
		sets = append(sets, "character_limit = NULL")
	} else if u.CharacterLimit != nil {
		set("character_limit", *u.CharacterLimit)
	}
	if u.Disabled != nil {
		set("is_disabled", *u.Disabled)
		reason := ""
		if *u.Disabled {
			reason = u.DisableReason
		}
		set("disable_reason", reason)
	}
	if u.ClearThirdParty {
		sets = append(sets, "third_party_disable_allowed = NULL")
	} else if u.ThirdPartyDisable != nil {
		set("third_party_disable_allowed", *u.ThirdPartyDisable)
	}
	if len(sets) == 0 {
		_, err := db.APIKeyByID(ctx, workspaceID, id)
		return err
	}
	args = append(args, workspaceID, userID, id)
	return affected(db.exec(ctx, `UPDATE api_keys SET `+strings.Join(sets, ", ")+` WHERE workspace_id = ? AND user_id = ? AND id = ?`, args...))
}

// ChargeAPIKey adds n characters to the key's count for the workspace's current period, inside the
// transaction that charges the workspace (after Charge, which rolls the period). It returns
// ErrKeyQuotaExceeded, changing nothing, when the count would pass the key's limit; a key that no
// longer exists is not charged.
func (tx *Tx) ChargeAPIKey(ctx context.Context, workspaceID, keyID string, n int64) error {
	var period int64
	if err := tx.queryRow(ctx, `SELECT period_start_unix FROM workspaces WHERE id = ?`, workspaceID).Scan(&period); err != nil {
		return notFound(err)
	}
	const current = `(CASE WHEN period_start_unix = CAST(? AS BIGINT) THEN character_count ELSE 0 END)`
	var to int64
	err := tx.queryRow(ctx, `UPDATE api_keys SET character_count = `+current+` + CAST(? AS BIGINT), period_start_unix = ?
		WHERE workspace_id = ? AND id = ? AND (character_limit IS NULL OR `+current+` + CAST(? AS BIGINT) <= character_limit) RETURNING character_count`,
		period, n, period, workspaceID, keyID, period, n).Scan(&to)
	if errors.Is(err, sql.ErrNoRows) {
		var one int
		if err := tx.queryRow(ctx, `SELECT 1 FROM api_keys WHERE workspace_id = ? AND id = ?`, workspaceID, keyID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		return ErrKeyQuotaExceeded
	}
	return err
}

// APIKeyUsage reads a key's limit and its count in the current period inside tx.
func (tx *Tx) APIKeyUsage(ctx context.Context, workspaceID, keyID string) (limit *int64, used int64, err error) {
	return scanLimitAndUsed(tx.queryRow(ctx, `SELECT k.character_limit, CASE WHEN k.period_start_unix = w.period_start_unix THEN k.character_count ELSE 0 END
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.workspace_id = ? AND k.id = ?`, workspaceID, keyID))
}

// RefundAPIKey gives n characters back to a key (a generation that failed after it was charged).
func (tx *Tx) RefundAPIKey(ctx context.Context, workspaceID, keyID string, n int64) error {
	_, err := tx.exec(ctx, `UPDATE api_keys SET character_count = CASE WHEN character_count >= ? THEN character_count - ? ELSE 0 END WHERE workspace_id = ? AND id = ?`,
		n, n, workspaceID, keyID)
	return err
}

// ServiceAccount is a user without a password that belongs to exactly one workspace and acts
// only through its API keys.
type ServiceAccount struct {
	UserID      string
	WorkspaceID string
	Name        string
	Role        string
	CreatedAt   int64
}

// CreateServiceAccount adds a service account (a user row flagged is_service_account, with no
// password and an address nobody can receive mail at) and its membership of the workspace,
// unless the workspace already has max of them (ErrLimitReached).
func (db *DB) CreateServiceAccount(ctx context.Context, sa ServiceAccount, max int) error {
	email := "service-account-" + strings.ToLower(RandomString(24)) + "@service-accounts.invalid"
	return db.InTx(ctx, func(tx *Tx) error {
		// Lock the workspace row so concurrent creations count one after the other.
		if err := affected(tx.exec(ctx, `UPDATE workspaces SET id = id WHERE id = ?`, sa.WorkspaceID)); err != nil {
			return err
		}
		var n int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM users WHERE workspace_id = ? AND is_service_account = ?`, sa.WorkspaceID, true).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return ErrLimitReached
		}
		if _, err := tx.exec(ctx, `INSERT INTO users (id, email, password_hash, email_verified, first_name, workspace_id, created_at_unix, is_service_account) VALUES (?, ?, '', ?, ?, ?, ?, ?)`,
			sa.UserID, email, false, sa.Name, sa.WorkspaceID, sa.CreatedAt, true); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)`, sa.WorkspaceID, sa.UserID, sa.Role)
		return err
	})
}

const serviceAccountSelect = `SELECT u.id, u.workspace_id, u.first_name, m.role, u.created_at_unix FROM users u
	JOIN workspace_members m ON m.user_id = u.id AND m.workspace_id = u.workspace_id
	WHERE u.workspace_id = ? AND u.is_service_account = ?`

func scanServiceAccount(row interface{ Scan(...any) error }) (*ServiceAccount, error) {
	sa := &ServiceAccount{}
	if err := row.Scan(&sa.UserID, &sa.WorkspaceID, &sa.Name, &sa.Role, &sa.CreatedAt); err != nil {
		return nil, notFound(err)
	}
	return sa, nil
}

// ServiceAccountByID finds a service account of the workspace.
func (db *DB) ServiceAccountByID(ctx context.Context, workspaceID, userID string) (*ServiceAccount, error) {
	return scanServiceAccount(db.queryRow(ctx, serviceAccountSelect+` AND u.id = ?`, workspaceID, true, userID))
}

// ListServiceAccounts lists the workspace's service accounts, oldest first.
func (db *DB) ListServiceAccounts(ctx context.Context, workspaceID string) ([]ServiceAccount, error) {
	return collect(scanServiceAccount)(db.query(ctx, serviceAccountSelect+` ORDER BY u.created_at_unix, u.id`, workspaceID, true))
}

// DeleteServiceAccount removes a service account of the workspace with its membership, keys and
// sessions (the rows cascade from the user). What it generated stays with the workspace.
func (db *DB) DeleteServiceAccount(ctx context.Context, workspaceID, userID string) error {
	return affected(db.exec(ctx, `DELETE FROM users WHERE workspace_id = ? AND id = ? AND is_service_account = ?`, workspaceID, userID, true))
}
