package auth_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/riverqueue/river"

	"timbre/internal/auth"
	"timbre/internal/jobs"
	mailer "timbre/internal/mail"
	"timbre/internal/plan"
	"timbre/internal/secret"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

var discard = slog.New(slog.DiscardHandler)

// --- a real SMTP server on loopback that can refuse the first messages with a 451 ---

type smtpInbox struct {
	mu        sync.Mutex
	failFirst int // DATA commands to refuse (a temporary failure) before accepting
	refused   int
	msgs      []smtpMsg
}

type smtpMsg struct {
	To   []string
	Data []byte
}

func (b *smtpInbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{be: b}, nil }

func (b *smtpInbox) messages() []smtpMsg {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]smtpMsg(nil), b.msgs...)
}

func (b *smtpInbox) refusals() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

type smtpSession struct {
	be  *smtpInbox
	cur smtpMsg
}

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { s.cur = smtpMsg{}; return nil }
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.be.mu.Lock()
	defer s.be.mu.Unlock()
	if s.be.refused < s.be.failFirst {
		s.be.refused++
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary local problem, try again later"}
	}
	s.cur.Data = data
	s.be.msgs = append(s.be.msgs, s.cur)
	return nil
}

func (s *smtpSession) Reset()        { s.cur = smtpMsg{} }
func (s *smtpSession) Logout() error { return nil }

func startSMTP(tb testing.TB, be *smtpInbox) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := smtp.NewServer(be)
	srv.Domain = "mx.timbre.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// textOf decodes the text/plain part of a message as the SMTP server received it.
func textOf(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse message: %v", err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("no text/plain part: %v", err)
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain") {
			b, _ := io.ReadAll(p) // quoted-printable is decoded by the reader
			return string(b)
		}
	}
}

// spySender counts the calls that reach the real sender behind it.
type spySender struct {
	next  mailer.Sender
	mu    sync.Mutex
	calls int
}

func (s *spySender) Send(ctx context.Context, m mailer.Message) error {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	return s.next.Send(ctx, m)
}

func (s *spySender) Mailbox() bool { return s.next.Mailbox() }

func (s *spySender) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func newBox(tb testing.TB) *secret.Box {
	tb.Helper()
	box, err := secret.NewBox(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	return box
}

// accountMailJobs returns the args of the queued account-mail jobs.
func accountMailJobs(t *testing.T, db *store.DB) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	if db.Dialect == store.Postgres {
		rows, err := db.PG.Query(ctx, `SELECT args::text FROM river_job WHERE kind = 'auth_account_mail'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	rows, err := db.SQLiteDB.QueryContext(ctx, `SELECT CAST(args AS TEXT) FROM river_job WHERE kind = 'auth_account_mail'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAccountMailsLeaveTheRequestPath: with a job queue, the reset and resend-verification
// requests return without calling the mail sender at all (for known and unknown addresses
// alike: one sealed job each); the worker then delivers the mails through a real SMTP server,
// retrying after the server's temporary refusal, and the mailed codes work.
func TestAccountMailsLeaveTheRequestPath(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inbox := &smtpInbox{failFirst: 1}
		port := startSMTP(t, inbox)
		spy := &spySender{next: mailer.New(mailer.SMTPConfig{Host: "127.0.0.1", Port: port, From: "Timbre <noreply@timbre.test>"}, db, discard)}
		svc := &auth.Service{DB: db, Mail: spy, PublicURL: publicURL, Box: newBox(t)}
		if _, _, err := db.CreateUserWithWorkspace(ctx, "known@example.com", auth.HashPassword("old-password-1"), true, plan.Default, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.CreateUserWithWorkspace(ctx, "fresh@example.com", auth.HashPassword("fresh-password-1"), false, plan.Default, time.Now()); err != nil {
			t.Fatal(err)
		}
		ins, err := jobs.NewInsertOnly(db, discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := ins.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ins.Close() })
		svc.SetJobs(ins)

		c := auth.Client{IP: "198.51.100.7"}
		for _, call := range []func() error{
			func() error { return svc.SendPasswordResetFrom(ctx, c, " Known@Example.com") },
			func() error { return svc.SendPasswordResetFrom(ctx, c, "nobody@example.com") },
			func() error { return svc.SendVerificationFrom(ctx, c, "fresh@example.com") },
			func() error { return svc.SendVerificationFrom(ctx, c, "nobody@example.com") },
		} {
			if err := call(); err != nil {
				t.Fatal(err)
			}
		}
		// Nothing has run the jobs yet: no request called the sender or reached the SMTP server.
		if n := spy.count(); n != 0 {
			t.Fatalf("the requests called the mail sender %d times", n)
		}
		if n := len(inbox.messages()) + inbox.refusals(); n != 0 {
			t.Fatalf("the SMTP server saw %d messages during the requests", n)
		}
		queued := accountMailJobs(t, db)
		if len(queued) != 4 {
			t.Fatalf("%d account-mail jobs queued, want one per request (4): %v", len(queued), queued)
		}
		for _, args := range queued {
			if strings.Contains(args, "example.com") {
				t.Fatalf("a queued job shows the address: %s", args)
			}
		}

		// The worker: the first message is refused (451) and retried.
		workers := river.NewWorkers()
		river.AddWorker(workers, &auth.AccountMailWorker{Svc: svc, Backoff: []time.Duration{50 * time.Millisecond}})
		wc, err := jobs.NewWithConfig(db, jobs.Config{Logger: discard, Workers: workers, QueueWorkers: 2, FetchPollInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := wc.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = wc.Close() })
		waitUntil(t, "two delivered mails", func() bool { return len(inbox.messages()) == 2 })
		time.Sleep(300 * time.Millisecond) // the unknown addresses get nothing
		msgs := inbox.messages()
		if len(msgs) != 2 || inbox.refusals() != 1 || spy.count() != 3 {
			t.Fatalf("%d delivered, %d refused, %d sends; want 2, 1, 3", len(msgs), inbox.refusals(), spy.count())
		}
		byTo := map[string]string{}
		for _, m := range msgs {
			if len(m.To) != 1 {
				t.Fatalf("recipients %v", m.To)
			}
			byTo[m.To[0]] = textOf(t, m.Data)
		}
		reset := codeRE.FindStringSubmatch(byTo["known@example.com"])
		if reset == nil || reset[1] != "resetPassword" {
			t.Fatalf("no reset link mailed to known@example.com:\n%s", byTo["known@example.com"])
		}
		if err := svc.ResetPassword(ctx, reset[2], "new-passphrase-blue-2", false); err != nil {
			t.Fatalf("the mailed reset code: %v", err)
		}
		if _, _, _, err := svc.SignIn(ctx, "known@example.com", "new-passphrase-blue-2"); err != nil {
			t.Fatalf("sign in with the new password: %v", err)
		}
		verify := codeRE.FindStringSubmatch(byTo["fresh@example.com"])
		if verify == nil || verify[1] != "verifyEmail" {
			t.Fatalf("no verification link mailed to fresh@example.com:\n%s", byTo["fresh@example.com"])
		}
		if u, err := svc.VerifyEmail(ctx, verify[2]); err != nil || !u.EmailVerified {
			t.Fatalf("the mailed verification code: %v", err)
		}
	})
}

// TestAccountMailInlineWithoutQueue: without a job queue (tools, tests) the mail is still sent,
// inline, as before.
func TestAccountMailInlineWithoutQueue(t *testing.T) {
	db := testdb.SQLite(t)
	svc, rec, _ := newService(t, db)
	ctx := context.Background()
	if _, _, err := db.CreateUserWithWorkspace(ctx, "inline@example.com", auth.HashPassword("password-123"), true, plan.Default, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := svc.SendPasswordReset(ctx, "inline@example.com"); err != nil || rec.count() != 1 {
		t.Fatalf("inline reset: %v, %d mails", err, rec.count())
	}
}

// --- known vs unknown address: the request's latency ---

// resetBench is a service on SQLite whose mail goes to a real SMTP server on loopback, either
// inline (queued false: the old path) or through a job (true). Its clock moves two hours a
// request so the rate limits never refuse.
func resetBench(b *testing.B, queued bool) func(email string) time.Duration {
	db := testdb.SQLite(b)
	ctx := context.Background()
	if _, _, err := db.CreateUserWithWorkspace(ctx, "known@example.com", auth.HashPassword("password-123"), true, plan.Default, time.Now()); err != nil {
		b.Fatal(err)
	}
	port := startSMTP(b, &smtpInbox{})
	clk := &clock{t: time.Now()}
	svc := &auth.Service{DB: db, Mail: mailer.New(mailer.SMTPConfig{Host: "127.0.0.1", Port: port, From: "noreply@timbre.test"}, db, discard),
		PublicURL: publicURL, Box: newBox(b), Now: clk.Now}
	if queued {
		ins, err := jobs.NewInsertOnly(db, discard)
		if err != nil {
			b.Fatal(err)
		}
		if err := ins.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ins.Close() })
		svc.SetJobs(ins)
	}
	c := auth.Client{IP: "198.51.100.7"}
	return func(email string) time.Duration {
		clk.Advance(2 * time.Hour)
		start := time.Now()
		if err := svc.SendPasswordResetFrom(ctx, c, email); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
}

func benchReset(b *testing.B, email string, queued bool) {
	run := resetBench(b, queued)
	for b.Loop() {
		run(email)
	}
}

func BenchmarkPasswordResetKnown(b *testing.B)   { benchReset(b, "known@example.com", true) }
func BenchmarkPasswordResetUnknown(b *testing.B) { benchReset(b, "unknown@example.com", true) }

// BenchmarkPasswordResetKnownVsUnknown alternates a known and an unknown address on one
// service, so both see the same machine load, and reports each one's median latency and their
// ratio (known/unknown): about 1 through the job queue; the inline path, for comparison, pays
// for the code and the SMTP session only for known addresses.
func BenchmarkPasswordResetKnownVsUnknown(b *testing.B) {
	for _, queued := range []bool{true, false} {
		name := "queued"
		if !queued {
			name = "inline"
		}
		b.Run(name, func(b *testing.B) {
			run := resetBench(b, queued)
			var known, unknown []time.Duration
			for b.Loop() {
				known = append(known, run("known@example.com"))
				unknown = append(unknown, run("unknown@example.com"))
			}
			mk, mu := median(known), median(unknown)
			b.ReportMetric(float64(mk.Microseconds()), "known-median-µs")
			b.ReportMetric(float64(mu.Microseconds()), "unknown-median-µs")
			b.ReportMetric(float64(mk)/float64(mu), "known/unknown")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
