package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"timbre/internal/access"
	"timbre/internal/apitest"
	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

const maxBody = 1 << 20

// newMux builds the routes as the server does, plus POST /test/authed, an Authed route that
// echoes its caller.
func newMux(t *testing.T, db *store.DB, sender mailer.Sender) (*http.ServeMux, *auth.Service) {
	t.Helper()
	svc := &auth.Service{DB: db, Mail: sender, PublicURL: publicURL}
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: svc.Authenticate}
	(&auth.Handlers{Svc: svc, MaxBody: maxBody}).Routes(rt)
	rt.Authed("POST /test/authed", func(w http.ResponseWriter, r *http.Request) error {
		c := access.CallerFrom(r.Context())
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": c.UserID, "workspace_id": c.WorkspaceID, "via_session": c.ViaSession})
		return nil
	})
	return mux, svc
}

func devMailbox(db *store.DB) mailer.Sender {
	return mailer.New(mailer.SMTPConfig{}, db, slog.New(slog.DiscardHandler))
}

type opt func(*http.Request)

func withCookies(cs ...*http.Cookie) opt {
	return func(r *http.Request) {
		for _, c := range cs {
			r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
}

func withHeader(k, v string) opt { return func(r *http.Request) { r.Header.Set(k, v) } }

func do(t *testing.T, mux http.Handler, method, path string, body any, opts ...opt) *httptest.ResponseRecorder {
	t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	r := httptest.NewRequest(method, path, rd)
	r.RemoteAddr = "127.0.0.1:40000" // as from the server's own machine; fromAddr changes it
	r.Host = "localhost:8080"
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(r)
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	apitest.Recorded(t, r, w)
	return w
}

func jsonOf(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("response %d %q is not a JSON object: %v", w.Code, w.Body.String(), err)
	}
	return m
}

// wantHTTP asserts the response status and, for an error, its detail.status.
func wantHTTP(t *testing.T, w *httptest.ResponseRecorder, code int, status string) map[string]any {
	t.Helper()
	if w.Code != code {
		t.Fatalf("status %d, want %d: %s", w.Code, code, w.Body.String())
	}
	if code == http.StatusNoContent {
		return nil
	}
	m := jsonOf(t, w)
	if status != "" {
		d, _ := m["detail"].(map[string]any)
		if d == nil || d["status"] != status || d["message"] == "" {
			t.Fatalf("body %s, want detail.status %s", w.Body.String(), status)
		}
	}
	return m
}

// wantHTTPInvalid asserts a 422 naming field.
func wantHTTPInvalid(t *testing.T, w *httptest.ResponseRecorder, field string) {
	t.Helper()
	if w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", w.Code, w.Body.String())
	}
	var body struct{ Detail []errs.FieldError }
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("422 body %s: %v", w.Body.String(), err)
	}
	for _, f := range body.Detail {
		if len(f.Loc) == 2 && f.Loc[1] == field {
			return
		}
	}
	t.Fatalf("422 %s does not name %s", w.Body.String(), field)
}

func cookieNamed(w *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range w.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func rawSetCookie(w *httptest.ResponseRecorder, name string) string {
	for _, h := range w.Result().Header.Values("Set-Cookie") {
		if strings.HasPrefix(h, name+"=") {
			return h
		}
	}
	return ""
}

// mailboxCode reads the newest message to `to` from the development mailbox over HTTP and
// returns its code for mode.
func mailboxCode(t *testing.T, mux http.Handler, to, mode string) string {
	t.Helper()
	m := wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil), http.StatusOK, "")
	msgs, _ := m["messages"].([]any)
	for _, raw := range msgs { // newest first
		msg := raw.(map[string]any)
		if msg["to"] != to {
			continue
		}
		for _, k := range []string{"id", "subject", "text", "html", "created_at_unix"} {
			if _, ok := msg[k]; !ok {
				t.Errorf("mailbox message lacks %s: %v", k, msg)
			}
		}
		text, _ := msg["text"].(string)
		html, _ := msg["html"].(string)
		if !strings.Contains(text, "mode="+mode) {
			continue
		}
		return codeFrom(t, mailer.Message{To: to, Text: text, HTML: html}, mode)
	}
	t.Fatalf("no %s mail to %s in the mailbox: %v", mode, to, msgs)
	return ""
}

const day = 24 * 60 * 60

func checkSignInCookies(t *testing.T, w *httptest.ResponseRecorder) (session, csrf *http.Cookie) {
	t.Helper()
	session, csrf = cookieNamed(w, auth.SessionCookie), cookieNamed(w, auth.CSRFCookie)
	if session == nil || csrf == nil || session.Value == "" || csrf.Value == "" {
		t.Fatalf("sign-in cookies: %v", w.Result().Header.Values("Set-Cookie"))
	}
	for _, c := range []*http.Cookie{session, csrf} {
		if !strings.HasPrefix(c.Name, "xi_website_") {
			t.Errorf("cookie %s lacks the xi_website_ prefix", c.Name)
		}
		if !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != 360*day {
			t.Errorf("cookie %s: Secure=%v SameSite=%v Path=%q MaxAge=%d, want Secure, Strict, /, %d", c.Name, c.Secure, c.SameSite, c.Path, c.MaxAge, 360*day)
		}
		if c.Domain != "" {
			t.Errorf("cookie %s has Domain %q (host-only wanted)", c.Name, c.Domain)
		}
	}
	if !session.HttpOnly {
		t.Errorf("session cookie is not HttpOnly")
	}
	if csrf.HttpOnly {
		t.Errorf("CSRF cookie is HttpOnly: the web app cannot read it")
	}
	raw := rawSetCookie(w, auth.SessionCookie)
	for _, attr := range []string{"HttpOnly", "Secure", "SameSite=Strict", fmt.Sprintf("Max-Age=%d", 360*day), "Path=/"} {
		if !strings.Contains(raw, attr) {
			t.Errorf("Set-Cookie %q lacks %s", raw, attr)
		}
	}
	return session, csrf
}

// secrets collects what must never be stored in plaintext.
type secrets struct{ list []string }

func (s *secrets) add(name, v string) {
	if v == "" {
		panic("empty secret " + name)
	}
	s.list = append(s.list, name+"\x00"+v)
}

func TestCookieFlow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		mux, _ := newMux(t, db, devMailbox(db))
		var sec secrets
		const email, password = "kim@example.com", "kim's long password"
		sec.add("password", password)

		// Sign-up: validation, then success, then the duplicate.
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": "nope", "password": password, "terms_accepted": true}), "email")
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": email, "password": "short", "terms_accepted": true}), "password")
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": email, "password": password}), "terms_accepted")
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", `{"email": 5}`), "email")
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", `{not json`), "body")
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/sign-up", nil), "body")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-up", `{"email":"`+strings.Repeat("a", maxBody)+`"}`), http.StatusRequestEntityTooLarge, "payload_too_large")

		m := wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": "Kim@Example.com", "password": password, "terms_accepted": true}), http.StatusCreated, "")
		if m["email"] != email || m["user_id"] == "" {
			t.Fatalf("sign-up = %v", m)
		}
		userID := m["user_id"].(string)
		// The duplicate gets a fresh sign-up's answer (no account enumeration); the owner a mail.
		dup := wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": "KIM@example.com", "password": password, "terms_accepted": true}), http.StatusCreated, "")
		if dup["email"] != email || dup["user_id"] == "" || dup["user_id"] == userID || len(dup) != len(m) {
			t.Fatalf("duplicate sign-up = %v, want the shape of %v with another id", dup, m)
		}

		// Before verification.
		w := do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password})
		wantHTTP(t, w, http.StatusForbidden, "email_not_verified")
		if len(w.Result().Cookies()) != 0 {
			t.Errorf("cookies set on a refused sign-in")
		}

		// Verify through the mailed link.
		code := mailboxCode(t, mux, email, "verifyEmail")
		sec.add("verify code", code)
		wantHTTP(t, do(t, mux, "POST", "/api/auth/verify-email", map[string]any{"code": "bogus"}), http.StatusBadRequest, "invalid_action_code")
		m = wantHTTP(t, do(t, mux, "POST", "/api/auth/verify-email", map[string]any{"code": code}), http.StatusOK, "")
		if m["email"] != email {
			t.Errorf("verify-email = %v", m)
		}
		wantHTTP(t, do(t, mux, "POST", "/api/auth/verify-email", map[string]any{"code": code}), http.StatusBadRequest, "invalid_action_code")

		// Sign-in.
		w = do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": "wrong password"})
		wantHTTP(t, w, http.StatusUnauthorized, "invalid_credentials")
		if len(w.Result().Cookies()) != 0 {
			t.Errorf("cookies set on a wrong password")
		}
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": "who@example.com", "password": password}), http.StatusUnauthorized, "invalid_credentials")
		w = do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": "KIM@example.com", "password": password})
		m = wantHTTP(t, w, http.StatusOK, "")
		if m["user_id"] != userID || m["email"] != email || m["workspace_id"] == "" {
			t.Errorf("sign-in = %v", m)
		}
		workspaceID := m["workspace_id"]
		session, csrf := checkSignInCookies(t, w)
		sec.add("session token", session.Value)
		if strings.Contains(w.Body.String(), session.Value) {
			t.Errorf("sign-in body reveals the session token")
		}

		// The session.
		wantHTTP(t, do(t, mux, "GET", "/api/auth/session", nil), http.StatusUnauthorized, "unauthorized")
		m = wantHTTP(t, do(t, mux, "GET", "/api/auth/session", nil, withCookies(session)), http.StatusOK, "")
		if m["user_id"] != userID || m["email"] != email || m["email_verified"] != true || m["workspace_id"] != workspaceID {
			t.Errorf("session = %v", m)
		}
		if _, ok := m["first_name"]; !ok {
			t.Errorf("session lacks first_name: %v", m)
		}

		// CSRF on an Authed write.
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil), http.StatusUnauthorized, "invalid_api_key")
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withCookies(session, csrf)), http.StatusForbidden, "csrf_failed")
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withCookies(session, csrf), withHeader(auth.CSRFHeader, csrf.Value+"x")), http.StatusForbidden, "csrf_failed")
		// The CSRF cookie alone (what another site's form would carry) is not the header.
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withCookies(session, csrf), withHeader(auth.CSRFHeader, session.Value)), http.StatusForbidden, "csrf_failed")
		m = wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withCookies(session, csrf), withHeader(auth.CSRFHeader, csrf.Value)), http.StatusOK, "")
		if m["user_id"] != userID || m["workspace_id"] != workspaceID || m["via_session"] != true {
			t.Errorf("authed caller = %v", m)
		}
		withCSRF := []opt{withCookies(session, csrf), withHeader(auth.CSRFHeader, csrf.Value)}

		// API keys through the session.
		wantHTTP(t, do(t, mux, "POST", "/v1/user/create-api-key", map[string]any{"name": "CI"}, withCookies(session)), http.StatusForbidden, "csrf_failed")
		wantHTTPInvalid(t, do(t, mux, "POST", "/v1/user/create-api-key", map[string]any{"name": ""}, withCSRF...), "name")
		keyIDs := map[string]string{}
		keySecrets := map[string]string{}
		for _, name := range []string{"CI", "laptop"} {
			m = wantHTTP(t, do(t, mux, "POST", "/v1/user/create-api-key", map[string]any{"name": name}, withCSRF...), http.StatusOK, "")
			s, _ := m["xi_api_key"].(string)
			if !strings.HasPrefix(s, "sk_") || m["key_id"] == "" || m["name"] != name {
				t.Fatalf("create-api-key = %v", m)
			}
			if p, _ := m["key_preview"].(string); p == "" || strings.Contains(p, s) {
				t.Errorf("preview %q", p)
			}
			keyIDs[name], keySecrets[name] = m["key_id"].(string), s
			sec.add("api key "+name, s)
		}
		w = do(t, mux, "GET", "/v1/user/api-keys", nil, withCookies(session))
		m = wantHTTP(t, w, http.StatusOK, "")
		for _, s := range keySecrets {
			if strings.Contains(w.Body.String(), s) {
				t.Errorf("the key list reveals a secret: %s", w.Body.String())
			}
		}
		if strings.Contains(w.Body.String(), "xi_api_key") {
			t.Errorf("the key list has xi_api_key: %s", w.Body.String())
		}
		listed := map[string]bool{}
		for _, k := range m["api_keys"].([]any) {
			km := k.(map[string]any)
			listed[km["key_id"].(string)] = true
			for _, f := range []string{"name", "key_preview", "created_at_unix"} {
				if _, ok := km[f]; !ok {
					t.Errorf("listed key lacks %s: %v", f, km)
				}
			}
		}
		if len(listed) != 2 || !listed[keyIDs["CI"]] || !listed[keyIDs["laptop"]] {
			t.Errorf("listed keys %v, want %v", listed, keyIDs)
		}

		// A key needs no CSRF token (it is not ambient authority); list with it too.
		m = wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withHeader("xi-api-key", keySecrets["CI"])), http.StatusOK, "")
		if m["user_id"] != userID || m["via_session"] != false {
			t.Errorf("caller by key = %v", m)
		}
		wantHTTP(t, do(t, mux, "GET", "/v1/user/api-keys", nil, withHeader("Authorization", "Bearer "+keySecrets["CI"])), http.StatusOK, "")
		wantHTTP(t, do(t, mux, "GET", "/v1/user/api-keys", nil, withHeader("xi-api-key", "sk_wrong")), http.StatusUnauthorized, "invalid_api_key")

		// Delete.
		wantHTTPInvalid(t, do(t, mux, "DELETE", "/v1/user/delete-api-key", nil, withCSRF...), "key_id")
		wantHTTP(t, do(t, mux, "DELETE", "/v1/user/delete-api-key?key_id="+keyIDs["laptop"], nil, withCookies(session)), http.StatusForbidden, "csrf_failed")
		m = wantHTTP(t, do(t, mux, "DELETE", "/v1/user/delete-api-key?key_id="+url.QueryEscape(keyIDs["laptop"]), nil, withCSRF...), http.StatusOK, "")
		if m["status"] != "ok" {
			t.Errorf("delete = %v", m)
		}
		wantHTTP(t, do(t, mux, "DELETE", "/v1/user/delete-api-key?key_id="+keyIDs["laptop"], nil, withCSRF...), http.StatusNotFound, "api_key_not_found")
		wantHTTP(t, do(t, mux, "DELETE", "/v1/user/delete-api-key?key_id=unknown", nil, withCSRF...), http.StatusNotFound, "api_key_not_found")
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withHeader("xi-api-key", keySecrets["laptop"])), http.StatusUnauthorized, "invalid_api_key")
		m = wantHTTP(t, do(t, mux, "GET", "/v1/user/api-keys", nil, withCookies(session)), http.StatusOK, "")
		if ks := m["api_keys"].([]any); len(ks) != 1 || ks[0].(map[string]any)["key_id"] != keyIDs["CI"] {
			t.Errorf("after delete: %v", ks)
		}

		// Another workspace cannot delete this one's key.
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": "lee@example.com", "password": "lee's long password", "terms_accepted": true}), http.StatusCreated, "")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/verify-email", map[string]any{"code": mailboxCode(t, mux, "lee@example.com", "verifyEmail")}), http.StatusOK, "")
		lw := do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": "lee@example.com", "password": "lee's long password"})
		lSession, lCSRF := checkSignInCookies(t, wantHTTPRec(t, lw, http.StatusOK))
		wantHTTP(t, do(t, mux, "DELETE", "/v1/user/delete-api-key?key_id="+keyIDs["CI"], nil, withCookies(lSession, lCSRF), withHeader(auth.CSRFHeader, lCSRF.Value)), http.StatusNotFound, "api_key_not_found")
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withHeader("xi-api-key", keySecrets["CI"])), http.StatusOK, "")

		// Sign-out needs the CSRF token, then clears the cookies and ends the session.
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-out", nil, withCookies(session, csrf)), http.StatusForbidden, "csrf_failed")
		wantHTTP(t, do(t, mux, "GET", "/api/auth/session", nil, withCookies(session)), http.StatusOK, "")
		w = do(t, mux, "POST", "/api/auth/sign-out", nil, withCSRF...)
		wantHTTP(t, w, http.StatusNoContent, "")
		for _, name := range []string{auth.SessionCookie, auth.CSRFCookie} {
			c := cookieNamed(w, name)
			if c == nil || c.Value != "" || c.MaxAge >= 0 || c.Path != "/" || !c.Secure || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("sign-out cookie %s = %+v, want cleared (Max-Age<=0), Path=/, Secure, Strict", name, c)
			}
		}
		wantHTTP(t, do(t, mux, "GET", "/api/auth/session", nil, withCookies(session)), http.StatusUnauthorized, "unauthorized")
		wantHTTP(t, do(t, mux, "POST", "/test/authed", nil, withCSRF...), http.StatusUnauthorized, "invalid_api_key")
		// Signing out again (stale cookie, or none) is harmless.
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-out", nil, withCSRF...), http.StatusNoContent, "")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-out", nil), http.StatusNoContent, "")

		// Password reset over HTTP ends every session.
		w = do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password})
		session2, _ := checkSignInCookies(t, wantHTTPRec(t, w, http.StatusOK))
		sec.add("session token 2", session2.Value)
		wantHTTP(t, do(t, mux, "POST", "/api/auth/send-password-reset-email", map[string]any{"email": "nobody@example.com"}), http.StatusOK, "")
		m = wantHTTP(t, do(t, mux, "POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}), http.StatusOK, "")
		if m["status"] != "ok" {
			t.Errorf("send-password-reset-email = %v", m)
		}
		resetCode := mailboxCode(t, mux, email, "resetPassword")
		sec.add("reset code", resetCode)
		wantHTTP(t, do(t, mux, "POST", "/api/auth/check-reset-code", map[string]any{"code": "bogus"}), http.StatusBadRequest, "invalid_action_code")
		m = wantHTTP(t, do(t, mux, "POST", "/api/auth/check-reset-code", map[string]any{"code": resetCode}), http.StatusOK, "")
		if m["email"] != email {
			t.Errorf("check-reset-code = %v", m)
		}
		const newPassword = "kim's brand new password"
		sec.add("new password", newPassword)
		wantHTTPInvalid(t, do(t, mux, "POST", "/api/auth/reset-password", map[string]any{"code": resetCode, "password": "short"}), "password")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/reset-password", map[string]any{"code": resetCode, "password": newPassword}), http.StatusOK, "")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/reset-password", map[string]any{"code": resetCode, "password": newPassword}), http.StatusBadRequest, "invalid_action_code")
		wantHTTP(t, do(t, mux, "GET", "/api/auth/session", nil, withCookies(session2)), http.StatusUnauthorized, "unauthorized")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}), http.StatusUnauthorized, "invalid_credentials")
		w = do(t, mux, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": newPassword})
		session3, _ := checkSignInCookies(t, wantHTTPRec(t, w, http.StatusOK))
		sec.add("session token 3", session3.Value)

		// A verification mail for a verified account is not sent; the answer is the same.
		wantHTTP(t, do(t, mux, "POST", "/api/auth/send-verification-email", map[string]any{"email": email}), http.StatusOK, "")
		wantHTTP(t, do(t, mux, "POST", "/api/auth/send-verification-email", map[string]any{"email": "nobody@example.com"}), http.StatusOK, "")

		// Nothing secret is stored in plaintext.
		checkNoPlaintextSecrets(t, db, sec, session3.Value)
	})
}

func wantHTTPRec(t *testing.T, w *httptest.ResponseRecorder, code int) *httptest.ResponseRecorder {
	t.Helper()
	wantHTTP(t, w, code, "")
	return w
}

// checkNoPlaintextSecrets reads every row of the credential tables straight from the database.
func checkNoPlaintextSecrets(t *testing.T, db *store.DB, sec secrets, liveSession string) {
	t.Helper()
	for _, table := range []string{"users", "sessions", "api_keys", "action_codes"} {
		rows := dumpTable(t, db, table)
		if len(rows) == 0 {
			t.Errorf("table %s is empty: the check would prove nothing", table)
		}
		for _, row := range rows {
			joined := strings.Join(row.values, "\x1f")
			for _, s := range sec.list {
				name, v, _ := strings.Cut(s, "\x00")
				if strings.Contains(joined, v) {
					t.Errorf("table %s stores the %s in plaintext: %v", table, name, row)
				}
			}
			if table == "users" {
				if h := row.col["password_hash"]; !strings.HasPrefix(h, "$argon2id$") {
					t.Errorf("users.password_hash = %q, want $argon2id$…", h)
				}
			}
		}
	}
	// The live session is there, under its hash.
	found := false
	for _, row := range dumpTable(t, db, "sessions") {
		if row.col["token_hash"] == store.HashToken(liveSession) {
			found = true
		}
	}
	if !found {
		t.Errorf("the live session's hash is not in sessions")
	}
}

type dumpedRow struct {
	values []string
	col    map[string]string
}

func (r dumpedRow) String() string { return fmt.Sprint(r.col) }

func dumpTable(t *testing.T, db *store.DB, table string) []dumpedRow {
	t.Helper()
	ctx := context.Background()
	var out []dumpedRow
	str := func(v any) string {
		switch x := v.(type) {
		case nil:
			return ""
		case []byte:
			return string(x)
		default:
			return fmt.Sprint(x)
		}
	}
	switch {
	case db.SQLiteDB != nil:
		rows, err := db.SQLiteDB.QueryContext(ctx, "SELECT * FROM "+table)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			r := dumpedRow{col: map[string]string{}}
			for i, v := range vals {
				r.values = append(r.values, str(v))
				r.col[cols[i]] = str(v)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	case db.PG != nil:
		rows, err := db.PG.Query(ctx, "SELECT * FROM "+table)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		defer rows.Close()
		fields := rows.FieldDescriptions()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			r := dumpedRow{col: map[string]string{}}
			for i, v := range vals {
				r.values = append(r.values, str(v))
				r.col[fields[i].Name] = str(v)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("no raw database handle")
	}
	return out
}

func TestDevMailboxRoute(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		t.Run("dev mailbox", func(t *testing.T) {
			mux, _ := newMux(t, db, devMailbox(db))
			// Only the server's own machine may read it: it holds everyone's links.
			wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil, fromAddr("203.0.113.9:5555")), http.StatusForbidden, "mailbox_local_only")
			wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil, func(r *http.Request) { r.Header.Set("X-Forwarded-For", "203.0.113.9") }), http.StatusForbidden, "mailbox_local_only")
			// A page whose name was re-pointed at 127.0.0.1 (DNS rebinding) comes from loopback under its own name.
			wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil, func(r *http.Request) { r.Host = "rebind.attacker.example:8080" }), http.StatusForbidden, "mailbox_local_only")
			for _, host := range []string{"127.0.0.1:8080", "[::1]:8080", "timbre.example"} {
				wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil, func(r *http.Request) { r.Host = host }), http.StatusOK, "")
			}
			m := wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil), http.StatusOK, "")
			if msgs, ok := m["messages"].([]any); !ok || len(msgs) != 0 {
				t.Errorf("empty mailbox = %v, want messages: []", m)
			}
			wantHTTP(t, do(t, mux, "POST", "/api/auth/sign-up", map[string]any{"email": "max@example.com", "password": "max's long password", "terms_accepted": true}), http.StatusCreated, "")
			m = wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil), http.StatusOK, "")
			msgs := m["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("mailbox = %v", m)
			}
			msg := msgs[0].(map[string]any)
			if msg["to"] != "max@example.com" || msg["subject"] == "" || msg["html"] == "" {
				t.Errorf("message = %v", msg)
			}
			mailboxCode(t, mux, "max@example.com", "verifyEmail")
		})
		t.Run("smtp", func(t *testing.T) {
			smtpSender := mailer.New(mailer.SMTPConfig{Host: "127.0.0.1", Port: 1, From: "x@timbre.test"}, db, nil)
			mux, _ := newMux(t, db, smtpSender)
			wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil), http.StatusNotFound, "not_found")
		})
		t.Run("other sender", func(t *testing.T) {
			mux, _ := newMux(t, db, &recSender{})
			wantHTTP(t, do(t, mux, "GET", "/api/dev/mailbox", nil), http.StatusNotFound, "not_found")
		})
	})
}

// fromAddr makes a request come from another machine.
func fromAddr(addr string) opt { return func(r *http.Request) { r.RemoteAddr = addr } }
