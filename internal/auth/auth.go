// Package auth is accounts and credentials: sign-up, email verification, sign-in sessions,
// password reset, API keys, and the middleware that turns a request's key or cookie into a caller.
package auth

import (
	"context"
	"errors"
	"html"
	"net/mail"
	"strings"
	"sync/atomic"
	"time"

	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/plan"
	"timbre/internal/secret"
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
	verifyCodeTTL      = 72 * time.Hour
	resetCodeTTL       = time.Hour
	mfaChallengeTTL    = 5 * time.Minute
	emailChangeCodeTTL = 15 * time.Minute
	recoverEmailTTL    = 72 * time.Hour
	optOutCodeTTL      = 365 * 24 * time.Hour
	supportRequestTTL  = 24 * time.Hour
	// SupportAccessDuration is how long a support access grant lasts.
	SupportAccessDuration = 72 * time.Hour
	// sessionRefresh is the spec's token refresh cadence (§9: 5 min): a session's last-seen
	// time moves at most this often.
	sessionRefresh = 5 * time.Minute
	// recentSignIn is how fresh a session must be to delete the account without the password.
	recentSignIn = 10 * time.Minute
)

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 8

// Service holds the accounts logic.
type Service struct {
	DB        Store
	Mail      mailer.Sender
	PublicURL string
	Now       func() time.Time
	// Box seals TOTP secrets at rest (AES-256-GCM under the server key). Without it they are
	// stored as they are (tests only).
	Box *secret.Box
	// jobs, once set (SetJobs), sends the "if the account exists" mails in the background.
	jobs atomic.Pointer[JobInserter]
	// Invites lets a sign-up accept a workspace invitation; nil refuses invite codes.
	Invites Invites
	// Blobs removes the audio of deleted accounts' workspaces; nil leaves the blobs.
	Blobs BlobDeleter
	// SSORequired, when set, says whether an email must sign in through its workspace's
	// identity provider (sso.Service.SSORequired): password sign-in, sign-up and reset mails
	// are then refused with ErrSSORequired.
	SSORequired func(ctx context.Context, email string) (bool, error)
}

// BlobDeleter is the part of the blob store account deletion needs.
type BlobDeleter interface {
	Delete(ctx context.Context, key string) error
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ErrEmailTaken is returned when signing up with an email that has an account.
var ErrEmailTaken = errs.Errorf(errs.Conflict, "email_already_exists", "An account with this email already exists. Sign in instead.")

// validateCredentials checks an email and password pair for sign-up and reset.
func validateEmail(v *errs.Validator, email string) {
	if email == "" {
		v.Add("body", "email", "missing", "Please enter your email address.")
		return
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		v.Add("body", "email", "value_error", "Please enter a valid email address.")
	}
}

// Invites is the workspace invitations a sign-up may carry (the workspace package).
type Invites interface {
	CheckInviteCode(ctx context.Context, code, email string) error
	AcceptInviteForNewUser(ctx context.Context, code string, u *store.User) (*store.Invite, error)
}

// SignUp creates an unverified user with a workspace on the free plan and mails a verification
// link. With an invite code (spec §5 pre-sign-up check) the user also joins the inviting workspace.
func (s *Service) SignUp(ctx context.Context, email, password string, termsAccepted bool, inviteCode string) (*store.User, error) {
	return s.signUp(ctx, Client{}, email, password, termsAccepted, inviteCode, nil)
}

// signUp is SignUp; afterCreate (when set) runs on the new user before the invitation and mail.
// An email that has an account gets ErrEmailTaken, and its owner a mail saying so: the HTTP
// answer is that of a fresh sign-up, so sign-up does not tell which emails have accounts.
func (s *Service) signUp(ctx context.Context, c Client, email, password string, termsAccepted bool, inviteCode string, afterCreate func(*store.User) error) (*store.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	var v errs.Validator
	validateEmail(&v, email)
	validatePassword(&v, password, email)
	if !termsAccepted {
		v.Add("body", "terms_accepted", "value_error", "You must accept the terms of service and privacy policy to continue.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := s.request(ctx, LimitSignUpIP, c.IP); err != nil {
		return nil, err
	}
	if err := s.checkSSORequired(ctx, email); err != nil {
		return nil, err
	}
	if inviteCode != "" {
		if s.Invites == nil {
			return nil, errs.Field("body", "invite_code", "value_error", "Invitations are not available on this server.")
		}
		if err := s.Invites.CheckInviteCode(ctx, inviteCode, email); err != nil {
			return nil, err
		}
	}
	u, _, err := s.DB.CreateUserWithWorkspace(ctx, email, HashPassword(password), false, plan.Default, s.now())
	if store.IsUniqueViolation(err) {
		if err := s.mailSignUpAttempt(ctx, email); err != nil {
			return nil, err
		}
		return nil, ErrEmailTaken
	}
	if err != nil {
		return nil, err
	}
	if err := s.DB.MarkOnboardingPending(ctx, u.ID); err != nil { // a new user starts with the onboarding survey
		return nil, err
	}
	if afterCreate != nil {
		if err := afterCreate(u); err != nil {
			return nil, err
		}
	}
	if inviteCode != "" {
		if _, err := s.Invites.AcceptInviteForNewUser(ctx, inviteCode, u); err != nil {
			return nil, err
		}
	}
	return u, s.SendVerification(ctx, u)
}

// mailSignUpAttempt tells the owner of an email that someone tried to sign up with it.
func (s *Service) mailSignUpAttempt(ctx context.Context, email string) error {
	link := s.PublicURL + "/app/sign-in"
	return s.Mail.Send(ctx, mailer.Message{
		To:      email,
		Subject: "Someone tried to sign up to Timbre with your address",
		Text:    "Someone tried to create a Timbre account with this email address, which already has one.\n\nIf it was you, sign in (or reset your password from the sign-in page):\n\n" + link + "\n\nIf it wasn't you, ignore this message: nothing changed.",
		HTML:    `<p>Someone tried to create a Timbre account with this email address, which already has one.</p><p>If it was you, <a href="` + html.EscapeString(link) + `">sign in</a> (or reset your password from the sign-in page).</p><p>If it wasn't you, ignore this message: nothing changed.</p>`,
	})
}

// CreateVerifiedUser is the operator's way in (timbre admin create-user).
func (s *Service) CreateVerifiedUser(ctx context.Context, email, password string) (*store.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	var v errs.Validator
	validateEmail(&v, email)
	validatePassword(&v, password, email)
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
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/action?mode=verifyEmail&oobCode=" + code + "&lang=en"
	return s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: "Verify your email for Timbre",
		Text:    "Welcome to Timbre!\n\nConfirm your email address by opening this link:\n\n" + link + "\n\nIf you didn't sign up, ignore this message.",
		HTML:    `<p>Welcome to Timbre!</p><p><a href="` + html.EscapeString(link) + `">Confirm your email address</a></p><p>If you didn't sign up, ignore this message.</p>`,
	})
}

// ErrInvalidActionCode is the answer to a wrong, used or expired email-action code.
var ErrInvalidActionCode = errs.Errorf(errs.Invalid, "invalid_action_code", "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")

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
var ErrInvalidCredentials = errs.Errorf(errs.Unauthenticated, "invalid_credentials", "Wrong email or password.")

// ErrEmailNotVerified stops sign-in until the email is confirmed.
var ErrEmailNotVerified = errs.Errorf(errs.Forbidden, "email_not_verified", "Please verify your email before signing in. Check your inbox for the verification link.")

// ErrMFARequired is SignIn's answer for an account with two-factor authentication: the caller
// must use SignInFrom, which returns the challenge.
var ErrMFARequired = errs.Errorf(errs.Unauthenticated, "mfa_required", "Enter the code from your authenticator app to finish signing in.")

// SignIn checks credentials and opens a session; it returns the session and CSRF tokens. An
// account with MFA gets ErrMFARequired (use SignInFrom for the challenge).
func (s *Service) SignIn(ctx context.Context, email, password string) (u *store.User, token, csrf string, err error) {
	res, err := s.SignInFrom(ctx, Client{}, SignInInput{Email: email, Password: password})
	if err != nil {
		return nil, "", "", err
	}
	if res.MFAToken != "" {
		return res.User, "", "", ErrMFARequired
	}
	return res.User, res.Token, res.CSRF, nil
}

// SignInInput is a sign-in attempt.
type SignInInput struct {
	Email, Password string
	Redirect        string // the requested target after sign-in (spec §2 rule applies)
	PriorSession    string // the session token the browser already held, ended on success
}

// SignInResult is a successful password check: either an open session (Token, CSRF) or, for an
// account with MFA, a challenge (MFAToken) to answer at /api/auth/mfa/verify.
type SignInResult struct {
	User           *store.User
	Token, CSRF    string
	MFAToken       string
	RedirectTo     string
	UnsafeRedirect bool // a redirect was asked for and refused (logged by the caller)
	// MFAEnrollmentRequired: the workspace requires MFA and the user has none yet; the session
	// only reaches the enrolment routes until they enrol.
	MFAEnrollmentRequired bool
}

// SignInFrom checks credentials under the attempt limits (per account and per address), ends
// the browser's previous session (no fixation), and opens a session or an MFA challenge.
func (s *Service) SignInFrom(ctx context.Context, c Client, in SignInInput) (*SignInResult, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	res := &SignInResult{}
	var safe bool
	res.RedirectTo, safe = SafeRedirect(in.Redirect, s.PublicURL)
	res.UnsafeRedirect = !safe
	if err := s.checkSSORequired(ctx, email); err != nil { // before the password: none is checked
		return nil, err
	}
	// The attempt is counted before the (slow) password check, so parallel guesses cannot
	// outrun the limits; a success refunds it.
	if err := s.request(ctx, LimitSignInIP, c.IP); err != nil {
		return nil, err
	}
	if err := s.signInAttempt(ctx, email, c.IP); err != nil {
		if u, e := s.DB.UserByEmail(ctx, email); e == nil {
			s.audit(ctx, c, u, "auth", "sign_in_locked", nil)
		}
		return nil, err
	}
	fail := func(u *store.User) (*SignInResult, error) {
		if u != nil {
			s.audit(ctx, c, u, "auth", "sign_in_failed", nil)
		}
		return nil, ErrInvalidCredentials
	}
	u, err := s.DB.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		CheckPassword(dummyHash, in.Password) // spend the same time as a real check
		return fail(nil)
	}
	if err != nil {
		return nil, err
	}
	if u.IsServiceAccount { // API keys only: no password sign-in, whatever the row holds
		CheckPassword(dummyHash, in.Password)
		return fail(nil)
	}
	if !CheckPassword(u.PasswordHash, in.Password) {
		return fail(u)
	}
	if !u.EmailVerified {
		return nil, ErrEmailNotVerified
	}
	s.signInSucceeded(ctx, email, c.IP)
	if in.PriorSession != "" {
		_ = s.DB.DeleteSession(ctx, in.PriorSession)
	}
	res.User = u
	mfa, err := s.DB.UserMFA(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if mfa.Enabled {
		res.MFAToken = store.RandomString(43)
		if err := s.DB.CreateMFAChallenge(ctx, res.MFAToken, store.MFAChallenge{UserID: u.ID, RedirectTo: res.RedirectTo,
			UserAgent: c.UserAgent, IP: c.IP, ExpiresAt: s.now().Add(mfaChallengeTTL).Unix()}); err != nil {
			return nil, err
		}
		s.audit(ctx, c, u, "auth", "sign_in_mfa_challenge", nil)
		return res, nil
	}
	if res.Token, res.CSRF, err = s.OpenSessionFor(ctx, u, c); err != nil {
		return nil, err
	}
	if st, err := s.DB.SessionStateByToken(ctx, res.Token, s.now()); err == nil {
		res.MFAEnrollmentRequired = st.MFARequired && !st.TOTPEnabled
	}
	s.audit(ctx, c, u, "auth", "sign_in", audit.Details{"method": "password"})
	return res, nil
}

func orErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// OpenSession starts a browser session for a user who has proven who they are (password, SSO,
// …) in their default workspace, and returns the session and CSRF tokens for the cookies.
func (s *Service) OpenSession(ctx context.Context, u *store.User) (token, csrf string, err error) {
	return s.OpenSessionFor(ctx, u, Client{})
}

// OpenSessionFor is OpenSession remembering the browser (user agent and address) for the
// session list. Every call makes fresh random tokens.
func (s *Service) OpenSessionFor(ctx context.Context, u *store.User, c Client) (token, csrf string, err error) {
	return s.openSession(ctx, u, c, store.SessionMeta{})
}

// OpenSSOSession is OpenSessionFor after an SSO sign-in through the identity provider of
// u.WorkspaceID: the session satisfies that workspace's MFA requirement, and no other's.
func (s *Service) OpenSSOSession(ctx context.Context, u *store.User, c Client) (token, csrf string, err error) {
	return s.openSession(ctx, u, c, store.SessionMeta{SSOWorkspaceID: u.WorkspaceID})
}

// openSession stores a new session with how its user proved who they are (m's MFADone and
// SSOWorkspaceID); the browser's details come from c.
func (s *Service) openSession(ctx context.Context, u *store.User, c Client, m store.SessionMeta) (token, csrf string, err error) {
	token, csrf = store.RandomString(43), store.RandomString(32)
	m.PublicID, m.UserAgent, m.IP = store.NewID(), c.UserAgent, c.IP
	err = s.DB.CreateSessionWithMeta(ctx, token, store.Session{UserID: u.ID, WorkspaceID: u.WorkspaceID, CSRFToken: csrf, ExpiresAt: s.now().Add(cookieMaxAge).Unix()}, m, s.now())
	return token, csrf, err
}

// dummyHash has a real hash's parameters, so checking a password against it takes as long as a
// real check; its key (zeros) matches no password. It is built without running argon2: hashing
// at package initialisation cost every process 73 ms and 20 MB, the engine workers included
// (they run this executable).
var dummyHash = encodeHash(make([]byte, 16), make([]byte, argonKeyLen))

// SendPasswordReset mails a reset link if the email has an account; it answers the same either way.
func (s *Service) SendPasswordReset(ctx context.Context, email string) error {
	return s.SendPasswordResetFrom(ctx, Client{}, email)
}

// SendPasswordResetFrom is SendPasswordReset under the request limits (per address, per account).
func (s *Service) SendPasswordResetFrom(ctx context.Context, c Client, email string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	if err := s.request(ctx, LimitResetMailIP, c.IP); err != nil {
		return err
	}
	if err := s.request(ctx, LimitResetMailTo, email); err != nil {
		return err
	}
	if err := s.checkSSORequired(ctx, email); err != nil {
		return err
	}
	// With a job queue the mail is the job's business (mailjob.go): the request does the same
	// work whether or not the address has an account, so its timing does not tell.
	if queued, err := s.mailLater(ctx, accountMailReset, email); queued {
		return err
	}
	return s.mailPasswordReset(ctx, email)
}

// mailPasswordReset makes a reset code and mails the link, if the email has an account with a
// password (not a service account); otherwise it does nothing.
func (s *Service) mailPasswordReset(ctx context.Context, email string) error {
	u, err := s.DB.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if u.IsServiceAccount { // no password to reset; answered as for an unknown address
		return nil
	}
	code := store.RandomString(32)
	if err := s.DB.CreateActionCode(ctx, code, u.ID, store.CodeResetPassword, s.now().Add(resetCodeTTL)); err != nil {
		return err
	}
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/action?mode=resetPassword&oobCode=" + code + "&lang=en"
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

// ResetPassword uses a reset code to set a new password; every session of the user ends and
// every other outstanding code is used up; with revokeKeys the user's API keys go too, in the
// same transaction. Following the link proves the mailbox, so it also verifies the email.
func (s *Service) ResetPassword(ctx context.Context, code, password string, revokeKeys bool) error {
	var context []string // the account's own words, when the code is good
	if userID, err := s.DB.PeekActionCode(ctx, code, store.CodeResetPassword, s.now()); err == nil {
		if u, err := s.DB.UserByID(ctx, userID); err == nil {
			context = []string{u.Email, u.FirstName}
		}
	}
	if err := CheckPasswordStrength(password, context...); err != nil {
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
		if err := tx.VoidUserCodes(ctx, userID); err != nil {
			return err
		}
		if revokeKeys {
			if err := tx.DeleteUserAPIKeys(ctx, userID); err != nil {
				return err
			}
		}
		return tx.SetEmailVerified(ctx, userID)
	})
	if errors.Is(err, store.ErrNotFound) {
		return ErrInvalidActionCode
	}
	return err
}
