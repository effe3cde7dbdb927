// Package mail sends the product's mail: through SMTP when configured, otherwise to the log and
// the development mailbox (kept in the database, shown at /app/dev/mailbox) so sign-up works out
// of the box.
package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"timbre/internal/store"
)

// Message is one mail.
type Message struct {
	To, Subject, Text, HTML string
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
	// Mailbox says whether messages land in the development mailbox (no real delivery).
	Mailbox() bool
}

// SMTPConfig is how to reach an SMTP server.
type SMTPConfig struct {
	Host, Username, Password, From string
	Port                           int
}

// New returns an SMTP sender when cfg.Host is set, else the development mailbox.
func New(cfg SMTPConfig, db Store, log *slog.Logger) Sender {
	if cfg.Host == "" {
		return &devMailbox{db: db, log: log}
	}
	return &smtpSender{cfg: cfg}
}

type devMailbox struct {
	db  Store
	log *slog.Logger
}

func (d *devMailbox) Mailbox() bool { return true }

func (d *devMailbox) Send(ctx context.Context, m Message) error {
	// Only that it went: the text holds working links and codes, which a log must not.
	d.log.Info("mail to the development mailbox (no SMTP server configured)", "subject", m.Subject)
	return d.db.AddMail(ctx, store.Mail{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}

type smtpSender struct{ cfg SMTPConfig }

func (s *smtpSender) Mailbox() bool { return false }

func (s *smtpSender) Send(ctx context.Context, m Message) error {
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	d := net.Dialer{Timeout: 15 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	} else {
		_ = conn.SetDeadline(time.Now().Add(time.Minute))
	}
	c, err := smtp.NewClient(conn, s.cfg.Host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: s.cfg.Host}); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.cfg.Username, s.cfg.Password, s.cfg.Host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	from := s.cfg.From
	if a, err := parseAddr(from); err == nil {
		from = a
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(compose(s.cfg.From, m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// compose builds a multipart/alternative message with a text and an HTML part. The parts are
// quoted-printable: SMTP allows at most 998 octets a line and 7-bit bodies unless the server
// announces more, and an HTML part is easily one long line (the encoding also makes every line
// end in CRLF).
func compose(from string, m Message) []byte {
	boundary := "timbre-" + store.RandomString(16)
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n", from, m.To, mime.QEncoding.Encode("utf-8", m.Subject), time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=%q\r\n\r\n", boundary)
	part := func(contentType, body string) {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, contentType)
		qp := quotedprintable.NewWriter(&b)
		_, _ = qp.Write([]byte(body)) // a strings.Builder does not fail
		_ = qp.Close()
		b.WriteString("\r\n")
	}
	part("text/plain", m.Text)
	if m.HTML != "" {
		part("text/html", m.HTML)
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return []byte(b.String())
}

func parseAddr(s string) (string, error) {
	if i, j := strings.LastIndex(s, "<"), strings.LastIndex(s, ">"); i >= 0 && j > i {
		return s[i+1 : j], nil
	}
	if strings.Contains(s, "@") {
		return strings.TrimSpace(s), nil
	}
	return "", fmt.Errorf("bad address %q", s)
}
