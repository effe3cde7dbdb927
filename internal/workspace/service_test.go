package workspace_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/workspace"
)

// status is the error's API status code ("" when it is no *errs.Error).
func status(err error) string {
	var he *errs.Error
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}

// TestServiceRulesWithoutHTTP drives the workspace rules through the Service alone, as a caller
// other than a handler would: invite, accept, the delegate and owner guards of member removal,
// and the settings change report.
func TestServiceRulesWithoutHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		a := e.signUp("alice@a.example")
		e.setTier(a, "scale_2024_08_10")
		admin := &access.Caller{UserID: a.user.ID, WorkspaceID: a.workspaceID, Role: access.RoleAdmin}

		invites, err := e.svc.CreateInvites(ctx, admin, []string{"eve@a.example"}, access.RoleEditor, nil)
		if err != nil || len(invites) != 1 || invites[0].Email != "eve@a.example" || invites[0].Code == "" {
			t.Fatalf("CreateInvites = %+v, %v", invites, err)
		}
		mails, err := db.ListMail(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		mailed := false
		for _, m := range mails {
			mailed = mailed || m.To == "eve@a.example"
		}
		if !mailed {
			t.Fatalf("no invitation mail to eve among %d mails", len(mails))
		}
		// Inviting the same email again as a delegate may not replace the admin's invitation.
		delegate := &access.Caller{UserID: a.user.ID, WorkspaceID: a.workspaceID, Role: access.RoleEditor, Grants: []string{"workspace_members_invite"}}
		if _, err := e.svc.CreateInvites(ctx, delegate, []string{"eve@a.example"}, access.RoleEditor, nil); status(err) != "invite_pending" {
			t.Fatalf("delegate re-invite: err = %v, want invite_pending", err)
		}

		eve := e.signUp("eve@a.example")
		in, email, err := e.svc.AcceptInvite(ctx, &access.Caller{UserID: eve.user.ID, WorkspaceID: eve.workspaceID}, invites[0].Code, "")
		if err != nil || in.WorkspaceID != a.workspaceID || email != "eve@a.example" {
			t.Fatalf("AcceptInvite = %+v, %q, %v", in, email, err)
		}
		if role, err := db.Role(ctx, a.workspaceID, eve.user.ID); err != nil || role != access.RoleEditor {
			t.Fatalf("eve's role = %q, %v; want editor", role, err)
		}
		if _, _, err := e.svc.AcceptInvite(ctx, &access.Caller{UserID: eve.user.ID}, invites[0].Code, ""); err != workspace.ErrInviteInvalid {
			t.Fatalf("second accept: err = %v, want ErrInviteInvalid", err)
		}

		// An editor who holds the removal duty may still not remove an admin; nobody the owner.
		editor := &access.Caller{UserID: eve.user.ID, WorkspaceID: a.workspaceID, Role: access.RoleEditor, Grants: []string{"workspace_members_remove"}}
		if err := e.svc.RemoveMember(ctx, editor, a.user.ID); status(err) != "beyond_delegated_access" {
			t.Fatalf("editor removes admin: err = %v", err)
		}
		if err := e.svc.RemoveMember(ctx, admin, a.user.ID); err != workspace.ErrOwner {
			t.Fatalf("admin removes owner: err = %v, want ErrOwner", err)
		}
		if role, err := db.Role(ctx, a.workspaceID, a.user.ID); err != nil || role != access.RoleAdmin {
			t.Fatalf("alice after refused removals = %q, %v", role, err)
		}
		if err := e.svc.RemoveMember(ctx, admin, eve.user.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Role(ctx, a.workspaceID, eve.user.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("eve still a member: %v", err)
		}
		if err := e.svc.RemoveMember(ctx, admin, eve.user.ID); status(err) != "member_not_found" {
			t.Fatalf("removing eve twice: err = %v", err)
		}

		// UpdateSettings reports a change once; the same value again changes nothing.
		ten := int64(600)
		changes, err := e.svc.UpdateSettings(ctx, admin, true, &ten, nil)
		if err != nil || len(changes) != 1 || changes[0].Setting != "session_inactivity_timeout" || changes[0].To != &ten {
			t.Fatalf("UpdateSettings = %+v, %v", changes, err)
		}
		if changes, err := e.svc.UpdateSettings(ctx, admin, true, &ten, nil); err != nil || len(changes) != 0 {
			t.Fatalf("UpdateSettings again = %+v, %v", changes, err)
		}
		st, err := db.WorkspaceSettings(ctx, a.workspaceID)
		if err != nil || st.SessionInactivityTimeout == nil || *st.SessionInactivityTimeout != 600 {
			t.Fatalf("settings after update = %+v, %v", st, err)
		}
	})
}
