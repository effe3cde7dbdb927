package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func wsSeats(n int) store.SeatRule { return func(string, *int64) int { return n } }

func TestWorkspaceSettingsDefaultsAndUpdates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "owner@example.com")
		s, err := db.WorkspaceSettings(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.SessionInactivityTimeout != nil || s.TrainingOptOut || s.TrainingOptOutAtUnix != nil || s.MFARequiredForUsers ||
			s.UserAutoProvisioningEnabled || s.UserAutoProvisioningAtUnix != nil || s.UserAutoProvisioningByEmail != "" || s.MaxSeats != nil {
			t.Fatalf("defaults %+v", s)
		}
		timeout, seats := int64(900), int64(40)
		wsMust(t, db.SetTrainingOptOut(ctx, w.ID, true, t0))
		wsMust(t, db.SetSessionInactivityTimeout(ctx, w.ID, &timeout))
		wsMust(t, db.SetMFARequired(ctx, w.ID, true))
		rawExec(t, db, `UPDATE workspaces SET user_auto_provisioning_enabled = ?, user_auto_provisioning_enabled_at_unix = ?, user_auto_provisioning_enabled_by_user_email = ? WHERE id = ?`,
			true, t0.Unix(), "owner@example.com", w.ID)
		wsMust(t, db.SetMaxSeats(ctx, w.ID, &seats))
		s, _ = db.WorkspaceSettings(ctx, w.ID)
		if !s.TrainingOptOut || *s.TrainingOptOutAtUnix != t0.Unix() || *s.SessionInactivityTimeout != 900 || !s.MFARequiredForUsers ||
			!s.UserAutoProvisioningEnabled || *s.UserAutoProvisioningAtUnix != t0.Unix() || s.UserAutoProvisioningByEmail != "owner@example.com" || *s.MaxSeats != 40 {
			t.Fatalf("after updates %+v", s)
		}
		wsMust(t, db.SetSessionInactivityTimeout(ctx, w.ID, nil))
		s, _ = db.WorkspaceSettings(ctx, w.ID)
		if s.SessionInactivityTimeout != nil {
			t.Fatalf("after turning off %+v", s)
		}
		if err := db.SetMFARequired(ctx, "nope", true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown workspace: %v", err)
		}
	})
}

func wsMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestInvitesSeatsAndAccept(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		owner, w := newUser(t, db, "owner@example.com")
		guest, _ := newUser(t, db, "guest@example.com")
		inv := func(email, code string) store.NewInvite {
			return store.NewInvite{Code: code, Invite: store.Invite{WorkspaceID: w.ID, Email: email, Role: "editor", InvitedBy: owner.ID,
				CreatedAt: t0.Unix(), ExpiresAt: t0.Add(time.Hour).Unix()}}
		}
		// One seat, taken by the owner: no invite fits.
		if err := db.CreateInvites(ctx, w.ID, []store.NewInvite{inv("guest@example.com", "code-1")}, wsSeats(1), t0); !errors.Is(err, store.ErrSeatsExhausted) {
			t.Fatalf("over seats: %v", err)
		}
		// The owner is already a member.
		var am *store.AlreadyMemberError
		if err := db.CreateInvites(ctx, w.ID, []store.NewInvite{inv("owner@example.com", "code-0")}, wsSeats(5), t0); !errors.As(err, &am) || am.Email != "owner@example.com" {
			t.Fatalf("already member: %v", err)
		}
		// Three seats: two invites fit; re-inviting the same email replaces its code, not a new seat.
		wsMust(t, db.CreateInvites(ctx, w.ID, []store.NewInvite{inv("guest@example.com", "code-1"), inv("third@example.com", "code-3")}, wsSeats(3), t0))
		wsMust(t, db.CreateInvites(ctx, w.ID, []store.NewInvite{inv("guest@example.com", "code-2")}, wsSeats(3), t0))
		if m, p, _ := db.SeatsUsed(ctx, w.ID, t0); m != 1 || p != 2 {
			t.Fatalf("seats used %d+%d, want 1+2", m, p)
		}
		if _, err := db.InviteByCode(ctx, "code-1", t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("replaced code still works: %v", err)
		}
		// Codes are stored hashed only.
		if n := rawCount(t, db, `SELECT COUNT(*) FROM workspace_invites WHERE code_hash IN ('code-2', 'code-3')`); n != 0 {
			t.Fatal("invite code stored in plain text")
		}
		// A refusing check changes nothing.
		refuse := errors.New("refused")
		if _, err := db.AcceptInvite(ctx, "code-2", guest.ID, "", wsSeats(3), t0, func(*store.Invite) error { return refuse }); !errors.Is(err, refuse) {
			t.Fatalf("check error: %v", err)
		}
		if _, err := db.Role(ctx, w.ID, guest.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("refused accept made a member")
		}
		// Accept: membership with the invite's role, invite used up.
		in, err := db.AcceptInvite(ctx, "code-2", guest.ID, "", wsSeats(3), t0, func(in *store.Invite) error { return nil })
		wsMust(t, err)
		if in.WorkspaceID != w.ID {
			t.Fatalf("accepted into %s", in.WorkspaceID)
		}
		if role, _ := db.Role(ctx, w.ID, guest.ID); role != "editor" {
			t.Fatalf("role %q", role)
		}
		if _, err := db.InviteByCode(ctx, "code-2", t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("invite not used up")
		}
		// Expired invites neither work nor take seats.
		if _, err := db.InviteByCode(ctx, "code-3", t0.Add(2*time.Hour)); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("expired invite found")
		}
		if _, p, _ := db.SeatsUsed(ctx, w.ID, t0.Add(2*time.Hour)); p != 0 {
			t.Fatalf("expired invite counted: %d", p)
		}
		// Seats are checked again on accept (the plan may have shrunk).
		third, _ := newUser(t, db, "third@example.com")
		if _, err := db.AcceptInvite(ctx, "code-3", third.ID, "", wsSeats(2), t0, func(*store.Invite) error { return nil }); !errors.Is(err, store.ErrSeatsExhausted) {
			t.Fatalf("accept over seats: %v", err)
		}
		wsMust(t, db.DeleteInvite(ctx, w.ID, "THIRD@example.com"))
		if err := db.DeleteInvite(ctx, w.ID, "third@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}

func TestMembersGroupsSharesScopedAndCleanedUp(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		owner, wa := newUser(t, db, "a@example.com")
		ed, _ := newUser(t, db, "ed@example.com")
		_, wb := newUser(t, db, "b@example.com")
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'editor')`, wa.ID, ed.ID)

		ms, err := db.ListMembers(ctx, wa.ID)
		wsMust(t, err)
		if len(ms) != 2 || ms[0].Email != "a@example.com" || !ms[0].IsOwner || ms[0].Role != "admin" || ms[1].IsOwner || ms[1].Role != "editor" {
			t.Fatalf("members %+v", ms)
		}
		if _, err := db.MemberByEmail(ctx, wb.ID, "ed@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("member of A found through B")
		}
		// The owner can be neither demoted nor locked nor removed.
		editor, locked := "editor", true
		if err := db.UpdateMember(ctx, wa.ID, owner.ID, &editor, nil); !errors.Is(err, store.ErrOwner) {
			t.Fatalf("demote owner: %v", err)
		}
		if err := db.UpdateMember(ctx, wa.ID, owner.ID, nil, &locked); !errors.Is(err, store.ErrOwner) {
			t.Fatalf("lock owner: %v", err)
		}
		if err := db.RemoveMember(ctx, wa.ID, owner.ID); !errors.Is(err, store.ErrOwner) {
			t.Fatalf("remove owner: %v", err)
		}
		if err := db.UpdateMember(ctx, wb.ID, ed.ID, &editor, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update through B: %v", err)
		}

		// Groups: scoped, member must belong to the workspace.
		g := &store.Group{ID: store.NewID(), WorkspaceID: wa.ID, Name: "Narrators", Permissions: []string{"text_to_speech"}, CreatedAt: t0.Unix()}
		wsMust(t, db.CreateGroup(ctx, g))
		if err := db.CreateGroup(ctx, &store.Group{ID: store.NewID(), WorkspaceID: wa.ID, Name: "Narrators", CreatedAt: t0.Unix()}); !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate name: %v", err)
		}
		wsMust(t, db.AddGroupMember(ctx, wa.ID, g.ID, ed.ID))
		wsMust(t, db.AddGroupMember(ctx, wa.ID, g.ID, ed.ID)) // idempotent
		if err := db.AddGroupMember(ctx, wb.ID, g.ID, ed.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("add through B: %v", err)
		}
		bUser, _ := db.UserByEmail(ctx, "b@example.com")
		if err := db.AddGroupMember(ctx, wa.ID, g.ID, bUser.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("non-member added: %v", err)
		}
		gs, err := db.ListGroups(ctx, wa.ID, "narr")
		wsMust(t, err)
		if len(gs) != 1 || len(gs[0].MemberEmails) != 1 || gs[0].MemberEmails[0] != "ed@example.com" || gs[0].Permissions[0] != "text_to_speech" {
			t.Fatalf("groups %+v", gs)
		}
		if gs, _ := db.ListGroups(ctx, wb.ID, ""); len(gs) != 0 {
			t.Fatalf("B sees A's groups: %+v", gs)
		}
		if gs, _ := db.ListGroups(ctx, wa.ID, "50%_"); len(gs) != 0 {
			t.Fatalf("LIKE wildcards not escaped: %+v", gs)
		}

		// Shares on a history item of A.
		hid := store.NewID()
		wsMust(t, db.InTx(ctx, func(tx *store.Tx) error {
			return tx.InsertHistory(ctx, &store.HistoryItem{ID: hid, WorkspaceID: wa.ID, UserID: owner.ID, RequestID: "r", VoiceID: "v", VoiceName: "V",
				VoiceCategory: "premade", ModelID: "m", Text: "Hello there", Settings: "{}", DateUnix: t0.Unix(), ContentType: "audio/mpeg",
				OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateCreated})
		}))
		if _, err := db.ResourceOf(ctx, wb.ID, store.ResourceHistory, hid); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("A's history found through B")
		}
		res, err := db.ResourceOf(ctx, wa.ID, store.ResourceHistory, hid)
		wsMust(t, err)
		if res.CreatorUserID != owner.ID || res.Name != "Hello there" {
			t.Fatalf("resource %+v", res)
		}
		wsMust(t, db.ShareResource(ctx, wa.ID, store.ResourceHistory, hid, store.Share{PrincipalType: "user", PrincipalID: ed.ID, Role: "viewer"}, t0))
		wsMust(t, db.ShareResource(ctx, wa.ID, store.ResourceHistory, hid, store.Share{PrincipalType: "user", PrincipalID: ed.ID, Role: "editor"}, t0))
		wsMust(t, db.ShareResource(ctx, wa.ID, store.ResourceHistory, hid, store.Share{PrincipalType: "group", PrincipalID: g.ID, Role: "commenter"}, t0))
		if err := db.ShareResource(ctx, wa.ID, store.ResourceHistory, hid, store.Share{PrincipalType: "user", PrincipalID: bUser.ID, Role: "viewer"}, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("shared with a non-member: %v", err)
		}
		shares, _ := db.ListShares(ctx, wa.ID, store.ResourceHistory, hid)
		if len(shares) != 2 || shares[1] != (store.Share{PrincipalType: "user", PrincipalID: ed.ID, Role: "editor"}) {
			t.Fatalf("shares %+v", shares)
		}
		if s, _ := db.ListShares(ctx, wb.ID, store.ResourceHistory, hid); len(s) != 0 {
			t.Fatal("B sees A's shares")
		}

		// Removing the editor takes their group membership and grants with them; deleting the
		// group takes its grants.
		wsMust(t, db.RemoveMember(ctx, wa.ID, ed.ID))
		if n := rawCount(t, db, `SELECT COUNT(*) FROM workspace_group_members WHERE user_id = ?`, ed.ID); n != 0 {
			t.Fatal("group membership orphaned")
		}
		if n := rawCount(t, db, `SELECT COUNT(*) FROM resource_shares WHERE principal_id = ?`, ed.ID); n != 0 {
			t.Fatal("user grant orphaned")
		}
		wsMust(t, db.DeleteGroup(ctx, wa.ID, g.ID))
		if n := rawCount(t, db, `SELECT COUNT(*) FROM resource_shares WHERE workspace_id = ?`, wa.ID); n != 0 {
			t.Fatal("group grant orphaned")
		}
		if err := db.DeleteGroup(ctx, wa.ID, g.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}

func TestUserWorkspacesAndSessionSwitch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, wu := newUser(t, db, "u@example.com")
		_, wo := newUser(t, db, "other@example.com")
		wsMust(t, db.CreateSession(ctx, "tok", store.Session{UserID: u.ID, WorkspaceID: wu.ID, CSRFToken: "c", ExpiresAt: t0.Add(time.Hour).Unix()}, t0))
		if err := db.SetSessionWorkspace(ctx, "tok", u.ID, wo.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("switched into a foreign workspace: %v", err)
		}
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'editor')`, wo.ID, u.ID)
		ms, err := db.UserWorkspaces(ctx, u.ID)
		wsMust(t, err)
		if len(ms) != 2 {
			t.Fatalf("memberships %+v", ms)
		}
		wsMust(t, db.SetSessionWorkspace(ctx, "tok", u.ID, wo.ID))
		if s, _ := db.SessionByToken(ctx, "tok", t0); s.WorkspaceID != wo.ID {
			t.Fatalf("session in %s", s.WorkspaceID)
		}
		// A locked member cannot switch in.
		locked := true
		wsMust(t, db.UpdateMember(ctx, wo.ID, u.ID, nil, &locked))
		wsMust(t, db.SetSessionWorkspace(ctx, "tok", u.ID, wu.ID))
		if err := db.SetSessionWorkspace(ctx, "tok", u.ID, wo.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("locked member switched in: %v", err)
		}
		// Removing the member moves their sessions back to their own workspace.
		wsMust(t, db.SetMaxSeats(ctx, wo.ID, nil))
		rawExec(t, db, `UPDATE sessions SET workspace_id = ? WHERE user_id = ?`, wo.ID, u.ID)
		wsMust(t, db.RemoveMember(ctx, wo.ID, u.ID))
		if s, _ := db.SessionByToken(ctx, "tok", t0); s == nil || s.WorkspaceID != wu.ID {
			t.Fatalf("session after removal %+v", s)
		}
	})
}
