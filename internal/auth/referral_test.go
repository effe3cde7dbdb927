package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestSignUpReferralCode(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		ctx := ctxT(t)
		body := func(email, ref string) map[string]any {
			return map[string]any{"email": email, "password": "a long enough password", "terms_accepted": true, "referral_code": ref}
		}
		for _, bad := range []string{"has space", "semi;colon", strings.Repeat("a", 65), "ünï"} {
			wantHTTPInvalid(t, e.do("POST", "/api/auth/sign-up", body("bad@example.com", bad)), "referral_code")
		}
		if _, err := db.UserByEmail(ctx, "bad@example.com"); err == nil {
			t.Fatal("a sign-up with a bad referral code created the user")
		}
		m := wantHTTP(t, e.do("POST", "/api/auth/sign-up", body("ref@example.com", "Friend_Code-64")), http.StatusCreated, "")
		if got, err := db.ReferredBy(ctx, m["user_id"].(string)); err != nil || got != "Friend_Code-64" {
			t.Fatalf("referred_by_code = %q, %v", got, err)
		}
		m = wantHTTP(t, e.do("POST", "/api/auth/sign-up", body("plain@example.com", "")), http.StatusCreated, "")
		if got, err := db.ReferredBy(ctx, m["user_id"].(string)); err != nil || got != "" {
			t.Fatalf("referred_by_code without a code = %q, %v", got, err)
		}
	})
}

func TestReferralLinkIsStable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const pw = "a long enough password"
		signUpVerified(t, e.svc, e.mail, "ra@example.com", pw)
		signUpVerified(t, e.svc, e.mail, "rb@example.com", pw)
		a, b := e.signIn("ra@example.com", pw), e.signIn("rb@example.com", pw)
		link := func(br browser) string {
			m := wantHTTP(t, e.do("GET", "/v1/user/referral-link", nil, br.opts()...), http.StatusOK, "")
			return m["referral_link"].(string)
		}
		la := link(a)
		if !strings.HasPrefix(la, publicURL+"/app/sign-up?ref=") || len(la) == len(publicURL+"/app/sign-up?ref=") {
			t.Fatalf("referral link %q", la)
		}
		if again := link(a); again != la {
			t.Fatalf("link changed: %q then %q", la, again)
		}
		if lb := link(b); lb == la {
			t.Fatalf("two users share the link %q", la)
		}
		wantHTTP(t, e.do("GET", "/v1/user/referral-link", nil), http.StatusUnauthorized, "")
		// A sign-up through the link stores its code.
		code := la[strings.Index(la, "ref=")+4:]
		m := wantHTTP(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "rc@example.com", "password": pw, "terms_accepted": true, "referral_code": code}), http.StatusCreated, "")
		if got, _ := db.ReferredBy(ctxT(t), m["user_id"].(string)); got != code {
			t.Fatalf("referred_by_code = %q, want %q", got, code)
		}
	})
}

// sensitiveCode returns the 6-digit code of the last sensitive-action mail to addr.
func (e *secEnv) sensitiveCode(addr string) string {
	e.t.Helper()
	msg := e.mail.last(e.t)
	mt := sixDigitRE.FindStringSubmatch(msg.Text)
	if mt == nil {
		e.t.Fatalf("no code in %q", msg.Text)
	}
	link := publicURL + "/app/action?sensitiveActionVerificationCode=" + mt[1] + "&lang=en"
	if msg.To != addr || !strings.Contains(msg.Subject, "verification code") || !strings.Contains(msg.HTML, mt[1]) ||
		!strings.Contains(msg.Text, link) || !strings.Contains(msg.HTML, strings.ReplaceAll(link, "&", "&amp;")) {
		e.t.Fatalf("sensitive-action mail = %+v", msg)
	}
	return mt[1]
}

func TestSensitiveActionVerification(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, pw = "sens@example.com", "a long enough password"
		u := signUpVerified(t, e.svc, e.mail, email, pw)
		b := e.signIn(email, pw)

		// A fresh session changes the email without further proof.
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "fresh@example.com"}, b.opts()...), http.StatusOK, "")

		e.clk.Advance(11 * time.Minute)
		sent := e.mail.count()
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "later@example.com"}, b.opts()...),
			http.StatusForbidden, "sensitive_action_verification_required")
		if e.mail.count() != sent+1 {
			t.Fatalf("no code mailed (%d mails, had %d)", e.mail.count(), sent)
		}
		code := e.sensitiveCode(email)
		// The code is stored hashed.
		for _, row := range dumpTable(t, db, "action_codes") {
			if strings.Contains(strings.Join(row.values, "\x1f"), code) && !strings.Contains(strings.Join(row.values, "\x1f"), store.HashToken(code)) {
				t.Fatalf("the code is stored in clear: %v", row.values)
			}
		}
		// The password is proof enough; a wrong one is refused.
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "later@example.com", "password": "wrong password"}, b.opts()...),
			http.StatusUnauthorized, "invalid_credentials")
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "later@example.com", "password": pw}, b.opts()...), http.StatusOK, "")

		// Wrong, missing, then right code; a code works once.
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": "000000x"}, b.opts()...), http.StatusBadRequest, "invalid_verification_code")
		wantHTTPInvalid(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": ""}, b.opts()...), "code")
		m := wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		if m["message"] != "Email access verified. Please try the action again." {
			t.Errorf("verify answer %v", m)
		}
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": code}, b.opts()...), http.StatusBadRequest, "invalid_verification_code")
		// The retried action passes.
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "later2@example.com"}, b.opts()...), http.StatusOK, "")

		// Another session of the same user is not verified by it.
		other := e.signIn(email, pw)
		e.clk.Advance(11 * time.Minute) // and the verification lapses after 10 minutes
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/disable", map[string]any{"code": "123456"}, other.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/disable", map[string]any{"code": "123456"}, b.opts()...), http.StatusForbidden, "sensitive_action_verification_required")

		// Codes expire after 10 minutes.
		stale := e.sensitiveCode(email)
		e.clk.Advance(10*time.Minute + time.Second)
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": stale}, b.opts()...), http.StatusBadRequest, "invalid_verification_code")

		// Turning 2FA off: enrol (fresh session), age it, verify by code, then disable.
		c := e.signIn(email, pw)
		m = wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": pw}, c.opts()...), http.StatusOK, "")
		secret := m["secret"].(string)
		tc, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": tc}, c.opts()...), http.StatusOK, "")
		e.clk.Advance(11 * time.Minute)
		tc, _ = totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/disable", map[string]any{"code": tc}, c.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": e.sensitiveCode(email)}, c.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/disable", map[string]any{"code": tc}, c.opts()...), http.StatusOK, "")
		if mfa, _ := db.UserMFA(ctxT(t), u.ID); mfa.Enabled {
			t.Fatal("2FA still on")
		}

		// Deletion: an old session gets the code, verifies, and the retry deletes.
		e.clk.Advance(11 * time.Minute)
		wantHTTP(t, e.do("DELETE", "/v1/user/delete", nil, c.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": e.sensitiveCode(email)}, c.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("DELETE", "/v1/user/delete", nil, c.opts()...), http.StatusOK, "")
		if _, err := db.UserByID(ctxT(t), u.ID); err == nil {
			t.Fatal("account not deleted")
		}
	})
}

func TestSensitiveActionThrottles(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, pw = "thr@example.com", "a long enough password"
		signUpVerified(t, e.svc, e.mail, email, pw)
		b := e.signIn(email, pw)
		e.clk.Advance(11 * time.Minute)
		// Mails: 5 an hour per account.
		for i := 0; i < 5; i++ {
			wantHTTP(t, e.do("DELETE", "/v1/user/delete", nil, b.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		}
		wantHTTP(t, e.do("DELETE", "/v1/user/delete", nil, b.opts()...), http.StatusTooManyRequests, "too_many_attempts")
		good := e.sensitiveCode(email)
		// Wrong codes: 5 per 15 minutes per account, then even the right one is refused.
		for i := 0; i < 5; i++ {
			wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": "99999" + string(rune('0'+i))}, b.opts()...), http.StatusBadRequest, "invalid_verification_code")
		}
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": good}, b.opts()...), http.StatusTooManyRequests, "too_many_attempts")
		// API keys cannot verify (session only).
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": good}), http.StatusUnauthorized, "")
	})
}
