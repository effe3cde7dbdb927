package store

import (
	"context"
	"time"
)

// AuditEntry is one security-relevant action in a workspace.
type AuditEntry struct {
	ID          string
	WorkspaceID string
	Seq         int64
	AtUnixMs    int64
	ActorUserID string
	ActorEmail  string
	ActorKeyID  string
	IP          string
	ClassName   string // the area: auth, api_key, member, sso, webhook, workspace, …
	Activity    string // what happened: sign_in, create, delete, role_change, …
	Target      string // the id of what it happened to
	Details     string // JSON object
}

// AddAudit appends an entry.
func (db *DB) AddAudit(ctx context.Context, e AuditEntry) error {
	if e.ID == "" {
		e.ID = NewID()
	}
	now := time.Now()
	if e.AtUnixMs == 0 {
		e.AtUnixMs = now.UnixMilli()
	}
	if e.Seq == 0 {
		e.Seq = now.UnixNano()
	}
	if e.Details == "" {
		e.Details = "{}"
	}
	_, err := db.exec(ctx, `INSERT INTO audit_log (id, workspace_id, seq, at_unix_ms, actor_user_id, actor_email, actor_key_id, ip, class_name, activity_name, target, details)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.WorkspaceID, e.Seq, e.AtUnixMs, e.ActorUserID, e.ActorEmail, e.ActorKeyID, e.IP, e.ClassName, e.Activity, e.Target, e.Details)
	return err
}

// AuditFilter narrows ListAudit.
type AuditFilter struct {
	Limit        int
	BeforeSeq    int64 // cursor: entries older than this
	FromMs, ToMs int64
	ActorUserID  string
	ClassName    string
	Activity     string
}

// ListAudit returns a workspace's entries, newest first, and whether more follow.
func (db *DB) ListAudit(ctx context.Context, workspaceID string, f AuditFilter) ([]AuditEntry, bool, error) {
	q := `SELECT id, workspace_id, seq, at_unix_ms, actor_user_id, actor_email, actor_key_id, ip, class_name, activity_name, target, details FROM audit_log WHERE workspace_id = ?`
	args := []any{workspaceID}
	add := func(cond string, v any) { q += " AND " + cond; args = append(args, v) }
	if f.BeforeSeq > 0 {
		add("seq < ?", f.BeforeSeq)
	}
	if f.FromMs > 0 {
		add("at_unix_ms >= ?", f.FromMs)
	}
	if f.ToMs > 0 {
		add("at_unix_ms <= ?", f.ToMs)
	}
	if f.ActorUserID != "" {
		add("actor_user_id = ?", f.ActorUserID)
	}
	if f.ClassName != "" {
		add("class_name = ?", f.ClassName)
	}
	if f.Activity != "" {
		add("activity_name = ?", f.Activity)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.WorkspaceID, &e.Seq, &e.AtUnixMs, &e.ActorUserID, &e.ActorEmail, &e.ActorKeyID, &e.IP, &e.ClassName, &e.Activity, &e.Target, &e.Details); err != nil {
			return nil, false, err
		}
		out = append(out, e)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}
