package store

import (
	"context"
	"database/sql"
	"time"
)

// AccountExtras are the user's onboarding, privacy and access fields (spec §3 User) that the
// account package serves and GET /v1/user renders.
type AccountExtras struct {
	UserID                         string
	IsOnboardingCompleted          bool
	OnboardingSurvey               string // JSON of the survey answers, "" before the survey
	ChecklistID                    string // "" until the checklist is initiated
	ChecklistHidden                bool
	IsOnboardingChecklistCompleted bool
	CompletedItems                 map[string]int64 // item id → completion time (unix)
	CCPAOptOut                     bool
	AcceptedBIPATerms              bool
	BIPAAcceptedAt                 *int64
	HasAlphaAccess                 bool
	AlphaRequestedAt               *int64
	PublicUserName                 string
}

// AccountExtras loads the user's extras, with their completed checklist items.
func (db *DB) AccountExtras(ctx context.Context, userID string) (*AccountExtras, error) {
	a := &AccountExtras{UserID: userID, CompletedItems: map[string]int64{}}
	var bipaAt, alphaAt sql.NullInt64
	err := db.queryRow(ctx, `SELECT is_onboarding_completed, onboarding_survey, onboarding_checklist_id, onboarding_checklist_hidden,
		is_onboarding_checklist_completed, ccpa_opt_out, accepted_bipa_terms, bipa_accepted_at_unix, has_alpha_access,
		alpha_requested_at_unix, public_user_name FROM users WHERE id = ?`, userID).Scan(
		&a.IsOnboardingCompleted, &a.OnboardingSurvey, &a.ChecklistID, &a.ChecklistHidden, &a.IsOnboardingChecklistCompleted,
		&a.CCPAOptOut, &a.AcceptedBIPATerms, &bipaAt, &a.HasAlphaAccess, &alphaAt, &a.PublicUserName)
	if err != nil {
		return nil, notFound(err)
	}
	if bipaAt.Valid {
		a.BIPAAcceptedAt = &bipaAt.Int64
	}
	if alphaAt.Valid {
		a.AlphaRequestedAt = &alphaAt.Int64
	}
	rows, err := db.query(ctx, `SELECT item_id, completed_at_unix FROM onboarding_checklist_items WHERE user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		a.CompletedItems[id] = at
	}
	return a, rows.Err()
}

// CompleteOnboardingSurvey stores the survey answers (JSON), the first name they carry, and marks
// onboarding completed. The user's own workspaces still named after their email (sign-up's
// "x@y's workspace") take the first name instead.
func (db *DB) CompleteOnboardingSurvey(ctx context.Context, userID, firstName, surveyJSON string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if err := affected(tx.exec(ctx, `UPDATE users SET onboarding_survey = ?, first_name = ?, is_onboarding_completed = ? WHERE id = ?`,
			surveyJSON, firstName, true, userID)); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `UPDATE workspaces SET name = ? WHERE owner_id = ? AND name = (SELECT email FROM users WHERE id = ?) || ?`,
			firstName+DefaultWorkspaceSuffix, userID, userID, DefaultWorkspaceSuffix)
		return err
	})
}

// SetFirstName changes the name the app greets the user by.
func (db *DB) SetFirstName(ctx context.Context, userID, firstName string) error {
	return affected(db.exec(ctx, `UPDATE users SET first_name = ? WHERE id = ?`, firstName, userID))
}

// MarkOnboardingPending makes a new user go through the onboarding survey (sign-up calls it;
// users from before the survey keep is_onboarding_completed true, spec §3's default).
func (db *DB) MarkOnboardingPending(ctx context.Context, userID string) error {
	return affected(db.exec(ctx, `UPDATE users SET is_onboarding_completed = ? WHERE id = ?`, false, userID))
}

// InitiateOnboardingChecklist gives the user a checklist (id checklistID) unless they already
// have one, shown and not completed. It returns the checklist id in force.
func (db *DB) InitiateOnboardingChecklist(ctx context.Context, userID, checklistID string) (string, error) {
	var id string
	err := db.InTx(ctx, func(tx *Tx) error {
		if err := tx.queryRow(ctx, `SELECT onboarding_checklist_id FROM users WHERE id = ?`, userID).Scan(&id); err != nil {
			return notFound(err)
		}
		if id != "" {
			return nil
		}
		id = checklistID
		return affected(tx.exec(ctx, `UPDATE users SET onboarding_checklist_id = ?, onboarding_checklist_hidden = ?, is_onboarding_checklist_completed = ? WHERE id = ?`,
			id, false, false, userID))
	})
	return id, err
}

// CompleteOnboardingItem records that the user did the step itemID; it says whether the step was
// newly completed (false when it already was). It is recorded whether or not the checklist has
// been initiated, so a checklist started later shows what the user already did.
func (db *DB) CompleteOnboardingItem(ctx context.Context, userID, itemID string, now time.Time) (bool, error) {
	// ON CONFLICT DO NOTHING is the same SQL in both databases (SQLite 3.24+).
	res, err := db.exec(ctx, `INSERT INTO onboarding_checklist_items (user_id, item_id, completed_at_unix) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		userID, itemID, now.Unix())
	if err != nil {
		if isForeignKeyViolation(err) {
			return false, ErrNotFound
		}
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetOnboardingChecklistHidden hides (or shows) the user's initiated checklist.
func (db *DB) SetOnboardingChecklistHidden(ctx context.Context, userID string, hidden bool) error {
	return affected(db.exec(ctx, `UPDATE users SET onboarding_checklist_hidden = ? WHERE id = ? AND onboarding_checklist_id <> ''`, hidden, userID))
}

// MarkOnboardingChecklistComplete marks the user's initiated checklist completed.
func (db *DB) MarkOnboardingChecklistComplete(ctx context.Context, userID string) error {
	return affected(db.exec(ctx, `UPDATE users SET is_onboarding_checklist_completed = ? WHERE id = ? AND onboarding_checklist_id <> ''`, true, userID))
}

// SetCCPAOptOut stores the user's CCPA opt-out (spec §6).
func (db *DB) SetCCPAOptOut(ctx context.Context, userID string, optOut bool) error {
	return affected(db.exec(ctx, `UPDATE users SET ccpa_opt_out = ? WHERE id = ?`, optOut, userID))
}

// AcceptBIPATerms records the user's acceptance of the biometric (BIPA) terms; the first
// acceptance time is kept.
func (db *DB) AcceptBIPATerms(ctx context.Context, userID string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE users SET accepted_bipa_terms = ?, bipa_accepted_at_unix = COALESCE(bipa_accepted_at_unix, ?) WHERE id = ?`,
		true, now.Unix(), userID))
}

// RequestAlphaAccess records the user's request for alpha access (the first request time is kept).
func (db *DB) RequestAlphaAccess(ctx context.Context, userID string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE users SET alpha_requested_at_unix = COALESCE(alpha_requested_at_unix, ?) WHERE id = ?`, now.Unix(), userID))
}

// SetAlphaAccess grants or withdraws alpha access (an operator's decision).
func (db *DB) SetAlphaAccess(ctx context.Context, userID string, has bool) error {
	return affected(db.exec(ctx, `UPDATE users SET has_alpha_access = ? WHERE id = ?`, has, userID))
}

// SetPublicUserName sets the name share links show for the user.
func (db *DB) SetPublicUserName(ctx context.Context, userID, name string) error {
	return affected(db.exec(ctx, `UPDATE users SET public_user_name = ? WHERE id = ?`, name, userID))
}

// PublicUserName returns the name share links show for the user ("" when not set).
func (db *DB) PublicUserName(ctx context.Context, userID string) (string, error) {
	var name string
	err := db.queryRow(ctx, `SELECT public_user_name FROM users WHERE id = ?`, userID).Scan(&name)
	return name, notFound(err)
}

// Message is a notification for one user (spec §3).
type Message struct {
	ID             string
	UserID         string
	Severity       string
	Title          string
	Description    string
	NeedsAttention bool
	CreatedAtMs    int64
	ReadAtMs       *int64
}

// CreateMessage stores a notification; m.ID is assigned when empty.
func (db *DB) CreateMessage(ctx context.Context, m *Message) error {
	if m.ID == "" {
		m.ID = NewID()
	}
	_, err := db.exec(ctx, `INSERT INTO messages (id, user_id, severity, title, description, needs_attention, create_date_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.UserID, m.Severity, m.Title, m.Description, m.NeedsAttention, m.CreatedAtMs)
	if isForeignKeyViolation(err) {
		return ErrNotFound
	}
	return err
}

// Messages lists the user's notifications, newest first, at most limit, and how many are unread.
func (db *DB) Messages(ctx context.Context, userID string, unreadOnly bool, limit int) ([]Message, int, error) {
	q := `SELECT id, user_id, severity, title, description, needs_attention, create_date_unix_ms, read_at_unix_ms FROM messages WHERE user_id = ?`
	if unreadOnly {
		q += ` AND read_at_unix_ms IS NULL`
	}
	q += ` ORDER BY create_date_unix_ms DESC, id DESC LIMIT ?`
	rows, err := db.query(ctx, q, userID, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		var m Message
		var read sql.NullInt64
		if err := rows.Scan(&m.ID, &m.UserID, &m.Severity, &m.Title, &m.Description, &m.NeedsAttention, &m.CreatedAtMs, &read); err != nil {
			return nil, 0, err
		}
		if read.Valid {
			m.ReadAtMs = &read.Int64
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var unread int
	err = db.queryRow(ctx, `SELECT COUNT(*) FROM messages WHERE user_id = ? AND read_at_unix_ms IS NULL`, userID).Scan(&unread)
	return out, unread, err
}

// MarkMessageRead marks one of the user's notifications read; ErrNotFound when the user has no
// such message. Marking a read message again keeps its first read time.
func (db *DB) MarkMessageRead(ctx context.Context, userID, messageID string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE messages SET read_at_unix_ms = COALESCE(read_at_unix_ms, ?) WHERE id = ? AND user_id = ?`,
		now.UnixMilli(), messageID, userID))
}

// MarkAllMessagesRead marks every unread notification of the user read and returns how many.
func (db *DB) MarkAllMessagesRead(ctx context.Context, userID string, now time.Time) (int64, error) {
	res, err := db.exec(ctx, `UPDATE messages SET read_at_unix_ms = ? WHERE user_id = ? AND read_at_unix_ms IS NULL`, now.UnixMilli(), userID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
