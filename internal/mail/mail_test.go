package mail

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// testTLS is the server side of STARTTLS: a self-signed certificate for the loopback addresses.
// TestMain points SSL_CERT_FILE at it before anything loads the system roots, so the sender's
// tls.Config (which uses the system roots) trusts it without any test hook in mail.go.
var testTLS *tls.Config

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "timbre-mail-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg, pemBytes, err := selfSigned()
	if err == nil {
		path := filepath.Join(dir, "ca.pem")
		if err = os.WriteFile(path, pemBytes, 0o600); err == nil {
			os.Setenv("SSL_CERT_FILE", path)
			testTLS = cfg
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mail test: no TLS certificate:", err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func selfSigned() (*tls.Config, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "timbre mail test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.2")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}}, certPEM, nil
}

// --- an in-process SMTP server that records what it receives ---

const (
	testUser = "mailer@timbre.test"
	testPass = "s3cret-pässword"
)

type received struct {
	From     string
	To       []string
	Data     []byte
	TLS      bool
	AuthUser string
}

type backend struct {
	requireAuth bool

	mu        sync.Mutex
	msgs      []received
	authTries int
}

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{be: b, conn: c}, nil
}

func (b *backend) authAttempts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.authTries
}

func (b *backend) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

type session struct {
	be       *backend
	conn     *smtp.Conn
	authUser string
	cur      received
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(mech string) (sasl.Server, error) {
	s.be.mu.Lock()
	s.be.authTries++
	s.be.mu.Unlock()
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != testUser || password != testPass {
			return errors.New("invalid credentials")
		}
		s.authUser = username
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.be.requireAuth && s.authUser == "" {
		return smtp.ErrAuthRequired
	}
	s.cur = received{From: from}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.cur.Data, s.cur.TLS, s.cur.AuthUser = data, isTLS, s.authUser
	s.be.mu.Lock()
	s.be.msgs = append(s.be.msgs, s.cur)
	s.be.mu.Unlock()
	return nil
}

func (s *session) Reset()        { s.cur = received{} }
func (s *session) Logout() error { return nil }

// startSMTP runs a server on host (a loopback address) and returns its port.
func startSMTP(t *testing.T, host string, be *backend, withTLS bool) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	srv := smtp.NewServer(be)
	srv.Domain = "mx.timbre.test"
	srv.AllowInsecureAuth = true // the test speaks plain SMTP on loopback unless withTLS
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 1 << 20
	if withTLS {
		if testTLS == nil {
			t.Skip("no TLS certificate")
		}
		srv.TLSConfig = testTLS
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// --- the message every delivery test sends ---

const link = "https://timbre.example/app/action?mode=verifyEmail&oobCode=AbC123xyz&lang=en"

var testMsg = Message{
	To:      "alice@example.com",
	Subject: "Vérifiez votre adresse — Timbre ✓ 日本語",
	Text:    "Welcome to Timbre!\n\nConfirm your email address by opening this link:\n\n" + link + "\n\n.leading dot line\nBye.",
	HTML:    `<p>Welcome to Timbre!</p><p><a href="` + strings.ReplaceAll(link, "&", "&amp;") + `">Confirm</a></p>`,
}

// checkDelivered asserts one message on the wire is testMsg, well formed.
func checkDelivered(t *testing.T, got received, headerFrom string) {
	t.Helper()
	if got.From != "noreply@timbre.test" {
		t.Errorf("envelope sender = %q, want noreply@timbre.test", got.From)
	}
	if len(got.To) != 1 || got.To[0] != testMsg.To {
		t.Errorf("envelope recipients = %q, want [%s]", got.To, testMsg.To)
	}
	checkMessage(t, got.Data, headerFrom, testMsg)
}

func checkMessage(t *testing.T, raw []byte, headerFrom string, want Message) {
	t.Helper()
	// Every line ends in CRLF: no bare LF, no bare CR.
	for i, c := range raw {
		if c == '\n' && (i == 0 || raw[i-1] != '\r') {
			t.Fatalf("bare LF at byte %d: %q", i, raw[max(0, i-40):i+1])
		}
		if c == '\r' && (i+1 >= len(raw) || raw[i+1] != '\n') {
			t.Fatalf("bare CR at byte %d", i)
		}
	}
	if !bytes.HasSuffix(raw, []byte("\r\n")) {
		t.Errorf("message does not end in CRLF")
	}
	for i, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("line %d is %d octets, over SMTP's 998", i, len(line))
		}
	}

	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse message: %v\n%s", err, raw)
	}
	h := msg.Header
	if got := h.Get("From"); got != headerFrom {
		t.Errorf("From: = %q, want %q", got, headerFrom)
	}
	if got := h.Get("To"); got != want.To {
		t.Errorf("To: = %q, want %q", got, want.To)
	}
	rawSubject := h.Get("Subject")
	for _, r := range rawSubject {
		if r > 127 {
			t.Fatalf("Subject header not ASCII (not encoded): %q", rawSubject)
		}
	}
	if !strings.Contains(rawSubject, "=?utf-8?") {
		t.Errorf("Subject not RFC 2047 encoded: %q", rawSubject)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(rawSubject)
	if err != nil || subject != want.Subject {
		t.Errorf("decoded Subject = %q (%v), want %q", subject, err, want.Subject)
	}
	if _, err := h.Date(); err != nil {
		t.Errorf("Date header: %v", err)
	}
	if h.Get("MIME-Version") != "1.0" {
		t.Errorf("MIME-Version = %q", h.Get("MIME-Version"))
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" || params["boundary"] == "" {
		t.Fatalf("Content-Type = %q (%v), want multipart/alternative with a boundary", h.Get("Content-Type"), err)
	}
	parts := map[string]string{}
	var order []string
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("multipart: %v", err)
		}
		ct, cp, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err != nil {
			t.Fatalf("part Content-Type %q: %v", p.Header.Get("Content-Type"), err)
		}
		if cp["charset"] != "utf-8" {
			t.Errorf("part %s charset = %q, want utf-8", ct, cp["charset"])
		}
		body, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		parts[ct] = strings.ReplaceAll(string(body), "\r\n", "\n")
		order = append(order, ct)
	}
	// multipart/alternative lists the plainest first, the preferred (HTML) last.
	if strings.Join(order, ",") != "text/plain,text/html" {
		t.Errorf("parts = %v, want [text/plain text/html]", order)
	}
	if parts["text/plain"] != want.Text {
		t.Errorf("text part = %q, want %q", parts["text/plain"], want.Text)
	}
	if parts["text/html"] != want.HTML {
		t.Errorf("html part = %q, want %q", parts["text/html"], want.HTML)
	}
	if !strings.Contains(parts["text/plain"], link) {
		t.Errorf("text part lost the link %q", link)
	}
	if !strings.Contains(parts["text/html"], `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
		t.Errorf("html part lost the link")
	}
}

// --- tests ---

func TestComposeCRLFAndParts(t *testing.T) {
	m := testMsg
	m.Text = strings.ReplaceAll(m.Text, "Bye.", "mixed\r\nendings\nhere")
	raw := compose("Timbre <noreply@timbre.test>", m)
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Fatalf("compose left a bare LF:\n%q", raw)
	}
	// compose's own output (before the SMTP dot-writer, which would fix line endings for it).
	want := m
	want.Text = strings.ReplaceAll(m.Text, "\r\n", "\n")
	checkMessage(t, raw, "Timbre <noreply@timbre.test>", want)
	// The boundary is fresh per message.
	if b1, b2 := boundaryOf(t, raw), boundaryOf(t, compose("x@y", m)); b1 == b2 {
		t.Errorf("boundary repeated: %q", b1)
	}
}

func boundaryOf(t *testing.T, raw []byte) string {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, p, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	return p["boundary"]
}

func TestComposeSubjectCannotInjectHeaders(t *testing.T) {
	raw := string(compose("x@timbre.test", Message{To: "a@b.c", Subject: "hi\r\nBcc: evil@example.com", Text: "t"}))
	head := raw[:strings.Index(raw, "\r\n\r\n")]
	if strings.Contains(head, "\r\nBcc:") {
		t.Fatalf("subject injected a header:\n%s", head)
	}
}

// PLAIN auth over an unencrypted connection: net/smtp allows it because the server is localhost.
func TestSMTPSendPlainAuthLocalhost(t *testing.T) {
	be := &backend{requireAuth: true}
	port := startSMTP(t, "127.0.0.1", be, false)
	s := New(SMTPConfig{Host: "127.0.0.1", Port: port, Username: testUser, Password: testPass, From: "Timbre <noreply@timbre.test>"}, nil, nil)
	if s.Mailbox() {
		t.Fatal("SMTP sender reports Mailbox() true")
	}
	if err := s.Send(ctxTimeout(t), testMsg); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	if msgs[0].AuthUser != testUser {
		t.Errorf("authenticated as %q, want %q", msgs[0].AuthUser, testUser)
	}
	if msgs[0].TLS {
		t.Errorf("TLS used although the server offers no STARTTLS")
	}
	checkDelivered(t, msgs[0], "Timbre <noreply@timbre.test>")
}

func TestSMTPSendNoAuth(t *testing.T) {
	be := &backend{}
	port := startSMTP(t, "127.0.0.1", be, false)
	s := New(SMTPConfig{Host: "127.0.0.1", Port: port, From: "noreply@timbre.test"}, nil, nil)
	if err := s.Send(ctxTimeout(t), testMsg); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	if be.authAttempts() != 0 || msgs[0].AuthUser != "" {
		t.Errorf("AUTH sent without a username configured")
	}
	checkDelivered(t, msgs[0], "noreply@timbre.test")
}

func TestSMTPSendWrongPassword(t *testing.T) {
	be := &backend{requireAuth: true}
	port := startSMTP(t, "127.0.0.1", be, false)
	s := New(SMTPConfig{Host: "127.0.0.1", Port: port, Username: testUser, Password: "wrong", From: "noreply@timbre.test"}, nil, nil)
	err := s.Send(ctxTimeout(t), testMsg)
	if err == nil || !strings.Contains(err.Error(), "smtp auth") {
		t.Fatalf("send with a wrong password: err = %v, want an smtp auth error", err)
	}
	if n := len(be.messages()); n != 0 {
		t.Fatalf("server got %d messages", n)
	}
}

// A server that is not localhost (127.0.0.2 is loopback, but net/smtp only trusts the names
// localhost, 127.0.0.1 and ::1) and offers STARTTLS: the sender upgrades, then authenticates.
func TestSMTPSendSTARTTLSThenAuth(t *testing.T) {
	be := &backend{requireAuth: true}
	port := startSMTP(t, "127.0.0.2", be, true)
	s := New(SMTPConfig{Host: "127.0.0.2", Port: port, Username: testUser, Password: testPass, From: "Timbre <noreply@timbre.test>"}, nil, nil)
	if err := s.Send(ctxTimeout(t), testMsg); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	if !msgs[0].TLS {
		t.Errorf("message sent without STARTTLS although the server offered it")
	}
	if msgs[0].AuthUser != testUser {
		t.Errorf("authenticated as %q, want %q", msgs[0].AuthUser, testUser)
	}
	checkDelivered(t, msgs[0], "Timbre <noreply@timbre.test>")
}

// The same non-local server without STARTTLS: the password must not go out in clear text.
func TestSMTPSendRefusesCleartextAuthToRemote(t *testing.T) {
	be := &backend{requireAuth: true}
	port := startSMTP(t, "127.0.0.2", be, false)
	s := New(SMTPConfig{Host: "127.0.0.2", Port: port, Username: testUser, Password: testPass, From: "noreply@timbre.test"}, nil, nil)
	err := s.Send(ctxTimeout(t), testMsg)
	if err == nil || !strings.Contains(err.Error(), "smtp auth") {
		t.Fatalf("err = %v, want the client to refuse PLAIN auth over an unencrypted connection", err)
	}
	if be.authAttempts() != 0 {
		t.Errorf("the client sent AUTH over an unencrypted connection to a remote host")
	}
	if n := len(be.messages()); n != 0 {
		t.Fatalf("server got %d messages", n)
	}
}

func TestSMTPSendUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := New(SMTPConfig{Host: "127.0.0.1", Port: port, From: "noreply@timbre.test"}, nil, nil)
	err = s.Send(ctxTimeout(t), testMsg)
	if err == nil || !strings.Contains(err.Error(), "smtp dial 127.0.0.1:"+strconv.Itoa(port)) {
		t.Fatalf("err = %v, want a dial error naming the address", err)
	}
}

func TestParseAddr(t *testing.T) {
	for in, want := range map[string]string{
		"Timbre <noreply@timbre.test>":   "noreply@timbre.test",
		"noreply@timbre.test":            "noreply@timbre.test",
		"  noreply@timbre.test ":         "noreply@timbre.test",
		`"Timbre, Inc." <a@timbre.test>`: "a@timbre.test",
	} {
		if got, err := parseAddr(in); err != nil || got != want {
			t.Errorf("parseAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseAddr("nobody"); err == nil {
		t.Errorf("parseAddr(nobody) accepted")
	}
}

func TestDevMailbox(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := ctxTimeout(t)
		var logged bytes.Buffer
		s := New(SMTPConfig{}, db, slog.New(slog.NewTextHandler(&logged, nil)))
		defer func() {
			// The log says a mail went to the mailbox, never its text (links, codes).
			if !strings.Contains(logged.String(), "development mailbox") || strings.Contains(logged.String(), link) || strings.Contains(logged.String(), "text=") {
				t.Errorf("mailbox log = %q", logged.String())
			}
		}()
		if !s.Mailbox() {
			t.Fatal("development mailbox reports Mailbox() false")
		}
		if New(SMTPConfig{Host: "smtp.example.com", Port: 587}, db, nil).Mailbox() {
			t.Fatal("SMTP sender reports Mailbox() true")
		}
		second := Message{To: "bob@example.com", Subject: "Reset your Timbre password", Text: "reset", HTML: ""}
		for _, m := range []Message{testMsg, second} {
			if err := s.Send(ctx, m); err != nil {
				t.Fatalf("send: %v", err)
			}
		}
		got, err := db.ListMail(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("ListMail = %d messages, want 2", len(got))
		}
		bySubject := map[string]store.Mail{}
		for _, m := range got {
			if m.ID == "" || m.CreatedAt == 0 {
				t.Errorf("stored mail without id or time: %+v", m)
			}
			if d := time.Since(time.Unix(m.CreatedAt, 0)); d < -time.Minute || d > time.Minute {
				t.Errorf("created_at %d is not now", m.CreatedAt)
			}
			bySubject[m.Subject] = m
		}
		for _, want := range []Message{testMsg, second} {
			m, ok := bySubject[want.Subject]
			if !ok {
				t.Fatalf("message %q not stored", want.Subject)
			}
			if m.To != want.To || m.Text != want.Text || m.HTML != want.HTML {
				t.Errorf("stored %+v, want %+v", m, want)
			}
		}
		if got, _ := db.ListMail(ctx, 1); len(got) != 1 {
			t.Errorf("ListMail(limit 1) = %d messages", len(got))
		}
	})
}

// SMTP caps a line at 998 octets and a body is 7-bit unless declared otherwise: a long HTML line
// or non-ASCII text must still go through a server that enforces its line limit.
func TestSMTPSendLongLinesAndUnicodeBody(t *testing.T) {
	be := &backend{}
	port := startSMTP(t, "127.0.0.1", be, false)
	m := testMsg
	m.Text = "Grüße aus Köln — ✓\n" + link + "?pad=" + strings.Repeat("x", 1500) + "\nend"
	m.HTML = "<p>" + strings.Repeat("Grüße ", 500) + `</p><a href="` + strings.ReplaceAll(link, "&", "&amp;") + `">go</a>`
	s := New(SMTPConfig{Host: "127.0.0.1", Port: port, From: "noreply@timbre.test"}, nil, nil)
	if err := s.Send(ctxTimeout(t), m); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages", len(msgs))
	}
	for i, c := range msgs[0].Data {
		if c > 127 {
			t.Fatalf("raw 8-bit byte at %d in a message that declares no 8-bit transfer", i)
		}
	}
	checkMessage(t, msgs[0].Data, "noreply@timbre.test", m)
}
