package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"timbre/internal/access"
	"timbre/internal/auth"
	"timbre/internal/httpx"
	"timbre/internal/secret"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// secEnv is a router with the auth routes on a settable clock, mail recorded, TOTP secrets
// encrypted, and an Authed echo route.
type secEnv struct {
	t     *testing.T
	db    *store.DB
	mux   *http.ServeMux
	svc   *auth.Service
	mail  *recSender
	clk   *clock
	blobs *blobRec
}

type blobRec struct {
	mu      sync.Mutex
	deleted []string
}

func (b *blobRec) Delete(_ context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deleted = append(b.deleted, key)
	return nil
}

func newSecEnv(t *testing.T, db *store.DB) *secEnv {
	t.Helper()
	svc, rec, clk := newService(t, db)
	box, err := secret.NewBox([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	svc.Box = box
	blobs := &blobRec{}
	svc.Blobs = blobs
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: svc.Authenticate}
	(&auth.Handlers{Svc: svc, MaxBody: maxBody}).Routes(rt)
	rt.Authed("POST /test/authed", func(w http.ResponseWriter, r *http.Request) error {
		c := access.CallerFrom(r.Context())
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": c.UserID, "workspace_id": c.WorkspaceID})
		return nil
	})
	return &secEnv{t: t, db: db, mux: mux, svc: svc, mail: rec, clk: clk, blobs: blobs}
}

func (e *secEnv) do(method, path string, body any, opts ...opt) *httptest.ResponseRecorder {
	e.t.Helper()
	return do(e.t, e.mux, method, path, body, opts...)
}

// browser is a signed-in session's cookies.
type browser struct{ session, csrf *http.Cookie }

func (b browser) opts() []opt {
	return []opt{withCookies(b.session, b.csrf), withHeader(auth.CSRFHeader, b.csrf.Value)}
}

func (e *secEnv) signIn(email, password string, opts ...opt) browser {
	e.t.Helper()
	w := e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, opts...)
	m := wantHTTP(e.t, w, http.StatusOK, "")
	if m["mfa_required"] == true {
		e.t.Fatalf("sign-in asked for MFA: %v", m)
	}
	s, c := checkSignInCookies(e.t, w)
	return browser{s, c}
}

// rawExec runs SQL straight on the database.
func rawExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	ctx := context.Background()
	var err error
	if db.Dialect == store.Postgres {
		n := 0
		q = regexp.MustCompile(`\?`).ReplaceAllStringFunc(q, func(string) string { n++; return "$" + strconv.Itoa(n) })
		_, err = db.PG.Exec(ctx, q, args...)
	} else {
		_, err = db.SQLiteDB.ExecContext(ctx, q, args...)
	}
	if err != nil {
		t.Fatalf("raw exec %q: %v", q, err)
	}
}

func auditHas(t *testing.T, db *store.DB, class, activity string) bool {
	t.Helper()
	for _, row := range dumpTable(t, db, "audit_log") {
		if row.col["class_name"] == class && row.col["activity_name"] == activity {
			return true
		}
	}
	return false
}

func TestMFAEnrolAndChallenge(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		var sec secrets
		const email, password = "mia@example.com", "mia's long password"
		sec.add("password", password)
		signUpVerified(t, e.svc, e.mail, email, password)
		b := e.signIn(email, password)
		sec.add("session 1", b.session.Value)

		// Enrolment needs a session (and its CSRF token).
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, withCookies(b.session)), http.StatusForbidden, "csrf_failed")
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": "123456"}, b.opts()...), http.StatusBadRequest, "mfa_enrollment_not_started")
		m := wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusOK, "")
		secret, _ := m["secret"].(string)
		u, _ := url.Parse(m["otpauth_url"].(string))
		if secret == "" || u == nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("secret") != secret || u.Query().Get("issuer") != "Timbre" || !strings.Contains(u.Path, email) {
			t.Fatalf("enroll = %v", m)
		}
		sec.add("totp secret", secret)
		wantHTTPInvalid(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": "12ab56"}, b.opts()...), "code")
		wrong, _ := totp.GenerateCode(secret, e.clk.Now().Add(-10*time.Minute))
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": wrong}, b.opts()...), http.StatusUnauthorized, "invalid_mfa_code")
		if m := wantHTTP(t, e.do("GET", "/api/auth/mfa", nil, b.opts()...), http.StatusOK, ""); m["totp_enabled"] != false {
			t.Fatalf("MFA on after a wrong code: %v", m)
		}
		code, _ := totp.GenerateCode(secret, e.clk.Now())
		m = wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		var backup []string
		for _, c := range m["backup_codes"].([]any) {
			backup = append(backup, c.(string))
			sec.add("backup code", c.(string))
		}
		if len(backup) != auth.BackupCodeCount || m["totp_enabled"] != true {
			t.Fatalf("confirm = %v", m)
		}
		m = wantHTTP(t, e.do("GET", "/api/auth/mfa", nil, b.opts()...), http.StatusOK, "")
		if m["totp_enabled"] != true || m["backup_codes_remaining"] != float64(10) {
			t.Fatalf("mfa status = %v", m)
		}
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusConflict, "mfa_already_enabled")
		if !auditHas(t, db, "mfa", "totp_enabled") {
			t.Errorf("no audit entry for enabling TOTP")
		}

		// Sign-in now stops at the challenge: no session yet, and the browser's old session ends
		// (a token planted before sign-in is never the signed-in one).
		w := e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password, "redirect": "/app/history"}, withCookies(b.session))
		m = wantHTTP(t, w, http.StatusOK, "")
		token, _ := m["mfa_token"].(string)
		if m["mfa_required"] != true || token == "" || m["redirect_to"] != "/app/history" {
			t.Fatalf("sign-in with MFA = %v", m)
		}
		sec.add("mfa token", token)
		if c := cookieNamed(w, auth.SessionCookie); c == nil || c.Value != "" {
			t.Errorf("sign-in with MFA set a session cookie: %v", c)
		}
		wantHTTP(t, e.do("GET", "/api/auth/session", nil, withCookies(b.session)), http.StatusUnauthorized, "unauthorized")

		// The code used to enrol cannot be replayed; a wrong token or code opens nothing.
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": token, "code": code}), http.StatusUnauthorized, "invalid_mfa_code")
		wantHTTPInvalid(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": token}), "code")
		e.clk.Advance(30 * time.Second)
		code2, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": "forged", "code": code2}), http.StatusUnauthorized, "invalid_mfa_token")
		w = e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": token, "code": code2})
		m = wantHTTP(t, w, http.StatusOK, "")
		if m["redirect_to"] != "/app/history" {
			t.Errorf("verify = %v", m)
		}
		s2, c2 := checkSignInCookies(t, w)
		sec.add("session 2", s2.Value)
		if s2.Value == b.session.Value || s2.Value == token {
			t.Fatalf("MFA completion reused a token")
		}
		b2 := browser{s2, c2}
		wantHTTP(t, e.do("POST", "/test/authed", nil, b2.opts()...), http.StatusOK, "")
		// The challenge is spent; the old session stays dead.
		e.clk.Advance(30 * time.Second)
		code3, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": token, "code": code3}), http.StatusUnauthorized, "invalid_mfa_token")
		wantHTTP(t, e.do("GET", "/api/auth/session", nil, withCookies(b.session)), http.StatusUnauthorized, "unauthorized")

		// Backup codes work once each (any case, with or without the dash).
		challenge := func() string {
			m := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}), http.StatusOK, "")
			return m["mfa_token"].(string)
		}
		tok := challenge()
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "backup_code": strings.ToUpper(strings.ReplaceAll(backup[0], "-", ""))}), http.StatusOK, "")
		tok = challenge()
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "backup_code": backup[0]}), http.StatusUnauthorized, "invalid_mfa_code")
		if m := wantHTTP(t, e.do("GET", "/api/auth/mfa", nil, b2.opts()...), http.StatusOK, ""); m["backup_codes_remaining"] != float64(9) {
			t.Errorf("after one backup code: %v", m)
		}

		// New backup codes need a current code; the old ones stop working.
		wantHTTPInvalid(t, e.do("POST", "/v1/user/backup-code", map[string]any{}, b2.opts()...), "code")
		e.clk.Advance(30 * time.Second)
		code4, _ := totp.GenerateCode(secret, e.clk.Now())
		m = wantHTTP(t, e.do("POST", "/v1/user/backup-code", map[string]any{"code": code4}, b2.opts()...), http.StatusOK, "")
		fresh := m["backup_codes"].([]any)
		if len(fresh) != auth.BackupCodeCount {
			t.Fatalf("backup-code = %v", m)
		}
		for _, c := range fresh {
			sec.add("new backup code", c.(string))
		}
		wantHTTP(t, e.do("POST", "/v1/user/backup-code/"+backup[1]+"/remove-mfa", nil, b2.opts()...), http.StatusUnauthorized, "invalid_mfa_code")

		// Nothing secret in the tables (read raw), and the TOTP secret is sealed.
		me, _ := db.UserByEmail(ctxT(t), email)
		_, keySecret, err := e.svc.CreateAPIKey(ctxT(t), me.ID, me.WorkspaceID, "ci")
		if err != nil {
			t.Fatal(err)
		}
		sec.add("api key", keySecret)
		checkNoPlaintextSecrets(t, db, sec, s2.Value)
		for _, table := range []string{"mfa_backup_codes", "mfa_challenges", "rate_limits", "audit_log"} {
			for _, row := range dumpTable(t, db, table) {
				joined := strings.Join(row.values, "\x1f")
				for _, s := range sec.list {
					name, v, _ := strings.Cut(s, "\x00")
					if strings.Contains(joined, v) {
						t.Errorf("table %s stores the %s in plaintext: %v", table, name, row)
					}
				}
			}
		}
		if n := len(dumpTable(t, db, "mfa_backup_codes")); n != auth.BackupCodeCount {
			t.Errorf("%d backup code rows, want %d", n, auth.BackupCodeCount)
		}
		for _, row := range dumpTable(t, db, "users") {
			if row.col["email"] == email && !strings.HasPrefix(row.col["totp_secret"], "v1:") {
				t.Errorf("totp_secret is not sealed: %q", row.col["totp_secret"])
			}
		}

		// A backup code removes MFA (the spec's route); sign-in then needs only the password.
		wantHTTP(t, e.do("POST", "/v1/user/backup-code/"+url.PathEscape(fresh[0].(string))+"/remove-mfa", nil, b2.opts()...), http.StatusOK, "")
		e.signIn(email, password)
		if !auditHas(t, db, "mfa", "totp_disabled") || !auditHas(t, db, "auth", "sign_in") {
			t.Errorf("audit lacks totp_disabled or sign_in")
		}
		t.Logf("MFA: enrol, replay refused, challenge, backup codes single use (%d issued, hashed), removal — all on %s", auth.BackupCodeCount, db.Dialect)
	})
}

func TestMFARequiredByWorkspace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		u := signUpVerified(t, e.svc, e.mail, "noa@example.com", "noa's long password")
		rawExec(t, db, `UPDATE workspaces SET mfa_required_for_users = ? WHERE id = ?`, true, u.WorkspaceID)
		w := e.do("POST", "/api/auth/sign-in", map[string]any{"email": u.Email, "password": "noa's long password"})
		m := wantHTTP(t, w, http.StatusOK, "")
		if m["mfa_enrollment_required"] != true {
			t.Errorf("sign-in = %v", m)
		}
		s, c := checkSignInCookies(t, w)
		b := browser{s, c}
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusForbidden, "mfa_enrollment_required")
		wantHTTP(t, e.do("GET", "/api/auth/sessions", nil, b.opts()...), http.StatusForbidden, "mfa_enrollment_required")
		if m := wantHTTP(t, e.do("GET", "/api/auth/session", nil, b.opts()...), http.StatusOK, ""); m["mfa_enrollment_required"] != true {
			t.Errorf("session = %v", m)
		}
		m = wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": "noa's long password"}, b.opts()...), http.StatusOK, "")
		code, _ := totp.GenerateCode(m["secret"].(string), e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
		if m := wantHTTP(t, e.do("GET", "/api/auth/session", nil, b.opts()...), http.StatusOK, ""); m["mfa_enrollment_required"] != false || m["totp_enabled"] != true {
			t.Errorf("session after enrolment = %v", m)
		}
	})
}

func TestBruteForceLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "bo@example.com", "bo's long password"
		u := signUpVerified(t, e.svc, e.mail, email, password)

		// Per account and address: 10 failures from one address, then even the right password
		// is refused there until the window ends.
		for i := range 10 {
			wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": "guess " + strconv.Itoa(i)}, fromAddr("198.51.100.1:1")), http.StatusUnauthorized, "invalid_credentials")
		}
		w := e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("198.51.100.1:1"))
		m := wantHTTP(t, w, http.StatusTooManyRequests, "too_many_attempts")
		if msg := m["detail"].(map[string]any)["message"].(string); !strings.Contains(msg, "locked") || w.Header().Get("Retry-After") == "" {
			t.Errorf("lockout message %q, Retry-After %q", msg, w.Header().Get("Retry-After"))
		}
		if len(w.Result().Cookies()) != 0 {
			t.Errorf("a locked sign-in set cookies")
		}
		if !auditHas(t, db, "auth", "sign_in_failed") || !auditHas(t, db, "auth", "sign_in_locked") {
			t.Errorf("audit lacks sign_in_failed / sign_in_locked")
		}
		// The owner at their own address is not locked out by the attacker's failures.
		e.signIn(email, password)
		e.clk.Advance(15*time.Minute + time.Second)
		e.signIn(email, password, fromAddr("198.51.100.1:1"))

		// Back-off: a second lock-out within the hour lasts twice as long.
		for i := range 11 {
			e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": "guess " + strconv.Itoa(i)}, fromAddr("198.51.100.1:1"))
		}
		e.clk.Advance(15*time.Minute + time.Second)
		wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("198.51.100.1:1")), http.StatusTooManyRequests, "too_many_attempts")
		e.clk.Advance(15 * time.Minute)
		e.signIn(email, password, fromAddr("198.51.100.1:1"))

		// Per address: 50 failures from one address (over many accounts) block it, not others.
		for i := range 50 {
			wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": "nobody" + strconv.Itoa(i) + "@example.com", "password": "x"}, fromAddr("203.0.113.7:1")), http.StatusUnauthorized, "invalid_credentials")
		}
		m = wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("203.0.113.7:2")), http.StatusTooManyRequests, "too_many_attempts")
		if m["detail"].(map[string]any)["message"] != auth.MsgTooManyAttempts {
			t.Errorf("address limit message = %v", m)
		}
		e.signIn(email, password, fromAddr("203.0.113.8:1"))

		// Reset-code checks: 20 wrong codes per address, then the spec's message.
		for range 20 {
			wantHTTP(t, e.do("POST", "/api/auth/check-reset-code", map[string]any{"code": "wrong"}, fromAddr("203.0.113.9:1")), http.StatusBadRequest, "invalid_action_code")
		}
		wantHTTP(t, e.do("POST", "/api/auth/check-reset-code", map[string]any{"code": "wrong"}, fromAddr("203.0.113.9:1")), http.StatusTooManyRequests, "too_many_attempts")
		wantHTTP(t, e.do("POST", "/api/auth/verify-email", map[string]any{"code": "wrong"}, fromAddr("203.0.113.9:1")), http.StatusTooManyRequests, "too_many_attempts")

		// Reset and verification mails: 5 an hour per account.
		before := e.mail.count()
		for range 5 {
			wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusOK, "")
		}
		wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusTooManyRequests, "too_many_attempts")
		if got := e.mail.count() - before; got != 5 {
			t.Errorf("%d reset mails sent, want 5", got)
		}
		for range 5 {
			wantHTTP(t, e.do("POST", "/api/auth/send-verification-email", map[string]any{"email": "x@example.com"}), http.StatusOK, "")
		}
		wantHTTP(t, e.do("POST", "/api/auth/send-verification-email", map[string]any{"email": "x@example.com"}), http.StatusTooManyRequests, "too_many_attempts")

		// MFA: 5 wrong codes per account, then refused even with the right one.
		b := e.signIn(email, password, fromAddr("203.0.113.10:1"))
		m = wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusOK, "")
		secret := m["secret"].(string)
		code, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		tok := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("203.0.113.10:1")), http.StatusOK, "")["mfa_token"].(string)
		for range 5 {
			wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": "000000"}), http.StatusUnauthorized, "invalid_mfa_code")
		}
		e.clk.Advance(30 * time.Second)
		good, _ := totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": good}), http.StatusTooManyRequests, "too_many_attempts")
		e.clk.Advance(4 * time.Minute) // the challenge lives 5 minutes; the lock 15
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": good}), http.StatusTooManyRequests, "too_many_attempts")
		e.clk.Advance(11*time.Minute + time.Second)
		tok = wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("203.0.113.10:1")), http.StatusOK, "")["mfa_token"].(string)
		good, _ = totp.GenerateCode(secret, e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": good}), http.StatusOK, "")

		// The counters name no email or address in plaintext.
		for _, row := range dumpTable(t, db, "rate_limits") {
			if strings.Contains(row.col["bucket"], "@") || strings.Contains(row.col["bucket"], "203.0.113") || strings.Contains(row.col["bucket"], u.ID) {
				t.Errorf("rate_limits bucket names its subject: %v", row)
			}
		}
		t.Logf("limits: sign-in %d/account and %d/address per 15 min, MFA %d/account, codes %d/address, mails %d/hour — each refused with 429 past the limit and allowed after the window",
			auth.LimitSignInAccount.Max, auth.LimitSignInIP.Max, auth.LimitMFAAccount.Max, auth.LimitCodeIP.Max, auth.LimitResetMailTo.Max)
	})
}

func TestSessionsListRevokeAndInactivity(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "kai@example.com", "kai's long password"
		u := signUpVerified(t, e.svc, e.mail, email, password)
		laptop := e.signIn(email, password, withHeader("User-Agent", "Laptop/1.0"), fromAddr("192.0.2.1:5000"))
		phone := e.signIn(email, password, withHeader("User-Agent", "Phone/2.0"), fromAddr("192.0.2.2:5000"))
		if laptop.session.Value == phone.session.Value {
			t.Fatal("two sign-ins share a token")
		}
		m := wantHTTP(t, e.do("GET", "/api/auth/sessions", nil, laptop.opts()...), http.StatusOK, "")
		list := m["sessions"].([]any)
		if len(list) != 2 {
			t.Fatalf("sessions = %v", m)
		}
		var phoneID string
		current := 0
		for _, raw := range list {
			s := raw.(map[string]any)
			if s["current"] == true {
				current++
				if s["user_agent"] != "Laptop/1.0" || s["ip_address"] != "192.0.2.1" {
					t.Errorf("current session = %v", s)
				}
			} else {
				phoneID = s["session_id"].(string)
			}
			if s["session_id"] == "" || s["created_at_unix"] == nil || s["last_seen_unix"] == nil {
				t.Errorf("session row = %v", s)
			}
			if strings.Contains(e.do("GET", "/api/auth/sessions", nil, laptop.opts()...).Body.String(), laptop.session.Value) {
				t.Errorf("the session list reveals a token")
			}
		}
		if current != 1 || phoneID == "" {
			t.Fatalf("current marks = %d in %v", current, list)
		}

		// Another user cannot revoke it; its owner can; it then stops working.
		other := signUpVerified(t, e.svc, e.mail, "zed@example.com", "zed's long password")
		ob := e.signIn(other.Email, "zed's long password")
		wantHTTP(t, e.do("DELETE", "/api/auth/sessions/"+phoneID, nil, ob.opts()...), http.StatusNotFound, "session_not_found")
		wantHTTP(t, e.do("DELETE", "/api/auth/sessions/"+phoneID, nil, withCookies(laptop.session)), http.StatusForbidden, "csrf_failed")
		wantHTTP(t, e.do("DELETE", "/api/auth/sessions/"+phoneID, nil, laptop.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, phone.opts()...), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, e.do("DELETE", "/api/auth/sessions/"+phoneID, nil, laptop.opts()...), http.StatusNotFound, "session_not_found")
		if !auditHas(t, db, "session", "revoke") {
			t.Errorf("no audit entry for the revocation")
		}

		// Revoke all others keeps the current one; sign out everywhere ends it too.
		tablet := e.signIn(email, password)
		m = wantHTTP(t, e.do("DELETE", "/api/auth/sessions", nil, laptop.opts()...), http.StatusOK, "")
		if m["revoked"] != float64(1) {
			t.Errorf("revoke others = %v", m)
		}
		wantHTTP(t, e.do("POST", "/test/authed", nil, tablet.opts()...), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, e.do("POST", "/test/authed", nil, laptop.opts()...), http.StatusOK, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, ob.opts()...), http.StatusOK, "") // another user's session is untouched
		desk := e.signIn(email, password)
		wantHTTP(t, e.do("POST", "/api/auth/sign-out-everywhere", nil, laptop.opts()...), http.StatusNoContent, "")
		wantHTTP(t, e.do("POST", "/test/authed", nil, laptop.opts()...), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, e.do("POST", "/test/authed", nil, desk.opts()...), http.StatusUnauthorized, "invalid_api_key")

		// Inactivity: the workspace's timeout (10 min) ends an idle session; use keeps it alive,
		// and last-seen is written at most every 5 minutes.
		rawExec(t, db, `UPDATE workspaces SET session_inactivity_timeout = ? WHERE id = ?`, 600, u.WorkspaceID)
		b := e.signIn(email, password)
		lastSeen := func() string {
			for _, row := range dumpTable(t, db, "sessions") {
				if row.col["token_hash"] == store.HashToken(b.session.Value) {
					return row.col["last_seen_unix"]
				}
			}
			return "gone"
		}
		start := lastSeen()
		e.clk.Advance(2 * time.Minute)
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
		if lastSeen() != start {
			t.Errorf("last-seen moved within the 5-minute refresh: %s → %s", start, lastSeen())
		}
		e.clk.Advance(3 * time.Minute)
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
		if lastSeen() == start {
			t.Errorf("last-seen did not move after 5 minutes")
		}
		e.clk.Advance(9 * time.Minute) // 14 minutes after sign-in, 9 after last use
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
		e.clk.Advance(10*time.Minute + time.Second)
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusUnauthorized, "invalid_api_key")
		if lastSeen() != "gone" {
			t.Errorf("the idle session was not deleted")
		}
		// Without a timeout an idle session lives on.
		rawExec(t, db, `UPDATE workspaces SET session_inactivity_timeout = NULL WHERE id = ?`, u.WorkspaceID)
		b = e.signIn(email, password)
		e.clk.Advance(30 * 24 * time.Hour)
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusOK, "")
	})
}

var recoverRE = regexp.MustCompile(`mode=recoverEmail&oobCode=([0-9A-Za-z]+)`)
var sixDigitRE = regexp.MustCompile(`code is ([0-9]{6})`)

func TestEmailChangeAndRecovery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password, newEmail = "ana@example.com", "ana's long password", "ana.new@example.com"
		signUpVerified(t, e.svc, e.mail, email, password)
		signUpVerified(t, e.svc, e.mail, "taken@example.com", "taken's long password")
		b := e.signIn(email, password)

		wantHTTPInvalid(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "nope"}, b.opts()...), "email")
		wantHTTPInvalid(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": email}, b.opts()...), "email")
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "taken@example.com"}, b.opts()...), http.StatusConflict, "email_already_exists")
		wantHTTP(t, e.do("POST", "/v1/user/send-email-change-verification", map[string]any{"email": newEmail}, b.opts()...), http.StatusOK, "")
		msg := e.mail.last(t)
		mt := sixDigitRE.FindStringSubmatch(msg.Text)
		if msg.To != newEmail || mt == nil {
			t.Fatalf("change mail = %+v", msg)
		}
		wantHTTPInvalid(t, e.do("PUT", "/v1/user/email", nil, b.opts()...), "verification_code")
		wrong := "000000"
		if mt[1] == wrong {
			wrong = "111111"
		}
		m := wantHTTP(t, e.do("PUT", "/v1/user/email?verification_code="+wrong, nil, b.opts()...), http.StatusBadRequest, "invalid_verification_code")
		if !strings.HasPrefix(m["detail"].(map[string]any)["message"].(string), "Unable to update email, ") {
			t.Errorf("failure message = %v", m)
		}
		m = wantHTTP(t, e.do("PUT", "/v1/user/email?verification_code="+mt[1], nil, b.opts()...), http.StatusOK, "")
		if m["message"] != auth.MsgEmailUpdated || m["email"] != newEmail {
			t.Errorf("email change = %v", m)
		}
		wantHTTP(t, e.do("PUT", "/v1/user/email?verification_code="+mt[1], nil, b.opts()...), http.StatusBadRequest, "invalid_verification_code")
		old := e.mail.last(t)
		rm := recoverRE.FindStringSubmatch(old.Text)
		if old.To != email || rm == nil {
			t.Fatalf("old address mail = %+v", old)
		}
		wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}), http.StatusUnauthorized, "invalid_credentials")
		nb := e.signIn(newEmail, password)
		if !auditHas(t, db, "auth", "email_changed") {
			t.Errorf("no audit entry for the email change")
		}

		// The old address undoes it, and every session ends.
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "recoverEmail", "code": "bogus"}), http.StatusBadRequest, "invalid_action_code")
		m = wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "recoverEmail", "code": rm[1]}), http.StatusOK, "")
		if m["email"] != email {
			t.Errorf("recover = %v", m)
		}
		wantHTTP(t, e.do("POST", "/test/authed", nil, nb.opts()...), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, e.do("POST", "/test/authed", nil, b.opts()...), http.StatusUnauthorized, "invalid_api_key")
		e.signIn(email, password)
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "recoverEmail", "code": rm[1]}), http.StatusBadRequest, "invalid_action_code")
	})
}

func TestEmailActionModes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "lou@example.com", "lou's long password"
		u := signUpVerified(t, e.svc, e.mail, email, password)
		ctx := ctxT(t)

		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "launchMissiles", "code": "x"}), http.StatusBadRequest, "unknown_mode")
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"code": "x"}), http.StatusBadRequest, "unknown_mode")
		wantHTTPInvalid(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "optOutOfUpdates"}), "code")

		// optOutOfUpdates.
		link, err := e.svc.OptOutLink(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		lu, _ := url.Parse(link)
		code := lu.Query().Get("oobCode")
		if agrees, _ := db.AgreesToProductUpdates(ctx, u.ID); !agrees {
			t.Fatal("a new user does not agree to product updates")
		}
		m := wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "optOutOfUpdates", "code": code, "continue_url": "https://evil.example/app"}), http.StatusOK, "")
		if m["message"] != auth.MsgOptedOut || m["continue_url"] != auth.DefaultRedirect {
			t.Errorf("opt-out = %v", m)
		}
		if agrees, _ := db.AgreesToProductUpdates(ctx, u.ID); agrees {
			t.Error("still agrees to product updates")
		}
		m = wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "optOutOfUpdates", "code": code}), http.StatusBadRequest, "invalid_action_code")
		if m["detail"].(map[string]any)["message"] != auth.MsgOptOutFailed {
			t.Errorf("opt-out failure = %v", m)
		}

		// verifyEmail and resetPassword through the handler.
		signUpResp := wantHTTP(t, e.do("POST", "/api/auth/sign-up", map[string]any{"email": "new@example.com", "password": "new's long password", "terms_accepted": true}), http.StatusCreated, "")
		_ = signUpResp
		vcode := codeFrom(t, e.mail.last(t), "verifyEmail")
		m = wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "verifyEmail", "code": vcode, "continue_url": "/app/history"}), http.StatusOK, "")
		if m["message"] != auth.MsgEmailVerified || m["continue_url"] != "/app/history" {
			t.Errorf("verifyEmail = %v", m)
		}
		wantHTTP(t, e.do("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusOK, "")
		rcode := codeFrom(t, e.mail.last(t), "resetPassword")
		m = wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "resetPassword", "code": rcode}), http.StatusOK, "")
		if m["email"] != email || !strings.HasPrefix(m["redirect_to"].(string), "/app/sign-in/reset-password?") {
			t.Errorf("resetPassword = %v", m)
		}

		// verifySignInRequest: the support access grant needs the signed-in user.
		scode, err := e.svc.RequestSupportAccess(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if mail := e.mail.last(t); mail.Subject != auth.SupportDialogTitle || !strings.Contains(mail.Text, "mode=verifySignInRequest&verificationCode="+scode) {
			t.Errorf("support mail = %+v", mail)
		}
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "verifySignInRequest", "code": scode}), http.StatusUnauthorized, "sign_in_required")
		other := signUpVerified(t, e.svc, e.mail, "eve@example.com", "eve's long password")
		eb := e.signIn(other.Email, "eve's long password")
		wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "verifySignInRequest", "code": scode}, eb.opts()...), http.StatusBadRequest, "invalid_action_code")
		if _, err := db.ActiveSupportGrant(ctx, other.ID, e.clk.Now()); err == nil {
			t.Error("another user's code granted access")
		}
		b := e.signIn(email, password)
		m = wantHTTP(t, e.do("POST", "/api/auth/action", map[string]any{"mode": "verifySignInRequest", "code": scode}, b.opts()...), http.StatusOK, "")
		if m["message"] != auth.MsgSupportGranted || m["redirect_to"] != "/" {
			t.Errorf("grant = %v", m)
		}
		g, err := db.ActiveSupportGrant(ctx, u.ID, e.clk.Now())
		if err != nil || g.ExpiresAt != e.clk.Now().Add(auth.SupportAccessDuration).Unix() {
			t.Fatalf("grant = %+v, %v", g, err)
		}
		if _, err := db.ActiveSupportGrant(ctx, u.ID, e.clk.Now().Add(auth.SupportAccessDuration)); err == nil {
			t.Error("the grant outlives its duration")
		}
		// The spec route does the same with its field name.
		scode2, _ := e.svc.RequestSupportAccess(ctx, u.ID)
		wantHTTPInvalid(t, e.do("POST", "/v1/user/sign-in-requests/verify", map[string]any{}, b.opts()...), "sign_in_request_verification_code")
		wantHTTP(t, e.do("POST", "/v1/user/sign-in-requests/verify", map[string]any{"sign_in_request_verification_code": scode2}, b.opts()...), http.StatusOK, "")
		if !auditHas(t, db, "auth", "support_access_granted") {
			t.Error("no audit entry for the grant")
		}
	})
}

func TestSignInRedirectRule(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		u := signUpVerified(t, e.svc, e.mail, "ray@example.com", "ray's long password")
		for redirect, want := range map[string]string{
			"":                                 auth.DefaultRedirect,
			"/app/subscription":                "/app/subscription",
			"https://timbre.example/app/usage": "/app/usage",
			"//evil.example":                   auth.DefaultRedirect,
			"/app/../evil":                     auth.DefaultRedirect,
		} {
			m := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": u.Email, "password": "ray's long password", "redirect": redirect}), http.StatusOK, "")
			if m["redirect_to"] != want {
				t.Errorf("redirect %q → %v, want %s", redirect, m["redirect_to"], want)
			}
		}
		if !auditHas(t, db, "auth", "unsafe_redirect_refused") {
			t.Error("the unsafe redirect attempt was not logged")
		}
	})
}

// allTables lists the application's tables (not the migration or job-queue bookkeeping).
func allTables(t *testing.T, db *store.DB) []string {
	t.Helper()
	ctx := context.Background()
	var names []string
	if db.Dialect == store.Postgres {
		rows, err := db.PG.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
	} else {
		rows, err := db.SQLiteDB.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
	}
	var out []string
	for _, n := range names {
		if n == "goose_db_version" || strings.HasPrefix(n, "river_") {
			continue
		}
		out = append(out, n)
	}
	return out
}

func TestDeleteAccountLeavesNothingOrphaned(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		ctx := ctxT(t)
		const pw = "a long enough password"
		a := signUpVerified(t, e.svc, e.mail, "del@example.com", pw)
		bUser := signUpVerified(t, e.svc, e.mail, "bea@example.com", pw)
		cUser := signUpVerified(t, e.svc, e.mail, "cal@example.com", pw)

		// A's own workspace: history with audio, a voice with a preview, a key, MFA, sessions.
		aHist := testdb.SeedHistory(t, db, a.WorkspaceID, a.ID, 3, 1, e.clk.Now())
		rawExec(t, db, `INSERT INTO voices (id, workspace_id, name, category, engine, engine_voice, language, preview_key, created_at_unix) VALUES (?, ?, 'Mine', 'cloned', 'espeak', 'en', 'en', ?, ?)`,
			"voice_of_"+a.ID, a.WorkspaceID, "previews/"+a.ID+".mp3", e.clk.Now().Unix())
		if _, _, err := e.svc.CreateAPIKey(ctx, a.ID, a.WorkspaceID, "mine"); err != nil {
			t.Fatal(err)
		}
		// A is an editor in B's workspace (with history there) and the owner of C's.
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'editor')`, bUser.WorkspaceID, a.ID)
		testdb.SeedHistory(t, db, bUser.WorkspaceID, a.ID, 2, 100, e.clk.Now())
		bHist := testdb.SeedHistory(t, db, bUser.WorkspaceID, bUser.ID, 2, 200, e.clk.Now())
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'admin')`, cUser.WorkspaceID, a.ID)
		rawExec(t, db, `UPDATE workspace_members SET role = 'editor' WHERE workspace_id = ? AND user_id = ?`, cUser.WorkspaceID, cUser.ID)
		rawExec(t, db, `UPDATE workspaces SET owner_id = ? WHERE id = ?`, a.ID, cUser.WorkspaceID)

		// A service account of A's workspace (a user row without a password) goes with it.
		rawExec(t, db, `INSERT INTO users (id, email, password_hash, email_verified, first_name, workspace_id, created_at_unix, is_service_account) VALUES (?, ?, '', ?, 'bot', ?, ?, ?)`,
			"svc_"+a.ID, "svc-"+a.WorkspaceID+"@service.invalid", true, a.WorkspaceID, e.clk.Now().Unix(), true)
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'editor')`, a.WorkspaceID, "svc_"+a.ID)

		old := e.signIn(a.Email, pw)
		m := wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": pw}, old.opts()...), http.StatusOK, "")
		code, _ := totp.GenerateCode(m["secret"].(string), e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, old.opts()...), http.StatusOK, "")

		// Proof of identity: a session older than 10 minutes needs the password (or a mailed code).
		e.clk.Advance(11 * time.Minute)
		wantHTTP(t, e.do("DELETE", "/v1/user/delete", nil, old.opts()...), http.StatusForbidden, "sensitive_action_verification_required")
		wantHTTP(t, e.do("DELETE", "/v1/user/delete", map[string]any{"password": "wrong password"}, old.opts()...), http.StatusUnauthorized, "invalid_credentials")
		if _, err := db.UserByID(ctx, a.ID); err != nil {
			t.Fatalf("a refused deletion deleted: %v", err)
		}

		count := func() map[string]int {
			out := map[string]int{}
			for _, tb := range allTables(t, db) {
				out[tb] = len(dumpTable(t, db, tb))
			}
			return out
		}
		before := count()
		w := e.do("DELETE", "/v1/user/delete", map[string]any{"password": pw}, old.opts()...)
		m = wantHTTP(t, w, http.StatusOK, "")
		if m["workspaces_deleted"] != float64(1) || m["workspaces_left"] != float64(2) {
			t.Errorf("delete = %v", m)
		}
		if c := cookieNamed(w, auth.SessionCookie); c == nil || c.MaxAge >= 0 {
			t.Errorf("cookies not cleared: %v", c)
		}
		after := count()

		// Nothing anywhere still names the user, their email or their workspace — except the
		// shared workspaces' audit logs, which keep the opaque user id (not the email) of what
		// the user did there: that record belongs to those workspaces.
		for _, tb := range allTables(t, db) {
			for _, row := range dumpTable(t, db, tb) {
				joined := strings.Join(row.values, "\x1f")
				names := []string{a.ID, a.WorkspaceID, a.Email}
				if tb == "audit_log" {
					names = names[1:]
				}
				for _, v := range names {
					if strings.Contains(joined, v) {
						t.Errorf("table %s still refers to %s: %v", tb, v, row)
					}
				}
			}
			if after[tb] != before[tb] {
				t.Logf("%-24s %4d → %4d", tb, before[tb], after[tb])
			}
		}
		if _, err := db.UserByID(ctx, a.ID); err == nil {
			t.Error("the user is still there")
		}
		wantHTTP(t, e.do("POST", "/test/authed", nil, old.opts()...), http.StatusUnauthorized, "invalid_api_key")

		// Shared workspaces live on: B's history intact, C owned by C (made admin).
		for _, id := range bHist {
			if _, err := db.History(ctx, bUser.WorkspaceID, id); err != nil {
				t.Errorf("B's history %s: %v", id, err)
			}
		}
		if role, _ := db.Role(ctx, cUser.WorkspaceID, cUser.ID); role != "admin" {
			t.Errorf("C's role = %q, want admin", role)
		}
		if w, err := db.Workspace(ctx, cUser.WorkspaceID, e.clk.Now()); err != nil || w.OwnerID != cUser.ID {
			t.Errorf("C's workspace owner = %+v, %v", w, err)
		}
		// The audio of A's own workspace was removed.
		e.blobs.mu.Lock()
		deleted := strings.Join(e.blobs.deleted, " ")
		e.blobs.mu.Unlock()
		for _, id := range aHist {
			if !strings.Contains(deleted, id) {
				t.Errorf("blob of history %s not deleted (%s)", id, deleted)
			}
		}
		if !strings.Contains(deleted, "previews/"+a.ID+".mp3") {
			t.Errorf("voice preview blob not deleted (%s)", deleted)
		}
		if !auditHas(t, db, "member", "account_deleted") {
			t.Error("no audit entry in the shared workspaces")
		}
	})
}

// TestServiceAccountNoPasswordSignIn: a service account (API keys only) is refused by password
// sign-in and gets no reset mail, even if its row somehow held a password.
func TestServiceAccountNoPasswordSignIn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		svc, rec, _ := newService(t, db)
		ctx := ctxT(t)
		owner := signUpVerified(t, svc, rec, "owner@sa.example", "correct horse battery")
		saID := store.NewID()
		if err := db.CreateServiceAccount(ctx, store.ServiceAccount{UserID: saID, WorkspaceID: owner.WorkspaceID, Name: "ci", Role: "editor", CreatedAt: 1}, 5); err != nil {
			t.Fatal(err)
		}
		sa, err := db.UserByID(ctx, saID)
		if err != nil || !sa.IsServiceAccount {
			t.Fatalf("service account row %+v %v", sa, err)
		}
		rawExec(t, db, `UPDATE users SET password_hash = ?, email_verified = ? WHERE id = ?`, auth.HashPassword("correct horse battery"), true, saID)
		_, _, _, err = svc.SignIn(ctx, sa.Email, "correct horse battery")
		wantStatus(t, err, http.StatusUnauthorized, "invalid_credentials")
		mails := rec.count()
		if err := svc.SendPasswordReset(ctx, sa.Email); err != nil {
			t.Fatal(err)
		}
		if rec.count() != mails {
			t.Fatal("a reset mail went to a service account")
		}
		// The owner still signs in and gets reset mails.
		if _, _, _, err := svc.SignIn(ctx, owner.Email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		if err := svc.SendPasswordReset(ctx, owner.Email); err != nil || rec.count() != mails+1 {
			t.Fatalf("owner's reset: %v, %d mails", err, rec.count()-mails)
		}
	})
}
