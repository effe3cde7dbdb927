package store_test

import (
	"context"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestSetPlanAndListUsers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, wa := newUser(t, db, "a@example.com")
		_, wb := newUser(t, db, "b@example.com")
		if wa.BillingPeriod != "monthly_period" {
			t.Fatalf("new workspace billed %q", wa.BillingPeriod)
		}
		must(t, "SetPlan", db.SetPlan(ctx, wa.ID, "pro", "annual_period"))
		wantErr(t, "SetPlan unknown", db.SetPlan(ctx, "nope", "pro", "monthly_period"), store.ErrNotFound)
		w, err := db.Workspace(ctx, wa.ID, t0)
		if err != nil || w.Tier != "pro" || w.BillingPeriod != "annual_period" {
			t.Fatalf("after SetPlan: %+v %v", w, err)
		}
		// b is also a member of a's workspace; a service account is not listed.
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, (SELECT id FROM users WHERE email = ?), 'editor')`, wa.ID, "b@example.com")
		rawExec(t, db, `UPDATE users SET is_service_account = ? WHERE id = ?`, true, a.ID)
		users, err := db.ListUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(users) != 1 || users[0].Email != "b@example.com" || users[0].Workspaces != 2 || users[0].Tier != "free" || users[0].Period != "monthly_period" || users[0].Workspace != wb.Name || !users[0].CreatedAt.Equal(t0) {
			t.Fatalf("ListUsers = %+v", users)
		}
		rawExec(t, db, `UPDATE users SET is_service_account = ? WHERE id = ?`, false, a.ID)
		if users, _ := db.ListUsers(ctx); len(users) != 2 || users[0].Tier != "pro" || users[0].Period != "annual_period" {
			t.Fatalf("ListUsers = %+v", users)
		}
	})
}
