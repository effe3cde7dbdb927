package sso_test

import (
	"net/http"
	"testing"

	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestProviderAdminRoutes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		adminA, wsA := e.user("admin@a.test")
		adminB, wsB := e.user("admin@b.test")
		editor, _ := e.user("editor@a.test")
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)`, wsA.ID, editor.ID, "editor")
		sa, sb, se := e.session(adminA, wsA.ID), e.session(adminB, wsB.ID), e.session(editor, wsA.ID)

		good := map[string]any{"type": "oidc", "name": "A IdP", "domains": []string{"a.test", "a-corp.test"}, "issuer": "https://idp.a.test",
			"client_id": "cid", "client_secret": "shh-very-secret"}
		p := wantCode(t, e.call("POST", "/api/workspace/sso/providers", good, &sa), http.StatusCreated, "")
		id := p["provider_id"].(string)
		e.verifyDomains(&sa)
		snapshot := rawDump(t, db, "sso_providers") + rawDump(t, db, "sso_domains")

		// Bad input → 422 naming the field, nothing stored.
		bad := []struct {
			field string
			body  map[string]any
		}{
			{"type", map[string]any{"name": "x", "domains": []string{"x.test"}}},
			{"type", map[string]any{"type": "ldap", "name": "x", "domains": []string{"x.test"}}},
			{"name", map[string]any{"type": "oidc", "domains": []string{"x.test"}, "issuer": "https://i.x", "client_id": "c", "client_secret": "s"}},
			{"domains", map[string]any{"type": "oidc", "name": "x", "issuer": "https://i.x", "client_id": "c", "client_secret": "s"}},
			{"domains", map[string]any{"type": "oidc", "name": "x", "domains": []string{"not a domain"}, "issuer": "https://i.x", "client_id": "c", "client_secret": "s"}},
			{"issuer", map[string]any{"type": "oidc", "name": "x", "domains": []string{"x.test"}, "issuer": "ftp://i.x", "client_id": "c", "client_secret": "s"}},
			{"client_id", map[string]any{"type": "oidc", "name": "x", "domains": []string{"x.test"}, "issuer": "https://i.x", "client_secret": "s"}},
			{"client_secret", map[string]any{"type": "oidc", "name": "x", "domains": []string{"x.test"}, "issuer": "https://i.x", "client_id": "c"}},
			{"sso_url", map[string]any{"type": "oidc", "name": "x", "domains": []string{"x.test"}, "issuer": "https://i.x", "client_id": "c", "client_secret": "s", "sso_url": "https://x"}},
			{"certificate", map[string]any{"type": "saml", "name": "x", "domains": []string{"x.test"}, "identity_provider_entity_id": "e", "sso_url": "https://i.x/sso", "certificate": "garbage"}},
			{"identity_provider_entity_id", map[string]any{"type": "saml", "name": "x", "domains": []string{"x.test"}, "sso_url": "https://i.x/sso", "certificate": "garbage"}},
			{"name", map[string]any{"type": 5}},
		}
		for _, c := range bad {
			r := e.call("POST", "/api/workspace/sso/providers", c.body, &sa)
			if c.field == "name" && c.body["type"] == 5 {
				wantInvalid(t, r, "type")
				continue
			}
			wantInvalid(t, r, c.field)
		}
		wantInvalid(t, e.call("PATCH", "/api/workspace/sso/providers/"+id, map[string]any{"type": "saml"}, &sa), "type")
		wantInvalid(t, e.call("PATCH", "/api/workspace/sso/providers/"+id, map[string]any{"domains": []string{}}, &sa), "domains")
		// Another workspace cannot claim a domain this one has verified.
		taken := map[string]any{"type": "oidc", "name": "B", "domains": []string{"A.test"}, "issuer": "https://idp.b.test", "client_id": "c", "client_secret": "s"}
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", taken, &sb), http.StatusConflict, "sso_domain_taken")

		// Workspace B's admin sees none of A's provider and cannot touch it.
		wantCode(t, e.call("GET", "/api/workspace/sso/providers/"+id, nil, &sb), 404, "sso_provider_not_found")
		wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+id, map[string]any{"name": "pwned"}, &sb), 404, "sso_provider_not_found")
		wantCode(t, e.call("DELETE", "/api/workspace/sso/providers/"+id, nil, &sb), 404, "sso_provider_not_found")
		if l := wantCode(t, e.call("GET", "/v1/workspace/identity-providers", nil, &sb), 200, ""); len(l["identity_providers"].([]any)) != 0 {
			t.Fatalf("B lists A's providers: %v", l)
		}
		// An editor of A is refused every admin route.
		for _, c := range []struct{ m, p string }{{"GET", "/v1/workspace/identity-providers"}, {"POST", "/api/workspace/sso/providers"},
			{"GET", "/api/workspace/sso/providers/" + id}, {"PATCH", "/api/workspace/sso/providers/" + id}, {"DELETE", "/api/workspace/sso/providers/" + id},
			{"GET", "/api/workspace/sso/settings"}, {"PATCH", "/api/workspace/sso/settings"},
			{"GET", "/api/workspace/sso/domains"}, {"POST", "/api/workspace/sso/domains/a.test/verify"}} {
			wantCode(t, e.call(c.m, c.p, map[string]any{"name": "x", "user_auto_provisioning_enabled": true, "sso_required": true}, &se), http.StatusForbidden, "forbidden")
		}
		// Anonymous callers and a missing CSRF token are refused too.
		wantCode(t, e.call("GET", "/v1/workspace/identity-providers", nil, nil), 401, "")
		noCSRF := session{sa.token, "wrong"}
		wantCode(t, e.call("DELETE", "/api/workspace/sso/providers/"+id, nil, &noCSRF), 403, "csrf_failed")
		if now := rawDump(t, db, "sso_providers") + rawDump(t, db, "sso_domains"); now != snapshot {
			t.Fatalf("refused requests changed the providers:\nbefore %s\nafter  %s", snapshot, now)
		}
		ap, _ := db.SSOAutoProvisioning(t.Context(), wsA.ID)
		if ap.Enabled {
			t.Fatal("editor turned auto-provisioning on")
		}
		if on, _ := db.SSORequired(t.Context(), wsA.ID); on {
			t.Fatal("editor turned SSO required on")
		}

		// The admin edits (keeping the secret unless sent), reads and deletes.
		up := wantCode(t, e.call("PATCH", "/api/workspace/sso/providers/"+id, map[string]any{"name": "Renamed", "domains": []string{"a.test"}}, &sa), 200, "")
		if up["name"] != "Renamed" || up["has_client_secret"] != true || len(up["domains"].([]any)) != 1 {
			t.Fatalf("updated %v", up)
		}
		got := wantCode(t, e.call("GET", "/api/workspace/sso/providers/"+id, nil, &sa), 200, "")
		if got["name"] != "Renamed" {
			t.Fatalf("get %v", got)
		}
		// The freed domain can now be claimed by B.
		taken["domains"] = []string{"a-corp.test"}
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", taken, &sb), http.StatusCreated, "")
		wantCode(t, e.call("DELETE", "/api/workspace/sso/providers/"+id, nil, &sa), 200, "")
		wantCode(t, e.call("GET", "/api/workspace/sso/providers/"+id, nil, &sa), 404, "sso_provider_not_found")
		if n := count(t, db, `SELECT COUNT(*) FROM sso_domains WHERE workspace_id = ?`, wsA.ID); n != 0 {
			t.Fatalf("%d domains left after delete", n)
		}
		for _, act := range []string{"create", "update", "delete"} {
			if auditCount(t, db, wsA.ID, "sso", act) != 1 {
				t.Errorf("audit sso/%s: want 1 entry", act)
			}
		}
		if auditCount(t, db, wsB.ID, "sso", "update") != 0 {
			t.Error("B's refused changes were audited as updates")
		}
	})
}

// An admin-chosen issuer must not make the server fetch its own network: without an operator's
// client, discovery of a loopback issuer is refused at dial time.
func TestIssuerFetchGuard(t *testing.T) {
	db := testdb.SQLite(t)
	e := newEnv(t, db)
	e.svc.HTTPClient = nil // the default, guarded client
	op := ssotest.New(t, ssotest.Options{})
	admin, ws := e.user("admin@guard.test")
	s := e.session(admin, ws.ID)
	wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "G", "domains": []string{"guard.test"},
		"issuer": op.URL, "client_id": op.ClientID, "client_secret": op.ClientSecret}, &s), http.StatusCreated, "")
	e.verifyDomains(&s)
	wantCode(t, e.call("GET", "/api/sso/start?email=x@guard.test", nil, nil), http.StatusBadGateway, "sso_misconfigured")
	if n := count(t, db, `SELECT COUNT(*) FROM sso_flows`); n != 0 {
		t.Fatalf("%d flows recorded for a refused start", n)
	}
	// And without AllowInsecureIdP an http issuer is refused at configuration time.
	e.svc.AllowInsecureIdP = false
	wantInvalid(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "oidc", "name": "H", "domains": []string{"h.test"},
		"issuer": "http://idp.h.test", "client_id": "c", "client_secret": "s"}, &s), "issuer")
}
