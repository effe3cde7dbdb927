package workspace_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestSecuritySettings: admins read and change session_inactivity_timeout and
// mfa_required_for_users; bad values are 422 naming the field; read-only settings are refused;
// editors and other workspaces cannot; each change is audited once.
func TestSecuritySettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		a := e.signUp("admin@settings.example")
		e.setTier(a, "growing_business")
		ed := e.join(a, e.signUp("editor@settings.example"), "workspace_member")
		other := e.signUp("other@settings.example")

		got := decode[map[string]any](t, e.do(a, "GET", "/api/workspace/settings", nil))
		if got["session_inactivity_timeout"] != nil || got["mfa_required_for_users"] != false {
			t.Fatalf("defaults %v", got)
		}
		if opt, _ := got["training_opt_out"].(map[string]any); opt == nil || opt["training_opt_out"] != false {
			t.Fatalf("training_opt_out %v", got)
		}
		if ap, _ := got["user_auto_provisioning"].(map[string]any); ap == nil || ap["enabled"] != false {
			t.Fatalf("user_auto_provisioning %v", got)
		}

		// Not for editors, nor for an API key without workspace_write.
		want(t, e.do(ed, "GET", "/api/workspace/settings", nil), 403, "")
		want(t, e.do(ed, "PATCH", "/api/workspace/settings", map[string]any{"mfa_required_for_users": true}), 403, "")
		want(t, e.do(e.keyFor(a, "workspace_read"), "PATCH", "/api/workspace/settings", map[string]any{"mfa_required_for_users": true}), 401, "")

		for _, c := range []struct {
			body  string
			field string
		}{
			{`{"session_inactivity_timeout": 10}`, "session_inactivity_timeout"},
			{`{"session_inactivity_timeout": 99999999}`, "session_inactivity_timeout"},
			{`{"session_inactivity_timeout": "1h"}`, "session_inactivity_timeout"},
			{`{"session_inactivity_timeout": 600.5}`, "session_inactivity_timeout"},
			{`{"mfa_required_for_users": "yes"}`, "mfa_required_for_users"},
			{`{"mfa_required_for_users": null}`, "mfa_required_for_users"},
			{`{"training_opt_out": true}`, "training_opt_out"},
			{`{"user_auto_provisioning": {"enabled": true}}`, "user_auto_provisioning"},
		} {
			wantInvalid(t, e.do(a, "PATCH", "/api/workspace/settings", c.body), c.field)
		}
		if st, _ := db.WorkspaceSettings(ctx, a.workspaceID); st.SessionInactivityTimeout != nil || st.MFARequiredForUsers {
			t.Fatalf("a refused PATCH changed %+v", st)
		}

		got = decode[map[string]any](t, e.do(a, "PATCH", "/api/workspace/settings", map[string]any{"session_inactivity_timeout": 1800}))
		if got["session_inactivity_timeout"] != float64(1800) || got["mfa_required_for_users"] != false {
			t.Fatalf("after timeout %v", got)
		}
		// The same value again changes nothing and is not audited again.
		want(t, e.do(a, "PATCH", "/api/workspace/settings", map[string]any{"session_inactivity_timeout": 1800}), 200, "")
		// Requiring MFA needs the admin's own first.
		wantInvalid(t, e.do(a, "PATCH", "/api/workspace/settings", map[string]any{"mfa_required_for_users": true}), "mfa_required_for_users")
		enableMFA(t, db, a)
		got = decode[map[string]any](t, e.do(a, "PATCH", "/api/workspace/settings", map[string]any{"mfa_required_for_users": true}))
		if got["session_inactivity_timeout"] != float64(1800) || got["mfa_required_for_users"] != true {
			t.Fatalf("after mfa %v", got)
		}
		w := e.do(a, "PATCH", "/api/workspace/settings", `{"session_inactivity_timeout": null}`)
		want(t, w, 200, "")
		if got = decode[map[string]any](t, w); got["session_inactivity_timeout"] != nil {
			t.Fatalf("after clearing %v", got)
		}
		st, _ := db.WorkspaceSettings(ctx, a.workspaceID)
		if st.SessionInactivityTimeout != nil || !st.MFARequiredForUsers {
			t.Fatalf("stored %+v", st)
		}
		// Another workspace's admin works on their own workspace only.
		enableMFA(t, db, other)
		want(t, e.do(other, "PATCH", "/api/workspace/settings", map[string]any{"mfa_required_for_users": true}), 200, "")
		if st, _ := db.WorkspaceSettings(ctx, other.workspaceID); !st.MFARequiredForUsers {
			t.Fatal("other workspace unchanged")
		}

		entries, _, err := db.ListAudit(ctx, a.workspaceID, store.AuditFilter{Limit: 100, ClassName: "workspace", Activity: "update"})
		if err != nil {
			t.Fatal(err)
		}
		var changes []string
		for _, en := range entries {
			var d map[string]any
			_ = json.Unmarshal([]byte(en.Details), &d)
			if s, ok := d["setting"].(string); ok {
				changes = append(changes, s)
				if en.ActorUserID != a.user.ID {
					t.Errorf("audit actor %q", en.ActorUserID)
				}
			}
		}
		if strings.Join(changes, ",") != "session_inactivity_timeout,mfa_required_for_users,session_inactivity_timeout" {
			t.Fatalf("audited changes (newest first) %v", changes)
		}
	})
}

// TestServiceAccountsTakeNoSeat: a workspace with every seat taken can still have service
// accounts, and they do not stop an invite once a seat is free.
func TestServiceAccountsTakeNoSeat(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		a := e.signUp("admin@sa.example")
		e.setTier(a, "growing_business") // three seats
		for i, name := range []string{"ci", "etl"} {
			if err := db.CreateServiceAccount(ctx, store.ServiceAccount{UserID: store.NewID(), WorkspaceID: a.workspaceID, Name: name, Role: "editor",
				CreatedAt: time.Now().Unix() + int64(i)}, 10); err != nil {
				t.Fatal(err)
			}
		}
		if members, _, err := db.SeatsUsed(ctx, a.workspaceID, time.Now()); err != nil || members != 1 {
			t.Fatalf("seats used %d %v, want 1 (the admin)", members, err)
		}
		if err := e.svc.SeatAvailable(ctx, a.workspaceID); err != nil {
			t.Fatalf("seat check with two service accounts: %v", err)
		}
		want(t, e.do(a, "POST", "/v1/workspace/invites/add-bulk", map[string]any{"emails": []string{"one@sa.example", "two@sa.example"}}), 200, "")
		for _, m := range decode[[]map[string]any](t, e.do(a, "GET", "/v1/workspace/members", nil)) {
			if strings.HasSuffix(m["email"].(string), "@service-accounts.invalid") {
				t.Fatalf("a service account is listed as a member: %v", m)
			}
		}
	})
}

// enableMFA turns TOTP on for a user straight in the store.
// enableMFA turns TOTP on for a's user as an enrolment in a's session would (the session then
// counts as having answered a code).
func enableMFA(t *testing.T, db *store.DB, a actor) {
	t.Helper()
	ctx := context.Background()
	userID := a.user.ID
	if err := db.SetPendingTOTP(ctx, userID, "JBSWY3DPEHPK3PXP"); err != nil {
		t.Fatal(err)
	}
	if err := db.EnableTOTP(ctx, userID, "JBSWY3DPEHPK3PXP", 1, []string{"h"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkSessionMFADone(ctx, a.token); err != nil {
		t.Fatal(err)
	}
}
