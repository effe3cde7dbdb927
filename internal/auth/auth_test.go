package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

const publicURL = "https://timbre.example"

// recSender records the mail the service sends.
type recSender struct {
	mu   sync.Mutex
	msgs []mailer.Message
}

func (r *recSender) Send(_ context.Context, m mailer.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

func (r *recSender) Mailbox() bool { return false }

func (r *recSender) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

func (r *recSender) last(t *testing.T) mailer.Message {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.msgs) == 0 {
		t.Fatal("no mail sent")
	}
	return r.msgs[len(r.msgs)-1]
}

// clock is a settable Service.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newService(t *testing.T, db *store.DB) (*auth.Service, *recSender, *clock) {
	t.Helper()
	rec := &recSender{}
	clk := &clock{t: time.Now().Truncate(time.Second)}
	return &auth.Service{DB: db, Mail: rec, PublicURL: publicURL, Now: clk.Now}, rec, clk
}

var codeRE = regexp.MustCompile(`/app/action\?mode=(verifyEmail|resetPassword)&oobCode=([0-9A-Za-z]+)&lang=en`)

// codeFrom extracts the action code of mode from a mail, checking text and HTML carry the same link.
func codeFrom(t *testing.T, m mailer.Message, mode string) string {
	t.Helper()
	mt := codeRE.FindStringSubmatch(m.Text)
	if mt == nil || mt[1] != mode {
		t.Fatalf("mail text has no %s link:\n%s", mode, m.Text)
	}
	link := publicURL + mt[0]
	if !strings.Contains(m.Text, link) {
		t.Errorf("link in text is not absolute under %s: %s", publicURL, m.Text)
	}
	if !strings.Contains(m.HTML, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
		t.Errorf("HTML lacks the same link %s:\n%s", link, m.HTML)
	}
	return mt[2]
}

// apiError renders err as the API would and returns the HTTP status and detail.
func apiError(t *testing.T, err error) (int, json.RawMessage) {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	rec := httptest.NewRecorder()
	httpx.WriteError(rec, httptest.NewRequest("GET", "/", nil), err)
	var body struct {
		Detail json.RawMessage `json:"detail"`
	}
	if e := json.Unmarshal(rec.Body.Bytes(), &body); e != nil {
		t.Fatalf("error body %q: %v", rec.Body.String(), e)
	}
	return rec.Code, body.Detail
}

// wantStatus asserts err is the application error status with httpStatus.
func wantStatus(t *testing.T, err error, httpStatus int, status string) {
	t.Helper()
	code, detail := apiError(t, err)
	var d struct{ Status, Message string }
	_ = json.Unmarshal(detail, &d)
	if code != httpStatus || d.Status != status {
		t.Fatalf("error %v → %d %s, want %d %s", err, code, detail, httpStatus, status)
	}
	if d.Message == "" {
		t.Errorf("error %s has no message", status)
	}
}

// wantInvalid asserts err is a 422 naming field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	code, detail := apiError(t, err)
	var fields []errs.FieldError
	if e := json.Unmarshal(detail, &fields); e != nil || code != http.StatusUnprocessableEntity {
		t.Fatalf("error %v → %d %s, want 422 naming %s", err, code, detail, field)
	}
	for _, f := range fields {
		if len(f.Loc) == 2 && f.Loc[0] == "body" && f.Loc[1] == field && f.Msg != "" {
			return
		}
	}
	t.Fatalf("422 %s does not name field %s", detail, field)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// signUpVerified signs up and verifies a user through the service.
func signUpVerified(t *testing.T, svc *auth.Service, rec *recSender, email, password string) *store.User {
	t.Helper()
	ctx := ctxT(t)
	if _, err := svc.SignUp(ctx, email, password, true, ""); err != nil {
		t.Fatalf("sign up %s: %v", email, err)
	}
	u, err := svc.VerifyEmail(ctx, codeFrom(t, rec.last(t), "verifyEmail"))
	if err != nil {
		t.Fatalf("verify %s: %v", email, err)
	}
	return u
}

func TestSignUpValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, _ := newService(t, db)
		ctx := ctxT(t)
		cases := []struct {
			name, email, password string
			terms                 bool
			field                 string
		}{
			{"missing email", "", "long enough pw", true, "email"},
			{"not an email", "not-an-email", "long enough pw", true, "email"},
			{"no domain", "bob@", "long enough pw", true, "email"},
			{"display name form", "Bob <bob@example.com>", "long enough pw", true, "email"},
			{"too long", strings.Repeat("a", 250) + "@example.com", "long enough pw", true, "email"},
			{"short password", "bob@example.com", "1234567", true, "password"},
			{"empty password", "bob@example.com", "", true, "password"},
			{"7 runes of 2 bytes", "bob@example.com", "ééééééé", true, "password"},
			{"terms not accepted", "bob@example.com", "long enough pw", false, "terms_accepted"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				u, err := svc.SignUp(ctx, c.email, c.password, c.terms, "")
				if u != nil {
					t.Errorf("user returned with a validation error")
				}
				wantInvalid(t, err, c.field)
			})
		}
		// All three problems at once are all reported.
		_, err := svc.SignUp(ctx, "nope", "short", false, "")
		for _, f := range []string{"email", "password", "terms_accepted"} {
			wantInvalid(t, err, f)
		}
		if rec.count() != 0 {
			t.Errorf("%d mails sent for invalid sign-ups", rec.count())
		}
		if _, err := db.UserByEmail(ctx, "bob@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an invalid sign-up created a user: %v", err)
		}
		// 8 characters (of any width) is enough; the address is trimmed and lower-cased.
		u, err := svc.SignUp(ctx, "  Bob@Example.COM ", "éééééééé", true, "")
		if err != nil {
			t.Fatalf("valid sign-up: %v", err)
		}
		if u.Email != "bob@example.com" || u.EmailVerified || u.WorkspaceID == "" {
			t.Errorf("user = %+v, want unverified bob@example.com with a workspace", u)
		}
		if !strings.HasPrefix(u.PasswordHash, "$argon2id$") || strings.Contains(u.PasswordHash, "éééééééé") {
			t.Errorf("password hash = %q", u.PasswordHash)
		}
	})
}

func TestSignUpDuplicateEmail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, _ := newService(t, db)
		ctx := ctxT(t)
		if _, err := svc.SignUp(ctx, "Alice@Example.com", "correct horse battery staple", true, ""); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"alice@example.com", "ALICE@EXAMPLE.COM", " alice@example.com"} {
			_, err := svc.SignUp(ctx, email, "another strong passphrase", true, "")
			wantStatus(t, err, http.StatusConflict, "email_already_exists")
			if !errors.Is(err, auth.ErrEmailTaken) {
				t.Errorf("err = %v, want ErrEmailTaken", err)
			}
		}
		// The owner hears of each attempt (the HTTP answer hides it: TestSignUpDoesNotRevealAccounts).
		if rec.count() != 4 || rec.last(t).To != "alice@example.com" || !strings.Contains(rec.last(t).Subject, "sign up") {
			t.Errorf("%d mails sent, want 1 verification and 3 notices to the owner", rec.count())
		}
		// The operator's create-user refuses the same email too.
		_, err := svc.CreateVerifiedUser(ctx, "ALICE@example.com", "correct horse battery staple")
		wantStatus(t, err, http.StatusConflict, "email_already_exists")
	})
}

func TestVerificationFlow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u, err := svc.SignUp(ctx, "carol@example.com", "carol's long password", true, "")
		if err != nil {
			t.Fatal(err)
		}
		m := rec.last(t)
		if m.To != "carol@example.com" || m.Subject == "" || m.Text == "" || m.HTML == "" {
			t.Fatalf("verification mail = %+v", m)
		}
		code := codeFrom(t, m, "verifyEmail")
		if len(code) < 20 {
			t.Errorf("code %q is short", code)
		}

		// Sign-in before verification: the right password gets email_not_verified…
		_, _, _, err = svc.SignIn(ctx, "carol@example.com", "carol's long password")
		wantStatus(t, err, http.StatusForbidden, "email_not_verified")
		// …but a wrong one does not learn that the account exists unverified.
		_, _, _, err = svc.SignIn(ctx, "carol@example.com", "wrong password")
		wantStatus(t, err, http.StatusUnauthorized, "invalid_credentials")

		// A verification code is not a reset code.
		_, err = svc.CheckResetCode(ctx, code)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")
		if err := svc.ResetPassword(ctx, code, "a brand new passphrase", false); !errors.Is(err, auth.ErrInvalidActionCode) {
			t.Fatalf("reset with a verification code: %v", err)
		}

		_, err = svc.VerifyEmail(ctx, "wrong"+code)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")
		_, err = svc.VerifyEmail(ctx, "")
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")

		clk.Advance(72*time.Hour - time.Minute) // still within the 72 h
		v, err := svc.VerifyEmail(ctx, code)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		if v.ID != u.ID || !v.EmailVerified {
			t.Errorf("verified user = %+v", v)
		}
		_, err = svc.VerifyEmail(ctx, code)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")

		if _, tok, csrf, err := svc.SignIn(ctx, "carol@example.com", "carol's long password"); err != nil || tok == "" || csrf == "" {
			t.Fatalf("sign in after verification: %v", err)
		}
		// A verified user is not sent another verification mail.
		n := rec.count()
		if err := svc.SendVerification(ctx, v); err != nil || rec.count() != n {
			t.Errorf("SendVerification for a verified user: err %v, %d new mails", err, rec.count()-n)
		}
	})
}

func TestVerificationCodeExpires(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u, err := svc.SignUp(ctx, "dave@example.com", "dave's long password", true, "")
		if err != nil {
			t.Fatal(err)
		}
		old := codeFrom(t, rec.last(t), "verifyEmail")
		clk.Advance(72*time.Hour + time.Second)
		_, err = svc.VerifyEmail(ctx, old)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")
		if u2, _ := db.UserByID(ctx, u.ID); u2.EmailVerified {
			t.Fatal("expired code verified the email")
		}
		// A fresh mail gives a fresh code that works.
		if err := svc.SendVerification(ctx, u); err != nil {
			t.Fatal(err)
		}
		fresh := codeFrom(t, rec.last(t), "verifyEmail")
		if fresh == old {
			t.Fatal("the same code was sent again")
		}
		if _, err := svc.VerifyEmail(ctx, fresh); err != nil {
			t.Fatalf("fresh code: %v", err)
		}
	})
}

func TestSignIn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u := signUpVerified(t, svc, rec, "erin@example.com", "erin's long password")

		_, _, _, errWrong := svc.SignIn(ctx, "erin@example.com", "wrong password")
		wantStatus(t, errWrong, http.StatusUnauthorized, "invalid_credentials")
		_, _, _, errUnknown := svc.SignIn(ctx, "nobody@example.com", "erin's long password")
		wantStatus(t, errUnknown, http.StatusUnauthorized, "invalid_credentials")
		if errWrong.Error() != errUnknown.Error() {
			t.Errorf("wrong password %q and unknown email %q answer differently", errWrong, errUnknown)
		}
		_, _, _, err := svc.SignIn(ctx, "erin@example.com", "")
		wantStatus(t, err, http.StatusUnauthorized, "invalid_credentials")

		got, token, csrf, err := svc.SignIn(ctx, " ERIN@example.com", "erin's long password")
		if err != nil {
			t.Fatalf("sign in: %v", err)
		}
		if got.ID != u.ID || token == "" || csrf == "" || token == csrf {
			t.Fatalf("sign in = %+v, %q, %q", got, token, csrf)
		}
		sess, err := db.SessionByToken(ctx, token, clk.Now())
		if err != nil {
			t.Fatalf("session: %v", err)
		}
		if sess.UserID != u.ID || sess.WorkspaceID != u.WorkspaceID || sess.CSRFToken != csrf {
			t.Errorf("session = %+v", sess)
		}
		if want := clk.Now().Add(360 * 24 * time.Hour).Unix(); sess.ExpiresAt != want {
			t.Errorf("session expires at %d, want %d (360 days)", sess.ExpiresAt, want)
		}
		// Two sign-ins are two sessions.
		_, token2, _, err := svc.SignIn(ctx, "erin@example.com", "erin's long password")
		if err != nil || token2 == token {
			t.Fatalf("second sign in: %v (same token: %v)", err, token2 == token)
		}
		// The session ends after 360 days.
		clk.Advance(360*24*time.Hour + time.Second)
		if _, err := db.SessionByToken(ctx, token, clk.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("session alive after 360 days: %v", err)
		}
	})
}

func TestPasswordReset(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u := signUpVerified(t, svc, rec, "frank@example.com", "frank's old password")
		_, oldToken, _, err := svc.SignIn(ctx, "frank@example.com", "frank's old password")
		if err != nil {
			t.Fatal(err)
		}

		n := rec.count()
		if err := svc.SendPasswordReset(ctx, "nobody@example.com"); err != nil {
			t.Fatalf("reset for an unknown email: %v", err)
		}
		if rec.count() != n {
			t.Fatalf("a mail was sent for an unknown email")
		}

		if err := svc.SendPasswordReset(ctx, "FRANK@example.com"); err != nil {
			t.Fatal(err)
		}
		m := rec.last(t)
		if m.To != "frank@example.com" {
			t.Errorf("reset mail to %q", m.To)
		}
		code := codeFrom(t, m, "resetPassword")

		// A reset code is not a verification code.
		_, err = svc.VerifyEmail(ctx, code)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")

		// Checking does not use the code.
		for range 2 {
			email, err := svc.CheckResetCode(ctx, code)
			if err != nil || email != "frank@example.com" {
				t.Fatalf("CheckResetCode = %q, %v", email, err)
			}
		}
		_, err = svc.CheckResetCode(ctx, "bogus")
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")

		// A too-short password is refused without using the code.
		wantInvalid(t, svc.ResetPassword(ctx, code, "short", false), "password")
		if _, err := svc.CheckResetCode(ctx, code); err != nil {
			t.Fatalf("refused reset used the code: %v", err)
		}

		if err := svc.ResetPassword(ctx, code, "frank's new password", false); err != nil {
			t.Fatalf("reset: %v", err)
		}
		if _, err := db.SessionByToken(ctx, oldToken, clk.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("session survived the password reset: %v", err)
		}
		_, _, _, err = svc.SignIn(ctx, "frank@example.com", "frank's old password")
		wantStatus(t, err, http.StatusUnauthorized, "invalid_credentials")
		if _, _, _, err := svc.SignIn(ctx, "frank@example.com", "frank's new password"); err != nil {
			t.Fatalf("sign in with the new password: %v", err)
		}
		// The code worked once.
		wantStatus(t, svc.ResetPassword(ctx, code, "frank's third password", false), http.StatusBadRequest, "invalid_action_code")
		_, err = svc.CheckResetCode(ctx, code)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")
		if got, _ := db.UserByID(ctx, u.ID); !auth.CheckPassword(got.PasswordHash, "frank's new password") {
			t.Errorf("the used code changed the password again")
		}
	})
}

func TestPasswordResetCodeExpiresAndVerifies(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		// An unverified user who resets their password proves the mailbox: they are verified.
		u, err := svc.SignUp(ctx, "gina@example.com", "gina's long password", true, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.SendPasswordReset(ctx, "gina@example.com"); err != nil {
			t.Fatal(err)
		}
		expired := codeFrom(t, rec.last(t), "resetPassword")
		clk.Advance(time.Hour + time.Second)
		_, err = svc.CheckResetCode(ctx, expired)
		wantStatus(t, err, http.StatusBadRequest, "invalid_action_code")
		wantStatus(t, svc.ResetPassword(ctx, expired, "gina's new password", false), http.StatusBadRequest, "invalid_action_code")

		if err := svc.SendPasswordReset(ctx, "gina@example.com"); err != nil {
			t.Fatal(err)
		}
		code := codeFrom(t, rec.last(t), "resetPassword")
		clk.Advance(time.Hour - time.Minute)
		if err := svc.ResetPassword(ctx, code, "gina's new password", false); err != nil {
			t.Fatalf("reset within the hour: %v", err)
		}
		if got, _ := db.UserByID(ctx, u.ID); !got.EmailVerified {
			t.Errorf("reset did not verify the email")
		}
		if _, _, _, err := svc.SignIn(ctx, "gina@example.com", "gina's new password"); err != nil {
			t.Errorf("sign in after reset: %v", err)
		}
	})
}

func requestWith(header, value string) *http.Request {
	r := httptest.NewRequest("POST", "/v1/text-to-speech/x", nil)
	if header != "" {
		r.Header.Set(header, value)
	}
	return r
}

func TestAPIKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u := signUpVerified(t, svc, rec, "hank@example.com", "hank's long password")
		other, err := svc.CreateVerifiedUser(ctx, "ivy@example.com", "ivy's long password")
		if err != nil {
			t.Fatal(err)
		}
		if other.WorkspaceID == u.WorkspaceID {
			t.Fatal("two users share a workspace")
		}

		_, _, err = svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "   ")
		wantInvalid(t, err, "name")
		_, _, err = svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, strings.Repeat("k", 101))
		wantInvalid(t, err, "name")

		k, secret, err := svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "  my key  ")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "sk_") || len(secret) < 40 {
			t.Errorf("secret %q: want sk_ and 40+ characters", secret)
		}
		if k.Name != "my key" || k.WorkspaceID != u.WorkspaceID || k.UserID != u.ID || k.ID == "" {
			t.Errorf("key = %+v", k)
		}
		if strings.Contains(k.Preview, secret) || len(k.Preview) >= len(secret) || !strings.HasPrefix(k.Preview, "sk_") {
			t.Errorf("preview %q reveals the secret or is malformed", k.Preview)
		}
		_, otherSecret, err := svc.CreateAPIKey(ctx, other.ID, other.WorkspaceID, "ivy's key")
		if err != nil {
			t.Fatal(err)
		}
		if otherSecret == secret {
			t.Fatal("two keys with the same secret")
		}

		for _, r := range []*http.Request{
			requestWith("xi-api-key", secret),
			requestWith("xi-api-key", " "+secret+" "),
			requestWith("Authorization", "Bearer "+secret),
		} {
			c, err := svc.Authenticate(r)
			if err != nil || c == nil {
				t.Fatalf("authenticate %v: %v, %v", r.Header, c, err)
			}
			if c.UserID != u.ID || c.WorkspaceID != u.WorkspaceID || c.APIKeyID != k.ID || c.ViaSession {
				t.Errorf("caller = %+v", c)
			}
		}
		// Using the key records when (at most once a minute).
		keys, err := db.ListAPIKeys(ctx, u.WorkspaceID)
		if err != nil || len(keys) != 1 || keys[0].LastUsed == nil || *keys[0].LastUsed != clk.Now().Unix() {
			t.Errorf("after use: %+v, %v", keys, err)
		}

		for _, r := range []*http.Request{
			requestWith("xi-api-key", secret+"x"),
			requestWith("xi-api-key", "sk_nope"),
			requestWith("Authorization", "Bearer sk_nope"),
			requestWith("Authorization", "Bearer "),
		} {
			c, err := svc.Authenticate(r)
			if c != nil {
				t.Errorf("authenticated with %v", r.Header)
			}
			if r.Header.Get("Authorization") == "Bearer " {
				// An empty bearer token is no credentials at all.
				if err != nil {
					t.Errorf("empty bearer: %v", err)
				}
				continue
			}
			wantStatus(t, err, http.StatusUnauthorized, "invalid_api_key")
		}
		// No credentials at all is anonymous (nil, nil), not an error.
		if c, err := svc.Authenticate(requestWith("", "")); c != nil || err != nil {
			t.Errorf("anonymous request = %+v, %v", c, err)
		}

		// Another workspace cannot delete the key; it keeps working.
		if err := db.DeleteAPIKey(ctx, other.WorkspaceID, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete from another workspace: %v, want ErrNotFound", err)
		}
		if c, err := svc.Authenticate(requestWith("xi-api-key", secret)); err != nil || c == nil {
			t.Fatalf("key stopped working after a refused delete: %v", err)
		}
		if err := db.DeleteAPIKey(ctx, u.WorkspaceID, k.ID); err != nil {
			t.Fatalf("delete: %v", err)
		}
		_, err = svc.Authenticate(requestWith("xi-api-key", secret))
		wantStatus(t, err, http.StatusUnauthorized, "invalid_api_key")
		if err := db.DeleteAPIKey(ctx, u.WorkspaceID, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: %v, want ErrNotFound", err)
		}
		// The other workspace's key is untouched.
		if c, err := svc.Authenticate(requestWith("xi-api-key", otherSecret)); err != nil || c == nil || c.WorkspaceID != other.WorkspaceID {
			t.Errorf("other key: %+v, %v", c, err)
		}
	})
}

func TestAuthenticateSessionCSRF(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, clk := newService(t, db)
		ctx := ctxT(t)
		u := signUpVerified(t, svc, rec, "jack@example.com", "jack's long password")
		_, token, csrf, err := svc.SignIn(ctx, "jack@example.com", "jack's long password")
		if err != nil {
			t.Fatal(err)
		}
		req := func(method, csrfHeader string) *http.Request {
			r := httptest.NewRequest(method, "/v1/user", nil)
			r.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: token})
			if csrfHeader != "" {
				r.Header.Set(auth.CSRFHeader, csrfHeader)
			}
			return r
		}
		for _, m := range []string{"GET", "HEAD", "OPTIONS"} {
			c, err := svc.Authenticate(req(m, ""))
			if err != nil || c == nil || c.UserID != u.ID || !c.ViaSession {
				t.Errorf("%s without CSRF: %+v, %v", m, c, err)
			}
		}
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			_, err := svc.Authenticate(req(m, ""))
			wantStatus(t, err, http.StatusForbidden, "csrf_failed")
			_, err = svc.Authenticate(req(m, csrf+"x"))
			wantStatus(t, err, http.StatusForbidden, "csrf_failed")
			if c, err := svc.Authenticate(req(m, csrf)); err != nil || c == nil {
				t.Errorf("%s with CSRF: %v", m, err)
			}
		}
		// An unknown or expired session is anonymous, not an error.
		r := httptest.NewRequest("GET", "/", nil)
		r.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: "nope"})
		if c, err := svc.Authenticate(r); c != nil || err != nil {
			t.Errorf("unknown session = %+v, %v", c, err)
		}
		clk.Advance(361 * 24 * time.Hour)
		if c, err := svc.Authenticate(req("GET", "")); c != nil || err != nil {
			t.Errorf("expired session = %+v, %v", c, err)
		}
	})
}

func TestPasswordHash(t *testing.T) {
	h := auth.HashPassword("pässwörd")
	if !strings.HasPrefix(h, "$argon2id$v=19$") {
		t.Errorf("hash = %q", h)
	}
	if h == auth.HashPassword("pässwörd") {
		t.Errorf("hash is not salted")
	}
	if !auth.CheckPassword(h, "pässwörd") || auth.CheckPassword(h, "passwörd") || auth.CheckPassword(h, "") {
		t.Errorf("CheckPassword wrong")
	}
	for _, bad := range []string{"", "$argon2id$", "plain", "$argon2i$v=19$m=1,t=1,p=1$AAAA$AAAA", strings.Replace(h, "$argon2id$", "$bcrypt$", 1)} {
		if auth.CheckPassword(bad, "pässwörd") {
			t.Errorf("CheckPassword accepted %q", bad)
		}
	}
}

// Racing uses of one code: exactly one wins, on both databases.
func TestActionCodeRaceWorksOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, _ := newService(t, db)
		ctx := ctxT(t)
		if _, err := svc.SignUp(ctx, "race@example.com", "race long passphrase", true, ""); err != nil {
			t.Fatal(err)
		}
		verify := codeFrom(t, rec.last(t), "verifyEmail")
		if err := svc.SendPasswordReset(ctx, "race@example.com"); err != nil {
			t.Fatal(err)
		}
		reset := codeFrom(t, rec.last(t), "resetPassword")
		const n = 8
		var wg sync.WaitGroup
		verifyErrs, resetErrs := make(chan error, n), make(chan error, n)
		for i := range n {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := svc.VerifyEmail(ctx, verify)
				verifyErrs <- err
			}()
			go func() {
				defer wg.Done()
				resetErrs <- svc.ResetPassword(ctx, reset, "new race passphrase "+strings.Repeat("!", i), false)
			}()
		}
		wg.Wait()
		close(verifyErrs)
		close(resetErrs)
		count := func(errs chan error) (ok int) {
			for err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, auth.ErrInvalidActionCode):
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}
			return ok
		}
		// The reset works once; the verification at most once (a reset that wins the race uses
		// up every other outstanding code, and verifies the email itself).
		verified, resets := count(verifyErrs), count(resetErrs)
		if resets != 1 || verified > 1 {
			t.Errorf("%d verifications and %d resets succeeded, want at most 1 and exactly 1", verified, resets)
		}
		if u, err := db.UserByEmail(ctx, "race@example.com"); err != nil || !u.EmailVerified {
			t.Errorf("after the race the email is not verified: %v", err)
		}
	})
}
