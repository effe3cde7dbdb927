// Package audit records security-relevant actions (sign-ins, key changes, member and role
// changes, SSO changes, …) per workspace, and serves the log to admins.
package audit

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"

	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Event is what a domain reports.
type Event struct {
	WorkspaceID string
	Class       string // auth, api_key, member, invite, group, sso, webhook, workspace, mfa, session
	Activity    string // sign_in, sign_in_failed, create, update, delete, role_change, …
	Target      string
	Details     map[string]any
}

// Record writes an event with the actor taken from the request (its caller, or userID/email
// when the request is not authenticated yet, as at sign-in). Failures are logged, never returned:
// the action itself has already happened.
func Record(ctx context.Context, db *store.DB, r *http.Request, actorUserID, actorEmail string, ev Event) {
	e := store.AuditEntry{WorkspaceID: ev.WorkspaceID, ClassName: ev.Class, Activity: ev.Activity, Target: ev.Target,
		ActorUserID: actorUserID, ActorEmail: actorEmail}
	if c := httpx.CallerFrom(ctx); c != nil {
		if e.ActorUserID == "" {
			e.ActorUserID = c.UserID
		}
		e.ActorKeyID = c.APIKeyID
		if e.WorkspaceID == "" {
			e.WorkspaceID = c.WorkspaceID
		}
	}
	if r != nil {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			e.IP = host
		}
	}
	if ev.Details != nil {
		b, _ := json.Marshal(ev.Details)
		e.Details = string(b)
	}
	if err := db.AddAudit(context.WithoutCancel(ctx), e); err != nil {
		httpx.Logger(ctx).Error("audit log write failed", "err", err, "class", ev.Class, "activity", ev.Activity)
	}
}

// Handlers serves GET /v1/workspace/audit-logs to admins.
type Handlers struct{ DB *store.DB }

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/workspace/audit-logs", h.list, httpx.AdminOnly)
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v httpx.Validator
	num := func(name string, lo, hi int64) int64 {
		s := q.Get(name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < lo || n > hi {
			v.Add("query", name, "value_error", "Input should be an integer from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10)+".")
		}
		return n
	}
	f := store.AuditFilter{
		Limit: int(num("limit", 1, 100)), BeforeSeq: num("cursor", 1, 1<<62),
		FromMs: num("time_from_unix_ms", 0, 1<<62), ToMs: num("time_to_unix_ms", 0, 1<<62),
		ActorUserID: q.Get("actor_uid"), ClassName: q.Get("class_name"), Activity: q.Get("activity_name"),
	}
	if err := v.Err(); err != nil {
		return err
	}
	entries, more, err := h.DB.ListAudit(r.Context(), httpx.CallerFrom(r.Context()).WorkspaceID, f)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		var details any
		_ = json.Unmarshal([]byte(e.Details), &details)
		out = append(out, map[string]any{"id": e.ID, "timestamp_unix_ms": e.AtUnixMs, "actor_uid": e.ActorUserID, "actor_email": e.ActorEmail,
			"api_key_id": e.ActorKeyID, "ip_address": e.IP, "class_name": e.ClassName, "activity_name": e.Activity, "target_id": e.Target, "details": details})
	}
	var next any
	if more {
		next = strconv.FormatInt(entries[len(entries)-1].Seq, 10)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"entries": out, "has_more": more, "next_cursor": next})
	return nil
}
