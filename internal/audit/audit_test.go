package audit_test

import (
	"encoding/json"
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
		if got.ClassUID != c.classUID || got.ActivityID != c.activityID || got.ActivityName != c.activity || got.StatusID != c.status {
			t.Errorf("%s/%s → class %v activity %v %q status %v", c.e.ClassName, c.e.Activity, got.ClassUID, got.ActivityID, got.ActivityName, got.StatusID)
		}
		if got.TypeUID != c.classUID*100+c.activityID {
			t.Errorf("type_uid %v", got.TypeUID)
		}
		if got.TimeDT != "2025-10-09T08:53:20.123Z" || got.Time != 1_760_000_000_123 {
			t.Errorf("time %v %v", got.Time, got.TimeDT)
		}
		if got.ID == "" || got.Message == "" || got.TypeName == "" {
			t.Errorf("id, message or type_name empty: %+v", got)
		}
	}
	// An API key's action names the key; a system action names no user.
	got := audit.Render(store.AuditEntry{ID: "a", ClassName: "webhook", Activity: "delete", ActorUserID: "u1", ActorKeyID: "k1", Target: "w1", Details: "{}"}, "a@example.com", "Ann")
	act, user := got.Actor, got.Actor.User
	if act.AppUID != "k1" || user.EmailAddr != "a@example.com" || user.Domain != "example.com" || user.FullName != "Ann" {
		t.Fatalf("actor %+v", act)
	}
	if got.Message != "Webhook Deletion of w1 by a@example.com (API key k1)" {
		t.Fatalf("message %q", got.Message)
	}
	sys := audit.Render(store.AuditEntry{ID: "b", ClassName: "webhook", Activity: "auto_disable", Details: "{}"}, "", "")
	if u := sys.Actor.User; u.TypeID != 3 || u.Type != "System" || u.UID != "" {
		t.Fatalf("system actor %+v", u)
	}
	// Unknown actor fields are left out, not sent empty; a system entry has no API key fields.
	data, err := json.Marshal(sys)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	actor := raw["actor"].(map[string]any)
	if _, ok := actor["app_uid"]; ok {
		t.Fatalf("system actor JSON has app_uid: %s", data)
	}
	if _, ok := actor["user"].(map[string]any)["email_addr"]; ok || raw["device"] != nil || raw["http_request"] != nil {
		t.Fatalf("system entry JSON: %s", data)
	}
}
