package sso_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/apitest"
	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/secret"
	"timbre/internal/sso"
	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
)

// env is Timbre's SSO routes behind a real TLS server (the session cookies are Secure, so the
// browser's cookie jar only sends them over https), with auth's Authenticate as the router's.
type env struct {
	t    *testing.T
	db   *store.DB
	srv  *httptest.Server
	svc  *sso.Service
	auth *auth.Service
	dns  *ssotest.DNS // the DNS server domain verification asks
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	apitest.Client(t, srv.Client()) // every response the tests receive is checked against openapi.json
	authSvc := &auth.Service{DB: db, Mail: mailer.New(mailer.SMTPConfig{}, db, slog.New(slog.DiscardHandler)), PublicURL: srv.URL}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	box, err := secret.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	svc := &sso.Service{DB: db, Box: box, PublicURL: srv.URL, OpenSession: func(ctx context.Context, r *http.Request, u *store.User) (string, string, error) {
		return authSvc.OpenSSOSession(ctx, u, auth.ClientOf(r))
	},
		HTTPClient: &http.Client{Timeout: 10 * time.Second}, AllowInsecureIdP: true}
	dns := ssotest.NewDNS(t)
	svc.Resolver = sso.NewResolver(dns.Addr)
	authSvc.SSORequired = svc.SSORequired // as app.go wires it
	rt := &httpx.Router{Mux: mux, Auth: authSvc.Authenticate}
	(&sso.Handlers{Svc: svc, MaxBody: 1 << 20}).Routes(rt)
	(&auth.Handlers{Svc: authSvc, MaxBody: 1 << 20}).Routes(rt) // sign-in, sign-up, reset: "SSO required"
	rt.Authed("GET /test/whoami", func(w http.ResponseWriter, r *http.Request) error {
		c := access.CallerFrom(r.Context())
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"user_id": c.UserID, "workspace_id": c.WorkspaceID, "role": c.Role})
		return nil
	})
	return &env{t: t, db: db, srv: srv, svc: svc, auth: authSvc, dns: dns}
}

// verifyDomains proves the ownership of every pending domain of s's workspace the way an admin
// does: publish each claim's TXT record (in e.dns), then press Verify.
func (e *env) verifyDomains(s *session) {
	e.t.Helper()
	list := wantCode(e.t, e.call("GET", "/api/workspace/sso/domains", nil, s), http.StatusOK, "")
	for _, x := range list["domains"].([]any) {
		d := x.(map[string]any)
		if d["status"] == "verified" {
			continue
		}
		rec := d["txt_record"].(map[string]any)
		e.dns.SetTXT(rec["name"].(string), rec["value"].(string))
		got := wantCode(e.t, e.call("POST", "/api/workspace/sso/domains/"+d["domain"].(string)+"/verify", nil, s), http.StatusOK, "")
		if got["status"] != "verified" {
			e.t.Fatalf("verify %s: %v", d["domain"], got)
		}
	}
}

// browser is a client with a cookie jar that follows redirects until one leads into the web
// app (/app/…), which it returns.
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	host := strings.TrimPrefix(e.srv.URL, "https://")
	return &http.Client{Transport: e.srv.Client().Transport, Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host == host && strings.HasPrefix(req.URL.Path, "/app/") {
				return http.ErrUseLastResponse
			}
			if len(via) > 10 {
				return fmt.Errorf("too many redirects")
			}
			return nil
		}}
}

// noFollow is a browser that stops at every redirect.
func (e *env) noFollow(b *http.Client) *http.Client {
	c := *b
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

type session struct{ token, csrf string }

func (e *env) user(email string) (*store.User, *store.Workspace) {
	e.t.Helper()
	u, w, err := e.db.CreateUserWithWorkspace(context.Background(), email, "argon2id$not-a-real-hash", true, "free", time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	return u, w
}

func (e *env) session(u *store.User, workspaceID string) session {
	e.t.Helper()
	su := *u
	su.WorkspaceID = workspaceID
	tok, csrf, err := e.auth.OpenSession(context.Background(), &su)
	if err != nil {
		e.t.Fatal(err)
	}
	return session{tok, csrf}
}

// ssoSession opens a session as the workspace's identity provider would (an SSO sign-in).
func (e *env) ssoSession(u *store.User, workspaceID string) session {
	e.t.Helper()
	su := *u
	su.WorkspaceID = workspaceID
	tok, csrf, err := e.auth.OpenSSOSession(context.Background(), &su, auth.Client{})
	if err != nil {
		e.t.Fatal(err)
	}
	return session{tok, csrf}
}

type resp struct {
	code int
	body []byte
	hdr  http.Header
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response %d %q is not JSON: %v", r.code, r.body, err)
	}
	return m
}

// call makes an API request as s (nil = anonymous).
func (e *env) call(method, path string, body any, s *session) resp {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s != nil {
		req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: s.token})
		req.Header.Set(auth.CSRFHeader, s.csrf)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, b, res.Header}
}

func wantCode(t *testing.T, r resp, code int, status string) map[string]any {
	t.Helper()
	if r.code != code {
		t.Fatalf("status %d, want %d: %s", r.code, code, r.body)
	}
	m := r.json(t)
	if status != "" {
		d, _ := m["detail"].(map[string]any)
		if d == nil || d["status"] != status || d["message"] == "" {
			t.Fatalf("body %s, want detail.status %s", r.body, status)
		}
	}
	return m
}

func wantInvalid(t *testing.T, r resp, field string) {
	t.Helper()
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422 naming %s: %s", r.code, field, r.body)
	}
	var body struct{ Detail []errs.FieldError }
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	for _, f := range body.Detail {
		if len(f.Loc) == 2 && f.Loc[1] == field && f.Msg != "" {
			return
		}
	}
	t.Fatalf("422 does not name %s: %s", field, r.body)
}

// wantAppRedirect asserts a callback's answer: a 303 into the app at path (with its query).
func wantAppRedirect(t *testing.T, res *http.Response, wantPath string, wantQuery map[string]string) {
	t.Helper()
	if res.StatusCode != http.StatusSeeOther {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d, want 303 to %s: %s", res.StatusCode, wantPath, b)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Path != wantPath {
		t.Fatalf("redirect to %q, want path %s", res.Header.Get("Location"), wantPath)
	}
	for k, v := range wantQuery {
		if got := loc.Query().Get(k); got != v {
			t.Fatalf("redirect %s: %s=%q, want %q", loc, k, got, v)
		}
	}
}

// whoami asks who the browser's session cookie is.
func (e *env) whoami(b *http.Client) (int, map[string]any) {
	e.t.Helper()
	res, err := b.Get(e.srv.URL + "/test/whoami")
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// ---- raw database access -------------------------------------------------------------------

func rebind(db *store.DB, q string) string {
	if db.Dialect != store.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func rawExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	var err error
	if db.Dialect == store.Postgres {
		_, err = db.PG.Exec(context.Background(), rebind(db, q), args...)
	} else {
		_, err = db.SQLiteDB.ExecContext(context.Background(), q, args...)
	}
	if err != nil {
		t.Fatalf("raw exec %q: %v", q, err)
	}
}

// rawDump returns every row of a table as text, to search for secrets.
func rawDump(t *testing.T, db *store.DB, table string) string {
	t.Helper()
	var b strings.Builder
	if db.Dialect == store.Postgres {
		rows, err := db.PG.Query(context.Background(), "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		return b.String()
	}
	rows, err := db.SQLiteDB.QueryContext(context.Background(), "SELECT * FROM "+table)
	if err != nil {
		t.Fatal(err)
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
		for _, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprint(&b, v, " ")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func count(t *testing.T, db *store.DB, q string, args ...any) int {
	t.Helper()
	var n int
	var err error
	if db.Dialect == store.Postgres {
		err = db.PG.QueryRow(context.Background(), rebind(db, q), args...).Scan(&n)
	} else {
		err = db.SQLiteDB.QueryRowContext(context.Background(), q, args...).Scan(&n)
	}
	if err != nil {
		t.Fatalf("count %q: %v", q, err)
	}
	return n
}

func auditCount(t *testing.T, db *store.DB, workspaceID, class, activity string) int {
	t.Helper()
	return count(t, db, `SELECT COUNT(*) FROM audit_log WHERE workspace_id = ? AND class_name = ? AND activity_name = ?`, workspaceID, class, activity)
}
