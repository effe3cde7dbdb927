package auth

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// ErrSessionRequired refuses account-security changes made with an API key.
var ErrSessionRequired = errs.Errorf(errs.Forbidden, "session_required", "This can only be done in the web app, signed in with your password.")

func (h *Handlers) securityRoutes(rt *httpx.Router) {
	// MFA.
	rt.Authed("GET /api/auth/mfa", sessionOnly(h.mfaStatus), httpx.Perm("user_read"))
	rt.Authed("POST /api/auth/mfa/totp/enroll", sessionOnly(h.mfaEnroll), httpx.Perm("user_write"))
	rt.Authed("POST /api/auth/mfa/totp/confirm", sessionOnly(h.mfaConfirm), httpx.Perm("user_write"))
	rt.Authed("POST /api/auth/mfa/totp/disable", sessionOnly(h.mfaDisable), httpx.Perm("user_write"))
	rt.Public("POST /api/auth/mfa/verify", h.mfaVerify)
	rt.Authed("POST /v1/user/backup-code", sessionOnly(h.backupCodes), httpx.Perm("user_write"))
	rt.Authed("POST /v1/user/backup-code/{code}/remove-mfa", sessionOnly(h.removeMFA), httpx.Perm("user_write"))
	// Sessions.
	rt.Authed("GET /api/auth/sessions", sessionOnly(h.listSessions), httpx.Perm("user_read"))
	rt.Authed("DELETE /api/auth/sessions", sessionOnly(h.revokeOtherSessions), httpx.Perm("user_write"))
	rt.Authed("DELETE /api/auth/sessions/{session_id}", sessionOnly(h.revokeSession), httpx.Perm("user_write"))
	rt.Authed("POST /api/auth/sign-out-everywhere", sessionOnly(h.signOutEverywhere), httpx.Perm("user_write"))
	// Email actions, email change, consent, support access, deletion.
	rt.Public("POST /api/auth/action", h.emailAction)
	rt.Authed("POST /v1/user/send-email-change-verification", sessionOnly(h.sendEmailChange), httpx.Perm("user_write"))
	rt.Authed("PUT /v1/user/email", sessionOnly(h.changeEmail), httpx.Perm("user_write"))
	rt.Authed("POST /v1/user/opt-out-of-updates", h.optOut, httpx.Perm("user_write"))
	rt.Authed("POST /v1/user/sign-in-requests/verify", sessionOnly(h.verifySignInRequest), httpx.Perm("user_write"))
	rt.Authed("DELETE /v1/user/delete", sessionOnly(h.deleteUser), httpx.Perm("user_write"))
	rt.Authed("POST /v1/user/verify-sensitive-action-code", sessionOnly(h.verifySensitiveActionCode), httpx.Perm("user_write"))
}

// sessionOnly refuses callers authenticated by an API key.
func sessionOnly(next httpx.Handler) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if c := access.CallerFrom(r.Context()); c == nil || !c.ViaSession {
			return ErrSessionRequired
		}
		return next(w, r)
	}
}

type codeBody struct {
	Code       string `json:"code"`
	Password   string `json:"password"` // optional proof for sensitive actions
	BackupCode string `json:"backup_code"`
	MFAToken   string `json:"mfa_token"`
}

// decodeOptional reads a JSON body when there is one.
func (h *Handlers) decodeOptional(r *http.Request, dst any) error {
	if r.ContentLength == 0 {
		return nil
	}
	return httpx.DecodeJSON(r, h.MaxBody, dst)
}

func (h *Handlers) mfaStatus(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	m, err := h.Svc.DB.UserMFA(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	required := false
	if st, _ := h.Svc.currentSession(r); st != nil {
		required = st.MFARequired
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"totp_enabled": m.Enabled, "totp_enabled_at_unix": m.EnabledAt,
		"backup_codes_remaining": m.BackupLeft, "mfa_required_for_users": required})
	return nil
}

func (h *Handlers) mfaEnroll(w http.ResponseWriter, r *http.Request) error {
	var b codeBody
	if err := h.decodeOptional(r, &b); err != nil {
		return err
	}
	e, err := h.Svc.StartTOTP(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, sessionProof(r, b.Password))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"secret": e.Secret, "otpauth_url": e.OTPAuthURL})
	return nil
}

func (h *Handlers) mfaConfirm(w http.ResponseWriter, r *http.Request) error {
	var b codeBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	_, token := h.Svc.currentSession(r)
	codes, err := h.Svc.ConfirmTOTP(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, token, strings.TrimSpace(b.Code))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"totp_enabled": true, "backup_codes": codes})
	return nil
}

func (h *Handlers) mfaDisable(w http.ResponseWriter, r *http.Request) error {
	var b codeBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	if err := h.Svc.DisableTOTP(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, strings.TrimSpace(b.Code), b.BackupCode, sessionProof(r, b.Password)); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) mfaVerify(w http.ResponseWriter, r *http.Request) error {
	var b codeBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	res, err := h.Svc.VerifyMFA(r.Context(), ClientOf(r), b.MFAToken, strings.TrimSpace(b.Code), b.BackupCode)
	if err != nil {
		if errors.Is(err, ErrTooManyAttempts) {
			w.Header().Set("Retry-After", "900")
		}
		return err
	}
	SetSessionCookies(w, res.Token, res.CSRF)
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": res.User.ID, "email": res.User.Email, "workspace_id": res.User.WorkspaceID, "redirect_to": res.RedirectTo})
	return nil
}

func (h *Handlers) backupCodes(w http.ResponseWriter, r *http.Request) error {
	var b codeBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	codes, err := h.Svc.RegenerateBackupCodes(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, strings.TrimSpace(b.Code))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"backup_codes": codes})
	return nil
}

func (h *Handlers) removeMFA(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Password string `json:"password"`
	}
	if err := h.decodeOptional(r, &b); err != nil {
		return err
	}
	if err := h.Svc.RemoveMFAWithBackupCode(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, r.PathValue("code"), sessionProof(r, b.Password)); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) listSessions(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	cur, _ := h.Svc.currentSession(r)
	list, err := h.Svc.DB.ListSessions(r.Context(), c.UserID, h.Svc.now())
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(list))
	for _, s := range list {
		out = append(out, map[string]any{"session_id": s.PublicID, "workspace_id": s.WorkspaceID, "user_agent": s.UserAgent, "ip_address": s.IP,
			"created_at_unix": s.CreatedAt, "last_seen_unix": s.LastSeen, "expires_at_unix": s.ExpiresAt, "current": cur != nil && cur.PublicID == s.PublicID})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"sessions": out})
	return nil
}

func (h *Handlers) revokeSession(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	id := r.PathValue("session_id")
	cur, _ := h.Svc.currentSession(r)
	if err := h.Svc.DB.DeleteSessionByPublicID(r.Context(), c.UserID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errs.Errorf(errs.NotFound, "session_not_found", "No session of yours has that id.")
		}
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "session", Activity: "revoke", Target: id})
	if cur != nil && cur.PublicID == id {
		ClearSessionCookies(w)
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) revokeOtherSessions(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	_, token := h.Svc.currentSession(r)
	n, err := h.Svc.DB.DeleteUserSessions(r.Context(), c.UserID, token)
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "session", Activity: "revoke_others", Target: c.UserID,
		Details: map[string]any{"count": n}})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "revoked": n})
	return nil
}

func (h *Handlers) signOutEverywhere(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	n, err := h.Svc.DB.DeleteUserSessions(r.Context(), c.UserID, "")
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "session", Activity: "sign_out_everywhere", Target: c.UserID,
		Details: map[string]any{"count": n}})
	ClearSessionCookies(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// emailAction serves the email-action handler's modes (spec §2).
func (h *Handlers) emailAction(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Mode          string `json:"mode"`
		Code          string `json:"code"`
		ContinueURL   string `json:"continue_url"`
		RevokeAPIKeys bool   `json:"revoke_api_keys"` // recoverEmail: revoke the account's API keys too
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	ctx, cl := r.Context(), ClientOf(r)
	out := map[string]any{"mode": b.Mode}
	if b.ContinueURL != "" {
		target, ok := SafeRedirect(b.ContinueURL, h.Svc.PublicURL)
		if !ok {
			h.unsafeRedirect(r, nil, b.ContinueURL)
		}
		out["continue_url"] = target
	}
	switch b.Mode {
	case "verifyEmail", "resetPassword", "recoverEmail", "optOutOfUpdates":
		if strings.TrimSpace(b.Code) == "" {
			return errs.Field("body", "code", "missing", "Field required.")
		}
	}
	switch b.Mode {
	case "verifyEmail":
		var u *store.User
		if err := h.Svc.withCodeLimit(ctx, cl, func() error {
			var err error
			u, err = h.Svc.VerifyEmail(ctx, b.Code)
			return err
		}); err != nil {
			return err
		}
		out["email"], out["message"] = u.Email, MsgEmailVerified
	case "resetPassword":
		var email string
		if err := h.Svc.withCodeLimit(ctx, cl, func() error {
			var err error
			email, err = h.Svc.CheckResetCode(ctx, b.Code)
			return err
		}); err != nil {
			return err
		}
		out["email"], out["redirect_to"] = email, "/app/sign-in/reset-password?mode=resetPassword&oobCode="+b.Code
	case "recoverEmail":
		u, err := h.Svc.RecoverEmail(ctx, cl, b.Code, b.RevokeAPIKeys)
		if err != nil {
			return err
		}
		ClearSessionCookies(w)
		out["email"], out["message"] = u.Email, MsgEmailRecovered
	case "optOutOfUpdates":
		if err := h.Svc.OptOutOfUpdates(ctx, cl, b.Code); err != nil {
			return err
		}
		out["message"] = MsgOptedOut
	case "verifySignInRequest":
		c, err := h.Svc.Authenticate(r)
		if err != nil {
			return err
		}
		if c == nil || !c.ViaSession {
			return ErrSignInRequired
		}
		g, err := h.Svc.GrantSupportAccess(ctx, cl, c.UserID, b.Code)
		if err != nil {
			return err
		}
		out["message"], out["redirect_to"], out["expires_at_unix"] = MsgSupportGranted, "/", g.ExpiresAt
	default:
		return ErrUnknownMode
	}
	out["status"] = "ok"
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) sendEmailChange(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	if err := h.Svc.SendEmailChangeVerification(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, b.Email, sessionProof(r, b.Password)); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) changeEmail(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if v := q.Get("is_reverting"); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			return errs.Field("query", "is_reverting", "bool_parsing", "Input should be a valid boolean.")
		}
	}
	_, token := h.Svc.currentSession(r)
	email, err := h.Svc.ChangeEmail(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, token, q.Get("verification_code"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "email": email, "message": MsgEmailUpdated})
	return nil
}

func (h *Handlers) optOut(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	if err := h.Svc.DB.SetProductUpdates(r.Context(), c.UserID, false); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "auth", Activity: "opted_out_of_updates", Target: c.UserID})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "message": MsgOptedOut})
	return nil
}

func (h *Handlers) verifySignInRequest(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Code string `json:"sign_in_request_verification_code"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	g, err := h.Svc.GrantSupportAccess(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, b.Code)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "message": MsgSupportGranted, "expires_at_unix": g.ExpiresAt})
	return nil
}

func (h *Handlers) deleteUser(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Password string `json:"password"`
	}
	if err := h.decodeOptional(r, &b); err != nil {
		return err
	}
	del, err := h.Svc.DeleteAccount(r.Context(), ClientOf(r), access.CallerFrom(r.Context()), sessionProof(r, b.Password))
	if err != nil {
		return err
	}
	ClearSessionCookies(w)
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "workspaces_deleted": len(del.Workspaces), "workspaces_left": len(del.Left)})
	return nil
}
