package auth

import (
	"context"
	"net"
	"net/http"
	"time"

	"timbre/internal/httpx"
	"timbre/internal/store"
)

// MsgTooManyAttempts is the spec's §8 message for throttled attempts.
const MsgTooManyAttempts = "Too many attempts, please try again in a few minutes."

// ErrTooManyAttempts is the answer to an address (or account) over an attempt limit.
var ErrTooManyAttempts = httpx.Errorf(http.StatusTooManyRequests, "too_many_attempts", MsgTooManyAttempts)

// ErrAccountLocked is the answer to a sign-in of an account locked by failed attempts.
var ErrAccountLocked = httpx.Errorf(http.StatusTooManyRequests, "too_many_attempts",
	"Too many failed sign-in attempts: this account is locked for 15 minutes. Try again later, or reset your password.")

// limit is an attempt limit: at most Max attempts per Window for one subject (an account or an
// address). Counters live in the database (rate_limits), so every server process shares them.
type limit struct {
	Name   string
	Max    int64
	Window time.Duration
}

// The limits. Failure limits count failed attempts only; request limits count every request.
var (
	LimitSignInAccount   = limit{"sign_in_account", 10, 15 * time.Minute}
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

// over says whether subject has used up its attempts.
func (s *Service) over(ctx context.Context, l limit, subject string) (bool, error) {
	if subject == "" {
		return false, nil
	}
	n, err := s.DB.RateLimitHits(ctx, l.bucket(subject), l.Window, s.now())
	return n >= l.Max, err
}

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

// request counts one request for subject and refuses it when over the limit.
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
