package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/store"
)

// TOTP parameters: RFC 6238 defaults every authenticator app understands.
const (
	totpIssuer = "Timbre"
	totpPeriod = 30
	totpSkew   = 1 // steps either side accepted, for clock drift
	// BackupCodeCount is how many backup codes an enrolment gives.
	BackupCodeCount = 10
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// MFA errors.
var (
	ErrMFAAlreadyEnabled = errs.Errorf(errs.Conflict, "mfa_already_enabled", "Two-factor authentication is already on for your account.")
	ErrMFANotEnabled     = errs.Errorf(errs.Invalid, "mfa_not_enabled", "Two-factor authentication is not on for your account.")
	ErrMFANotStarted     = errs.Errorf(errs.Invalid, "mfa_enrollment_not_started", "Start the two-factor set-up first: scan a new QR code.")
	ErrInvalidMFACode    = errs.Errorf(errs.Unauthenticated, "invalid_mfa_code", "That code is not right. Enter the current code from your authenticator app, or a backup code.")
	ErrInvalidMFAToken   = errs.Errorf(errs.Unauthenticated, "invalid_mfa_token", "This sign-in has expired. Sign in again.")
)

// TOTPEnrollment is a started enrolment: the secret to type in and the otpauth:// URL for the QR code.
type TOTPEnrollment struct {
	Secret     string
	OTPAuthURL string
}

// StartTOTP makes a new TOTP secret for the user, pending until ConfirmTOTP sees a code from it.
// The caller proves it is the user first (the password, or a mailed code): a stolen session
// must not be able to enrol its own authenticator.
func (s *Service) StartTOTP(ctx context.Context, c Client, userID string, proof SensitiveProof) (*TOTPEnrollment, error) {
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	m, err := s.DB.UserMFA(ctx, userID)
	if err != nil {
		return nil, err
	}
	if m.Enabled {
		return nil, ErrMFAAlreadyEnabled
	}
	proof.NotByAge = true
	if err := s.checkSensitive(ctx, c, u, proof); err != nil {
		return nil, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: u.Email, Period: totpPeriod, SecretSize: 20, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, err
	}
	sealed, err := s.seal(userID, key.Secret())
	if err != nil {
		return nil, err
	}
	if err := s.DB.SetPendingTOTP(ctx, userID, sealed); err != nil {
		return nil, err
	}
	s.audit(ctx, c, u, "mfa", "totp_enrollment_started", nil)
	return &TOTPEnrollment{Secret: key.Secret(), OTPAuthURL: key.URL()}, nil
}

// ConfirmTOTP checks a code from the pending secret, turns MFA on and returns the backup codes
// (shown once; only their hashes are kept). The session with token (the caller's) answered a
// code, so it counts as having done MFA.
func (s *Service) ConfirmTOTP(ctx context.Context, c Client, userID, token, code string) ([]string, error) {
	if err := validCode(code); err != nil {
		return nil, err
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	m, err := s.DB.UserMFA(ctx, userID)
	if err != nil {
		return nil, err
	}
	if m.Enabled {
		return nil, ErrMFAAlreadyEnabled
	}
	if m.PendingSecret == "" {
		return nil, ErrMFANotStarted
	}
	if err := s.mfaAllowed(ctx, c, userID); err != nil {
		return nil, err
	}
	secret, err := s.open(userID, m.PendingSecret)
	if err != nil {
		return nil, err
	}
	step, ok := s.matchTOTP(secret, code)
	if !ok {
		return nil, s.mfaFailed(ctx, c, u)
	}
	codes, hashes := newBackupCodes(userID)
	if err := s.DB.EnableTOTP(ctx, userID, m.PendingSecret, step, hashes, s.now()); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrMFANotStarted // another enrolment replaced the secret meanwhile
		}
		return nil, err
	}
	s.mfaPassed(ctx, c, userID)
	if token != "" {
		if err := s.DB.MarkSessionMFADone(ctx, token); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	s.audit(ctx, c, u, "mfa", "totp_enabled", nil)
	return codes, nil
}

// DisableTOTP turns MFA off after a current code or an unused backup code.
func (s *Service) DisableTOTP(ctx context.Context, c Client, userID, code, backupCode string, proof SensitiveProof) error {
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	// Checked first, so a refused attempt does not spend the one-time code.
	if err := s.checkSensitive(ctx, c, u, proof); err != nil {
		return err
	}
	u, err = s.checkSecondFactor(ctx, c, userID, code, backupCode)
	if err != nil {
		return err
	}
	if err := s.DB.DisableTOTP(ctx, userID); err != nil {
		return err
	}
	s.audit(ctx, c, u, "mfa", "totp_disabled", nil)
	return nil
}

// RemoveMFAWithBackupCode turns MFA off with a backup code (a lost authenticator).
func (s *Service) RemoveMFAWithBackupCode(ctx context.Context, c Client, userID, backupCode string, proof SensitiveProof) error {
	if strings.TrimSpace(backupCode) == "" {
		return errs.Field("path", "code", "missing", "Enter one of your backup codes.")
	}
	return s.DisableTOTP(ctx, c, userID, "", backupCode, proof)
}

// RegenerateBackupCodes replaces the backup codes after a current TOTP code.
func (s *Service) RegenerateBackupCodes(ctx context.Context, c Client, userID, code string) ([]string, error) {
	if err := validCode(code); err != nil {
		return nil, err
	}
	u, err := s.checkSecondFactor(ctx, c, userID, code, "")
	if err != nil {
		return nil, err
	}
	codes, hashes := newBackupCodes(userID)
	if err := s.DB.ReplaceBackupCodes(ctx, userID, hashes, s.now()); err != nil {
		return nil, err
	}
	s.audit(ctx, c, u, "mfa", "backup_codes_regenerated", nil)
	return codes, nil
}

// VerifyMFA answers a sign-in's challenge with a TOTP code or a backup code and opens the
// session (a new token: the challenge token is used up and cannot open another).
func (s *Service) VerifyMFA(ctx context.Context, c Client, mfaToken, code, backupCode string) (*SignInResult, error) {
	var v errs.Validator
	if strings.TrimSpace(mfaToken) == "" {
		v.Add("body", "mfa_token", "missing", "Field required.")
	}
	if code == "" && backupCode == "" {
		v.Add("body", "code", "missing", "Enter the code from your authenticator app, or a backup code.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	ch, err := s.DB.MFAChallengeByToken(ctx, mfaToken, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrInvalidMFAToken
	}
	if err != nil {
		return nil, err
	}
	u, err := s.checkSecondFactor(ctx, c, ch.UserID, code, backupCode)
	if err != nil {
		return nil, err
	}
	if err := s.DB.DeleteMFAChallenge(ctx, mfaToken); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrInvalidMFAToken
		}
		return nil, err
	}
	res := &SignInResult{User: u, RedirectTo: ch.RedirectTo}
	if res.RedirectTo == "" {
		res.RedirectTo = DefaultRedirect
	}
	if res.Token, res.CSRF, err = s.openSession(ctx, u, c, store.SessionMeta{MFADone: true}); err != nil {
		return nil, err
	}
	method := "totp"
	if code == "" {
		method = "backup_code"
	}
	s.audit(ctx, c, u, "auth", "sign_in", audit.Details{"method": "password+" + method})
	return res, nil
}

// checkSecondFactor verifies a TOTP code (not replayable) or spends a backup code, under the MFA
// attempt limits, for a user with MFA on.
func (s *Service) checkSecondFactor(ctx context.Context, c Client, userID, code, backupCode string) (*store.User, error) {
	if code == "" && backupCode == "" {
		return nil, errs.Field("body", "code", "missing", "Enter the code from your authenticator app, or a backup code.")
	}
	if code != "" {
		if err := validCode(code); err != nil {
			return nil, err
		}
	}
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	m, err := s.DB.UserMFA(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !m.Enabled {
		return nil, ErrMFANotEnabled
	}
	if err := s.mfaAllowed(ctx, c, userID); err != nil {
		return nil, err
	}
	if code != "" {
		secret, err := s.open(userID, m.TOTPSecret)
		if err != nil {
			return nil, err
		}
		step, ok := s.matchTOTP(secret, code)
		if !ok || step <= m.LastStep {
			return nil, s.mfaFailed(ctx, c, u)
		}
		if err := s.DB.UseTOTPStep(ctx, userID, step); err != nil {
			if errors.Is(err, store.ErrNotFound) { // used concurrently
				return nil, s.mfaFailed(ctx, c, u)
			}
			return nil, err
		}
	} else {
		err := s.DB.UseBackupCode(ctx, userID, backupCodeHash(userID, backupCode), s.now())
		if errors.Is(err, store.ErrNotFound) {
			return nil, s.mfaFailed(ctx, c, u)
		}
		if err != nil {
			return nil, err
		}
		s.audit(ctx, c, u, "mfa", "backup_code_used", nil)
	}
	s.mfaPassed(ctx, c, userID)
	return u, nil
}

// mfaAllowed counts a code attempt, per address and per account, before the code is checked
// (so parallel guesses cannot outrun the limits); mfaPassed refunds it after a right code.
func (s *Service) mfaAllowed(ctx context.Context, c Client, userID string) error {
	if err := s.request(ctx, LimitMFAIP, c.IP); err != nil {
		return err
	}
	return s.request(ctx, LimitMFAAccount, userID)
}

func (s *Service) mfaPassed(ctx context.Context, c Client, userID string) {
	s.forget(ctx, LimitMFAAccount, userID)
	s.refund(ctx, LimitMFAIP, c.IP)
}

func (s *Service) mfaFailed(ctx context.Context, c Client, u *store.User) error {
	s.audit(ctx, c, u, "mfa", "verification_failed", nil)
	return ErrInvalidMFACode
}

// matchTOTP finds the time step (within the skew) whose code is code.
func (s *Service) matchTOTP(secret, code string) (int64, bool) {
	now := s.now()
	found, step := false, int64(0)
	for d := -totpSkew; d <= totpSkew; d++ {
		t := now.Add(time.Duration(d*totpPeriod) * time.Second)
		want, err := totp.GenerateCodeCustom(secret, t, totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found, step = true, t.Unix()/totpPeriod
		}
	}
	return step, found
}

func validCode(code string) error {
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		return errs.Field("body", "code", "value_error", "Enter the 6-digit code from your authenticator app.")
	}
	return nil
}

const backupAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// newBackupCodes makes BackupCodeCount codes (10 characters, about 49 bits each, shown as
// xxxxx-xxxxx) and their hashes.
func newBackupCodes(userID string) (codes, hashes []string) {
	for range BackupCodeCount {
		b := make([]byte, 10)
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		for i := range b {
			b[i] = backupAlphabet[int(b[i])%len(backupAlphabet)]
		}
		code := string(b[:5]) + "-" + string(b[5:])
		codes = append(codes, code)
		hashes = append(hashes, backupCodeHash(userID, code))
	}
	return codes, hashes
}

// backupCodeHash is how a backup code is stored: salted by the user id, so equal codes of two
// users differ and a hash is useless elsewhere. Typing is forgiving: case, spaces and dashes.
func backupCodeHash(userID, code string) string {
	norm := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(code)))
	return store.HashToken("backup-code:" + userID + ":" + norm)
}

// seal encrypts a TOTP secret with the server's Box, bound to the user (the purpose). Without a
// Box (tests) it is stored as it is.
func (s *Service) seal(userID, secret string) (string, error) {
	if s.Box == nil {
		return secret, nil
	}
	return s.Box.Seal(secret, totpPurpose(userID))
}

// open reverses seal.
func (s *Service) open(userID, stored string) (string, error) {
	if !strings.HasPrefix(stored, "v1:") {
		return stored, nil // stored without a key
	}
	if s.Box == nil {
		return "", errors.New("auth: the TOTP secret is sealed but the server has no secret key")
	}
	plain, err := s.Box.Open(stored, totpPurpose(userID))
	if err != nil {
		return "", fmt.Errorf("auth: TOTP secret: %w", err)
	}
	return plain, nil
}

func totpPurpose(userID string) string { return "totp:" + userID }
