package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Webhook is a workspace's outbound webhook. The signing secret and the custom request headers
// are stored only encrypted (SecretEnc, HeadersEnc: sealed by the webhook package's server key);
// the store never sees them in the clear.
type Webhook struct {
	ID                  string
	WorkspaceID         string
	Name                string
	URL                 string
	AuthType            string
	SecretEnc           string
	HeadersEnc          string
	Events              []string
	IsDisabled          bool
	IsAutoDisabled      bool
	RetryEnabled        bool
	ConsecutiveFailures int64
	LastFailureCode     *int64
	LastFailureUnix     *int64
	CreatedByUserID     string
	CreatedAt           int64
}

// WebhookUpdate is a change to a webhook; nil fields stay as they are.
type WebhookUpdate struct {
	Name         *string
	IsDisabled   *bool
	RetryEnabled *bool
	HeadersEnc   *string
	Events       *[]string
}

const webhookCols = `id, workspace_id, name, url, auth_type, secret_enc, headers_enc, events, is_disabled, is_auto_disabled,
	retry_enabled, consecutive_failures, last_failure_code, last_failure_unix, created_by_user_id, created_at_unix`

func scanWebhook(row interface{ Scan(...any) error }) (*Webhook, error) {
	w := &Webhook{}
	var events string
	var code, at sql.NullInt64
	if err := row.Scan(&w.ID, &w.WorkspaceID, &w.Name, &w.URL, &w.AuthType, &w.SecretEnc, &w.HeadersEnc, &events, &w.IsDisabled,
		&w.IsAutoDisabled, &w.RetryEnabled, &w.ConsecutiveFailures, &code, &at, &w.CreatedByUserID, &w.CreatedAt); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(events), &w.Events)
	if w.Events == nil {
		w.Events = []string{}
	}
	if code.Valid {
		w.LastFailureCode = &code.Int64
	}
	if at.Valid {
		w.LastFailureUnix = &at.Int64
	}
	return w, nil
}

func eventsJSON(ev []string) string {
	if ev == nil {
		ev = []string{}
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// CreateWebhook stores a new webhook.
func (db *DB) CreateWebhook(ctx context.Context, w Webhook) error {
	if w.AuthType == "" {
		w.AuthType = "hmac"
	}
	_, err := db.exec(ctx, `INSERT INTO webhooks (id, workspace_id, name, url, auth_type, secret_enc, headers_enc, events, is_disabled, is_auto_disabled,
		retry_enabled, consecutive_failures, created_by_user_id, created_at_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.WorkspaceID, w.Name, w.URL, w.AuthType, w.SecretEnc, w.HeadersEnc, eventsJSON(w.Events), w.IsDisabled, w.IsAutoDisabled,
		w.RetryEnabled, int64(0), w.CreatedByUserID, w.CreatedAt)
	return err
}

// Webhook returns one webhook of the workspace.
func (db *DB) Webhook(ctx context.Context, workspaceID, id string) (*Webhook, error) {
	w, err := scanWebhook(db.queryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id))
	return w, notFound(err)
}

// ListWebhooks lists a workspace's webhooks, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, workspaceID string) ([]Webhook, error) {
	return db.webhooks(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? ORDER BY created_at_unix, id`, workspaceID)
}

// ActiveWebhooksFor lists the workspace's enabled webhooks subscribed to event.
func (db *DB) ActiveWebhooksFor(ctx context.Context, workspaceID, event string) ([]Webhook, error) {
	all, err := db.webhooks(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND is_disabled = ? AND is_auto_disabled = ? ORDER BY created_at_unix, id`,
		workspaceID, false, false)
	if err != nil {
		return nil, err
	}
	var out []Webhook
	for _, w := range all {
		for _, e := range w.Events {
			if e == event {
				out = append(out, w)
				break
			}
		}
	}
	return out, nil
}

func (db *DB) webhooks(ctx context.Context, q string, args ...any) ([]Webhook, error) {
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	return out, rows.Err()
}

// UpdateWebhook applies u to a webhook of the workspace. Enabling it (IsDisabled false) also
// clears an automatic disable and the failure count.
func (db *DB) UpdateWebhook(ctx context.Context, workspaceID, id string, u WebhookUpdate) error {
	q := `UPDATE webhooks SET id = id`
	var args []any
	set := func(col string, v any) { q += ", " + col + " = ?"; args = append(args, v) }
	if u.Name != nil {
		set("name", *u.Name)
	}
	if u.IsDisabled != nil {
		set("is_disabled", *u.IsDisabled)
		if !*u.IsDisabled {
			set("is_auto_disabled", false)
			set("consecutive_failures", int64(0))
		}
	}
	if u.RetryEnabled != nil {
		set("retry_enabled", *u.RetryEnabled)
	}
	if u.HeadersEnc != nil {
		set("headers_enc", *u.HeadersEnc)
	}
	if u.Events != nil {
		set("events", eventsJSON(*u.Events))
	}
	q += ` WHERE workspace_id = ? AND id = ?`
	args = append(args, workspaceID, id)
	return affected(db.exec(ctx, q, args...))
}

// DeleteWebhook removes a webhook of the workspace and its delivery log.
func (db *DB) DeleteWebhook(ctx context.Context, workspaceID, id string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM webhook_deliveries WHERE workspace_id = ? AND webhook_id = ?`, workspaceID, id); err != nil {
			return err
		}
		return affected(tx.exec(ctx, `DELETE FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id))
	})
}

// WebhookAttempt is one delivery attempt in the log.
type WebhookAttempt struct {
	ID          string
	WorkspaceID string
	WebhookID   string
	DeliveryID  string // the same for every attempt at delivering one event
	EventType   string
	Attempt     int64
	Seq         int64
	AtUnixMs    int64
	StatusCode  int64 // 0 when no response arrived
	DurationMs  int64
	Error       string
	Success     bool
	WillRetry   bool
	// Test: an attempt at a test event. It is logged, but the webhook's failure state (count,
	// most recent failure, auto-disable) is left alone: a test never disables a webhook.
	Test bool
}

// AttemptOutcome is what recording an attempt did to its webhook.
type AttemptOutcome struct {
	AutoDisabled        bool // this attempt disabled the webhook
	ConsecutiveFailures int64
	WillRetry           bool // another attempt follows (false once the webhook is disabled)
}

// RecordWebhookAttempt logs an attempt and updates the webhook's failure state in one
// transaction: success resets the consecutive failure count; a failure increments it, records
// the most recent failure, and disables the webhook automatically once the count reaches
// maxFailures (0: never). A test attempt (a.Test) is only logged.
func (db *DB) RecordWebhookAttempt(ctx context.Context, a WebhookAttempt, maxFailures int64, now time.Time) (AttemptOutcome, error) {
	var out AttemptOutcome
	if a.ID == "" {
		a.ID = NewID()
	}
	if a.AtUnixMs == 0 {
		a.AtUnixMs = now.UnixMilli()
	}
	if a.Seq == 0 {
		a.Seq = time.Now().UnixNano()
	}
	err := db.InTx(ctx, func(tx *Tx) error {
		var failures int64
		var autoDisabled bool
		err := tx.queryRow(ctx, `SELECT consecutive_failures, is_auto_disabled FROM webhooks WHERE workspace_id = ? AND id = ?`, a.WorkspaceID, a.WebhookID).
			Scan(&failures, &autoDisabled)
		if err != nil {
			return notFound(err)
		}
		disable := autoDisabled
		switch {
		case a.Test: // the failure state stays as it is
		case a.Success:
			failures = 0
		default:
			failures++
			if maxFailures > 0 && failures >= maxFailures && !autoDisabled {
				disable, out.AutoDisabled = true, true
			}
		}
		if disable {
			a.WillRetry = false // a disabled webhook gets no more attempts
		}
		out.ConsecutiveFailures, out.WillRetry = failures, a.WillRetry
		if _, err := tx.exec(ctx, `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, delivery_id, event_type, attempt, seq, at_unix_ms, status_code, duration_ms, error, success, will_retry)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.WorkspaceID, a.WebhookID, a.DeliveryID, a.EventType, a.Attempt, a.Seq, a.AtUnixMs, a.StatusCode, a.DurationMs, a.Error, a.Success, a.WillRetry); err != nil {
			return err
		}
		if a.Test {
			return nil
		}
		if a.Success {
			_, err := tx.exec(ctx, `UPDATE webhooks SET consecutive_failures = ? WHERE workspace_id = ? AND id = ?`, int64(0), a.WorkspaceID, a.WebhookID)
			return err
		}
		var code any
		if a.StatusCode != 0 {
			code = a.StatusCode
		}
		_, err = tx.exec(ctx, `UPDATE webhooks SET consecutive_failures = ?, last_failure_code = ?, last_failure_unix = ?, is_auto_disabled = ? WHERE workspace_id = ? AND id = ?`,
			failures, code, now.Unix(), disable, a.WorkspaceID, a.WebhookID)
		return err
	})
	return out, err
}

// ListWebhookAttempts returns a webhook's delivery log, newest first, entries older than
// beforeSeq when it is positive, and whether more follow.
func (db *DB) ListWebhookAttempts(ctx context.Context, workspaceID, webhookID string, beforeSeq int64, limit int) ([]WebhookAttempt, bool, error) {
	if limit <= 0 {
		limit = 50
	}
	q := `SELECT id, workspace_id, webhook_id, delivery_id, event_type, attempt, seq, at_unix_ms, status_code, duration_ms, error, success, will_retry
		FROM webhook_deliveries WHERE workspace_id = ? AND webhook_id = ?`
	args := []any{workspaceID, webhookID}
	if beforeSeq > 0 {
		q += ` AND seq < ?`
		args = append(args, beforeSeq)
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []WebhookAttempt{}
	for rows.Next() {
		var a WebhookAttempt
		if err := rows.Scan(&a.ID, &a.WorkspaceID, &a.WebhookID, &a.DeliveryID, &a.EventType, &a.Attempt, &a.Seq, &a.AtUnixMs, &a.StatusCode,
			&a.DurationMs, &a.Error, &a.Success, &a.WillRetry); err != nil {
			return nil, false, err
		}
		out = append(out, a)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}
