package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"html"
	"math/big"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
)

// Spec §2 and §8 texts of the email-action handler and the account flows.
const (
	MsgEmailVerified          = "Email verified successfully! Please sign back in to continue."
	MsgOptedOut               = "We have opted you out of receiving product updates."
	MsgOptOutFailed           = "An error occurred while trying to opt you out from receiving product updates, please try again."
	MsgEmailUpdated           = "Email updated! Please refresh this page to reauthenticate."
	MsgEmailUpdateFailedStart = "Unable to update email, "
	MsgSupportGranted         = "Thank you for granting us access to your account!"
	MsgEmailRecovered         = "Your email address has been restored. Every session was signed out: sign in again, and consider resetting your password."
	// The support access dialog (spec §2).
	SupportDialogTitle   = "Grant Support Access to Your Account"
	SupportDialogText    = "Do you want to grant our support team temporary access to your account?"
	SupportDialogConfirm = "Grant Access"
)

// ErrUnknownMode is the email-action handler's answer to a mode it does not know.
var ErrUnknownMode = errs.Errorf(errs.Invalid, "unknown_mode", "Unknown email action mode.")

// ErrSignInRequired answers an email action that needs a signed-in user (the support grant).
var ErrSignInRequired = errs.Errorf(errs.Unauthenticated, "sign_in_required", "Please sign in to continue.")

// ErrReauthenticate asks for the password before a destructive action.
var ErrReauthenticate = errs.Errorf(errs.Forbidden, "reauthentication_required", "Enter your password to confirm: you signed in too long ago.")

func emailUpdateFailed(status, text string) error {
	return errs.Errorf(errs.Invalid, status, "%s%s", MsgEmailUpdateFailedStart, text)
}

// SendVerificationFrom mails a new verification link to an unverified account, under the
// request limits; it answers the same whether or not the account exists.
func (s *Service) SendVerificationFrom(ctx context.Context, c Client, email string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	if err := s.request(ctx, LimitVerifyMailIP, c.IP); err != nil {
		return err
	}
	if err := s.request(ctx, LimitVerifyMailTo, email); err != nil {
		return err
	}
	// As for password resets: the job looks the address up and mails, not the request.
	if queued, err := s.mailLater(ctx, accountMailVerify, email); queued {
		return err
	}
	return s.mailVerification(ctx, email)
}

// mailVerification mails a new verification link if the email has an unverified account.
func (s *Service) mailVerification(ctx context.Context, email string) error {
	u, err := s.DB.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.SendVerification(ctx, u)
}

// ErrSSODomainEmail refuses moving an email off a domain whose workspace requires SSO: with an
// address elsewhere the member could reset a password and escape single sign-on.
var ErrSSODomainEmail = errs.Errorf(errs.Forbidden, "sso_required",
	"Your organization requires single sign-on for your email domain, so your email can only change within that domain.")

// checkEmailStaysOnSSODomain refuses a change from an SSO-required domain to another domain.
func (s *Service) checkEmailStaysOnSSODomain(ctx context.Context, from, to string) error {
	if s.SSORequired == nil || emailDomain(from) == emailDomain(to) {
		return nil
	}
	on, err := s.SSORequired(ctx, from)
	if err != nil {
		return err
	}
	if on {
		return ErrSSODomainEmail
	}
	return nil
}

func emailDomain(email string) string {
	_, domain, _ := strings.Cut(email, "@")
	return domain
}

// withCodeLimit runs an action-code check under the per-address limit on wrong codes: the
// attempt is counted first (so parallel guesses cannot outrun the limit) and refunded unless
// the code was wrong.
func (s *Service) withCodeLimit(ctx context.Context, c Client, fn func() error) error {
	if err := s.request(ctx, LimitCodeIP, c.IP); err != nil {
		return err
	}
	err := fn()
	var ae *errs.Error
	if !errors.As(err, &ae) || ae.Code != "invalid_action_code" {
		s.refund(ctx, LimitCodeIP, c.IP)
	}
	return err
}

// sixDigits is a random numeric code for the user to type.
func sixDigits() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(err)
	}
	s := n.String()
	return strings.Repeat("0", 6-len(s)) + s
}

// newActionCode stores a fresh six-digit code of kind for the user (by hash) and returns it.
// Codes are keyed by their hash across all users, so with a million codes a new one meets a
// stored one now and then (the PostgreSQL tests hit it: a 500): another code is drawn then.
func (s *Service) newActionCode(ctx context.Context, userID, kind, payload string, ttl time.Duration) (string, error) {
	for try := 0; ; try++ {
		code := sixDigits()
		err := s.DB.CreateActionCodeWithPayload(ctx, code, userID, kind, payload, s.now().Add(ttl))
		if err == nil || !store.IsUniqueViolation(err) || try == 9 {
			return code, err
		}
	}
}

// SendEmailChangeVerification mails a code to the new address; PUT /v1/user/email with it makes
// the change.
func (s *Service) SendEmailChangeVerification(ctx context.Context, c Client, userID, newEmail string, proof SensitiveProof) error {
	newEmail = strings.ToLower(strings.TrimSpace(newEmail))
	var v errs.Validator
	validateEmail(&v, newEmail)
	if err := v.Err(); err != nil {
		return err
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	if newEmail == u.Email {
		return errs.Field("body", "email", "value_error", "That is already your email address.")
	}
	if _, err := s.DB.UserByEmail(ctx, newEmail); err == nil {
		return ErrEmailTaken
	}
	if err := s.checkEmailStaysOnSSODomain(ctx, u.Email, newEmail); err != nil {
		return err
	}
	if err := s.checkSensitive(ctx, c, u, proof); err != nil {
		return err
	}
	if err := s.request(ctx, LimitEmailChangeMail, userID); err != nil {
		return err
	}
	code, err := s.newActionCode(ctx, userID, store.CodeChangeEmail, newEmail, emailChangeCodeTTL)
	if err != nil {
		return err
	}
	s.audit(ctx, c, u, "auth", "email_change_requested", nil)
	return s.Mail.Send(ctx, mailer.Message{
		To:      newEmail,
		Subject: "Your Timbre email change code",
		Text:    "Someone asked to move a Timbre account to this address.\n\nYour verification code is " + code + " (valid for 15 minutes).\n\nIf it wasn't you, ignore this message.",
		HTML:    `<p>Someone asked to move a Timbre account to this address.</p><p>Your verification code is <strong>` + code + `</strong> (valid for 15 minutes).</p><p>If it wasn't you, ignore this message.</p>`,
	})
}

// ChangeEmail uses a change code: the account moves to the new address (verified), and the old
// address gets a recoverEmail link that undoes it. Every other session of the user ends (keepToken
// is the caller's) and every code mailed before (to either address) stops working.
func (s *Service) ChangeEmail(ctx context.Context, c Client, userID, keepToken, code string) (string, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return "", errs.Field("query", "verification_code", "missing", "Field required.")
	}
	if err := s.request(ctx, LimitEmailCodeUser, userID); err != nil { // counted before the check
		return "", err
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	recoverCode := store.RandomString(32)
	var newEmail string
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if newEmail, err = tx.UseUserActionCode(ctx, userID, code, store.CodeChangeEmail, s.now()); err != nil {
			return err
		}
		if err := s.checkEmailStaysOnSSODomain(ctx, u.Email, newEmail); err != nil {
			return err
		}
		if err := tx.SetEmail(ctx, userID, newEmail); err != nil {
			return err
		}
		if err := tx.VoidUserCodes(ctx, userID); err != nil {
			return err
		}
		if err := tx.EndOtherSessions(ctx, userID, keepToken); err != nil {
			return err
		}
		return tx.CreateActionCodeWithPayload(ctx, recoverCode, userID, store.CodeRecoverEmail, u.Email, s.now().Add(recoverEmailTTL))
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", emailUpdateFailed("invalid_verification_code", "the verification code is wrong or has expired.")
	case store.IsUniqueViolation(err):
		return "", emailUpdateFailed("email_already_exists", "an account with this email already exists.")
	case err != nil:
		return "", err
	}
	s.forget(ctx, LimitEmailCodeUser, userID)
	audit.Record(ctx, s.DB, c.Req, u.ID, newEmail, audit.Event{WorkspaceID: u.WorkspaceID, Class: "auth", Activity: "email_changed", Target: u.ID,
		Details: audit.Details{"from": u.Email, "to": newEmail}})
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/action?mode=recoverEmail&oobCode=" + recoverCode + "&lang=en"
	err = s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: "Your Timbre email address was changed",
		Text:    "The email address of your Timbre account was changed to " + newEmail + ".\n\nIf you didn't do this, restore your address (and sign every session out) here:\n\n" + link,
		HTML:    `<p>The email address of your Timbre account was changed to ` + html.EscapeString(newEmail) + `.</p><p>If you didn't do this, <a href="` + html.EscapeString(link) + `">restore your address</a> (every session is signed out).</p>`,
	})
	return newEmail, err
}

// RecoverEmail undoes an email change with the code mailed to the old address: the old address
// comes back, every session ends and every outstanding code stops working; with revokeKeys the
// user's API keys go too, in the same transaction.
func (s *Service) RecoverEmail(ctx context.Context, c Client, code string, revokeKeys bool) (*store.User, error) {
	var userID, old string
	err := s.withCodeLimit(ctx, c, func() error {
		err := s.DB.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if userID, old, err = tx.UseActionCodePayload(ctx, code, store.CodeRecoverEmail, s.now()); err != nil {
				return err
			}
			if err := tx.SetEmail(ctx, userID, old); err != nil {
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
			return tx.EndUserSessions(ctx, userID)
		})
		if errors.Is(err, store.ErrNotFound) {
			return ErrInvalidActionCode
		}
		if store.IsUniqueViolation(err) {
			return errs.Errorf(errs.Conflict, "email_already_exists", "Another account uses that address now; contact support.")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	s.audit(ctx, c, u, "auth", "email_recovered", nil)
	return u, nil
}

// OptOutLink makes the link of a product-update mail's opt-out (mode optOutOfUpdates).
func (s *Service) OptOutLink(ctx context.Context, userID string) (string, error) {
	code := store.RandomString(32)
	if err := s.DB.CreateActionCodeWithPayload(ctx, code, userID, store.CodeOptOutUpdates, "", s.now().Add(optOutCodeTTL)); err != nil {
		return "", err
	}
	return httpx.PublicURL(ctx, s.PublicURL) + "/app/action?mode=optOutOfUpdates&oobCode=" + code + "&lang=en", nil
}

// OptOutOfUpdates uses an opt-out code: the user no longer agrees to product updates.
func (s *Service) OptOutOfUpdates(ctx context.Context, c Client, code string) error {
	var userID string
	err := s.withCodeLimit(ctx, c, func() error {
		err := s.DB.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if userID, _, err = tx.UseActionCodePayload(ctx, code, store.CodeOptOutUpdates, s.now()); err != nil {
				return err
			}
			return tx.SetProductUpdates(ctx, userID, false)
		})
		if errors.Is(err, store.ErrNotFound) {
			return errs.Errorf(errs.Invalid, "invalid_action_code", MsgOptOutFailed)
		}
		return err
	})
	if err != nil {
		return err
	}
	if u, err := s.DB.UserByID(ctx, userID); err == nil {
		s.audit(ctx, c, u, "auth", "opted_out_of_updates", nil)
	}
	return nil
}

// RequestSupportAccess mails the user a support sign-in request (mode verifySignInRequest);
// the operator's support tooling calls it.
func (s *Service) RequestSupportAccess(ctx context.Context, userID string) (string, error) {
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	code := store.RandomString(32)
	if err := s.DB.CreateActionCodeWithPayload(ctx, code, userID, store.CodeSupportSignIn, "", s.now().Add(supportRequestTTL)); err != nil {
		return "", err
	}
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/action?mode=verifySignInRequest&verificationCode=" + code + "&lang=en"
	return code, s.Mail.Send(ctx, mailer.Message{
		To:      u.Email,
		Subject: SupportDialogTitle,
		Text:    SupportDialogText + "\n\nIf you asked our support team for help, confirm here (the link works for 24 hours):\n\n" + link + "\n\nIf you didn't, ignore this message.",
		HTML:    `<p>` + SupportDialogText + `</p><p><a href="` + html.EscapeString(link) + `">` + SupportDialogConfirm + `</a> (the link works for 24 hours).</p><p>If you didn't ask, ignore this message.</p>`,
	})
}

// GrantSupportAccess confirms a support sign-in request of the signed-in user: support may sign
// in for SupportAccessDuration.
func (s *Service) GrantSupportAccess(ctx context.Context, c Client, userID, code string) (*store.SupportGrant, error) {
	if strings.TrimSpace(code) == "" {
		return nil, errs.Field("body", "sign_in_request_verification_code", "missing", "Field required.")
	}
	g := &store.SupportGrant{ID: store.NewID(), UserID: userID, GrantedAt: s.now().Unix(), ExpiresAt: s.now().Add(SupportAccessDuration).Unix()}
	err := s.withCodeLimit(ctx, c, func() error {
		err := s.DB.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.UseUserActionCode(ctx, userID, code, store.CodeSupportSignIn, s.now()); err != nil {
				return err
			}
			return tx.GrantSupportAccess(ctx, *g)
		})
		if errors.Is(err, store.ErrNotFound) {
			return ErrInvalidActionCode
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if u, err := s.DB.UserByID(ctx, userID); err == nil {
		s.audit(ctx, c, u, "auth", "support_access_granted", audit.Details{"expires_at_unix": g.ExpiresAt})
	}
	return g, nil
}

// DeleteAccount removes the caller's account once they proved it is them (checkSensitive: the
// password, a session opened within the last 10 minutes, or a mailed code verified within the
// last 10). Workspaces only they belong to go with it (history, voices, blobs); in shared ones
// their data is anonymised and ownership passes on.
func (s *Service) DeleteAccount(ctx context.Context, c Client, caller *access.Caller, proof SensitiveProof) (*store.DeletedAccount, error) {
	u, err := s.DB.UserByID(ctx, caller.UserID)
	if err != nil {
		return nil, err
	}
	if !caller.ViaSession && !proof.Skip {
		proof.Token = ""
	}
	if err := s.checkSensitive(ctx, c, u, proof); err != nil {
		return nil, err
	}
	del, err := s.DB.DeleteAccount(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	for _, key := range del.BlobKeys {
		if s.Blobs == nil {
			break
		}
		if err := s.Blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
			httpx.Logger(ctx).Warn("deleting a deleted account's blob failed", "key", key, "err", err)
		}
	}
	for _, ws := range del.Left {
		audit.Record(ctx, s.DB, c.Req, u.ID, "", audit.Event{WorkspaceID: ws, Class: "member", Activity: "account_deleted", Target: u.ID})
	}
	httpx.Logger(ctx).Info("account deleted", "user_id", u.ID, "workspaces_deleted", len(del.Workspaces), "workspaces_left", len(del.Left), "blobs", len(del.BlobKeys))
	return del, nil
}
