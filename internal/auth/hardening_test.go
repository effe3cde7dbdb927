package auth_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"timbre/internal/auth"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// parallel sends n copies of a request at once and counts the answers by HTTP status.
func (e *secEnv) parallel(n int, method, path string, body map[string]any, opts ...opt) map[int]int {
	e.t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			w := e.do(method, path, body, opts...)
			mu.Lock()
			got[w.Code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return got
}

// TestParallelGuessesStayWithinLimits: attempts are counted before the slow check, so 200
// parallel wrong passwords (or codes) get no more checks than the limit allows. Every 401/400
// below is an answer that ran the check; the rest were refused before it.
func TestParallelGuessesStayWithinLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "par@example.com", "par's long password"
		signUpVerified(t, e.svc, e.mail, email, password)

		got := e.parallel(200, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": "wrong guess"}, fromAddr("198.51.100.20:1"))
		if got[http.StatusUnauthorized] > int(auth.LimitSignInAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong passwords → %v: at most %d may be checked", got, auth.LimitSignInAccount.Max)
		}
		t.Logf("200 parallel wrong passwords: %d checked, %d refused before the check", got[http.StatusUnauthorized], got[http.StatusTooManyRequests])
		e.signIn(email, password) // the owner elsewhere is not locked out

		got = e.parallel(200, "POST", "/api/auth/check-reset-code", map[string]any{"code": "wrong"}, fromAddr("198.51.100.21:1"))
		if got[http.StatusBadRequest] > int(auth.LimitCodeIP.Max) || got[http.StatusBadRequest]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong reset codes → %v: at most %d may be checked", got, auth.LimitCodeIP.Max)
		}

		b := e.signIn(email, password, fromAddr("198.51.100.22:1"))
		m := wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusOK, "")
		code, _ := totp.GenerateCode(m["secret"].(string), e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		tok := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("198.51.100.22:1")), http.StatusOK, "")["mfa_token"].(string)
		got = e.parallel(200, "POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": "000000"}, fromAddr("198.51.100.23:1"))
		if got[http.StatusUnauthorized] > int(auth.LimitMFAAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong MFA codes → %v: at most %d may be checked", got, auth.LimitMFAAccount.Max)
		}

		// Sensitive-action password proofs (here: turning 2FA off with the password).
		got = e.parallel(200, "POST", "/api/auth/mfa/totp/disable", map[string]any{"code": "000000", "password": "wrong guess"}, append(b.opts(), fromAddr("198.51.100.24:1"))...)
		if got[http.StatusUnauthorized] > int(auth.LimitSignInAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong sensitive-action passwords → %v: at most %d may be checked", got, auth.LimitSignInAccount.Max)
		}
	})
}

// TestPasswordStrength: common and context-derived passwords are refused with a 422 naming
// password, everywhere a password is set.
func TestPasswordStrength(t *testing.T) {
	for _, c := range []struct {
		password string
		context  []string
		ok       bool
	}{
		{"password", nil, false},
		{"        ", nil, false},
		{"12345678", nil, false},
		{"qwertyuiop", nil, false},
		{"ana@example.com", []string{"ana@example.com"}, false},
		{"anaexample2024", []string{"ana@example.com"}, false},
		{"Ana Lovelace 1", []string{"ana@example.com", "Lovelace"}, false},
		{"short", nil, false},
		{"correct horse battery staple", []string{"ana@example.com"}, true},
		{"ana's long password", nil, true},
		{strings.Repeat("x7#Qz", 100), nil, true}, // long: only a prefix is analysed
	} {
		err := auth.CheckPasswordStrength(c.password, c.context...)
		if c.ok {
			if err != nil {
				t.Errorf("%q refused: %v", c.password, err)
			}
			continue
		}
		wantInvalid(t, err, "password")
	}
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		for _, pw := range []string{"password", "        ", "lee@example.com", "lee@example.com!"} {
			wantHTTPInvalid(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "lee@example.com", "password": pw, "terms_accepted": true}), "password")
		}
		if n := e.mail.count(); n != 0 {
			t.Errorf("%d mails after refused sign-ups", n)
		}
		signUpVerified(t, e.svc, e.mail, "lee@example.com", "lee's long password")
		wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": "lee@example.com"}), http.StatusOK, "")
		code := codeFrom(t, e.mail.last(t), "resetPassword")
		wantHTTPInvalid(t, e.do("POST", "/api/auth/reset-password", map[string]any{"code": code, "password": "password1"}), "password")
		wantHTTPInvalid(t, e.do("POST", "/api/auth/reset-password", map[string]any{"code": code, "password": "lee@example.com"}), "password")
		wantHTTP(t, e.do("POST", "/api/auth/reset-password", map[string]any{"code": code, "password": "lee's new long password"}), http.StatusOK, "")
	})
}

// TestSignUpDoesNotRevealAccounts: signing up with a taken email answers as a fresh sign-up,
// changes nothing, and mails the owner; sign-ups are limited per address.
func TestSignUpDoesNotRevealAccounts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		owner := signUpVerified(t, e.svc, e.mail, "own@example.com", "own's long password")
		fresh := e.do("POST", "/api/auth/sign-up", map[string]any{"email": "new@example.com", "password": "new's long password", "terms_accepted": true}, fromAddr("192.0.2.50:1"))
		taken := e.do("POST", "/api/auth/sign-up", map[string]any{"email": "own@example.com", "password": "another quite different phrase", "terms_accepted": true}, fromAddr("192.0.2.50:1"))
		fm, tm := wantHTTP(t, fresh, http.StatusCreated, ""), wantHTTP(t, taken, http.StatusCreated, "")
		if len(fm) != len(tm) || tm["user_id"] == owner.ID || tm["email"] != "own@example.com" {
			t.Fatalf("taken email answered %v, fresh %v", tm, fm)
		}
		msg := e.mail.last(t)
		if msg.To != "own@example.com" || !strings.Contains(msg.Text, "tried to create a Timbre account") || !strings.Contains(msg.Text, "/app/sign-in") {
			t.Fatalf("owner mail = %+v", msg)
		}
		if _, _, _, err := e.svc.SignIn(ctxT(t), "own@example.com", "another quite different phrase"); err == nil {
			t.Fatal("the attempt changed the owner's password")
		}
		e.signIn("own@example.com", "own's long password")

		// Per address: LimitSignUpIP sign-ups an hour (the two above included), then 429.
		for i := 2; i < int(auth.LimitSignUpIP.Max); i++ {
			wantHTTP(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "n" + strconv.Itoa(i) + "@example.com", "password": "a long enough password", "terms_accepted": true}, fromAddr("192.0.2.50:1")), http.StatusCreated, "")
		}
		wantHTTP(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "over@example.com", "password": "a long enough password", "terms_accepted": true}, fromAddr("192.0.2.50:1")), http.StatusTooManyRequests, "too_many_attempts")
		if _, err := db.UserByEmail(ctxT(t), "over@example.com"); err == nil {
			t.Fatal("a refused sign-up made an account")
		}
		wantHTTP(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "over@example.com", "password": "a long enough password", "terms_accepted": true}, fromAddr("192.0.2.51:1")), http.StatusCreated, "")
	})
}

// TestCodesAndSessionsAfterResetAndEmailChange: a reset uses up every other outstanding code
// and may revoke the account's API keys in the same step; an email change ends the other
// sessions and uses up the codes mailed before; recovery may revoke the keys too.
func TestCodesAndSessionsAfterResetAndEmailChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		ctx := ctxT(t)
		const email, password = "ira@example.com", "ira's long password"
		u := signUpVerified(t, e.svc, e.mail, email, password)
		_, keySecret, err := e.svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "ci")
		if err != nil {
			t.Fatal(err)
		}
		keyOpt := withHeader("xi-api-key", keySecret)
		wantHTTP(t, e.do("POST", "/test/authed", nil, keyOpt), http.StatusOK, "")

		// Two reset mails; the second code resets, the first stops working.
		var codes []string
		for range 2 {
			wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusOK, "")
			codes = append(codes, codeFrom(t, e.mail.last(t), "resetPassword"))
		}
		wantHTTP(t, e.do("POST", "/api/auth/reset-password", map[string]any{"code": codes[1], "password": "ira's second password", "revoke_api_keys": true}), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/api/auth/reset-password", map[string]any{"code": codes[0], "password": "ira's attacker password"}), http.StatusBadRequest, "invalid_action_code")
		wantHTTP(t, e.do("POST", "/test/authed", nil, keyOpt), http.StatusUnauthorized, "invalid_api_key")
		if keys, _ := db.ListAPIKeys(ctx, u.WorkspaceID); len(keys) != 0 {
			t.Errorf("keys after a reset with revoke_api_keys: %v", keys)
		}

		// Email change: a reset code mailed to the old address dies; other sessions end.
		const pw2 = "ira's second password"
		cur := e.signIn(email, pw2)
		other := e.signIn(email, pw2, fromAddr("192.0.2.77:1"))
		wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusOK, "")
		stale := codeFrom(t, e.mail.last(t), "resetPassword")
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "ira.new@example.com"}, cur.opts()...), http.StatusOK, "")
		mt := sixDigitRE.FindStringSubmatch(e.mail.last(t).Text)
		wantHTTP(t, e.do("PUT", "/v1/user/email?verification_code="+mt[1], nil, cur.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, cur.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, other.opts()...), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, e.do("POST", "/api/auth/check-reset-code", map[string]any{"code": stale}), http.StatusBadRequest, "invalid_action_code")

		// Recovery from the old address can revoke the keys made meanwhile.
		rm := recoverRE.FindStringSubmatch(e.mail.last(t).Text)
		_, key2, err := e.svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "attacker")
		if err != nil {
			t.Fatal(err)
		}
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "recoverEmail", "code": rm[1], "revoke_api_keys": true}), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, withHeader("xi-api-key", key2)), http.StatusUnauthorized, "invalid_api_key")
	})
}

// TestTOTPEnrolmentNeedsProof: a session (however fresh) cannot enrol an authenticator without
// the password or a mailed code.
func TestTOTPEnrolmentNeedsProof(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "tom@example.com", "tom's long password"
		signUpVerified(t, e.svc, e.mail, email, password)
		b := e.signIn(email, password)
		before := e.mail.count()
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", nil, b.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		if e.mail.count() != before+1 {
			t.Fatal("no verification code mailed")
		}
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": "wrong password"}, b.opts()...), http.StatusUnauthorized, "invalid_credentials")
		if m, _ := db.UserMFA(ctxT(t), b.userID(t, e)); m.PendingSecret != "" {
			t.Fatal("a refused enrolment stored a secret")
		}
		// The mailed code works as the proof.
		wantHTTP(t, e.do("POST", "/v1/user/verify-sensitive-action-code", map[string]any{"code": e.sensitiveCode(email)}, b.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", nil, b.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, e.signIn(email, password).opts()...), http.StatusOK, "")
	})
}

func (b browser) userID(t *testing.T, e *secEnv) string {
	t.Helper()
	return wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")["user_id"].(string)
}

// TestMFARequiredNeedsThisSessionsMFA: in a workspace that requires MFA, a session counts only
// when it answered a second factor itself, or was signed in by that workspace's own identity
// provider; an SSO sign-in elsewhere (which asks no TOTP) does not carry over.
func TestMFARequiredNeedsThisSessionsMFA(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		ctx := ctxT(t)
		const email, password = "mo@example.com", "mo's long password"
		u := signUpVerified(t, e.svc, e.mail, email, password)
		b := e.signIn(email, password)
		m := wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusOK, "")
		secret := m["secret"].(string)
		code, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")

		// Another workspace (with its own identity provider) that the user belongs to; their
		// own workspace requires MFA.
		other, _, err := db.CreateUserWithWorkspace(ctx, "boss@corp.example", "", true, "free", e.clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at_unix) VALUES (?, ?, 'editor', 0)`, other.WorkspaceID, u.ID)
		rawExec(t, db, `UPDATE workspaces SET mfa_required_for_users = ? WHERE id = ?`, true, u.WorkspaceID)

		// The enrolling session answered a code: it passes.
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
		// An SSO session of the other workspace, switched into the MFA-required one: refused.
		su := *u
		su.WorkspaceID = other.WorkspaceID
		tok, csrf, err := e.svc.OpenSSOSession(ctx, &su, auth.Client{})
		if err != nil {
			t.Fatal(err)
		}
		sso := browser{&http.Cookie{Name: auth.SessionCookie, Value: tok}, &http.Cookie{Name: auth.CSRFCookie, Value: csrf}}
		wantHTTP(t, e.do("POST", "/test/authed", nil, sso.opts()...), http.StatusOK, "") // its own workspace requires nothing
		if err := db.SetSessionWorkspace(ctx, tok, u.ID, u.WorkspaceID); err != nil {
			t.Fatal(err)
		}
		wantHTTP(t, e.do("POST", "/test/authed", nil, sso.opts()...), http.StatusForbidden, "mfa_verification_required")
		// An SSO session of the MFA-requiring workspace itself counts.
		own, ownCSRF, err := e.svc.OpenSSOSession(ctx, u, auth.Client{})
		if err != nil {
			t.Fatal(err)
		}
		wantHTTP(t, e.do("POST", "/test/authed", nil, browser{&http.Cookie{Name: auth.SessionCookie, Value: own}, &http.Cookie{Name: auth.CSRFCookie, Value: ownCSRF}}.opts()...), http.StatusOK, "")
		// A password sign-in answers the TOTP challenge, and then passes.
		e.clk.Advance(30 * time.Second)
		tokMFA := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}), http.StatusOK, "")["mfa_token"].(string)
		code, _ = totp.GenerateCode(secret, e.clk.Now())
		w := e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tokMFA, "code": code})
		wantHTTP(t, w, http.StatusOK, "")
		s, c := checkSignInCookies(t, w)
		wantHTTP(t, e.do("POST", "/test/authed", nil, browser{s, c}.opts()...), http.StatusOK, "")
	})
}
