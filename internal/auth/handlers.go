package auth

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/audit"
	"timbre/internal/errs"
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
	rt.Authed("POST /api/auth/change-password", sessionOnly(h.changePassword), httpx.Perm("user_write"))
	rt.Public("GET /api/dev/mailbox", h.mailbox)
	// Listing and deleting keys is key management: it needs the permission that creating does.
	rt.Authed("GET /v1/user/api-keys", h.listKeys, httpx.Perm("create_user_api_key"))
	rt.Authed("POST /v1/user/create-api-key", h.createKey, httpx.Perm("create_user_api_key"), httpx.Feature("create_user_api_key"))
	rt.Authed("DELETE /v1/user/delete-api-key", h.deleteKey, httpx.Perm("create_user_api_key"))
	rt.Authed("GET /v1/user/referral-link", h.referralLink, httpx.Perm("user_read"))
	rt.Authed("POST /v1/single-use-token/{token_type}", h.singleUseToken)
	h.securityRoutes(rt)
}

// singleUseToken answers POST /v1/single-use-token/{token_type}.
func (h *Handlers) singleUseToken(w http.ResponseWriter, r *http.Request) error {
	token, err := h.Svc.CreateSingleUseToken(r.Context(), access.CallerFrom(r.Context()), r.PathValue("token_type"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		Token string `json:"token"`
	}{token})
	return nil
}

// signedUp answers a sign-up.
type signedUp struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
}

// signedIn is the user a new session belongs to.
type signedIn struct {
	UserID      string `json:"user_id"`
	Email       string `json:"email"`
	WorkspaceID string `json:"workspace_id"`
	RedirectTo  string `json:"redirect_to"`
}

// signInResponse answers a sign-in that made a session.
type signInResponse struct {
	signedIn
	MFARequired           bool `json:"mfa_required"` // always false: see mfaChallenge
	MFAEnrollmentRequired bool `json:"mfa_enrollment_required"`
}

// mfaChallenge answers a sign-in that needs a second factor before it makes a session.
type mfaChallenge struct {
	MFARequired bool   `json:"mfa_required"` // always true
	MFAToken    string `json:"mfa_token"`
	RedirectTo  string `json:"redirect_to"`
}

// sessionResponse describes the signed-in user of GET /v1/auth/session.
type sessionResponse struct {
	UserID                string `json:"user_id"`
	Email                 string `json:"email"`
	EmailVerified         bool   `json:"email_verified"`
	WorkspaceID           string `json:"workspace_id"`
	FirstName             string `json:"first_name"`
	TOTPEnabled           bool   `json:"totp_enabled"`
	MFAEnrollmentRequired bool   `json:"mfa_enrollment_required"`
}

// emailResponse names the account a code belonged to.
type emailResponse struct {
	Email string `json:"email"`
}

// mailMessage is one message in the development mailbox.
type mailMessage struct {
	ID            string `json:"id"`
	To            string `json:"to"`
	Subject       string `json:"subject"`
	Text          string `json:"text"`
	HTML          string `json:"html"`
	CreatedAtUnix int64  `json:"created_at_unix"`
}

type mailboxResponse struct {
	Messages []mailMessage `json:"messages"`
}

type keyList struct {
	APIKeys []apikey.Key `json:"api_keys"`
}

// keyCreated shows a new user key's secret this once.
type keyCreated struct {
	KeyID         string `json:"key_id"`
	Name          string `json:"name"`
	XIAPIKey      string `json:"xi_api_key"`
	KeyPreview    string `json:"key_preview"`
	CreatedAtUnix int64  `json:"created_at_unix"`
}

type credentials struct {
	Email         string `json:"email"`
	Password      string `json:"password"`
	TermsAccepted bool   `json:"terms_accepted"`
	Code          string `json:"code"`
	Redirect      string `json:"redirect"`
	InviteCode    string `json:"invite_code"`
	ReferralCode  string `json:"referral_code"`
	RevokeAPIKeys bool   `json:"revoke_api_keys"` // reset: revoke the account's API keys too
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
	u, err := h.Svc.SignUpWith(r.Context(), SignUpInput{Email: c.Email, Password: c.Password, TermsAccepted: c.TermsAccepted,
		InviteCode: c.InviteCode, ReferralCode: c.ReferralCode, Client: ClientOf(r)})
	if errors.Is(err, ErrEmailTaken) {
		// The owner was mailed; the caller gets a fresh sign-up's answer (a random id no account has).
		u, err = &store.User{ID: store.NewID(), Email: strings.ToLower(strings.TrimSpace(c.Email))}, nil
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, signedUp{UserID: u.ID, Email: u.Email})
	return nil
}

func (h *Handlers) signIn(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	in := SignInInput{Email: c.Email, Password: c.Password, Redirect: c.Redirect}
	if old, err := r.Cookie(SessionCookie); err == nil {
		in.PriorSession = old.Value
	}
	res, err := h.Svc.SignInFrom(r.Context(), ClientOf(r), in)
	if err != nil {
		if errors.Is(err, ErrTooManyAttempts) || errors.Is(err, ErrAccountLocked) {
			w.Header().Set("Retry-After", "900")
		}
		return err
	}
	if res.UnsafeRedirect {
		h.unsafeRedirect(r, res.User, c.Redirect)
	}
	if res.MFAToken != "" {
		// No session yet: the browser's old one (if any) has ended.
		ClearSessionCookies(w)
		httpx.WriteJSON(w, http.StatusOK, mfaChallenge{MFARequired: true, MFAToken: res.MFAToken, RedirectTo: res.RedirectTo})
		return nil
	}
	SetSessionCookies(w, res.Token, res.CSRF)
	httpx.WriteJSON(w, http.StatusOK, signInResponse{signedIn: signedInAs(res), MFAEnrollmentRequired: res.MFAEnrollmentRequired})
	return nil
}

func signedInAs(res *SignInResult) signedIn {
	return signedIn{UserID: res.User.ID, Email: res.User.Email, WorkspaceID: res.User.WorkspaceID, RedirectTo: res.RedirectTo}
}

// unsafeRedirect logs a refused redirect (spec §2: the attempt is logged).
func (h *Handlers) unsafeRedirect(r *http.Request, u *store.User, target string) {
	if len(target) > 300 {
		target = target[:300]
	}
	httpx.Logger(r.Context()).Warn("unsafe redirect refused", "redirect", target, "path", r.URL.Path)
	if u != nil {
		h.Svc.audit(r.Context(), ClientOf(r), u, "auth", "unsafe_redirect_refused", audit.Details{"redirect": target})
	}
}

func (h *Handlers) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		// Signing out needs the CSRF token too, or another site could sign users out.
		caller, err := h.Svc.Authenticate(r)
		if err != nil {
			return err
		}
		if err := h.Svc.DB.DeleteSession(r.Context(), c.Value); err != nil {
			return err
		}
		if caller != nil {
			audit.Record(r.Context(), h.Svc.DB, r, caller.UserID, "", audit.Event{WorkspaceID: caller.WorkspaceID, Class: "session", Activity: "sign_out", Target: caller.UserID})
		}
	}
	ClearSessionCookies(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handlers) session(w http.ResponseWriter, r *http.Request) error {
	c, err := h.Svc.Authenticate(r)
	if err != nil {
		return err
	}
	if c == nil {
		return errs.Errorf(errs.Unauthenticated, "unauthorized", "Not signed in.")
	}
	u, err := h.Svc.DB.UserByID(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	m, err := h.Svc.DB.UserMFA(r.Context(), u.ID)
	if err != nil {
		return err
	}
	enrol := false
	if st, _ := h.Svc.currentSession(r); st != nil && c.ViaSession {
		enrol = st.MFARequired && !st.TOTPEnabled
	}
	httpx.WriteJSON(w, http.StatusOK, sessionResponse{UserID: u.ID, Email: u.Email, EmailVerified: u.EmailVerified,
		WorkspaceID: c.WorkspaceID, FirstName: u.FirstName, TOTPEnabled: m.Enabled, MFAEnrollmentRequired: enrol})
	return nil
}

func (h *Handlers) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	var u *store.User
	if err := h.Svc.withCodeLimit(r.Context(), ClientOf(r), func() error {
		var err error
		u, err = h.Svc.VerifyEmail(r.Context(), c.Code)
		return err
	}); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, emailResponse{Email: u.Email})
	return nil
}

func (h *Handlers) sendVerification(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	if err := h.Svc.SendVerificationFrom(r.Context(), ClientOf(r), c.Email); err != nil {
		return err
	}
	httpx.OK(w) // the same answer whether or not the account exists
	return nil
}

func (h *Handlers) sendReset(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	if err := h.Svc.SendPasswordResetFrom(r.Context(), ClientOf(r), c.Email); err != nil {
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
	var email string
	if err := h.Svc.withCodeLimit(r.Context(), ClientOf(r), func() error {
		var err error
		email, err = h.Svc.CheckResetCode(r.Context(), c.Code)
		return err
	}); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, emailResponse{Email: email})
	return nil
}

func (h *Handlers) resetPassword(w http.ResponseWriter, r *http.Request) error {
	c, err := h.decode(r)
	if err != nil {
		return err
	}
	if err := h.Svc.withCodeLimit(r.Context(), ClientOf(r), func() error {
		return h.Svc.ResetPassword(r.Context(), c.Code, c.Password, c.RevokeAPIKeys)
	}); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) mailbox(w http.ResponseWriter, r *http.Request) error {
	if !h.Svc.Mail.Mailbox() {
		return errs.Errorf(errs.NotFound, "not_found", "The development mailbox is off: mail is sent through SMTP.")
	}
	// The mailbox holds every user's verification and reset links, so it answers only requests
	// from this machine (the out-of-the-box setup at http://localhost:8080).
	if !fromLoopback(r) || !h.localHost(r.Host) {
		return errs.Errorf(errs.Forbidden, "mailbox_local_only", "The development mailbox is only readable from the server's own machine. Configure SMTP (TIMBRE_SMTP_HOST) to send mail.")
	}
	msgs, err := h.Svc.DB.ListMail(r.Context(), 100)
	if err != nil {
		return err
	}
	out := make([]mailMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, mailMessage{ID: m.ID, To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML, CreatedAtUnix: m.CreatedAt})
	}
	httpx.WriteJSON(w, http.StatusOK, mailboxResponse{Messages: out})
	return nil
}

func (h *Handlers) listKeys(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	keys, err := h.Svc.DB.ListAPIKeys(r.Context(), c.WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]apikey.Key, 0, len(keys))
	for i := range keys {
		out = append(out, apikey.KeyJSON(&keys[i]))
	}
	httpx.WriteJSON(w, http.StatusOK, keyList{APIKeys: out})
	return nil
}

func (h *Handlers) createKey(w http.ResponseWriter, r *http.Request) error {
	nk, err := apikey.DecodeNewKey(r, h.MaxBody, false) // permissions default to "all"
	if err != nil {
		return err
	}
	k, secret, err := h.Svc.CreateUserKey(r.Context(), access.CallerFrom(r.Context()), nk)
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "api_key", Activity: "create", Target: k.ID,
		Details: audit.Details{"name": k.Name, "permissions": k.Permissions, "character_limit": k.CharacterLimit}})
	httpx.WriteJSON(w, http.StatusOK, keyCreated{KeyID: k.ID, Name: k.Name, XIAPIKey: secret, KeyPreview: k.Preview, CreatedAtUnix: k.CreatedAt})
	return nil
}

func (h *Handlers) deleteKey(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.URL.Query().Get("key_id"))
	if id == "" {
		return errs.Field("query", "key_id", "missing", "Field required.")
	}
	c := access.CallerFrom(r.Context())
	notFound := errs.Errorf(errs.NotFound, "api_key_not_found", "No API key with that id in this workspace.")
	k, err := h.Svc.DB.APIKeyByID(r.Context(), c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && k.ServiceAccount) {
		return notFound
	}
	if err != nil {
		return err
	}
	if k.UserID != c.UserID && c.Role != access.RoleAdmin {
		return httpx.ErrForbiddenRole // editors delete only their own keys
	}
	if err := h.Svc.DB.DeleteAPIKey(r.Context(), c.WorkspaceID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound
		}
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "api_key", Activity: "delete", Target: k.ID, Details: audit.Details{"name": k.Name}})
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
// localHost says whether a request's Host names this machine (localhost, a loopback address) or
// the server's public URL. A page whose own name was re-pointed at 127.0.0.1 (DNS rebinding)
// reaches the server from loopback, but under its own name, and so is refused.
func (h *Handlers) localHost(host string) bool {
	if pub, err := url.Parse(h.Svc.PublicURL); err == nil && strings.EqualFold(pub.Host, host) {
		return true
	}
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}
