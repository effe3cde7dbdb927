package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestRateLimitWindow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const w = 15 * time.Minute
		n, err := db.RateLimitHits(ctx, "b", w, t0)
		must(t, "RateLimitHits (none)", err)
		if n != 0 {
			t.Fatalf("fresh bucket = %d", n)
		}
		for i := 1; i <= 3; i++ {
			n, err := db.HitRateLimit(ctx, "b", w, t0.Add(time.Duration(i)*time.Minute))
			must(t, "HitRateLimit", err)
			if n != int64(i) {
				t.Fatalf("hit %d counted %d", i, n)
			}
		}
		if n, _ := db.RateLimitHits(ctx, "b", w, t0.Add(14*time.Minute)); n != 3 {
			t.Errorf("hits within the window = %d, want 3", n)
		}
		if n, _ := db.RateLimitHits(ctx, "other", w, t0.Add(14*time.Minute)); n != 0 {
			t.Errorf("another bucket = %d", n)
		}
		// The window started at the first hit (t0+1m); at t0+16m it has ended.
		if n, _ := db.RateLimitHits(ctx, "b", w, t0.Add(16*time.Minute)); n != 0 {
			t.Errorf("hits after the window = %d, want 0", n)
		}
		if n, _ := db.HitRateLimit(ctx, "b", w, t0.Add(16*time.Minute)); n != 1 {
			t.Errorf("first hit of a new window = %d, want 1", n)
		}
		must(t, "ClearRateLimit", db.ClearRateLimit(ctx, "b"))
		if n, _ := db.RateLimitHits(ctx, "b", w, t0.Add(16*time.Minute)); n != 0 {
			t.Errorf("after clear = %d", n)
		}
		// Concurrent hits are all counted.
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if _, err := db.HitRateLimit(ctx, "c", w, t0); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n, _ := db.RateLimitHits(ctx, "c", w, t0); n != 20 {
			t.Errorf("20 concurrent hits counted %d", n)
		}
	})
}

func TestMFAStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "mfa@example.com")
		v, _ := newUser(t, db, "other@example.com")
		m, err := db.UserMFA(ctx, u.ID)
		must(t, "UserMFA", err)
		if m.Enabled || m.BackupLeft != 0 || m.TOTPSecret != "" {
			t.Fatalf("fresh MFA = %+v", m)
		}
		if err := db.EnableTOTP(ctx, u.ID, "", 1, nil, t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EnableTOTP without a pending secret = %v", err)
		}
		must(t, "SetPendingTOTP", db.SetPendingTOTP(ctx, u.ID, "sealed-1"))
		if err := db.EnableTOTP(ctx, u.ID, "sealed-other", 1, nil, t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EnableTOTP with a replaced pending secret = %v", err)
		}
		must(t, "EnableTOTP", db.EnableTOTP(ctx, u.ID, "sealed-1", 100, []string{"h1", "h2", "h3"}, t0))
		m, _ = db.UserMFA(ctx, u.ID)
		if !m.Enabled || m.TOTPSecret != "sealed-1" || m.PendingSecret != "" || m.LastStep != 100 || m.BackupLeft != 3 || m.EnabledAt == nil || *m.EnabledAt != t0.Unix() {
			t.Fatalf("after enable = %+v", m)
		}
		// Steps only move forward.
		if err := db.UseTOTPStep(ctx, u.ID, 100); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("replayed step = %v", err)
		}
		must(t, "UseTOTPStep", db.UseTOTPStep(ctx, u.ID, 101))
		if err := db.UseTOTPStep(ctx, v.ID, 500); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("step for a user without TOTP = %v", err)
		}
		// Backup codes: once each, per user.
		if err := db.UseBackupCode(ctx, v.ID, "h1", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another user's code = %v", err)
		}
		must(t, "UseBackupCode", db.UseBackupCode(ctx, u.ID, "h1", t0))
		if err := db.UseBackupCode(ctx, u.ID, "h1", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("reused code = %v", err)
		}
		if m, _ := db.UserMFA(ctx, u.ID); m.BackupLeft != 2 {
			t.Errorf("codes left = %d", m.BackupLeft)
		}
		must(t, "ReplaceBackupCodes", db.ReplaceBackupCodes(ctx, u.ID, []string{"n1"}, t0))
		if err := db.UseBackupCode(ctx, u.ID, "h2", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("replaced code = %v", err)
		}
		// Challenges are single use.
		must(t, "CreateMFAChallenge", db.CreateMFAChallenge(ctx, "tok", store.MFAChallenge{UserID: u.ID, RedirectTo: "/app/usage", ExpiresAt: t0.Add(5 * time.Minute).Unix()}))
		c, err := db.MFAChallengeByToken(ctx, "tok", t0)
		must(t, "MFAChallengeByToken", err)
		if c.UserID != u.ID || c.RedirectTo != "/app/usage" {
			t.Errorf("challenge = %+v", c)
		}
		if _, err := db.MFAChallengeByToken(ctx, "tok", t0.Add(5*time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("expired challenge = %v", err)
		}
		must(t, "DeleteMFAChallenge", db.DeleteMFAChallenge(ctx, "tok"))
		if err := db.DeleteMFAChallenge(ctx, "tok"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete = %v", err)
		}
		must(t, "DisableTOTP", db.DisableTOTP(ctx, u.ID))
		if m, _ := db.UserMFA(ctx, u.ID); m.Enabled || m.TOTPSecret != "" || m.BackupLeft != 0 {
			t.Errorf("after disable = %+v", m)
		}
		for _, r := range rawRows(t, db, `SELECT token_hash FROM mfa_challenges`) {
			if r["token_hash"] == "tok" {
				t.Error("challenge token stored in plaintext")
			}
		}
	})
}

func TestSessionSecurityStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "s@example.com")
		v, vw := newUser(t, db, "v@example.com")
		exp := t0.Add(24 * time.Hour).Unix()
		open := func(token, pub string, uid, wid string, at time.Time) {
			must(t, "CreateSessionWithMeta", db.CreateSessionWithMeta(ctx, token, store.Session{UserID: uid, WorkspaceID: wid, CSRFToken: "c-" + token, ExpiresAt: exp},
				store.SessionMeta{PublicID: pub, UserAgent: "UA " + pub, IP: "192.0.2.1"}, at))
		}
		open("t1", "p1", u.ID, w.ID, t0)
		open("t2", "p2", u.ID, w.ID, t0.Add(time.Minute))
		open("tv", "pv", v.ID, vw.ID, t0)

		st, err := db.SessionStateByToken(ctx, "t1", t0)
		must(t, "SessionStateByToken", err)
		if st.UserID != u.ID || st.PublicID != "p1" || st.LastSeen != t0.Unix() || st.CreatedAt != t0.Unix() || st.MFARequired || st.InactivityTimeout != 0 || st.TOTPEnabled {
			t.Fatalf("state = %+v", st)
		}
		rawExec(t, db, `UPDATE workspaces SET mfa_required_for_users = ?, session_inactivity_timeout = ? WHERE id = ?`, true, 900, w.ID)
		st, _ = db.SessionStateByToken(ctx, "t1", t0)
		if !st.MFARequired || st.InactivityTimeout != 900 {
			t.Errorf("workspace settings not read: %+v", st)
		}
		if st, _ := db.SessionStateByToken(ctx, "tv", t0); st.MFARequired || st.InactivityTimeout != 0 {
			t.Errorf("another workspace's settings leaked: %+v", st)
		}

		// Touch writes only once the interval has passed.
		must(t, "TouchSession", db.TouchSession(ctx, "t1", t0.Add(4*time.Minute), 5*time.Minute))
		if st, _ := db.SessionStateByToken(ctx, "t1", t0); st.LastSeen != t0.Unix() {
			t.Errorf("touched too early: %d", st.LastSeen)
		}
		must(t, "TouchSession", db.TouchSession(ctx, "t1", t0.Add(5*time.Minute), 5*time.Minute))
		if st, _ := db.SessionStateByToken(ctx, "t1", t0); st.LastSeen != t0.Add(5*time.Minute).Unix() {
			t.Errorf("not touched: %d", st.LastSeen)
		}

		list, err := db.ListSessions(ctx, u.ID, t0)
		must(t, "ListSessions", err)
		if len(list) != 2 || list[0].PublicID != "p1" || list[0].UserAgent != "UA p1" || list[0].IP != "192.0.2.1" {
			t.Fatalf("list = %+v", list)
		}
		// Revocation is scoped to the user.
		if err := db.DeleteSessionByPublicID(ctx, v.ID, "p2"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another user revoked p2: %v", err)
		}
		if err := db.DeleteSessionByPublicID(ctx, u.ID, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("empty id = %v", err)
		}
		must(t, "DeleteSessionByPublicID", db.DeleteSessionByPublicID(ctx, u.ID, "p2"))
		open("t3", "p3", u.ID, w.ID, t0)
		n, err := db.DeleteUserSessions(ctx, u.ID, "t1")
		must(t, "DeleteUserSessions", err)
		if n != 1 {
			t.Errorf("ended %d others, want 1", n)
		}
		if _, err := db.SessionStateByToken(ctx, "t1", t0); err != nil {
			t.Errorf("kept session gone: %v", err)
		}
		if _, err := db.SessionStateByToken(ctx, "tv", t0); err != nil {
			t.Errorf("another user's session gone: %v", err)
		}
		if n, _ := db.DeleteUserSessions(ctx, u.ID, ""); n != 1 {
			t.Errorf("ending all ended %d", n)
		}
	})
}

func TestActionCodePayloadsAndDeletion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "p@example.com")
		v, _ := newUser(t, db, "q@example.com")
		must(t, "CreateActionCodeWithPayload", db.CreateActionCodeWithPayload(ctx, "123456", u.ID, store.CodeChangeEmail, "new@example.com", t0.Add(time.Minute)))
		// A user-scoped code does not work for another user.
		err := db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.UseUserActionCode(ctx, v.ID, "123456", store.CodeChangeEmail, t0)
			return err
		})
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another user's code = %v", err)
		}
		var payload string
		must(t, "UseUserActionCode", db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if payload, err = tx.UseUserActionCode(ctx, u.ID, "123456", store.CodeChangeEmail, t0); err != nil {
				return err
			}
			return tx.SetEmail(ctx, u.ID, payload)
		}))
		if got, err := db.UserByEmail(ctx, "new@example.com"); err != nil || got.ID != u.ID || !got.EmailVerified {
			t.Errorf("after SetEmail: %+v, %v", got, err)
		}
		// A taken address is a unique violation.
		err = db.InTx(ctx, func(tx *store.Tx) error { return tx.SetEmail(ctx, v.ID, "new@example.com") })
		if !store.IsUniqueViolation(err) {
			t.Errorf("duplicate email = %v", err)
		}
		must(t, "SetProductUpdates", db.SetProductUpdates(ctx, u.ID, false))
		if ok, _ := db.AgreesToProductUpdates(ctx, u.ID); ok {
			t.Error("still agrees")
		}
		if ok, _ := db.AgreesToProductUpdates(ctx, v.ID); !ok {
			t.Error("the default is not agreeing")
		}

		// Deletion of a sole member removes the workspace and reports its blobs.
		ids := testdb.SeedHistory(t, db, w.ID, u.ID, 2, 1, t0)
		must(t, "InsertIsolation", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.InsertIsolation(ctx, &store.Isolation{ID: "iso-del", WorkspaceID: w.ID, UserID: u.ID, Format: "mp3_44100_128",
				DurationSecs: 1, BlobKey: "isolation/" + w.ID + "/iso-del.mp3", CreatedAt: 1})
		}))
		must(t, "InsertSoundGeneration", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.InsertSoundGeneration(ctx, &store.SoundGeneration{ID: "sfx-del", WorkspaceID: w.ID, UserID: u.ID, Text: "rain",
				Settings: "{}", Format: "mp3_44100_128", DurationSecs: 1, BlobKey: "sfx/" + w.ID + "/sfx-del.mp3", CreatedAt: 1})
		}))
		// A cloned voice's recordings are the speaker's voice: they go too.
		must(t, "InsertVoiceSample", db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateVoice(ctx, store.Voice{ID: "voice-del", WorkspaceID: w.ID, Name: "Me", Category: "cloned", Labels: "{}",
				Engine: "flite", EngineVoice: "slt", Language: "en", Prosody: "{}", CreatedAt: 1}); err != nil {
				return err
			}
			// A professional voice's review documents too (the voice package's JSON in voices.pvc).
			if err := tx.CreateVoice(ctx, store.Voice{ID: "pvc-del", WorkspaceID: w.ID, Name: "Pro", Category: "professional", Labels: "{}",
				Engine: "flite", EngineVoice: "slt", Language: "en", Prosody: "{}", CreatedAt: 1,
				PVC: `{"manual_requested":true,"manual_files":["pvc-verification/` + w.ID + `/pvc-del/doc1","pvc-verification/` + w.ID + `/pvc-del/doc2"]}`}); err != nil {
				return err
			}
			return tx.InsertVoiceSample(ctx, store.VoiceSample{ID: "sample-del", VoiceID: "voice-del", WorkspaceID: w.ID, FileName: "me.mp3",
				MimeType: "audio/mpeg", BlobKey: "samples/" + w.ID + "/sample-del", Voiceprint: "{}", CreatedAt: 1})
		}))
		del, err := db.DeleteAccount(ctx, u.ID)
		must(t, "DeleteAccount", err)
		if len(del.Workspaces) != 1 || del.Workspaces[0] != w.ID || len(del.Left) != 0 || len(del.BlobKeys) != len(ids)+5 ||
			!slices.Contains(del.BlobKeys, "pvc-verification/"+w.ID+"/pvc-del/doc2") ||
			!slices.Contains(del.BlobKeys, "isolation/"+w.ID+"/iso-del.mp3") || !slices.Contains(del.BlobKeys, "sfx/"+w.ID+"/sfx-del.mp3") ||
			!slices.Contains(del.BlobKeys, "samples/"+w.ID+"/sample-del") {
			t.Errorf("deleted = %+v", del)
		}
		if _, err := db.Workspace(ctx, w.ID, t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("workspace still there: %v", err)
		}
		if rows := rawRows(t, db, `SELECT COUNT(*) AS n FROM history WHERE workspace_id = ?`, w.ID); rows[0]["n"] != "0" {
			t.Errorf("history left: %v", rows)
		}
		if _, err := db.DeleteAccount(ctx, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete = %v", err)
		}
		if _, err := db.UserByID(ctx, v.ID); err != nil {
			t.Errorf("another user went too: %v", err)
		}
	})
}

// TestDeleteAccountRehomesDefaults: deleting an account deletes workspaces it was alone in, even
// when other people (removed members, no longer in it) still have one as their default
// workspace: they move to a workspace they belong to, or to a new one of their own.
func TestDeleteAccountRehomesDefaults(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		owner, w := newUser(t, db, "owner@rehome.example")
		member, own := newUser(t, db, "member@rehome.example")
		loner, lonerWS := newUser(t, db, "loner@rehome.example")
		// member and loner had w as default (SSO provisioning does this) and were removed from
		// it; member still belongs to its own workspace, loner to none.
		rawExec(t, db, `UPDATE users SET workspace_id = ? WHERE id IN (?, ?)`, w.ID, member.ID, loner.ID)
		rawExec(t, db, `DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?`, lonerWS.ID, loner.ID)
		rawExec(t, db, `DELETE FROM workspaces WHERE id = ?`, lonerWS.ID)

		del, err := db.DeleteAccount(ctx, owner.ID)
		must(t, "DeleteAccount", err)
		if len(del.Workspaces) != 1 || del.Workspaces[0] != w.ID {
			t.Fatalf("deleted %+v", del)
		}
		if _, err := db.Workspace(ctx, w.ID, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("workspace still there: %v", err)
		}
		m, err := db.UserByID(ctx, member.ID)
		if err != nil || m.WorkspaceID != own.ID {
			t.Fatalf("member's default = %+v, %v; want %s", m, err, own.ID)
		}
		l, err := db.UserByID(ctx, loner.ID)
		if err != nil || l.WorkspaceID == w.ID || l.WorkspaceID == "" {
			t.Fatalf("loner's default = %+v, %v", l, err)
		}
		nw, err := db.Workspace(ctx, l.WorkspaceID, t0)
		if err != nil || nw.OwnerID != loner.ID {
			t.Fatalf("loner's new workspace %+v, %v", nw, err)
		}
		if role, err := db.Role(ctx, l.WorkspaceID, loner.ID); err != nil || role != "admin" {
			t.Fatalf("loner's role there %q, %v", role, err)
		}
	})
}

// TestLeavingHandsHistoryToTheOwner: history is personal, so a member who is removed or deletes
// their account leaves their generations in a shared workspace to its (new) owner, never to nobody.
func TestLeavingHandsHistoryToTheOwner(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		owner, w := newUser(t, db, "owner@leave.example")
		removed, _ := newUser(t, db, "removed@leave.example")
		deleted, _ := newUser(t, db, "deleted@leave.example")
		for _, u := range []*store.User{removed, deleted} {
			rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at_unix) VALUES (?, ?, 'editor', 0)`, w.ID, u.ID)
		}
		testdb.SeedHistory(t, db, w.ID, removed.ID, 3, 1, t0)
		testdb.SeedHistory(t, db, w.ID, deleted.ID, 2, 1, t0)
		owned := func(userID string) string {
			return rawRows(t, db, `SELECT COUNT(*) AS n FROM history WHERE workspace_id = ? AND user_id = ?`, w.ID, userID)[0]["n"]
		}
		must(t, "RemoveMember", db.RemoveMember(ctx, w.ID, removed.ID))
		if owned(removed.ID) != "0" || owned(owner.ID) != "3" {
			t.Fatalf("after removal: removed owns %s, owner %s; want 0 and 3", owned(removed.ID), owned(owner.ID))
		}
		// The owner deletes their account: the workspace passes to the remaining member, with
		// the owner's history.
		_, err := db.DeleteAccount(ctx, owner.ID)
		must(t, "DeleteAccount", err)
		if owned(deleted.ID) != "5" {
			t.Fatalf("after the owner's deletion the new owner holds %s items, want 5", owned(deleted.ID))
		}
		if n := rawRows(t, db, `SELECT COUNT(*) AS n FROM history WHERE user_id = ''`)[0]["n"]; n != "0" {
			t.Fatalf("%s history items belong to nobody", n)
		}
	})
}
