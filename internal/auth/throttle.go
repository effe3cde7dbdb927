package auth

import (
	"context"
	"net"
	"net/http"
	"time"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// MsgTooManyAttempts is the spec's §8 message for throttled attempts.
const MsgTooManyAttempts = "Too many attempts, please try again in a few minutes."

// ErrTooManyAttempts is the answer to an address (or account) over an attempt limit.
var ErrTooManyAttempts = errs.Errorf(errs.RateLimited, "too_many_attempts", MsgTooManyAttempts)

// ErrAccountLocked is the answer to a sign-in of an account locked, for one address, by failed
// attempts from that address.
var ErrAccountLocked = errs.Errorf(errs.RateLimited, "too_many_attempts",
	"Too many failed sign-in attempts: this account is locked for 15 minutes (longer after repeated lock-outs). Try again later, or reset your password.")

// limit is an attempt limit: at most Max attempts per Window for one subject (an account or an
// address). Counters live in the database (rate_limits), so every server process shares them.
type limit struct {
	Name   string
	Max    int64
	Window time.Duration
}

// The limits. Every attempt is counted before it is checked (one SQL statement), so parallel
// attempts cannot slip past a limit; failure limits then refund or clear a success.
var (
	// LimitSignInAccount counts wrong passwords for one account from one address: failures from
	// elsewhere do not lock the owner out at their own address.
	LimitSignInAccount = limit{"sign_in_account_ip", 10, 15 * time.Minute}
	// LimitSignInLockouts counts an account and address's lock-outs; each one doubles the next
	// lock (back-off), up to 1<<Max times the base window.
	LimitSignInLockouts  = limit{"sign_in_lockouts", 2, time.Hour}
	LimitSignUpIP        = limit{"sign_up_ip", 10, time.Hour}
	LimitSignInIP        = limit{"sign_in_ip", 50, 15 * time.Minute}
	LimitMFAAccount      = limit{"mfa_account", 5, 15 * time.Minute}
	LimitMFAIP           = limit{"mfa_ip", 50, 15 * time.Minute}
	LimitCodeIP          = limit{"code_ip", 20, 15 * time.Minute} // wrong action codes (verify, reset, email actions)
	LimitEmailCodeUser   = limit{"email_code_account", 5, 15 * time.Minute}
	LimitResetMailTo     = limit{"reset_mail_account", 5, time.Hour}
	LimitResetMailIP     = limit{"reset_mail_ip", 20, time.Hour}
	LimitVerifyMailTo    = limit{"verify_mail_account", 5, time.Hour}
	LimitVerifyMailIP    = limit{"verify_mail_ip", 20, time.Hour}
	LimitEmailChangeMail = limit{"email_change_mail_account", 5, time.Hour}
)

// bucket names a subject's counter; the subject (an email, address or id) is hashed so the table
// holds no personal data.
func (l limit) bucket(subject string) string { return l.Name + ":" + store.HashToken(subject)[:32] }

// count records one attempt for subject.
func (s *Service) count(ctx context.Context, l limit, subject string) (int64, error) {
	if subject == "" {
		return 0, nil
	}
	return s.DB.HitRateLimit(ctx, l.bucket(subject), l.Window, s.now())
}

// forget clears subject's attempts (after a success).
func (s *Service) forget(ctx context.Context, l limit, subject string) {
	if subject != "" {
		_ = s.DB.ClearRateLimit(ctx, l.bucket(subject))
	}
}

// refund takes back one counted attempt of subject (a success under a failure limit that must
// not be cleared, such as an address's).
func (s *Service) refund(ctx context.Context, l limit, subject string) {
	if subject != "" {
		_ = s.DB.UnhitRateLimit(ctx, l.bucket(subject), l.Window, s.now())
	}
}

// request counts one attempt (or request) for subject and refuses it when over the limit. It
// is called before the attempt is checked.
func (s *Service) request(ctx context.Context, l limit, subject string) error {
	n, err := s.count(ctx, l, subject)
	if err != nil {
		return err
	}
	if n > l.Max {
		return ErrTooManyAttempts
	}
	return nil
}

// signInAttempt counts a password attempt for the account at the client's address before the
// password is checked, and refuses it past LimitSignInAccount. The lock lasts the base window,
// doubled for each earlier lock-out of the same account and address within the hour.
func (s *Service) signInAttempt(ctx context.Context, email, ip string) error {
	subject := email + " " + ip
	locks, err := s.DB.RateLimitHits(ctx, LimitSignInLockouts.bucket(subject), LimitSignInLockouts.Window, s.now())
	if err != nil {
		return err
	}
	window := LimitSignInAccount.Window << max(0, min(locks-1, LimitSignInLockouts.Max))
	n, err := s.DB.HitRateLimit(ctx, LimitSignInAccount.bucket(subject), window, s.now())
	if err != nil {
		return err
	}
	if n == LimitSignInAccount.Max+1 { // exactly one attempt crosses the line
		if _, err := s.count(ctx, LimitSignInLockouts, subject); err != nil {
			return err
		}
	}
	if n > LimitSignInAccount.Max {
		return ErrAccountLocked
	}
	return nil
}

// signInSucceeded clears the account's counter at this address and refunds the address's.
func (s *Service) signInSucceeded(ctx context.Context, email, ip string) {
	s.forget(ctx, LimitSignInAccount, email+" "+ip)
	s.refund(ctx, LimitSignInIP, ip)
}

// Client is who is on the other end of a request: the address limits count against, the user
// agent sessions remember, and the request itself for the audit log.
type Client struct {
	IP        string
	UserAgent string
	Req       *http.Request
}

// ClientOf describes a request's client. The address is the connection's peer (Timbre does not
// trust forwarding headers it cannot verify).
func ClientOf(r *http.Request) Client {
	ip := r.RemoteAddr
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		ip = host
	}
	ua := r.UserAgent()
	if len(ua) > 512 {
		ua = ua[:512]
	}
	return Client{IP: ip, UserAgent: ua, Req: r}
}
