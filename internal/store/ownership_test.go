package store_test

import (
	"context"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestDeletedOwnerNeverPassesOwnershipToAServiceAccount: an admin service account (sorted first)
// is passed over; the human member inherits the workspace and becomes its admin.
func TestDeletedOwnerNeverPassesOwnershipToAServiceAccount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		owner, w := newUser(t, db, "owner@example.com")
		human, _ := newUser(t, db, "zz-human@example.com")
		must(t, "CreateServiceAccount", db.CreateServiceAccount(ctx, store.ServiceAccount{UserID: "0000-bot", WorkspaceID: w.ID, Name: "bot", Role: "admin", CreatedAt: t0.Unix()}, 20))
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)`, w.ID, human.ID, "editor")
		if _, err := db.DeleteAccount(ctx, owner.ID); err != nil {
			t.Fatal(err)
		}
		got, err := db.Workspace(ctx, w.ID, t0)
		if err != nil {
			t.Fatal(err)
		}
		if got.OwnerID != human.ID {
			t.Fatalf("owner after deletion = %q, want the human %q", got.OwnerID, human.ID)
		}
		if m, err := db.Access(ctx, w.ID, human.ID); err != nil || m.Role != "admin" {
			t.Fatalf("new owner's access = %+v, %v", m, err)
		}
	})
}
