package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestSSOProviders(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, wa := newUser(t, db, "a@sso.test")
		_, wb := newUser(t, db, "b@sso.test")
		p := store.SSOProvider{ID: store.NewID(), WorkspaceID: wa.ID, Type: store.SSOTypeOIDC, Name: "A", Enabled: true,
			Domains: []string{" A.test ", "a.test", "a2.test"}, OIDCIssuer: "https://idp", OIDCClientID: "cid", OIDCClientSecretEnc: "v1:xx",
			CreatedAt: t0.Unix(), UpdatedAt: t0.Unix()}
		if err := db.CreateSSOProvider(ctx, p); err != nil {
			t.Fatal(err)
		}
		got, err := db.SSOProvider(ctx, wa.ID, p.ID)
		if err != nil || got.Name != "A" || !got.Enabled || len(got.Domains) != 2 || got.Domains[0] != "a.test" || got.OIDCClientSecretEnc != "v1:xx" {
			t.Fatalf("SSOProvider = %+v, %v", got, err)
		}
		// Scoped by workspace: B cannot read, change or delete A's provider.
		if _, err := db.SSOProvider(ctx, wb.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B reads A's provider: %v", err)
		}
		other := p
		other.WorkspaceID, other.Name = wb.ID, "pwned"
		if err := db.UpdateSSOProvider(ctx, other); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B updates A's provider: %v", err)
		}
		if err := db.DeleteSSOProvider(ctx, wb.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B deletes A's provider: %v", err)
		}
		if l, _ := db.ListSSOProviders(ctx, wb.ID); len(l) != 0 {
			t.Fatalf("B lists %v", l)
		}
		// A domain belongs to one provider across workspaces; the failed insert leaves nothing.
		q := store.SSOProvider{ID: store.NewID(), WorkspaceID: wb.ID, Type: store.SSOTypeSAML, Name: "B", Enabled: true, Domains: []string{"b.test", "a2.test"},
			CreatedAt: t0.Unix(), UpdatedAt: t0.Unix()}
		if err := db.CreateSSOProvider(ctx, q); !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate domain: %v", err)
		}
		if _, err := db.SSOProvider(ctx, wb.ID, q.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("half-created provider left behind")
		}
		byDomain, err := db.SSOProviderByDomain(ctx, "A2.TEST")
		if err != nil || byDomain.ID != p.ID {
			t.Fatalf("by domain: %+v %v", byDomain, err)
		}
		// Update replaces the domains.
		p.Domains, p.Name, p.Enabled = []string{"a3.test"}, "A'", false
		if err := db.UpdateSSOProvider(ctx, p); err != nil {
			t.Fatal(err)
		}
		l, _ := db.ListSSOProviders(ctx, wa.ID)
		if len(l) != 1 || l[0].Name != "A'" || l[0].Enabled || len(l[0].Domains) != 1 || l[0].Domains[0] != "a3.test" {
			t.Fatalf("after update %+v", l)
		}
		if _, err := db.SSOProviderByDomain(ctx, "a.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("old domain still maps")
		}

		// Flows: single use, expiring, gone with their provider.
		f := store.SSOFlow{ProviderID: p.ID, WorkspaceID: wa.ID, NonceHash: "nh", VerifierEnc: "v1:ve", RedirectPath: "/app/x", ExpiresAt: t0.Add(10 * time.Minute).Unix()}
		if err := db.CreateSSOFlow(ctx, "state-1", f, t0); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateSSOFlow(ctx, "state-2", f, t0); err != nil {
			t.Fatal(err)
		}
		if rows := rawRows(t, db, `SELECT state_hash FROM sso_flows WHERE state_hash = ?`, "state-1"); len(rows) != 0 {
			t.Fatal("state stored in plaintext")
		}
		if _, err := db.UseSSOFlow(ctx, "state-2", t0.Add(11*time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired flow used: %v", err)
		}
		uf, err := db.UseSSOFlow(ctx, "state-1", t0.Add(time.Minute))
		if err != nil || uf.NonceHash != "nh" || uf.VerifierEnc != "v1:ve" || uf.RedirectPath != "/app/x" || uf.WorkspaceID != wa.ID {
			t.Fatalf("use flow: %+v %v", uf, err)
		}
		if _, err := db.UseSSOFlow(ctx, "state-1", t0.Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("flow used twice: %v", err)
		}

		// Auto-provisioning: who and when recorded on, kept on repeat, cleared off.
		ap, err := db.SSOAutoProvisioning(ctx, wa.ID)
		if err != nil || ap.Enabled || ap.EnabledAtUnix != nil || ap.EnabledByEmail != "" {
			t.Fatalf("default auto-provisioning %+v %v", ap, err)
		}
		if err := db.SetSSOAutoProvisioning(ctx, wa.ID, true, "a@sso.test", t0); err != nil {
			t.Fatal(err)
		}
		if err := db.SetSSOAutoProvisioning(ctx, wa.ID, true, "later@sso.test", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		ap, _ = db.SSOAutoProvisioning(ctx, wa.ID)
		if !ap.Enabled || ap.EnabledAtUnix == nil || *ap.EnabledAtUnix != t0.Unix() || ap.EnabledByEmail != "a@sso.test" {
			t.Fatalf("enabled %+v", ap)
		}
		if b, _ := db.SSOAutoProvisioning(ctx, wb.ID); b.Enabled {
			t.Fatal("B's setting changed")
		}
		if err := db.SetSSOAutoProvisioning(ctx, wa.ID, false, "", t0); err != nil {
			t.Fatal(err)
		}
		if ap, _ = db.SSOAutoProvisioning(ctx, wa.ID); ap.Enabled || ap.EnabledAtUnix != nil {
			t.Fatalf("disabled %+v", ap)
		}

		// Provisioned users: verified, no password, editors of the workspace.
		u, err := db.CreateSSOUser(ctx, "New@SSO.test", "New", wa.ID, t0)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := db.UserByEmail(ctx, "new@sso.test")
		if back.ID != u.ID || !back.EmailVerified || back.PasswordHash != "" || back.WorkspaceID != wa.ID {
			t.Fatalf("provisioned %+v", back)
		}
		if role, err := db.Role(ctx, wa.ID, u.ID); err != nil || role != "editor" {
			t.Fatalf("role %q %v", role, err)
		}
		if _, err := db.CreateSSOUser(ctx, "new@sso.test", "", wa.ID, t0); !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate user: %v", err)
		}

		// Deleting the provider takes its domains and flows.
		if err := db.DeleteSSOProvider(ctx, wa.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if rows := rawRows(t, db, `SELECT domain FROM sso_domains WHERE provider_id = ?`, p.ID); len(rows) != 0 {
			t.Fatalf("domains left %v", rows)
		}
		if rows := rawRows(t, db, `SELECT state_hash FROM sso_flows WHERE provider_id = ?`, p.ID); len(rows) != 0 {
			t.Fatalf("flows left %v", rows)
		}
	})
}
