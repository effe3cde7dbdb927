package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/httpx"
)

// The mails a request sends "if the account exists" (a password reset link, a new verification
// link) go out from a background job. Looking the address up, making the code and talking to
// the SMTP server all happen in the job; the request only counts its rate limits and inserts
// the job, the same work for a known and an unknown address, so its timing does not tell which
// addresses have accounts. The job also makes the mail reliable: a failed SMTP attempt is
// retried (AccountMailBackoff), each attempt with a fresh code made just before it is sent, so
// the link's lifetime starts when the mail leaves. The code of a failed attempt was never mailed
// and simply expires.
//
// Without a job queue (SetJobs not called: tests, tools) the mail is sent inline as before.

// JobInserter is what the service needs of the job client (*jobs.Client).
type JobInserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// SetJobs makes the "if the account exists" mails background jobs (AccountMailWorker must run).
func (s *Service) SetJobs(q JobInserter) { s.jobs.Store(&q) }

// The account mails a job sends.
const (
	accountMailReset  = "reset_password"
	accountMailVerify = "verify_email"
)

// AccountMailMaxAttempts bounds the tries of one account mail: with AccountMailBackoff they
// span about an hour, the lifetime of a reset link.
const AccountMailMaxAttempts = 6

// AccountMailBackoff is the wait before each retry of a failed account mail.
var AccountMailBackoff = []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute}

// AccountMailArgs is one account mail to send. Email is sealed under the server key when the
// service has one, so the job table holds no readable list of the addresses people typed.
type AccountMailArgs struct {
	Mail  string `json:"mail"`
	Email string `json:"email"`
	// PublicURL is the base of the mail's link: the address the request came by.
	PublicURL string `json:"public_url,omitempty"`
}

// Kind implements river.JobArgs.
func (AccountMailArgs) Kind() string { return "auth_account_mail" }

const accountMailPurpose = "account-mail-address"

// mailLater queues an account mail when the service has a job queue; queued says whether it
// did (err is then the insert's).
func (s *Service) mailLater(ctx context.Context, mail, email string) (queued bool, err error) {
	q := s.jobs.Load()
	if q == nil {
		return false, nil
	}
	sealed := email
	if s.Box != nil {
		if sealed, err = s.Box.Seal(email, accountMailPurpose); err != nil {
			return true, err
		}
	}
	_, err = (*q).Insert(ctx, AccountMailArgs{Mail: mail, Email: sealed, PublicURL: httpx.PublicURL(ctx, s.PublicURL)}, &river.InsertOpts{MaxAttempts: AccountMailMaxAttempts})
	return true, err
}

// AccountMailWorker sends queued account mails.
type AccountMailWorker struct {
	river.WorkerDefaults[AccountMailArgs]
	Svc *Service
	// Backoff overrides AccountMailBackoff (tests).
	Backoff []time.Duration
}

// Work looks the address up and mails it if it has an account; an SMTP error is returned, so
// River tries again after NextRetry.
func (w *AccountMailWorker) Work(ctx context.Context, job *river.Job[AccountMailArgs]) error {
	email := job.Args.Email
	if w.Svc.Box != nil {
		var err error
		if email, err = w.Svc.Box.Open(email, accountMailPurpose); err != nil {
			return river.JobCancel(fmt.Errorf("auth: account mail address: %w", err))
		}
	}
	if job.Args.PublicURL != "" {
		ctx = httpx.WithPublicURL(ctx, job.Args.PublicURL)
	}
	switch job.Args.Mail {
	case accountMailReset:
		return w.Svc.mailPasswordReset(ctx, email)
	case accountMailVerify:
		return w.Svc.mailVerification(ctx, email)
	}
	return river.JobCancel(errors.New("auth: unknown account mail " + job.Args.Mail))
}

// NextRetry implements the backoff schedule.
func (w *AccountMailWorker) NextRetry(job *river.Job[AccountMailArgs]) time.Time {
	b := w.Backoff
	if len(b) == 0 {
		b = AccountMailBackoff
	}
	return time.Now().Add(b[min(max(job.Attempt-1, 0), len(b)-1)])
}

// Timeout bounds one attempt: the SMTP sender's own dial and session limits fit inside.
func (w *AccountMailWorker) Timeout(*river.Job[AccountMailArgs]) time.Duration {
	return 2 * time.Minute
}
