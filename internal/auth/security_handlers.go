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

type mfaStatusResponse struct {
	TOTPEnabled          bool   `json:"totp_enabled"`
	TOTPEnabledAtUnix    *int64 `json:"totp_enabled_at_unix"`
	BackupCodesRemaining int    `json:"backup_codes_remaining"`
	MFARequiredForUsers  bool   `json:"mfa_required_for_users"`
}

// totpEnrollment is a pending TOTP secret, shown until a code confirms it.
type totpEnrollment struct {
	Secret     string `json:"secret"`
	OTPAuthURL string `json:"otpauth_url"`
}

type totpConfirmed struct {
	TOTPEnabled bool     `json:"totp_enabled"` // always true
	BackupCodes []string `json:"backup_codes"`
}

type backupCodesResponse struct {
	BackupCodes []string `json:"backup_codes"`
}

// sessionInfo is one of the user's signed-in sessions.
type sessionInfo struct {
	SessionID     string `json:"session_id"`
	WorkspaceID   string `json:"workspace_id"`
	UserAgent     string `json:"user_agent"`
	IPAddress     string `json:"ip_address"`
	CreatedAtUnix int64  `json:"created_at_unix"`
	LastSeenUnix  int64  `json:"last_seen_unix"`
	ExpiresAtUnix int64  `json:"expires_at_unix"`
	Current       bool   `json:"current"`
}

type sessionList struct {
	Sessions []sessionInfo `json:"sessions"`
}

type sessionsRevoked struct {
	Status  string `json:"status"`
	Revoked int64  `json:"revoked"`
}

// emailActionResponse answers the email-action handler; which fields are set depends on the mode.
type emailActionResponse struct {
	Mode          string  `json:"mode"`
	ContinueURL   *string `json:"continue_url,omitempty"`
	Email         string  `json:"email,omitempty"`
	Message       string  `json:"message,omitempty"`
	RedirectTo    string  `json:"redirect_to,omitempty"`
	ExpiresAtUnix int64   `json:"expires_at_unix,omitempty"`
	Status        string  `json:"status"`
}

// statusMessage is "ok" with a sentence for the user.
type statusMessage struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

type emailChanged struct {
	Status  string `json:"status"`
	Email   string `json:"email"`
	Message string `json:"message"`
}

type supportAccessGranted struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	ExpiresAtUnix int64  `json:"expires_at_unix"`
}

type accountDeleted struct {
	Status            string `json:"status"`
	WorkspacesDeleted int    `json:"workspaces_deleted"`
	WorkspacesLeft    int    `json:"workspaces_left"`
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
	httpx.WriteJSON(w, http.StatusOK, mfaStatusResponse{TOTPEnabled: m.Enabled, TOTPEnabledAtUnix: m.EnabledAt,
		BackupCodesRemaining: m.BackupLeft, MFARequiredForUsers: required})
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
	httpx.WriteJSON(w, http.StatusOK, totpEnrollment{Secret: e.Secret, OTPAuthURL: e.OTPAuthURL})
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
	httpx.WriteJSON(w, http.StatusOK, totpConfirmed{TOTPEnabled: true, BackupCodes: codes})
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
	httpx.WriteJSON(w, http.StatusOK, signedInAs(res))
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
	httpx.WriteJSON(w, http.StatusOK, backupCodesResponse{BackupCodes: codes})
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
	out := make([]sessionInfo, 0, len(list))
	for _, s := range list {
		out = append(out, sessionInfo{SessionID: s.PublicID, WorkspaceID: s.WorkspaceID, UserAgent: s.UserAgent, IPAddress: s.IP,
			CreatedAtUnix: s.CreatedAt, LastSeenUnix: s.LastSeen, ExpiresAtUnix: s.ExpiresAt, Current: cur != nil && cur.PublicID == s.PublicID})
	}
	httpx.WriteJSON(w, http.StatusOK, sessionList{Sessions: out})
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
		Details: audit.Details{"count": n}})
	httpx.WriteJSON(w, http.StatusOK, sessionsRevoked{Status: "ok", Revoked: n})
	return nil
}

func (h *Handlers) signOutEverywhere(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	n, err := h.Svc.DB.DeleteUserSessions(r.Context(), c.UserID, "")
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "session", Activity: "sign_out_everywhere", Target: c.UserID,
		Details: audit.Details{"count": n}})
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
	out := emailActionResponse{Mode: b.Mode}
	if b.ContinueURL != "" {
		target, ok := SafeRedirect(b.ContinueURL, h.Svc.PublicURL)
		if !ok {
			h.unsafeRedirect(r, nil, b.ContinueURL)
		}
		out.ContinueURL = &target
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
		out.Email, out.Message = u.Email, MsgEmailVerified
	case "resetPassword":
		var email string
		if err := h.Svc.withCodeLimit(ctx, cl, func() error {
			var err error
			email, err = h.Svc.CheckResetCode(ctx, b.Code)
			return err
		}); err != nil {
			return err
		}
		out.Email, out.RedirectTo = email, "/app/sign-in/reset-password?mode=resetPassword&oobCode="+b.Code
	case "recoverEmail":
		u, err := h.Svc.RecoverEmail(ctx, cl, b.Code, b.RevokeAPIKeys)
		if err != nil {
			return err
		}
		ClearSessionCookies(w)
		out.Email, out.Message = u.Email, MsgEmailRecovered
	case "optOutOfUpdates":
		if err := h.Svc.OptOutOfUpdates(ctx, cl, b.Code); err != nil {
			return err
		}
		out.Message = MsgOptedOut
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
		out.Message, out.RedirectTo, out.ExpiresAtUnix = MsgSupportGranted, "/", g.ExpiresAt
	default:
		return ErrUnknownMode
	}
	out.Status = "ok"
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
	httpx.WriteJSON(w, http.StatusOK, emailChanged{Status: "ok", Email: email, Message: MsgEmailUpdated})
	return nil
}

func (h *Handlers) optOut(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	if err := h.Svc.DB.SetProductUpdates(r.Context(), c.UserID, false); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "auth", Activity: "opted_out_of_updates", Target: c.UserID})
	httpx.WriteJSON(w, http.StatusOK, statusMessage{Status: "ok", Message: MsgOptedOut})
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
	httpx.WriteJSON(w, http.StatusOK, supportAccessGranted{Status: "ok", Message: MsgSupportGranted, ExpiresAtUnix: g.ExpiresAt})
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
	httpx.WriteJSON(w, http.StatusOK, accountDeleted{Status: "ok", WorkspacesDeleted: len(del.Workspaces), WorkspacesLeft: len(del.Left)})
	return nil
}
