package sso_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"timbre/internal/auth"
	"timbre/internal/sso"
	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// domainsOf returns the workspace's domain list by domain name.
func (e *env) domainsOf(s *session) map[string]map[string]any {
	e.t.Helper()
	list := wantCode(e.t, e.call("GET", "/api/workspace/sso/domains", nil, s), http.StatusOK, "")
	out := map[string]map[string]any{}
	for _, x := range list["domains"].([]any) {
		d := x.(map[string]any)
		out[d["domain"].(string)] = d
	}
	return out
}

func txtOf(d map[string]any) (name, value string) {
	rec := d["txt_record"].(map[string]any)
	if rec["type"] != "TXT" {
		panic("record type " + rec["type"].(string))
	}
	return rec["name"].(string), rec["value"].(string)
}

// wantVerifyError checks a refused verification: status, code, and a message that tells the
// admin which record to publish.
func wantVerifyError(t *testing.T, r resp, status int, code, name, value string) string {
	t.Helper()
	m := wantCode(t, r, status, code)
	msg := m["detail"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, name) || !strings.Contains(msg, value) {
		t.Fatalf("%s message does not name the record %s = %s: %q", code, name, value, msg)
	}
	return msg
}

func TestDomainVerification(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		adminA, wsA := e.user("admin@acme.test")
		adminB, wsB := e.user("admin@b.test")
		sa, sb := e.session(adminA, wsA.ID), e.session(adminB, wsB.ID)

		created := wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "Acme", "domains": []string{"acme.test", "acme-corp.test"},
			"issuer": "https://idp.acme.test", "client_id": "c", "client_secret": "s"}, &sa), http.StatusCreated, "")
		if vd := created["verified_domains"].([]any); len(vd) != 0 {
			t.Fatalf("new domains verified: %v", vd)
		}
		ds := e.domainsOf(&sa)
		if len(ds) != 2 {
			t.Fatalf("domains %v", ds)
		}
		d := ds["acme.test"]
		name, value := txtOf(d)
		if d["status"] != "pending" || d["verified"] != false || d["verified_at_unix"] != nil || d["provider_name"] != "Acme" ||
			name != "_timbre-challenge.acme.test" || !strings.HasPrefix(value, "timbre-domain-verification=") || len(value) != len("timbre-domain-verification=")+32 {
			t.Fatalf("pending domain %v", d)
		}
		if _, other := txtOf(ds["acme-corp.test"]); other == value {
			t.Fatal("two claims share a token")
		}
		// A pending domain routes nothing.
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@acme.test", nil, nil), 404, "sso_provider_not_found")

		// Bad domains → 422 naming the path's domain; a domain the workspace never added → 404.
		for _, bad := range []string{"not_a_domain", "localhost", "a..b.test", "-x.test"} {
			wantInvalid(t, e.call("POST", "/api/workspace/sso/domains/"+bad+"/verify", nil, &sa), "domain")
		}
		wantCode(t, e.call("POST", "/api/workspace/sso/domains/other.test/verify", nil, &sa), 404, "sso_domain_not_found")
		// B cannot verify A's claim (it is not B's), even with the record published.
		e.dns.SetTXT(name, value)
		wantCode(t, e.call("POST", "/api/workspace/sso/domains/acme.test/verify", nil, &sb), 404, "sso_domain_not_found")
		e.dns.Remove(name)

		verify := func() resp { return e.call("POST", "/api/workspace/sso/domains/ACME.test/verify", nil, &sa) }
		// No record at all (NXDOMAIN), and the name with no TXT record (NODATA).
		wantVerifyError(t, verify(), http.StatusConflict, "sso_domain_txt_missing", name, value)
		e.dns.SetTXT(name)
		wantVerifyError(t, verify(), http.StatusConflict, "sso_domain_txt_missing", name, value)
		// Another value: the message shows what DNS holds.
		e.dns.SetTXT(name, "timbre-domain-verification=someone-elses-token", "v=spf1 -all")
		if msg := wantVerifyError(t, verify(), http.StatusConflict, "sso_domain_txt_mismatch", name, value); !strings.Contains(msg, "someone-elses-token") {
			t.Fatalf("mismatch message does not show the found value: %q", msg)
		}
		// DNS failing is not the admin's record: told apart.
		e.dns.Fail(name, dnsmessage.RCodeServerFailure)
		if msg := wantVerifyError(t, verify(), http.StatusBadGateway, "sso_domain_dns_error", name, value); !strings.Contains(msg, "DNS problem") {
			t.Fatalf("DNS failure message %q", msg)
		}
		e.dns.Fail(name, dnsmessage.RCodeRefused)
		wantVerifyError(t, verify(), http.StatusBadGateway, "sso_domain_dns_error", name, value)
		if d := e.domainsOf(&sa)["acme.test"]; d["status"] != "pending" {
			t.Fatalf("failed verifications changed the claim: %v", d)
		}
		if n := auditCount(t, db, wsA.ID, "sso", "domain_verification_failed"); n != 5 {
			t.Fatalf("%d failed verifications audited, want 5", n)
		}

		// B's pending claim on the same domain does not block A; the record holds both tokens
		// (and a long unrelated value, split in 255-byte strings).
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "B", "domains": []string{"acme.test"},
			"issuer": "https://idp.b.test", "client_id": "c", "client_secret": "s"}, &sb), http.StatusCreated, "")
		_, valueB := txtOf(e.domainsOf(&sb)["acme.test"])
		e.dns.SetTXT(name, valueB, strings.Repeat("x", 600), value)
		got := wantCode(t, verify(), http.StatusOK, "")
		if got["status"] != "verified" || got["verified"] != true || got["verified_by_user_email"] != "admin@acme.test" || got["domain"] != "acme.test" {
			t.Fatalf("verified %v", got)
		}
		if at, _ := got["verified_at_unix"].(float64); at < float64(time.Now().Add(-time.Minute).Unix()) {
			t.Fatalf("verified_at_unix %v", got["verified_at_unix"])
		}
		if n := auditCount(t, db, wsA.ID, "sso", "domain_verified"); n != 1 {
			t.Fatalf("%d domain_verified audit entries", n)
		}
		// Verifying again answers the same and records nothing new.
		again := wantCode(t, verify(), http.StatusOK, "")
		if again["verified_at_unix"] != got["verified_at_unix"] || auditCount(t, db, wsA.ID, "sso", "domain_verified") != 1 {
			t.Fatalf("second verify %v", again)
		}
		// B's claim cannot be verified now, whatever DNS says.
		wantCode(t, e.call("POST", "/api/workspace/sso/domains/acme.test/verify", nil, &sb), http.StatusConflict, "sso_domain_taken")
		if d := e.domainsOf(&sb)["acme.test"]; d["status"] != "pending" {
			t.Fatalf("B's claim %v", d)
		}

		// The verified domain routes sign-ins to A; the pending one still does not.
		found := wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@acme.test", nil, nil), 200, "")
		if found["workspace_id"] != wsA.ID {
			t.Fatalf("find-sso-provider %v", found)
		}
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=bob@acme-corp.test", nil, nil), 404, "sso_provider_not_found")
		p := wantCode(t, e.call("GET", "/api/workspace/sso/providers/"+created["provider_id"].(string), nil, &sa), 200, "")
		if vd := p["verified_domains"].([]any); len(vd) != 1 || vd[0] != "acme.test" {
			t.Fatalf("verified_domains %v", p["verified_domains"])
		}
		// Editing the provider keeps the proof of the domains it keeps.
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+created["provider_id"].(string), map[string]any{"domains": []string{"acme.test", "new.test"}}, &sa), 200, "")
		ds = e.domainsOf(&sa)
		if ds["acme.test"]["status"] != "verified" || ds["new.test"]["status"] != "pending" || ds["acme-corp.test"] != nil {
			t.Fatalf("after edit %v", ds)
		}
		// Another workspace cannot even claim the verified domain now.
		adminC, wsC := e.user("admin@c.test")
		sc := e.session(adminC, wsC.ID)
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "C", "domains": []string{"acme.test"},
			"issuer": "https://idp.c.test", "client_id": "c", "client_secret": "s"}, &sc), http.StatusConflict, "sso_domain_taken")
	})
}

// TestUnverifiedDomainNoSignIn: an IdP vouching for an email of a domain the workspace has only
// claimed (not verified) does not sign anyone in or provision an account.
func TestUnverifiedDomainNoSignIn(t *testing.T) {
	db := testdb.SQLite(t)
	e := newEnv(t, db)
	op := ssotest.New(t, ssotest.Options{Email: "new@pending.test"})
	admin, ws := e.user("admin@ok.test")
	adm := e.session(admin, ws.ID)
	wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "IdP", "domains": []string{"ok.test"},
		"issuer": op.URL, "client_id": op.ClientID, "client_secret": op.ClientSecret}, &adm), http.StatusCreated, "")
	e.verifyDomains(&adm)
	wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+e.providerID(&adm), map[string]any{"domains": []string{"ok.test", "pending.test"}}, &adm), 200, "")
	wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, &adm), 200, "")

	wantCode(t, e.call("GET", "/api/sso/start?email=new@pending.test", nil, nil), 404, "sso_provider_not_found")
	b := e.browser()
	wantAppRedirect(t, e.oidcSignIn(b, "someone@ok.test"), "/app/sso", map[string]string{"error": "sso_domain_mismatch"})
	if _, err := db.UserByEmail(context.Background(), "new@pending.test"); err != store.ErrNotFound {
		t.Fatalf("user provisioned for an unverified domain: %v", err)
	}
	// Once verified, the same sign-in provisions.
	e.verifyDomains(&adm)
	b = e.browser()
	wantAppRedirect(t, e.oidcSignIn(b, "new@pending.test"), sso.DefaultRedirect, nil)
}

func (e *env) providerID(s *session) string {
	e.t.Helper()
	l := wantCode(e.t, e.call("GET", "/v1/workspace/identity-providers", nil, s), 200, "")
	return l["identity_providers"].([]any)[0].(map[string]any)["provider_id"].(string)
}

// TestSSORequired: with SSO required, the emails of the workspace's verified domains cannot use a
// password: sign-in, reset mails and sign-up are refused with 403 sso_required and create
// nothing; other domains, pending domains and disabled providers are unaffected.
func TestSSORequired(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		const pw = "correct horse battery"
		mk := func(email string) *store.User {
			u, _, err := db.CreateUserWithWorkspace(ctx, email, auth.HashPassword(pw), true, "free", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		admin := mk("admin@acme.test")
		alice := mk("alice@acme.test")
		mk("carol@other.test")
		mk("pat@pending.test")
		adm := e.session(admin, admin.WorkspaceID)
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "Acme", "domains": []string{"acme.test"},
			"issuer": "https://idp.acme.test", "client_id": "c", "client_secret": "s"}, &adm), http.StatusCreated, "")
		e.verifyDomains(&adm)
		pid := e.providerID(&adm)
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+pid, map[string]any{"domains": []string{"acme.test", "pending.test"}}, &adm), 200, "")

		signIn := func(email string) resp {
			return e.call("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": pw}, nil)
		}
		reset := func(email string) resp {
			return e.call("POST", "/api/auth/send-password-reset-email", map[string]any{"email": email}, nil)
		}
		mails := func(to string) int { return count(t, db, `SELECT COUNT(*) FROM mail_outbox WHERE recipient = ?`, to) }
		sessions := func(u *store.User) int { return count(t, db, `SELECT COUNT(*) FROM sessions WHERE user_id = ?`, u.ID) }

		// Off by default: passwords work.
		s := wantCode(t, e.call("GET", "/api/workspace/sso/settings", nil, &adm), 200, "")
		if s["sso_required"] != false {
			t.Fatalf("settings %v", s)
		}
		wantCode(t, signIn("alice@acme.test"), 200, "")

		// Bad settings input → 422 naming the field, nothing changed.
		wantInvalid(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{}, &adm), "user_auto_provisioning_enabled")
		wantInvalid(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"sso_required": "yes"}, &adm), "sso_required")
		s = wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"sso_required": true}, &adm), 200, "")
		if s["sso_required"] != true || s["user_auto_provisioning"].(map[string]any)["enabled"] != false {
			t.Fatalf("settings after PATCH %v", s)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM audit_log WHERE workspace_id = ? AND class_name = 'sso' AND activity_name = 'update' AND details LIKE ?`, admin.WorkspaceID, "%sso_required%"); n != 1 {
			t.Fatalf("%d audit entries for sso_required", n)
		}

		// Turning it on ended the password sessions of the domain's users (alice signed in above).
		if n := sessions(alice); n != 0 {
			t.Fatalf("alice kept %d password sessions after SSO became required", n)
		}
		before := sessions(alice)
		for _, email := range []string{"alice@acme.test", "ALICE@Acme.test ", "nobody@acme.test"} {
			m := wantCode(t, signIn(email), http.StatusForbidden, "sso_required")
			if msg := m["detail"].(map[string]any)["message"].(string); !strings.Contains(msg, "SSO") {
				t.Fatalf("message %q does not say to use SSO", msg)
			}
		}
		if sessions(alice) != before {
			t.Fatal("a refused sign-in opened a session")
		}
		wantCode(t, reset("alice@acme.test"), http.StatusForbidden, "sso_required")
		if mails("alice@acme.test") != 0 || count(t, db, `SELECT COUNT(*) FROM action_codes WHERE user_id = ?`, alice.ID) != 0 {
			t.Fatal("a reset mail or code was made for an SSO-only email")
		}
		wantCode(t, e.call("POST", "/api/auth/sign-up", map[string]any{"email": "newbie@acme.test", "password": pw, "terms_accepted": true}, nil), http.StatusForbidden, "sso_required")
		if _, err := db.UserByEmail(ctx, "newbie@acme.test"); err != store.ErrNotFound {
			t.Fatalf("sign-up created a user: %v", err)
		}
		if mails("newbie@acme.test") != 0 {
			t.Fatal("sign-up mailed an SSO-only email")
		}
		// SSO itself still works for them.
		wantCode(t, e.call("GET", "/v1/workspace/find-sso-provider?email=alice@acme.test", nil, nil), 200, "")

		// Other domains, and the pending claim, are unaffected.
		wantCode(t, signIn("carol@other.test"), 200, "")
		wantCode(t, signIn("pat@pending.test"), 200, "")
		wantCode(t, reset("carol@other.test"), 200, "")
		if mails("carol@other.test") != 1 {
			t.Fatal("carol's reset mail missing")
		}
		wantCode(t, e.call("POST", "/api/auth/sign-up", map[string]any{"email": "dan@other.test", "password": pw, "terms_accepted": true}, nil), http.StatusCreated, "")

		// Sessions opened with a password before, even the admin's, ended; one opened with a
		// password any other way is refused in the workspace; an SSO session of the workspace
		// carries on.
		wantCode(t, e.call("GET", "/api/workspace/sso/settings", nil, &adm), http.StatusUnauthorized, "")
		adm = e.session(admin, admin.WorkspaceID)
		wantCode(t, e.call("GET", "/api/workspace/sso/settings", nil, &adm), http.StatusForbidden, "sso_required")
		adm = e.ssoSession(admin, admin.WorkspaceID)
		wantCode(t, e.call("GET", "/api/workspace/sso/settings", nil, &adm), 200, "")
		// A member cannot move their email off the domain (to reset a password elsewhere and come back).
		al := e.session(alice, alice.WorkspaceID)
		wantCode(t, e.call("POST", "/v1/user/send-email-change-verification", map[string]any{"email": "alice@elsewhere.test"}, &al), http.StatusForbidden, "sso_required")

		// A disabled provider, or the setting off, gives passwords back.
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+pid, map[string]any{"enabled": false}, &adm), 200, "")
		wantCode(t, signIn("alice@acme.test"), 200, "")
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+pid, map[string]any{"enabled": true}, &adm), 200, "")
		wantCode(t, signIn("alice@acme.test"), http.StatusForbidden, "sso_required")
		wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"sso_required": false}, &adm), 200, "")
		wantCode(t, signIn("alice@acme.test"), 200, "")
	})
}
