package audit_test

import (
	"testing"

	"timbre/internal/audit"
	"timbre/internal/store"
)

func TestRenderMapsOntoOCSF(t *testing.T) {
	cases := []struct {
		e                    store.AuditEntry
		classUID, activityID int
		activity             string
		status               int
	}{
		{store.AuditEntry{ClassName: "auth", Activity: "sign_in", ActorUserID: "u1"}, 3002, 1, "Sign In", 1},
		{store.AuditEntry{ClassName: "auth", Activity: "sign_in_failed", ActorEmail: "x@example.com"}, 3002, 1, "Failed Sign In", 2},
		{store.AuditEntry{ClassName: "api_key", Activity: "create", ActorUserID: "u1"}, 3004, 1, "API Key Creation", 1},
		{store.AuditEntry{ClassName: "webhook", Activity: "auto_disable"}, 3004, 9, "Webhook Automatic Disablement", 1},
		{store.AuditEntry{ClassName: "member", Activity: "role_change", ActorUserID: "u1"}, 3005, 1, "Member Role Change", 1},
		{store.AuditEntry{ClassName: "group", Activity: "add_member", ActorUserID: "u1"}, 3006, 3, "Group Member Addition", 1},
		{store.AuditEntry{ClassName: "mfa", Activity: "mfa_enable", ActorUserID: "u1"}, 3001, 10, "Two-Factor Authentication Enablement", 1},
		{store.AuditEntry{ClassName: "sso", Activity: "something_new", ActorUserID: "u1"}, 3004, 99, "SSO Provider Something New", 1},
	}
	for _, c := range cases {
		c.e.ID, c.e.AtUnixMs, c.e.Details = "id1", 1_760_000_000_123, "{}"
		got := audit.Render(c.e, "", "")
		if got["class_uid"] != c.classUID || got["activity_id"] != c.activityID || got["activity_name"] != c.activity || got["status_id"] != c.status {
			t.Errorf("%s/%s → class %v activity %v %q status %v", c.e.ClassName, c.e.Activity, got["class_uid"], got["activity_id"], got["activity_name"], got["status_id"])
		}
		if got["type_uid"] != c.classUID*100+c.activityID {
			t.Errorf("type_uid %v", got["type_uid"])
		}
		if got["time_dt"] != "2025-10-09T08:53:20.123Z" || got["time"] != int64(1_760_000_000_123) {
			t.Errorf("time %v %v", got["time"], got["time_dt"])
		}
		for _, k := range []string{"activity_id", "activity_name", "status_id", "actor", "message", "id", "time_dt", "type_uid", "type_name"} {
			if _, ok := got[k]; !ok {
				t.Errorf("missing %s", k)
			}
		}
	}
	// An API key's action names the key; a system action names no user.
	got := audit.Render(store.AuditEntry{ID: "a", ClassName: "webhook", Activity: "delete", ActorUserID: "u1", ActorKeyID: "k1", Target: "w1", Details: "{}"}, "a@example.com", "Ann")
	act := got["actor"].(map[string]any)
	user := act["user"].(map[string]any)
	if act["app_uid"] != "k1" || user["email_addr"] != "a@example.com" || user["domain"] != "example.com" || user["full_name"] != "Ann" {
		t.Fatalf("actor %v", act)
	}
	if got["message"] != "Webhook Deletion of w1 by a@example.com (API key k1)" {
		t.Fatalf("message %q", got["message"])
	}
	sys := audit.Render(store.AuditEntry{ID: "b", ClassName: "webhook", Activity: "auto_disable", Details: "{}"}, "", "")
	if u := sys["actor"].(map[string]any)["user"].(map[string]any); u["type_id"] != 3 || u["type"] != "System" || u["uid"] != nil {
		t.Fatalf("system actor %v", u)
	}
}
