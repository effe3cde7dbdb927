// Package auth is accounts and credentials: sign-up, email verification, sign-in sessions,
// password reset, API keys, and the middleware that turns a request's key or cookie into a caller.
package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Cookie names (spec §9: prefix xi_website_, 360 days, Secure, SameSite=Strict).
const (
	SessionCookie = "xi_website_session"
	CSRFCookie    = "xi_website_csrf"
	CSRFHeader    = "X-CSRF-Token"
	cookieMaxAge  = 360 * 24 * time.Hour
)

// Code lifetimes.
const (
	verifyCodeTTL = 72 * time.Hour
	resetCodeTTL  = time.Hour
)

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 8

// Service holds the accounts logic.
type Service struct {
	DB        *store.DB
	Mail      mailer.Sender
	PublicURL string
	Now       func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ErrEmailTaken is returned when signing up with an email that has an account.
var ErrEmailTaken = httpx.Errorf(http.StatusConflict, "email_already_exists", "An account with this email already exists. Sign in instead.")

// validateCredentials checks an email and password pair for sign-up and reset.
func validateEmail(v *httpx.Validator, email string) {
	if email == "" {
		v.Add("body", "email", "missing", "Please enter your email address.")
		return
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		v.Add("body", "email", "value_error", "Please enter a valid email address.")
	}
}

func validatePassword(v *httpx.Validator, password string) {
	if len([]rune(password)) < MinPasswordLength {
		v.Add("body", "password", "value_error", fmt.Sprintf("Password must be at least %d characters.", MinPasswordLength))
	} else if len(password) > 512 {
		v.Add("body", "password", "value_error", "Password must be at most 512 characters.")
	}
}

// SignUp creates an unverified user with a workspace on the free plan and mails a verification link.
func (s *Service) SignUp(ctx context.Context, email, password string, termsAccepted bool) (*store.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	var v httpx.Validator
	validateEmail(&v, email)
	validatePassword(&v, password)
	if !termsAccepted {
		v.Add("body", "terms_accepted", "value_error", "You must accept the terms of service and privacy policy to continue.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	u, _, err := s.DB.CreateUserWithWorkspace(ctx, email, HashPassword(password), false, plan.Default, s.now())
	if store.IsUniqueViolation(err) {
		return nil, ErrEmailTaken
	}
	if err != nil {
		return nil, err
	}
	return u, s.SendVerification(ctx, u)
}

// CreateVerifiedUser is the operator's way in (timbre admin create-user).
func (s *Service) CreateVerifiedUser(ctx context.Context, email, password string) (*store.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	var v httpx.Validator
	validateEmail(&v, email)
	validatePassword(&v, password)
	if err := v.Err(); err != nil {
		return nil, err
	}
	u, _, err := s.DB.CreateUserWithWorkspace(ctx, email, HashPassword(password), true, plan.Default, s.now())
	if store.IsUniqueViolation(err) {
		return nil, ErrEmailTaken
	}
	return u, err
}

// SendVerification mails a fresh verification link to an unverified user.
func (s *Service) SendVerification(ctx context.Context, u *store.User) error {
	if u.EmailVerified {
		return nil
	}
	code := store.RandomString(32)
	if err := s.DB.CreateActionCode(ctx, code, u.ID, store.CodeVerifyEmail, s.now().Add(verifyCodeTTL)); err != nil {
		return err
	}
	link := s.PublicURL + "/app/action?mode=verifyEmail&oobCode=" + code + "&lang=en"
	return s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: "Verify your email for Timbre",
		Text:    "Welcome to Timbre!\n\nConfirm your email address by opening this link:\n\n" + link + "\n\nIf you didn't sign up, ignore this message.",
		HTML:    `<p>Welcome to Timbre!</p><p><a href="` + html.EscapeString(link) + `">Confirm your email address</a></p><p>If you didn't sign up, ignore this message.</p>`,
	})
}

// ErrInvalidActionCode is the answer to a wrong, used or expired email-action code.
var ErrInvalidActionCode = httpx.Errorf(http.StatusBadRequest, "invalid_action_code", "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")

// VerifyEmail uses a verification code and marks the email verified.
func (s *Service) VerifyEmail(ctx context.Context, code string) (*store.User, error) {
	var userID string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if userID, err = tx.UseActionCode(ctx, code, store.CodeVerifyEmail, s.now()); err != nil {
			return err
		}
		return tx.SetEmailVerified(ctx, userID)
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrInvalidActionCode
	}
	if err != nil {
		return nil, err
	}
	return s.DB.UserByID(ctx, userID)
}

// ErrInvalidCredentials is the answer to a wrong email or password (the same for both, so
// sign-in does not reveal which emails have accounts).
var ErrInvalidCredentials = httpx.Errorf(http.StatusUnauthorized, "invalid_credentials", "Wrong email or password.")

// ErrEmailNotVerified stops sign-in until the email is confirmed.
var ErrEmailNotVerified = httpx.Errorf(http.StatusForbidden, "email_not_verified", "Please verify your email before signing in. Check your inbox for the verification link.")

// SignIn checks credentials and opens a session; it returns the session and CSRF tokens.
func (s *Service) SignIn(ctx context.Context, email, password string) (u *store.User, token, csrf string, err error) {
	u, err = s.DB.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		CheckPassword(dummyHash, password) // spend the same time as a real check
		return nil, "", "", ErrInvalidCredentials
	}
	if err != nil {
		return nil, "", "", err
	}
	if !CheckPassword(u.PasswordHash, password) {
		return nil, "", "", ErrInvalidCredentials
	}
	if !u.EmailVerified {
		return nil, "", "", ErrEmailNotVerified
	}
	token, csrf, err = s.OpenSession(ctx, u)
	return u, token, csrf, err
}

// OpenSession starts a browser session for a user who has proven who they are (password, SSO,
// …) in their default workspace, and returns the session and CSRF tokens for the cookies.
func (s *Service) OpenSession(ctx context.Context, u *store.User) (token, csrf string, err error) {
	token, csrf = store.RandomString(43), store.RandomString(32)
	err = s.DB.CreateSession(ctx, token, store.Session{UserID: u.ID, WorkspaceID: u.WorkspaceID, CSRFToken: csrf, ExpiresAt: s.now().Add(cookieMaxAge).Unix()}, s.now())
	return token, csrf, err
}

var dummyHash = HashPassword("timing-equaliser")

// SendPasswordReset mails a reset link if the email has an account; it answers the same either way.
func (s *Service) SendPasswordReset(ctx context.Context, email string) error {
	u, err := s.DB.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	code := store.RandomString(32)
	if err := s.DB.CreateActionCode(ctx, code, u.ID, store.CodeResetPassword, s.now().Add(resetCodeTTL)); err != nil {
		return err
	}
	link := s.PublicURL + "/app/action?mode=resetPassword&oobCode=" + code + "&lang=en"
	return s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: "Reset your Timbre password",
		Text:    "Someone asked to reset the password of your Timbre account.\n\nChoose a new password here (the link works for one hour):\n\n" + link + "\n\nIf it wasn't you, ignore this message.",
		HTML:    `<p>Someone asked to reset the password of your Timbre account.</p><p><a href="` + html.EscapeString(link) + `">Choose a new password</a> (the link works for one hour).</p><p>If it wasn't you, ignore this message.</p>`,
	})
}

// CheckResetCode returns the email a reset code belongs to.
func (s *Service) CheckResetCode(ctx context.Context, code string) (string, error) {
	userID, err := s.DB.PeekActionCode(ctx, code, store.CodeResetPassword, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrInvalidActionCode
	}
	if err != nil {
		return "", err
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

// ResetPassword uses a reset code to set a new password; every session of the user ends.
// Following the link proves the mailbox, so it also verifies the email.
func (s *Service) ResetPassword(ctx context.Context, code, password string) error {
	var v httpx.Validator
	validatePassword(&v, password)
	if err := v.Err(); err != nil {
		return err
	}
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		userID, err := tx.UseActionCode(ctx, code, store.CodeResetPassword, s.now())
		if err != nil {
			return err
		}
		if err := tx.SetPassword(ctx, userID, HashPassword(password)); err != nil {
			return err
		}
		return tx.SetEmailVerified(ctx, userID)
	})
	if errors.Is(err, store.ErrNotFound) {
		return ErrInvalidActionCode
	}
	return err
}
