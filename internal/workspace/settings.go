package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Bounds of session_inactivity_timeout in seconds: at least 5 minutes (the session refresh
// cadence), at most 30 days.
const (
	MinInactivityTimeout = 5 * 60
	MaxInactivityTimeout = 30 * 24 * 60 * 60
)

func (h *Handlers) settings(w http.ResponseWriter, r *http.Request) error {
	st, err := h.Svc.DB.WorkspaceSettings(r.Context(), caller(r).WorkspaceID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, settingsJSON(st))
	return nil
}

// readOnlySettings are shown by GET but changed elsewhere.
var readOnlySettings = map[string]string{
	"training_opt_out":       "training_opt_out is changed with PUT /v1/workspace/update-workspace.",
	"user_auto_provisioning": "user_auto_provisioning is changed with PATCH /api/workspace/sso/settings.",
}

// updateSettings changes session_inactivity_timeout (seconds, or null for none) and
// mfa_required_for_users; fields left out stay as they are. Each change is audited.
func (h *Handlers) updateSettings(w http.ResponseWriter, r *http.Request) error {
	var in map[string]json.RawMessage
	if err := httpx.DecodeJSON(r, h.MaxBody, &in); err != nil {
		return err
	}
	if in == nil {
		return errs.Field("body", "body", "type_error", "Input should be a JSON object.")
	}
	var v errs.Validator
	for f, msg := range readOnlySettings {
		if _, ok := in[f]; ok {
			v.Add("body", f, "read_only", msg)
		}
	}
	var timeout *int64
	raw, setTimeout := in["session_inactivity_timeout"]
	if setTimeout && !isNull(raw) {
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			v.Add("body", "session_inactivity_timeout", "int_type", "Input should be a whole number of seconds, or null for no inactivity logout.")
		} else if n < MinInactivityTimeout || n > MaxInactivityTimeout {
			v.Add("body", "session_inactivity_timeout", "range", "The inactivity timeout must be between 300 seconds (5 minutes) and 2592000 seconds (30 days), or null for none.")
		} else {
			timeout = &n
		}
	}
	var mfa *bool
	if raw, ok := in["mfa_required_for_users"]; ok {
		var b bool
		if isNull(raw) || json.Unmarshal(raw, &b) != nil {
			v.Add("body", "mfa_required_for_users", "bool_type", "Input should be true or false.")
		} else {
			mfa = &b
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := caller(r)
	changes, err := h.Svc.UpdateSettings(r.Context(), c, setTimeout, timeout, mfa)
	// Audit what changed, also when a later change failed.
	for _, ch := range changes {
		h.record(r, audit.Event{Class: "workspace", Activity: "update", Target: c.WorkspaceID,
			Details: audit.Details{"setting": ch.Setting, "from": ch.From, "to": ch.To}})
	}
	if err != nil {
		return err
	}
	return h.settings(w, r)
}

// SettingChange is one workspace setting that changed value.
type SettingChange struct {
	Setting  string
	From, To any
}

// UpdateSettings sets the session inactivity timeout (when setTimeout; nil is none) and whether
// members must use MFA (mfa not nil). An admin must have MFA on before requiring it, or they
// would shut themselves out of everything but enrolment. It reports the settings whose value
// changed, also those changed before a later step failed.
func (s *Service) UpdateSettings(ctx context.Context, c *access.Caller, setTimeout bool, timeout *int64, mfa *bool) ([]SettingChange, error) {
	before, err := s.DB.WorkspaceSettings(ctx, c.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if mfa != nil && *mfa && !before.MFARequiredForUsers {
		m, err := s.DB.UserMFA(ctx, c.UserID)
		if err != nil {
			return nil, err
		}
		if !m.Enabled {
			return nil, errs.Field("body", "mfa_required_for_users", "mfa_not_enabled",
				"Turn on two-factor authentication for your own account before requiring it for the workspace.")
		}
	}
	var changes []SettingChange
	if setTimeout && !sameInt(before.SessionInactivityTimeout, timeout) {
		if err := s.DB.SetSessionInactivityTimeout(ctx, c.WorkspaceID, timeout); err != nil {
			return changes, err
		}
		changes = append(changes, SettingChange{"session_inactivity_timeout", before.SessionInactivityTimeout, timeout})
	}
	if mfa != nil && *mfa != before.MFARequiredForUsers {
		if err := s.DB.SetMFARequired(ctx, c.WorkspaceID, *mfa); err != nil {
			return changes, err
		}
		changes = append(changes, SettingChange{"mfa_required_for_users", before.MFARequiredForUsers, *mfa})
	}
	return changes, nil
}

// isNull says whether a field was sent as null (a map of raw messages holds null as nothing).
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func sameInt(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
