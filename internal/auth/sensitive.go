package auth

import (
	"context"
	"errors"
	"html"
	"net/http"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
)

// Sensitive-action verification (spec §7 POST /v1/user/verify-sensitive-action-code): deleting
// the account, changing the email or turning 2FA off from a session older than recentSignIn,
// without the password, first needs a 6-digit code mailed to the account's address.
const (
	sensitiveCodeTTL = 10 * time.Minute
	// sensitiveVerifiedFor is how long a verified session may do sensitive actions.
	sensitiveVerifiedFor = 10 * time.Minute
	// MsgSensitiveActionVerified is the spec's §8 text after a good code.
	MsgSensitiveActionVerified = "Email access verified. Please try the action again."
)

// Limits of the sensitive-action codes: mails per account, wrong codes per account.
var (
	LimitSensitiveMail     = limit{"sensitive_mail_account", 5, time.Hour}
	LimitSensitiveCodeUser = limit{"sensitive_code_account", 5, 15 * time.Minute}
)

// ErrSensitiveVerificationRequired answers a sensitive action that needs the mailed code first.
var ErrSensitiveVerificationRequired = errs.Errorf(errs.Forbidden, "sensitive_action_verification_required",
	"For your security, we emailed you a link with a 6-digit code. Open it to confirm it's you, then try again (or confirm with your password).")

// ErrInvalidSensitiveCode answers a wrong, used or expired sensitive-action code.
var ErrInvalidSensitiveCode = errs.Errorf(errs.Invalid, "invalid_verification_code", "The verification code is wrong or has expired.")

// SensitiveProof is what a sensitive request proves about its caller.
type SensitiveProof struct {
	Password string // "" when the request carries none
	Token    string // the session token; "" for API-key callers
	// Skip lets the action through unchecked (the operator's own tooling).
	Skip bool
	// NotByAge refuses the fresh-session pass: the caller must show the password or a mailed
	// code (enrolling an authenticator, which a session thief would otherwise keep).
	NotByAge bool
}

// sessionProof is the proof of a request: its session token, and the password it carries.
func sessionProof(r *http.Request, password string) SensitiveProof {
	p := SensitiveProof{Password: password}
	if c, err := r.Cookie(SessionCookie); err == nil {
		p.Token = c.Value
	}
	return p
}

// checkSensitive lets a sensitive action through when the request carries the right password,
// the session is fresh (opened within recentSignIn), or it passed a sensitive-action code within
// sensitiveVerifiedFor. Otherwise it mails a code and answers ErrSensitiveVerificationRequired.
func (s *Service) checkSensitive(ctx context.Context, c Client, u *store.User, p SensitiveProof) error {
	if p.Skip {
		return nil
	}
	if p.Password != "" {
		if err := s.signInAttempt(ctx, u.Email, c.IP); err != nil { // counted before the check
			return err
		}
		if !CheckPassword(u.PasswordHash, p.Password) {
			return ErrInvalidCredentials
		}
		s.forget(ctx, LimitSignInAccount, u.Email+" "+c.IP)
		return nil
	}
	if p.Token == "" {
		return ErrSessionRequired
	}
	now := s.now().Unix()
	st, err := s.DB.SessionStateByToken(ctx, p.Token, s.now())
	if err != nil {
		return orNotFound(err, ErrSessionRequired)
	}
	if !p.NotByAge && now-st.CreatedAt <= int64(recentSignIn.Seconds()) {
		return nil
	}
	at, err := s.DB.SessionSensitiveVerifiedAt(ctx, p.Token)
	if err != nil {
		return orNotFound(err, ErrSessionRequired)
	}
	if at > 0 && now-at <= int64(sensitiveVerifiedFor.Seconds()) {
		return nil
	}
	if err := s.sendSensitiveCode(ctx, c, u); err != nil {
		return err
	}
	return ErrSensitiveVerificationRequired
}

func orNotFound(err, otherwise error) error {
	if errors.Is(err, store.ErrNotFound) {
		return otherwise
	}
	return err
}

// sendSensitiveCode mails a fresh 6-digit code (stored hashed, 10 minutes, single use) under the
// per-account mail limit.
func (s *Service) sendSensitiveCode(ctx context.Context, c Client, u *store.User) error {
	if err := s.request(ctx, LimitSensitiveMail, u.ID); err != nil {
		return err
	}
	code, err := s.newActionCode(ctx, u.ID, store.CodeSensitiveAction, "", sensitiveCodeTTL)
	if err != nil {
		return err
	}
	s.audit(ctx, c, u, "auth", "sensitive_action_code_sent", nil)
	// The email-action link (spec §3 sensitiveActionVerificationCode) verifies the browser's
	// signed-in session, the same as typing the code.
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/action?sensitiveActionVerificationCode=" + code + "&lang=en"
	return s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: "Your Timbre verification code",
		Text:    "Someone signed in to your Timbre account asked to make a sensitive change (delete the account, change its email or turn two-factor authentication off).\n\nYour verification code is " + code + " (valid for 10 minutes). Or open this link in the browser you are signed in with:\n\n" + link + "\n\nIf it wasn't you, change your password now.",
		HTML:    `<p>Someone signed in to your Timbre account asked to make a sensitive change (delete the account, change its email or turn two-factor authentication off).</p><p>Your verification code is <strong>` + code + `</strong> (valid for 10 minutes). Or <a href="` + html.EscapeString(link) + `">verify in the browser you are signed in with</a>.</p><p>If it wasn't you, change your password now.</p>`,
	})
}

// VerifySensitiveActionCode uses a mailed code: the session may do sensitive actions for the
// next sensitiveVerifiedFor.
func (s *Service) VerifySensitiveActionCode(ctx context.Context, c Client, userID, token, code string) error {
	code = strings.TrimSpace(code)
	if code == "" {
		return errs.Field("body", "code", "missing", "Field required.")
	}
	if token == "" {
		return ErrSessionRequired
	}
	if err := s.request(ctx, LimitSensitiveCodeUser, userID); err != nil { // counted before the check
		return err
	}
	err := s.withCodeLimit(ctx, c, func() error {
		err := s.DB.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.UseUserActionCode(ctx, userID, code, store.CodeSensitiveAction, s.now())
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			return ErrInvalidActionCode
		}
		return err
	})
	if errors.Is(err, ErrInvalidActionCode) {
		return ErrInvalidSensitiveCode
	}
	if err != nil {
		return err
	}
	s.forget(ctx, LimitSensitiveCodeUser, userID)
	if err := s.DB.MarkSessionSensitiveVerified(ctx, token, s.now()); err != nil {
		return orNotFound(err, ErrSessionRequired)
	}
	if u, err := s.DB.UserByID(ctx, userID); err == nil {
		s.audit(ctx, c, u, "auth", "sensitive_action_verified", nil)
	}
	return nil
}

func (h *Handlers) verifySensitiveActionCode(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Code string `json:"code"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	_, token := h.Svc.currentSession(r)
	if err := h.Svc.VerifySensitiveActionCode(r.Context(), ClientOf(r), access.CallerFrom(r.Context()).UserID, token, b.Code); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, statusMessage{Status: "ok", Message: MsgSensitiveActionVerified})
	return nil
}
