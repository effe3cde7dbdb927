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
		// Unverified domains route nothing.
		if len(got.VerifiedDomains) != 0 {
			t.Fatalf("new domains verified: %v", got.VerifiedDomains)
		}
		if _, err := db.SSOProviderByDomain(ctx, "a2.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unverified domain maps: %v", err)
		}
		if err := db.VerifySSODomain(ctx, wa.ID, "a2.test", "", t0); err != nil {
			t.Fatal(err)
		}
		// A verified domain belongs to one workspace; the failed insert leaves nothing.
		q := store.SSOProvider{ID: store.NewID(), WorkspaceID: wb.ID, Type: store.SSOTypeSAML, Name: "B", Enabled: true, Domains: []string{"b.test", "a2.test"},
			CreatedAt: t0.Unix(), UpdatedAt: t0.Unix()}
		if err := db.CreateSSOProvider(ctx, q); !errors.Is(err, store.ErrSSODomainTaken) {
			t.Fatalf("domain verified elsewhere: %v", err)
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

func TestSSODomainVerification(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ua, wa := newUser(t, db, "a@dv.test")
		_, wb := newUser(t, db, "b@dv.test")
		_, wc := newUser(t, db, "c@dv.test")
		prov := func(ws, name string, domains ...string) store.SSOProvider {
			return store.SSOProvider{ID: store.NewID(), WorkspaceID: ws, Type: store.SSOTypeOIDC, Name: name, Enabled: true, Domains: domains,
				OIDCIssuer: "https://idp", OIDCClientID: "cid", CreatedAt: t0.Unix(), UpdatedAt: t0.Unix()}
		}
		pa := prov(wa.ID, "A", "x.test", "y.test")
		if err := db.CreateSSOProvider(ctx, pa); err != nil {
			t.Fatal(err)
		}
		ds, err := db.ListSSODomains(ctx, wa.ID)
		if err != nil || len(ds) != 2 || ds[0].Domain != "x.test" || ds[1].Domain != "y.test" {
			t.Fatalf("A's domains %+v %v", ds, err)
		}
		for _, d := range ds {
			if d.Verified || d.VerifiedAt != 0 || len(d.VerificationToken) != 32 || d.ProviderID != pa.ID || d.CreatedAt != t0.Unix() {
				t.Fatalf("new claim %+v", d)
			}
		}
		if ds[0].VerificationToken == ds[1].VerificationToken {
			t.Fatal("claims share a token")
		}
		tokenX := ds[0].VerificationToken

		// An unproven claim does not block another workspace's claim (the real owner may come
		// later); within one workspace a domain belongs to one provider.
		pb := prov(wb.ID, "B", "x.test")
		if err := db.CreateSSOProvider(ctx, pb); err != nil {
			t.Fatalf("B's pending claim on x.test: %v", err)
		}
		if err := db.CreateSSOProvider(ctx, prov(wa.ID, "A2", "y.test")); !store.IsUniqueViolation(err) {
			t.Fatalf("second provider of A on y.test: %v", err)
		}
		if bs, _ := db.ListSSODomains(ctx, wb.ID); len(bs) != 1 || bs[0].VerificationToken == tokenX {
			t.Fatalf("B's claims %+v (its own token)", bs)
		}

		// Verify: who and when, scoped to the workspace, first verification wins.
		if err := db.VerifySSODomain(ctx, wb.ID, "y.test", ua.ID, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B verifies a domain it never claimed: %v", err)
		}
		if err := db.VerifySSODomain(ctx, wa.ID, "X.test", ua.ID, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		d, err := db.SSODomain(ctx, wa.ID, "x.test")
		if err != nil || !d.Verified || d.VerifiedAt != t0.Add(time.Minute).Unix() || d.VerifiedByUserID != ua.ID || d.VerifiedByEmail != "a@dv.test" {
			t.Fatalf("verified claim %+v %v", d, err)
		}
		if err := db.VerifySSODomain(ctx, wa.ID, "x.test", "someone-else", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if d2, _ := db.SSODomain(ctx, wa.ID, "x.test"); d2.VerifiedAt != d.VerifiedAt || d2.VerifiedByUserID != ua.ID {
			t.Fatalf("re-verify changed the record: %+v", d2)
		}
		if err := db.VerifySSODomain(ctx, wb.ID, "x.test", "", t0); !errors.Is(err, store.ErrSSODomainTaken) {
			t.Fatalf("B verifies A's verified domain: %v", err)
		}
		if bd, _ := db.SSODomain(ctx, wb.ID, "x.test"); bd.Verified {
			t.Fatal("B's claim verified")
		}
		if err := db.CreateSSOProvider(ctx, prov(wc.ID, "C", "x.test")); !errors.Is(err, store.ErrSSODomainTaken) {
			t.Fatalf("C claims a verified domain: %v", err)
		}
		if p, err := db.SSOProviderByDomain(ctx, "x.test"); err != nil || p.ID != pa.ID || len(p.VerifiedDomains) != 1 || p.VerifiedDomains[0] != "x.test" {
			t.Fatalf("x.test maps to %+v %v", p, err)
		}

		// Updating the provider keeps the verification of the domains it keeps.
		pa.Domains = []string{"x.test", "z.test"}
		if err := db.UpdateSSOProvider(ctx, pa); err != nil {
			t.Fatal(err)
		}
		ds, _ = db.ListSSODomains(ctx, wa.ID)
		if len(ds) != 2 || ds[0].Domain != "x.test" || !ds[0].Verified || ds[0].VerificationToken != tokenX || ds[1].Domain != "z.test" || ds[1].Verified {
			t.Fatalf("after update %+v", ds)
		}

		// SSO required: only for verified domains of enabled providers in workspaces requiring it.
		if on, err := db.SSORequired(ctx, wa.ID); err != nil || on {
			t.Fatalf("default sso_required %v %v", on, err)
		}
		if on, _ := db.SSORequiredForDomain(ctx, "x.test"); on {
			t.Fatal("required before the setting")
		}
		if err := db.SetSSORequired(ctx, wa.ID, true); err != nil {
			t.Fatal(err)
		}
		if on, _ := db.SSORequired(ctx, wa.ID); !on {
			t.Fatal("setting not stored")
		}
		for dom, want := range map[string]bool{"x.test": true, "X.TEST": true, "z.test": false, "y.test": false, "other.test": false} {
			if on, err := db.SSORequiredForDomain(ctx, dom); err != nil || on != want {
				t.Fatalf("required for %s = %v %v, want %v", dom, on, err, want)
			}
		}
		if err := db.SetSSORequired(ctx, wb.ID, true); err != nil { // B's pending claim on x.test changes nothing
			t.Fatal(err)
		}
		pa.Enabled = false
		if err := db.UpdateSSOProvider(ctx, pa); err != nil {
			t.Fatal(err)
		}
		if on, _ := db.SSORequiredForDomain(ctx, "x.test"); on {
			t.Fatal("required through a disabled provider")
		}
		if err := db.SetSSORequired(ctx, "no-such-workspace", true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown workspace: %v", err)
		}

		// Once A lets go, B can prove its claim.
		if err := db.DeleteSSOProvider(ctx, wa.ID, pa.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.VerifySSODomain(ctx, wb.ID, "x.test", "", t0); err != nil {
			t.Fatal(err)
		}
		if on, _ := db.SSORequiredForDomain(ctx, "x.test"); !on {
			t.Fatal("B requires SSO and verified x.test")
		}
	})
}

// TestSSODomainMigration: domains configured before verification existed come out of migration
// 00010 unverified (they route nothing until their workspace proves ownership), each with its
// own token; going down and up again keeps the claims.
func TestSSODomainMigration(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.MigrateTo(ctx, 9); err != nil {
			t.Fatalf("down to 9: %v", err)
		}
		_, w := newUser(t, db, "old@mig.test")
		rawExec(t, db, `INSERT INTO sso_providers (id, workspace_id, type, name, enabled, created_at_unix, updated_at_unix) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			"prov-old", w.ID, "oidc", "Old", true, t0.Unix(), t0.Unix())
		for _, d := range []string{"old.test", "old2.test"} {
			rawExec(t, db, `INSERT INTO sso_domains (domain, provider_id, workspace_id) VALUES (?, ?, ?)`, d, "prov-old", w.ID)
		}
		if err := db.MigrateTo(ctx, 10); err != nil {
			t.Fatalf("up to 10: %v", err)
		}
		ds, err := db.ListSSODomains(ctx, w.ID)
		if err != nil || len(ds) != 2 {
			t.Fatalf("migrated domains %+v %v", ds, err)
		}
		for _, d := range ds {
			if d.Verified || d.ProviderID != "prov-old" || len(d.VerificationToken) < 32 || d.CreatedAt == 0 {
				t.Fatalf("migrated claim %+v", d)
			}
		}
		if ds[0].VerificationToken == ds[1].VerificationToken {
			t.Fatal("migrated claims share a token")
		}
		if _, err := db.SSOProviderByDomain(ctx, "old.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("migrated (unverified) domain routes sign-ins: %v", err)
		}
		if on, err := db.SSORequired(ctx, w.ID); err != nil || on {
			t.Fatalf("sso_required after migration %v %v", on, err)
		}
		must(t, "verify", db.VerifySSODomain(ctx, w.ID, "old.test", "", t0))
		if err := db.MigrateTo(ctx, 9); err != nil {
			t.Fatalf("down again: %v", err)
		}
		if n := rawCount(t, db, `SELECT COUNT(*) FROM sso_domains WHERE provider_id = ?`, "prov-old"); n != 2 {
			t.Fatalf("%d claims after down", n)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("up again: %v", err)
		}
		if _, err := db.SSOProviderByDomain(ctx, "old.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("re-migrated domain routes sign-ins: %v", err)
		}
	})
}
