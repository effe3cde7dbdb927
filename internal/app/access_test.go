package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/store"
	"timbre/internal/workspace"
)

// member is a user who joined the env's workspace through an invite, with a key holding "all".
type member struct {
	user *store.User
	key  string
}

// addMember makes a verified user join the env owner's workspace with a role.
func (e *env) addMember(email, role string) member {
	t := e.t
	t.Helper()
	ctx := context.Background()
	db := e.app.DB
	ws := e.user.WorkspaceID
	now := time.Now()
	u, err := e.app.Auth.CreateVerifiedUser(ctx, email, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	joinWorkspace(t, db, ws, e.user.ID, u, role)
	_, secret, err := apikey.Create(ctx, db, nil, apikey.NewKey{WorkspaceID: ws, UserID: u.ID, Name: email + " key", Permissions: []string{apikey.All}}, now)
	if err != nil {
		t.Fatal(err)
	}
	u.WorkspaceID = ws
	return member{u, secret}
}

// joinWorkspace makes u a member of ws with a role, through an invite accepted at once.
func joinWorkspace(tb testing.TB, db *store.DB, ws, inviterID string, u *store.User, role string) {
	tb.Helper()
	ctx := context.Background()
	now := time.Now()
	code := store.RandomString(32)
	if err := db.CreateInvites(ctx, ws, []store.NewInvite{{Code: code, Invite: store.Invite{WorkspaceID: ws, Email: u.Email,
		Role: role, InvitedBy: inviterID, CreatedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}}}, workspace.Seats, now); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.AcceptInvite(ctx, code, u.ID, "", workspace.Seats, now, func(*store.Invite) error { return nil }); err != nil {
		tb.Fatal(err)
	}
}

// group creates a group of the env's workspace (as its owner) with members.
func (e *env) group(name string, perms []string, members ...member) string {
	e.t.Helper()
	g := mustOK(e.t, e.do("POST", "/api/workspace/groups", e.key, map[string]any{"name": name, "permissions": perms}))
	id := g["id"].(string)
	for _, m := range members {
		mustOK(e.t, e.do("POST", "/v1/workspace/groups/"+id+"/members", e.key, map[string]any{"email": m.user.Email}))
	}
	return id
}

func wantRefused(t *testing.T, r *resp, code int, status string) {
	t.Helper()
	expect(t, r, code)
	if s := detailStatus(t, r); s != status {
		t.Fatalf("%s %s: detail.status %q, want %q", r.Request.Method, r.Request.URL.Path, s, status)
	}
}

// Group permissions are enforced: feature permissions limit what a member may use, duty
// permissions hand admin duties to editors, and a delegate never reaches beyond their access.
func TestGroupPermissionsEnforced(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) { groupPermissions(t, d) })
	}
}

func groupPermissions(t *testing.T, dialect store.Dialect) {
	e := newEnv(t, dialect)
	ctx := context.Background()
	if err := e.app.DB.SetTier(ctx, e.user.WorkspaceID, "enterprise"); err != nil {
		t.Fatal(err)
	}
	voiceOnly := e.addMember("voice-only@example.com", access.RoleEditor)
	speaker := e.addMember("speaker@example.com", access.RoleEditor)
	free := e.addMember("free@example.com", access.RoleEditor)
	ops := e.addMember("ops@example.com", access.RoleEditor)
	tts := map[string]any{"text": "Group rules."}

	// Before any group, every editor may speak.
	mustOK(t, e.do("POST", "/v1/text-to-speech/"+sarah, voiceOnly.key, tts))

	// A group listing features limits its members to them; a group listing only duties (or
	// nothing) limits nobody.
	e.group("Voice designers", []string{"voice_lab", "voice_design"}, voiceOnly)
	e.group("Speakers", []string{"text_to_speech"}, speaker)
	e.group("Sharing circle", []string{}, free)
	wantRefused(t, e.do("POST", "/v1/text-to-speech/"+sarah, voiceOnly.key, tts), http.StatusForbidden, "feature_not_allowed")
	wantRefused(t, e.do("POST", "/v1/text-to-speech/"+sarah+"/stream", voiceOnly.key, tts), http.StatusForbidden, "feature_not_allowed")
	wantRefused(t, e.do("POST", "/v1/user/create-api-key", voiceOnly.key, map[string]any{"name": "k"}), http.StatusForbidden, "feature_not_allowed")
	mustOK(t, e.do("POST", "/v1/text-to-speech/"+sarah, speaker.key, tts))
	wantRefused(t, e.do("POST", "/v1/user/create-api-key", speaker.key, map[string]any{"name": "k"}), http.StatusForbidden, "feature_not_allowed")
	mustOK(t, e.do("POST", "/v1/text-to-speech/"+sarah, free.key, tts))
	mustOK(t, e.do("POST", "/v1/user/create-api-key", free.key, map[string]any{"name": "k"}))
	// Admins are never limited by groups.
	e.group("Admins too", []string{"voice_lab"}, member{e.user, e.key})
	mustOK(t, e.do("POST", "/v1/text-to-speech/"+sarah, e.key, tts))

	// Joining a second group widens the features (the union).
	e.group("Also speaks", []string{"text_to_speech"}, voiceOnly)
	mustOK(t, e.do("POST", "/v1/text-to-speech/"+sarah, voiceOnly.key, tts))

	// Duties: an editor is refused admin routes until a group delegates the duty.
	for _, p := range []string{"/v1/workspace/webhooks", "/v1/workspace/audit-logs", "/v1/service-accounts", "/api/workspace/invites"} {
		wantRefused(t, e.do("GET", p, ops.key, nil), http.StatusForbidden, "forbidden")
	}
	r := e.do("GET", "/v1/workspace/can-access-workspace-settings", ops.key, nil)
	if mustOK(t, r)["can_access_workspace_settings"] != false {
		t.Fatalf("an editor without duties may access the workspace settings: %s", r.body)
	}
	dutiesID := e.group("Operations", []string{"webhooks_manage", "audit_log_read", "service_accounts_manage", "workspace_members_invite",
		"workspace_members_remove", "group_members_manage"}, ops)
	for _, p := range []string{"/v1/workspace/webhooks", "/v1/workspace/audit-logs", "/v1/service-accounts", "/api/workspace/invites"} {
		mustOK(t, e.do("GET", p, ops.key, nil))
	}
	if mustOK(t, e.do("GET", "/v1/workspace/can-access-workspace-settings", ops.key, nil))["can_access_workspace_settings"] != true {
		t.Fatal("a delegate cannot reach the workspace settings")
	}
	// Duties that were not delegated stay with admins.
	wantRefused(t, e.do("GET", "/api/workspace/settings", ops.key, nil), http.StatusForbidden, "forbidden")
	wantRefused(t, e.do("POST", "/api/workspace/groups", ops.key, map[string]any{"name": "mine", "permissions": []string{}}), http.StatusForbidden, "forbidden")
	wantRefused(t, e.do("POST", "/v1/workspace/members", ops.key, map[string]any{"email": free.user.Email, "workspace_role": "workspace_admin"}), http.StatusForbidden, "forbidden")

	// A delegate stays within their own access.
	mustOK(t, e.do("POST", "/v1/workspace/invites/add", ops.key, map[string]any{"email": "new-editor@example.com", "workspace_permission": "workspace_member"}))
	wantRefused(t, e.do("POST", "/v1/workspace/invites/add", ops.key, map[string]any{"email": "new-admin@example.com", "seat_type": "workspace_admin"}),
		http.StatusForbidden, "beyond_delegated_access")
	adminsGroup := e.group("Audit only", []string{"audit_log_read", "view_fiat_balance"})
	wantRefused(t, e.do("POST", "/v1/workspace/groups/"+adminsGroup+"/members", ops.key, map[string]any{"email": free.user.Email}),
		http.StatusForbidden, "beyond_delegated_access") // view_fiat_balance is not theirs to give
	wantRefused(t, e.do("POST", "/v1/workspace/groups/"+dutiesID+"/members/remove", ops.key, map[string]any{"email": ops.user.Email}),
		http.StatusForbidden, "beyond_delegated_access") // not their own groups
	speakersOps := e.group("Ops speakers", []string{"webhooks_manage"})
	mustOK(t, e.do("POST", "/v1/workspace/groups/"+speakersOps+"/members", ops.key, map[string]any{"email": free.user.Email}))
	mustOK(t, e.do("POST", "/v1/workspace/groups/"+speakersOps+"/members/remove", ops.key, map[string]any{"email": free.user.Email}))
	wantRefused(t, e.do("DELETE", "/api/workspace/members/"+e.user.ID, ops.key, nil), http.StatusForbidden, "beyond_delegated_access")
	wantRefused(t, e.do("POST", "/v1/service-accounts", ops.key, map[string]any{"name": "robot", "role": "admin"}), http.StatusForbidden, "beyond_delegated_access")
	sa := mustOK(t, e.do("POST", "/v1/service-accounts", ops.key, map[string]any{"name": "robot"}))
	mustOK(t, e.do("POST", "/v1/service-accounts/"+sa["service-account-user-id"].(string)+"/api-keys", ops.key, map[string]any{"name": "robot key", "permissions": []string{"text_to_speech"}}))
	mustOK(t, e.do("DELETE", "/api/workspace/members/"+free.user.ID, ops.key, nil))

	// Leaving the group takes the duty away at once.
	mustOK(t, e.do("POST", "/v1/workspace/groups/"+dutiesID+"/members/remove", e.key, map[string]any{"email": ops.user.Email}))
	wantRefused(t, e.do("GET", "/v1/workspace/webhooks", ops.key, nil), http.StatusForbidden, "forbidden")
	t.Logf("group permissions (%s): features limit members (union of groups, admins exempt); 6 delegated duties open their routes and close on leaving; 6 attempts beyond a delegate's access refused", dialect)
}

// Grants are enforced. History is personal: a member sees their own generations and those shared with them (directly,
// through a group, or with the whole workspace), with the rights of the grant; admins reach any
// item by id; only those with admin on an item share it.
func TestResourceGrantsEnforced(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) { historyGrants(t, d) })
	}
}

func historyGrants(t *testing.T, dialect store.Dialect) {
	e := newEnv(t, dialect)
	if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "enterprise"); err != nil {
		t.Fatal(err)
	}
	author := e.addMember("author@example.com", access.RoleEditor)
	reader := e.addMember("reader@example.com", access.RoleEditor)
	crew := e.addMember("crew@example.com", access.RoleEditor)
	r := e.do("POST", "/v1/text-to-speech/"+sarah, author.key, map[string]any{"text": "The author's own words."})
	mustOK(t, r)
	id := r.Header.Get("history-item-id")
	listed := func(key string) bool {
		t.Helper()
		items := mustOK(t, e.do("GET", "/v1/history", key, nil))["history"].([]any)
		for _, it := range items {
			if it.(map[string]any)["history_item_id"] == id {
				return true
			}
		}
		return false
	}
	share := func(key string, body map[string]any) *resp {
		body["resource_type"] = "history"
		return e.do("POST", "/v1/workspace/resources/"+id+"/share", key, body)
	}
	if !listed(author.key) || listed(reader.key) || listed(e.key) {
		t.Fatal("history lists: want the item in the author's list only")
	}
	for _, q := range []struct{ method, path string }{{"GET", ""}, {"GET", "/audio"}, {"DELETE", ""}, {"GET", "/share-link"}} {
		wantRefused(t, e.do(q.method, "/v1/history/"+id+q.path, reader.key, nil), http.StatusNotFound, "history_item_not_found")
	}
	wantRefused(t, e.do("POST", "/v1/history/"+id+"/feedback", reader.key, map[string]any{"thumbs_up": true}), http.StatusNotFound, "history_item_not_found")
	wantRefused(t, e.do("POST", "/v1/history/download", reader.key, map[string]any{"history_item_ids": []string{id}}), http.StatusNotFound, "history_item_not_found")
	wantRefused(t, e.do("GET", "/v1/workspace/resources/"+id+"?resource_type=history", reader.key, nil), http.StatusNotFound, "resource_not_found")
	wantRefused(t, share(reader.key, map[string]any{"role": "admin", "user_email": reader.user.Email}), http.StatusNotFound, "resource_not_found")

	// The workspace admin reaches the item by id (the spec's admin audio access).
	mustOK(t, e.do("GET", "/v1/history/"+id, e.key, nil))
	expect(t, e.do("GET", "/v1/history/"+id+"/audio", e.key, nil), http.StatusOK)

	// The author shares it with the reader as viewer: listed and readable, not changeable.
	mustOK(t, share(author.key, map[string]any{"role": "viewer", "user_email": reader.user.Email}))
	if !listed(reader.key) {
		t.Fatal("a viewer grant does not list the item")
	}
	mustOK(t, e.do("GET", "/v1/history/"+id, reader.key, nil))
	expect(t, e.do("GET", "/v1/history/"+id+"/audio", reader.key, nil), http.StatusOK)
	expect(t, e.do("POST", "/v1/history/download", reader.key, map[string]any{"history_item_ids": []string{id}}), http.StatusOK)
	wantRefused(t, e.do("POST", "/v1/history/"+id+"/feedback", reader.key, map[string]any{"thumbs_up": true}), http.StatusForbidden, "insufficient_resource_role")
	wantRefused(t, e.do("DELETE", "/v1/history/"+id, reader.key, nil), http.StatusForbidden, "insufficient_resource_role")
	wantRefused(t, e.do("GET", "/v1/history/"+id+"/share-link", reader.key, nil), http.StatusForbidden, "insufficient_resource_role")
	wantRefused(t, share(reader.key, map[string]any{"role": "admin", "user_email": reader.user.Email}), http.StatusForbidden, "forbidden")
	mustOK(t, e.do("GET", "/v1/workspace/resources/"+id+"?resource_type=history", reader.key, nil))

	// Commenter may give feedback.
	mustOK(t, share(author.key, map[string]any{"role": "commenter", "user_email": reader.user.Email}))
	mustOK(t, e.do("POST", "/v1/history/"+id+"/feedback", reader.key, map[string]any{"thumbs_up": true}))

	// A group grant reaches the group's members, and stops when they leave the group.
	if listed(crew.key) {
		t.Fatal("crew sees the item before any grant")
	}
	gid := e.group("Crew", []string{}, crew)
	mustOK(t, share(author.key, map[string]any{"role": "editor", "group_id": gid}))
	if !listed(crew.key) {
		t.Fatal("a group grant does not list the item for the group's member")
	}
	mustOK(t, e.do("POST", "/v1/workspace/groups/"+gid+"/members/remove", e.key, map[string]any{"email": crew.user.Email}))
	if listed(crew.key) {
		t.Fatal("the item stays listed after leaving the group")
	}
	wantRefused(t, e.do("GET", "/v1/history/"+id, crew.key, nil), http.StatusNotFound, "history_item_not_found")

	// A workspace-wide grant (group "default") reaches everyone; an admin grant lets the
	// grantee share further; unsharing takes it back.
	mustOK(t, share(author.key, map[string]any{"role": "viewer", "group_id": "default"}))
	if !listed(crew.key) || !listed(e.key) {
		t.Fatal("a workspace-wide grant does not list the item")
	}
	mustOK(t, share(author.key, map[string]any{"role": "admin", "user_email": reader.user.Email}))
	mustOK(t, share(reader.key, map[string]any{"role": "editor", "user_email": crew.user.Email}))
	mustOK(t, e.do("POST", "/v1/workspace/resources/"+id+"/unshare", author.key, map[string]any{"resource_type": "history", "group_id": "default"}))
	mustOK(t, e.do("POST", "/v1/workspace/resources/"+id+"/unshare", author.key, map[string]any{"resource_type": "history", "user_email": reader.user.Email}))
	if listed(reader.key) {
		t.Fatal("the item stays listed after unsharing")
	}
	// The crew member's editor grant lets them delete it.
	mustOK(t, e.do("DELETE", "/v1/history/"+id, crew.key, nil))

	// A workspace's own voice: every member uses it; only admins and members it is shared with
	// as editor change its settings.
	voiceID := "wsVoice" + store.RandomString(8)
	rawExec(t, e.app.DB, `INSERT INTO voices (id, workspace_id, name, category, description, labels, engine, engine_voice, language, prosody, created_at_unix)
		SELECT ?, ?, 'Team voice', 'cloned', '', labels, engine, engine_voice, language, prosody, created_at_unix FROM voices WHERE id = ?`,
		voiceID, e.user.WorkspaceID, sarah)
	settings := map[string]any{"stability": 0.4, "similarity_boost": 0.7}
	mustOK(t, e.do("GET", "/v1/voices/"+voiceID, reader.key, nil))
	wantRefused(t, e.do("POST", "/v1/voices/"+voiceID+"/settings/edit", reader.key, settings), http.StatusForbidden, "insufficient_resource_role")
	wantRefused(t, e.do("POST", "/v1/workspace/resources/"+voiceID+"/share", reader.key, map[string]any{"resource_type": "voice", "role": "editor", "user_email": reader.user.Email}),
		http.StatusForbidden, "forbidden")
	mustOK(t, e.do("POST", "/v1/voices/"+voiceID+"/settings/edit", e.key, settings))
	mustOK(t, e.do("POST", "/v1/workspace/resources/"+voiceID+"/share", e.key, map[string]any{"resource_type": "voice", "role": "editor", "user_email": reader.user.Email}))
	mustOK(t, e.do("POST", "/v1/voices/"+voiceID+"/settings/edit", reader.key, settings))
	t.Logf("resource grants (%s): personal history lists; viewer/commenter/editor/admin rights per route; user, group and workspace grants; revocation immediate; workspace voices changed only by admins and editor grants", dialect)
}
