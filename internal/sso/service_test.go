package sso_test

import (
	"context"
	"testing"

	"timbre/internal/sso"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestSettingsServiceWithoutHTTP changes the SSO settings through the Service alone: it reports
// each setting whose value changed (for the audit log), nothing when a value is sent again, and
// the settings read back as set.
func TestSettingsServiceWithoutHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		u, ws := e.user("admin@corp.example")
		on, off := true, false
		got, err := e.svc.UpdateSettings(ctx, ws.ID, u.ID, &on, &off)
		want := []sso.SettingChange{{Setting: "user_auto_provisioning_enabled", To: true}}
		if err != nil || got.ByEmail != u.Email || len(got.Changes) != 1 || got.Changes[0] != want[0] {
			t.Fatalf("UpdateSettings = %+v, %v; want by %s, changes %+v", got, err, u.Email, want)
		}
		if again, err := e.svc.UpdateSettings(ctx, ws.ID, u.ID, &on, &off); err != nil || len(again.Changes) != 0 {
			t.Fatalf("UpdateSettings again = %+v, %v; want no changes", again, err)
		}
		ap, required, err := e.svc.Settings(ctx, ws.ID)
		if err != nil || !ap.Enabled || ap.EnabledByEmail != u.Email || required {
			t.Fatalf("Settings = %+v, %v, %v", ap, required, err)
		}
		if err := e.svc.DeleteProvider(ctx, ws.ID, "no-such-provider"); err == nil {
			t.Fatal("deleting a provider that does not exist succeeded")
		}
	})
}
