package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"timbre/internal/app"
	"timbre/internal/netguard"
	"timbre/internal/sso"
	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
)

// The workspace flows of issue 3 in headless Chromium (flow.mjs is their shared harness): invite
// a member by email and see their role limit what they see (invite.mjs), enrol TOTP and sign in
// with a code (totp.mjs), and sign in through an OIDC provider (sso.mjs). Each saves its last
// screen under e2e/screenshots/ (failure-<flow>.png when a step fails).

const (
	flowPassword = "Marble-Fjord-Tangent-19"
	// scaleTier has 3 seats (spec §6): the admin plus an invitee or a provisioned user.
	scaleTier = "growing_business"
)

// browserFlow holds what a Chromium flow needs, or skips the test (fails with CI=true).
type browserFlow struct {
	node, chromium, shots string
}

func requireBrowser(t *testing.T) browserFlow {
	t.Helper()
	node := requireNode(t, "playwright-core")
	chromium := os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		msg := "no Chromium at " + chromium + " (apt-get install chromium, or set CHROMIUM_PATH)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: not skipping)")
		}
		t.Skip("skipping: " + msg)
	}
	shots, err := filepath.Abs("screenshots")
	if err != nil {
		t.Fatal(err)
	}
	return browserFlow{node: node, chromium: chromium, shots: shots}
}

func (b browserFlow) run(t *testing.T, srv *Timbre, script string, env ...string) {
	t.Helper()
	start := time.Now()
	runNode(t, b.node, 60*time.Second, script, append([]string{
		"TIMBRE_BASE_URL=" + srv.URL,
		"CHROMIUM_PATH=" + b.chromium,
		"TIMBRE_SCREENSHOTS=" + b.shots,
	}, env...)...)
	t.Logf("%s: %s", script, time.Since(start).Round(time.Millisecond))
}

// verifiedUser makes a verified account with its own workspace, as `timbre admin create-user`
// does, optionally on a tier.
func verifiedUser(t *testing.T, srv *Timbre, email, tier string) *store.User {
	t.Helper()
	ctx := context.Background()
	u, err := srv.App.Auth.CreateVerifiedUser(ctx, email, flowPassword)
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	if tier != "" {
		if err := srv.App.DB.SetTier(ctx, u.WorkspaceID, tier); err != nil {
			t.Fatalf("set tier: %v", err)
		}
	}
	return u
}

// TestBrowserInviteAndRoles: an admin invites an editor by email; the invitee accepts through
// the mailbox link and, as an editor, sees no admin controls and is refused admin calls.
func TestBrowserInviteAndRoles(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	admin := verifiedUser(t, srv, "ada@acme.test", scaleTier)
	invitee := verifiedUser(t, srv, "ed@example.com", "")
	b.run(t, srv, "invite.mjs",
		"ADMIN_EMAIL="+admin.Email, "ADMIN_PASSWORD="+flowPassword,
		"INVITEE_EMAIL="+invitee.Email, "INVITEE_PASSWORD="+flowPassword)

	// What the browser did is what the database holds: an editor membership, the invite gone.
	ctx := context.Background()
	role, err := srv.App.DB.Role(ctx, admin.WorkspaceID, invitee.ID)
	if err != nil || role != "editor" {
		t.Fatalf("invitee's role in the admin's workspace: %q, %v", role, err)
	}
	if invites, err := srv.App.DB.ListInvites(ctx, admin.WorkspaceID, time.Now()); err != nil || len(invites) != 0 {
		t.Fatalf("pending invites after the accept: %+v, %v", invites, err)
	}
}

// TestBrowserTOTP: enrol TOTP from the security settings, sign out, sign in with a code.
func TestBrowserTOTP(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "tess@example.com", "")
	b.run(t, srv, "totp.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)

	m, err := srv.App.DB.UserMFA(context.Background(), u.ID)
	if err != nil || !m.Enabled || m.LastStep == 0 {
		t.Fatalf("MFA after the flow: %+v, %v", m, err)
	}
}

// TestBrowserSSO: a workspace admin configures an OIDC provider through the API with
// auto-provisioning on; a new person signs in through /app/sso and the provider's page and
// lands in that workspace. The provider runs on http://localhost (another site than Timbre on
// 127.0.0.1, as a real IdP is); Timbre's guard lets the SSO service reach loopback only here.
func TestBrowserSSO(t *testing.T) {
	b := requireBrowser(t)
	const email = "sam@sso-acme.test"
	op := ssotest.New(t, ssotest.Options{Hostname: "localhost", Interactive: true, Email: email})
	dns := ssotest.NewDNS(t) // the DNS that domain verification asks
	srv := StartTimbre(t, func(o *app.Options) {
		o.SSO = func(s *sso.Service) {
			s.Resolver = sso.NewResolver(dns.Addr)
			s.AllowInsecureIdP = true
			s.Guard = &netguard.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}}
		}
	})
	admin := verifiedUser(t, srv, "ada@sso-acme.test", scaleTier)
	_, key, err := srv.App.Auth.CreateAPIKey(context.Background(), admin.ID, admin.WorkspaceID, "sso setup")
	if err != nil {
		t.Fatal(err)
	}

	created := apiJSON(t, srv, key, "POST", "/api/workspace/sso/providers", map[string]any{
		"type": "oidc", "name": "Acme IdP", "domains": []string{"sso-acme.test"}, "issuer": op.URL,
		"client_id": op.ClientID, "client_secret": op.ClientSecret}, http.StatusCreated)
	// The admin proves the workspace owns the domain: publish the TXT record, then verify.
	domains := apiJSON(t, srv, key, "GET", "/api/workspace/sso/domains", nil, http.StatusOK)["domains"].([]any)
	rec := domains[0].(map[string]any)["txt_record"].(map[string]any)
	dns.SetTXT(rec["name"].(string), rec["value"].(string))
	apiJSON(t, srv, key, "POST", "/api/workspace/sso/domains/sso-acme.test/verify", nil, http.StatusOK)
	settings := apiJSON(t, srv, key, "PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, http.StatusOK)
	t.Logf("provider %v (issuer %s); auto-provisioning %v", created["provider_id"], op.URL, settings["user_auto_provisioning"])

	b.run(t, srv, "sso.mjs", "SSO_EMAIL="+email, "SSO_ISSUER="+op.URL,
		"WORKSPACE_ID="+admin.WorkspaceID, "WORKSPACE_NAME="+admin.Email+"'s workspace")

	ctx := context.Background()
	u, err := srv.App.DB.UserByEmail(ctx, email)
	if err != nil || !u.EmailVerified {
		t.Fatalf("provisioned user: %+v, %v", u, err)
	}
	if role, err := srv.App.DB.Role(ctx, admin.WorkspaceID, u.ID); err != nil || role != "editor" {
		t.Fatalf("provisioned user's role: %q, %v", role, err)
	}
	if op.PKCEFailures() != 0 || op.TokenCalls() != 1 || op.Authorizations() != 1 {
		t.Fatalf("provider saw %d authorizations, %d token calls, %d PKCE failures", op.Authorizations(), op.TokenCalls(), op.PKCEFailures())
	}
}

// apiJSON calls Timbre's API with an API key and decodes the JSON answer, failing unless the
// status is want.
func apiJSON(t *testing.T, srv *Timbre, key, method, path string, body any, want int) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		buf, _ := json.Marshal(body)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("xi-api-key", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s → %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
	return m
}
