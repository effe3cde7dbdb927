package sso_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"timbre/internal/auth"
	"timbre/internal/sso"
	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// oidcSignIn runs the browser through /api/sso/start → the provider → the callback, and returns
// the callback's answer (a redirect into the app).
func (e *env) oidcSignIn(b *http.Client, email string) *http.Response {
	e.t.Helper()
	res, err := b.Get(e.srv.URL + "/api/sso/start?email=" + url.QueryEscape(email))
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// oidcCallbackURL runs start and the provider's authorization step only, returning the callback
// URL the provider sent the browser to (code and state), unfollowed.
func (e *env) oidcCallbackURL(b *http.Client, email string) *url.URL {
	e.t.Helper()
	nf := e.noFollow(b)
	res, err := nf.Get(e.srv.URL + "/api/sso/start?email=" + url.QueryEscape(email))
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		e.t.Fatalf("start: status %d", res.StatusCode)
	}
	res, err = nf.Get(res.Header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		e.t.Fatalf("authorize: status %d", res.StatusCode)
	}
	u, _ := url.Parse(res.Header.Get("Location"))
	return u
}

func (e *env) get(b *http.Client, u string) *http.Response {
	e.t.Helper()
	res, err := b.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestOIDCSignIn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		op := ssotest.New(t, ssotest.Options{})
		admin, ws := e.user("admin@acme.test")
		adm := e.session(admin, ws.ID)

		// The admin registers the provider; the client secret is stored only encrypted.
		created := wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{
			"type": "oidc", "name": "Acme IdP", "domains": []string{"Acme.test"}, "issuer": op.URL,
			"client_id": op.ClientID, "client_secret": op.ClientSecret}, &adm), http.StatusCreated, "")
		if created["type"] != "oidc" || created["client_id"] != op.ClientID || created["has_client_secret"] != true || created["client_secret"] != nil {
			t.Fatalf("created provider %v", created)
		}
		if ds, _ := created["domains"].([]any); len(ds) != 1 || ds[0] != "acme.test" {
			t.Fatalf("domains %v, want [acme.test]", created["domains"])
		}
		if dump := rawDump(t, db, "sso_providers"); strings.Contains(dump, op.ClientSecret) || !strings.Contains(dump, "v1:") {
			t.Fatalf("sso_providers row holds the client secret in plaintext (or not encrypted): %s", dump)
		}
		list := wantCode(t, e.call("GET", "/v1/workspace/identity-providers", nil, &adm), 200, "")
		if ps, _ := list["identity_providers"].([]any); len(ps) != 1 {
			t.Fatalf("identity providers %v", list)
		}
		// Until the workspace proves it owns acme.test, the domain routes no sign-in.
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@acme.test", nil, nil), 404, "sso_provider_not_found")
		wantCode(t, e.call("GET", "/api/sso/start?email=bob@acme.test", nil, nil), 404, "sso_provider_not_found")
		e.verifyDomains(&adm)

		// find-sso-provider answers by domain, case-insensitively; anything else is refused.
		found := wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=Bob@ACME.test", nil, nil), 200, "")
		if found["provider_type"] != "oidc" || found["workspace_id"] != ws.ID || found["provider_id"] != created["provider_id"] {
			t.Fatalf("find-sso-provider %v", found)
		}
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@other.test", nil, nil), 404, "sso_provider_not_found")
		wantInvalid(t, e.call("GET", "/v1/workspace/find-sso-provider", nil, nil), "email")
		wantInvalid(t, e.call("GET", "/v1/workspace/find-sso-provider?email=not-an-email", nil, nil), "email")
		wantCode(t, e.call("GET", "/api/sso/start?email=bob@other.test", nil, nil), 404, "sso_provider_not_found")

		// Auto-provisioning off: a new email is refused and nothing is created.
		op.Set(func(op *ssotest.Provider) { op.Email = "new@acme.test" })
		b := e.browser()
		wantAppRedirect(t, e.oidcSignIn(b, "new@acme.test"), "/app/sso", map[string]string{"error": "sso_no_account"})
		if _, err := db.UserByEmail(ctx, "new@acme.test"); err != store.ErrNotFound {
			t.Fatalf("user created with auto-provisioning off: %v", err)
		}
		if code, _ := e.whoami(b); code != http.StatusUnauthorized {
			t.Fatalf("refused sign-in left a session: %d", code)
		}

		// The admin turns auto-provisioning on: who and when are recorded.
		st := wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, &adm), 200, "")
		ap := st["user_auto_provisioning"].(map[string]any)
		if ap["enabled"] != true || ap["enabled_by_user_email"] != "admin@acme.test" || ap["enabled_at_unix"] == nil {
			t.Fatalf("auto-provisioning %v", ap)
		}
		wantInvalid(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{}, &adm), "user_auto_provisioning_enabled")

		// Now the same sign-in provisions an editor in the workspace and opens a session there.
		b = e.browser()
		wantAppRedirect(t, e.oidcSignIn(b, "new@acme.test"), sso.DefaultRedirect, nil)
		code, who := e.whoami(b)
		if code != 200 || who["workspace_id"] != ws.ID || who["role"] != "editor" {
			t.Fatalf("after SSO sign-in whoami = %d %v", code, who)
		}
		nu, err := db.UserByEmail(ctx, "new@acme.test")
		if err != nil || !nu.EmailVerified || nu.WorkspaceID != ws.ID || who["user_id"] != nu.ID || nu.FirstName != "Test" {
			t.Fatalf("provisioned user %+v, %v", nu, err)
		}
		if op.PKCEFailures() != 0 {
			t.Fatalf("PKCE failed %d times", op.PKCEFailures())
		}

		// An existing member signs in without provisioning, and the redirect parameter is kept
		// when it is a plain app path.
		op.Set(func(op *ssotest.Provider) { op.Email = "admin@acme.test" })
		b = e.browser()
		res := e.get(b, e.srv.URL+"/api/sso/start?email=admin@acme.test&redirect="+url.QueryEscape("/app/voice-lab"))
		wantAppRedirect(t, res, "/app/voice-lab", nil)
		if code, who := e.whoami(b); code != 200 || who["user_id"] != admin.ID || who["role"] != "admin" {
			t.Fatalf("admin via SSO: %d %v", code, who)
		}
		b = e.browser()
		res = e.get(b, e.srv.URL+"/api/sso/start?email=admin@acme.test&redirect="+url.QueryEscape("//evil.example/app/x"))
		wantAppRedirect(t, res, sso.DefaultRedirect, nil)

		// An existing account of the domain that is not a member is not taken over.
		outsider, _ := e.user("outsider@acme.test")
		op.Set(func(op *ssotest.Provider) { op.Email = "outsider@acme.test" })
		b = e.browser()
		wantAppRedirect(t, e.oidcSignIn(b, "outsider@acme.test"), "/app/sso", map[string]string{"error": "sso_not_member"})
		if _, err := db.Role(ctx, ws.ID, outsider.ID); err != store.ErrNotFound {
			t.Fatalf("outsider became a member: %v", err)
		}

		// The provider vouching for an email outside its domains is refused.
		op.Set(func(op *ssotest.Provider) { op.Email = "eve@evil.test" })
		b = e.browser()
		wantAppRedirect(t, e.oidcSignIn(b, "someone@acme.test"), "/app/sso", map[string]string{"error": "sso_domain_mismatch"})
		op.Set(func(op *ssotest.Provider) { op.Email = "unverified@acme.test"; op.EmailVerified = false })
		b = e.browser()
		wantAppRedirect(t, e.oidcSignIn(b, "unverified@acme.test"), "/app/sso", map[string]string{"error": "sso_email_missing"})
		// A missing email_verified claim counts as unverified.
		op.Set(func(op *ssotest.Provider) {
			op.Email = "unverified@acme.test"
			op.EmailVerified = true
			op.NoEmailVerified = true
		})
		wantAppRedirect(t, e.oidcSignIn(b, "unverified@acme.test"), "/app/sso", map[string]string{"error": "sso_email_missing"})
		op.Set(func(op *ssotest.Provider) {
			op.Email = "new@acme.test"
			op.EmailVerified = true
			op.NoEmailVerified = false
		})

		// Tampered ID tokens: wrong nonce, foreign signature, other audience, other issuer, expired.
		for name, knob := range map[string]func(*ssotest.Provider){
			"nonce":     func(op *ssotest.Provider) { op.BadNonce = true },
			"signature": func(op *ssotest.Provider) { op.WrongKey = true },
			"audience":  func(op *ssotest.Provider) { op.Audience = "someone-else" },
			"issuer":    func(op *ssotest.Provider) { op.Issuer = "https://evil.example" },
			"expired":   func(op *ssotest.Provider) { op.Expired = true },
		} {
			op.Set(knob)
			b = e.browser()
			res := e.oidcSignIn(b, "new@acme.test")
			op.Set(func(op *ssotest.Provider) {
				op.BadNonce, op.WrongKey, op.Audience, op.Issuer, op.Expired = false, false, "", "", false
			})
			wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_response_invalid"})
			if code, _ := e.whoami(b); code != http.StatusUnauthorized {
				t.Fatalf("%s: tampered token opened a session", name)
			}
		}

		// Tampered state: a callback whose state differs from the browser's, a replayed callback,
		// and a callback in a browser that never started the flow.
		b = e.browser()
		cb := e.oidcCallbackURL(b, "new@acme.test")
		forged := *cb
		q := forged.Query()
		q.Set("state", q.Get("state")+"x")
		forged.RawQuery = q.Encode()
		wantAppRedirect(t, e.get(e.browser(), cb.String()), "/app/sso", map[string]string{"error": "sso_state_invalid"}) // other browser
		wantAppRedirect(t, e.get(b, forged.String()), "/app/sso", map[string]string{"error": "sso_state_invalid"})
		b = e.browser()
		cb = e.oidcCallbackURL(b, "new@acme.test")
		jar := b.Jar
		res = e.get(b, cb.String())
		wantAppRedirect(t, res, sso.DefaultRedirect, nil)
		// The session cookies are set as sign-in sets them (spec §9) and the flow cookie cleared.
		seen := map[string]*http.Cookie{}
		for _, c := range res.Cookies() {
			seen[c.Name] = c
		}
		for _, name := range []string{auth.SessionCookie, auth.CSRFCookie} {
			c := seen[name]
			if c == nil || c.Value == "" || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.MaxAge != 360*24*3600 || c.Path != "/" {
				t.Fatalf("cookie %s = %+v", name, c)
			}
		}
		if !seen[auth.SessionCookie].HttpOnly || seen[auth.CSRFCookie].HttpOnly {
			t.Fatal("session cookie must be HttpOnly and the CSRF cookie readable")
		}
		if c := seen[sso.FlowCookie]; c == nil || c.MaxAge >= 0 {
			t.Fatalf("flow cookie not cleared: %+v", c)
		}
		b2 := e.browser()
		b2.Jar = jar
		// The flow cookie was cleared; put it back to prove the state itself is single-use.
		u, _ := url.Parse(e.srv.URL + "/api/sso/")
		b2.Jar.SetCookies(u, []*http.Cookie{{Name: sso.FlowCookie, Value: cb.Query().Get("state"), Path: "/api/sso/", Secure: true}})
		wantAppRedirect(t, e.get(b2, cb.String()), "/app/sso", map[string]string{"error": "sso_state_invalid"})

		// Disabled provider: not found for sign-in.
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+created["provider_id"].(string), map[string]any{"enabled": false}, &adm), 200, "")
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@acme.test", nil, nil), 404, "sso_provider_not_found")

		// Audit: the configuration changes, the sign-ins and the refusals.
		for _, a := range []struct{ class, act string }{{"sso", "create"}, {"sso", "update"}, {"sso", "sign_in"}, {"sso", "sign_in_failed"}, {"member", "user_provisioned"}} {
			if auditCount(t, db, ws.ID, a.class, a.act) == 0 {
				t.Errorf("no audit entry %s/%s", a.class, a.act)
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM sso_flows WHERE used = ?`, false); n != 0 {
			t.Logf("%d unused flows left (abandoned starts)", n)
		}
		t.Logf("OIDC: token calls %d, PKCE failures %d, sign-ins audited %d, refusals audited %d", op.TokenCalls(), op.PKCEFailures(),
			auditCount(t, db, ws.ID, "sso", "sign_in"), auditCount(t, db, ws.ID, "sso", "sign_in_failed"))
	})
}
