package auth

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Handlers serves the sign-up/sign-in routes (/api/auth), the development mailbox, and the
// user's API keys.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Public("POST /api/auth/sign-up", h.signUp)
	rt.Public("POST /api/auth/sign-in", h.signIn)
	rt.Public("POST /api/auth/sign-out", h.signOut)
	rt.Public("GET /api/auth/session", h.session)
	rt.Public("POST /api/auth/verify-email", h.verifyEmail)
	rt.Public("POST /api/auth/send-verification-email", h.sendVerification)
	rt.Public("POST /api/auth/send-password-reset-email", h.sendReset)
	rt.Public("POST /api/auth/check-reset-code", h.checkResetCode)
	rt.Public("POST /api/auth/reset-password", h.resetPassword)
	rt.Public("GET /api/dev/mailbox", h.mailbox)
	rt.Authed("GET /v1/user/api-keys", h.listKeys)
	rt.Authed("POST /v1/user/create-api-key", h.createKey)
	rt.Authed("DELETE /v1/user/delete-api-key", h.deleteKey)
}

type credentials struct {
	Email         string `json:"email"`
	Password      string `json:"password"`
	TermsAccepted bool   `json:"terms_accepted"`
	Code          string `json:"code"`
}

func (h *Handlers) decode(r *http.Request) (*credentials, error) {
	var c credentials
	if err := httpx.DecodeJSON(r, h.MaxBody, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (h *Handlers) signUp(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	u, err := h.Svc.SignUp(r.Context(), c.Email, c.Password, c.TermsAccepted)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, map[string]any{"user_id": u.ID, "email": u.Email})
	return nil
}

func (h *Handlers) signIn(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	u, token, csrf, err := h.Svc.SignIn(r.Context(), c.Email, c.Password)
	if err != nil {
		return err
	}
	setCookie(w, SessionCookie, token, true, cookieMaxAge)
	setCookie(w, CSRFCookie, csrf, false, cookieMaxAge)
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "email": u.Email, "workspace_id": u.WorkspaceID})
	return nil
}

func (h *Handlers) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		// Signing out needs the CSRF token too, or another site could sign users out.
		if _, err := h.Svc.Authenticate(r); err != nil {
			return err
		}
		if err := h.Svc.DB.DeleteSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	setCookie(w, SessionCookie, "", true, -1)
	setCookie(w, CSRFCookie, "", false, -1)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handlers) session(w http.ResponseWriter, r *http.Request) error {
	c, err := h.Svc.Authenticate(r)
	if err != nil {
		return err
	}
	if c == nil {
		return httpx.Errorf(http.StatusUnauthorized, "unauthorized", "Not signed in.")
	}
	u, err := h.Svc.DB.UserByID(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "email": u.Email, "email_verified": u.EmailVerified,
		"workspace_id": c.WorkspaceID, "first_name": u.FirstName})
	return nil
}

func (h *Handlers) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	u, err := h.Svc.VerifyEmail(r.Context(), c.Code)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"email": u.Email})
	return nil
}

func (h *Handlers) sendVerification(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	u, err := h.Svc.DB.UserByEmail(r.Context(), c.Email)
	if err == nil {
		if err := h.Svc.SendVerification(r.Context(), u); err != nil {
			return err
		}
	}
	httpx.OK(w) // the same answer whether or not the account exists
	return nil
}

func (h *Handlers) sendReset(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	if err := h.Svc.SendPasswordReset(r.Context(), c.Email); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) checkResetCode(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	email, err := h.Svc.CheckResetCode(r.Context(), c.Code)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"email": email})
	return nil
}

func (h *Handlers) resetPassword(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	if err := h.Svc.ResetPassword(r.Context(), c.Code, c.Password); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) mailbox(w http.ResponseWriter, r *http.Request) error {
	if !h.Svc.Mail.Mailbox() {
		return httpx.Errorf(http.StatusNotFound, "not_found", "The development mailbox is off: mail is sent through SMTP.")
	}
	// The mailbox holds every user's verification and reset links, so it answers only requests
	// from this machine (the out-of-the-box setup at http://localhost:8080).
	if !fromLoopback(r) {
		return httpx.Errorf(http.StatusForbidden, "mailbox_local_only", "The development mailbox is only readable from the server's own machine. Configure SMTP (TIMBRE_SMTP_HOST) to send mail.")
	}
	msgs, err := h.Svc.DB.ListMail(r.Context(), 100)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, map[string]any{"id": m.ID, "to": m.To, "subject": m.Subject, "text": m.Text, "html": m.HTML, "created_at_unix": m.CreatedAt})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"messages": out})
	return nil
}

func (h *Handlers) listKeys(w http.ResponseWriter, r *http.Request) error {
	c := httpx.CallerFrom(r.Context())
	keys, err := h.Svc.DB.ListAPIKeys(r.Context(), c.WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, map[string]any{"key_id": k.ID, "name": k.Name, "key_preview": k.Preview, "created_at_unix": k.CreatedAt, "last_used_unix": k.LastUsed})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"api_keys": out})
	return nil
}

func (h *Handlers) createKey(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	c := httpx.CallerFrom(r.Context())
	k, secret, err := h.Svc.CreateAPIKey(r.Context(), c.UserID, c.WorkspaceID, body.Name)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"key_id": k.ID, "name": k.Name, "xi_api_key": secret, "key_preview": k.Preview, "created_at_unix": k.CreatedAt})
	return nil
}

func (h *Handlers) deleteKey(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.URL.Query().Get("key_id"))
	if id == "" {
		return httpx.Invalid("query", "key_id", "missing", "Field required.")
	}
	if err := h.Svc.DB.DeleteAPIKey(r.Context(), httpx.CallerFrom(r.Context()).WorkspaceID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return httpx.Errorf(http.StatusNotFound, "api_key_not_found", "No API key with that id in this workspace.")
		}
		return err
	}
	httpx.OK(w)
	return nil
}

func setCookie(w http.ResponseWriter, name, value string, httpOnly bool, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: httpOnly, Secure: true, SameSite: http.SameSiteStrictMode}
	if maxAge < 0 {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(maxAge / time.Second)
	}
	http.SetCookie(w, c)
}

// fromLoopback says whether the request came straight from this machine (no proxy in between).
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}
