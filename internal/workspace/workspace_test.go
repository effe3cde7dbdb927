package workspace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"timbre/internal/apikey"
	"timbre/internal/apitest"
	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/history"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/user"
	"timbre/internal/workspace"
)

const publicURL = "https://timbre.example"

type env struct {
	t    *testing.T
	db   *store.DB
	mux  *http.ServeMux
	rt   *httpx.Router
	auth *auth.Service
	svc  *workspace.Service
}

// actor is a signed-in browser (session cookie + CSRF token) or an API key.
type actor struct {
	user        *store.User
	token, csrf string
	key         string
	workspaceID string
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	sender := mailer.New(mailer.SMTPConfig{}, db, slog.New(slog.DiscardHandler))
	as := &auth.Service{DB: db, Mail: sender, PublicURL: publicURL}
	ws := &workspace.Service{DB: db, Mail: sender, PublicURL: publicURL}
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: as.Authenticate}
	(&workspace.Handlers{Svc: ws, MaxBody: 1 << 20, SessionCookie: auth.SessionCookie}).Routes(rt)
	(&history.Handlers{DB: db, PublicURL: publicURL, MaxBody: 1 << 20}).Routes(rt)
	(&user.Handlers{DB: db}).Routes(rt)
	return &env{t: t, db: db, mux: mux, rt: rt, auth: as, svc: ws}
}

// signUp creates a verified user (with their own workspace) signed in there.
func (e *env) signUp(email string) actor {
	e.t.Helper()
	u, err := e.auth.CreateVerifiedUser(context.Background(), email, "correct horse battery")
	if err != nil {
		e.t.Fatal(err)
	}
	return e.signIn(u)
}

func (e *env) signIn(u *store.User) actor {
	e.t.Helper()
	token, csrf, err := e.auth.OpenSession(context.Background(), u)
	if err != nil {
		e.t.Fatal(err)
	}
	return actor{user: u, token: token, csrf: csrf, workspaceID: u.WorkspaceID}
}

// keyFor makes an API key of a in its workspace with the given permissions.
func (e *env) keyFor(a actor, perms ...string) actor {
	e.t.Helper()
	_, secret, err := apikey.Create(context.Background(), e.db, nil, apikey.NewKey{WorkspaceID: a.workspaceID, UserID: a.user.ID, Name: "k", Permissions: perms}, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	return actor{user: a.user, key: secret, workspaceID: a.workspaceID}
}

func (e *env) do(a actor, method, path string, body any) *httptest.ResponseRecorder {
	e.t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	r := httptest.NewRequest(method, path, rd)
	r.RemoteAddr = "192.0.2.10:40000"
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if a.key != "" {
		r.Header.Set("xi-api-key", a.key)
	} else if a.token != "" {
		r.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: a.token})
		r.Header.Set(auth.CSRFHeader, a.csrf)
	}
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	apitest.Recorded(e.t, r, w)
	return w
}

func want(t *testing.T, w *httptest.ResponseRecorder, code int, status string) {
	t.Helper()
	if w.Code != code {
		t.Fatalf("status %d, want %d: %s", w.Code, code, w.Body.String())
	}
	if status != "" {
		var m struct {
			Detail struct{ Status, Message string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		if m.Detail.Status != status || m.Detail.Message == "" {
			t.Fatalf("body %s, want detail.status %s", w.Body.String(), status)
		}
	}
}

func wantInvalid(t *testing.T, w *httptest.ResponseRecorder, field string) {
	t.Helper()
	if w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", w.Code, w.Body.String())
	}
	var body struct{ Detail []errs.FieldError }
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	for _, f := range body.Detail {
		if len(f.Loc) == 2 && f.Loc[1] == field {
			return
		}
	}
	t.Fatalf("422 %s does not name %s", w.Body.String(), field)
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("response %d %q: %v", w.Code, w.Body.String(), err)
	}
	return v
}

var codeRE = regexp.MustCompile(`/app/invite\?code=([0-9A-Za-z]+)`)

// inviteCode reads the newest invitation mailed to email from the development mailbox.
func (e *env) inviteCode(email string) string {
	e.t.Helper()
	ms, err := e.db.ListMail(context.Background(), 100)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range ms {
		if m.To == email {
			if c := codeRE.FindStringSubmatch(m.Text); c != nil {
				return c[1]
			}
		}
	}
	e.t.Fatalf("no invitation mailed to %s", email)
	return ""
}

func (e *env) mailCount() int {
	ms, _ := e.db.ListMail(context.Background(), 1000)
	return len(ms)
}

func (e *env) setTier(a actor, tier string) {
	e.t.Helper()
	if err := e.db.SetTier(context.Background(), a.workspaceID, tier); err != nil {
		e.t.Fatal(err)
	}
}

// join invites email into admin's workspace with seat, and has them accept with their session
// (which then works in that workspace).
func (e *env) join(admin actor, member actor, seat string) actor {
	e.t.Helper()
	want(e.t, e.do(admin, "POST", "/v1/workspace/invites/add", map[string]any{"email": member.user.Email, "seat_type": seat}), 200, "")
	want(e.t, e.do(member, "POST", "/v1/workspace/invites/"+e.inviteCode(member.user.Email)+"/accept", nil), 200, "")
	member.workspaceID = admin.workspaceID
	return member
}

func (e *env) addHistory(workspaceID, userID, text string) string {
	e.t.Helper()
	id := store.NewID()
	err := e.db.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.InsertHistory(context.Background(), &store.HistoryItem{ID: id, WorkspaceID: workspaceID, UserID: userID, RequestID: "req_" + id,
			VoiceID: "v1", VoiceName: "Rachel", VoiceCategory: "premade", ModelID: "eleven_multilingual_v2", Text: text, Settings: "{}",
			DateUnix: time.Now().Unix(), ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateCreated})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *env) rawExec(q string, args ...any) {
	e.t.Helper()
	ctx := context.Background()
	var err error
	if e.db.Dialect == store.Postgres {
		n := 0
		q = regexp.MustCompile(`\?`).ReplaceAllStringFunc(q, func(string) string { n++; return fmt.Sprintf("$%d", n) })
		_, err = e.db.PG.Exec(ctx, q, args...)
	} else {
		_, err = e.db.SQLiteDB.ExecContext(ctx, q, args...)
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) addVoice(workspaceID, name string) string {
	id := store.NewID()
	e.rawExec(`INSERT INTO voices (id, workspace_id, name, category, engine, engine_voice, language, created_at_unix) VALUES (?, ?, ?, 'cloned', 'espeak', 'en', 'en', 0)`,
		id, workspaceID, name)
	return id
}

// snapshot is everything an admin of the workspace can read about it.
func (e *env) snapshot(admin actor, resources ...string) string {
	e.t.Helper()
	var b strings.Builder
	for _, p := range append([]string{"/v1/workspace/members", "/api/workspace/invites", "/v1/workspace/groups"}, resources...) {
		w := e.do(admin, "GET", p, nil)
		if w.Code != 200 {
			e.t.Fatalf("snapshot %s: %d %s", p, w.Code, w.Body.String())
		}
		b.WriteString(p + " " + w.Body.String())
	}
	return b.String()
}

// ---- tests -----------------------------------------------------------------------------------

// TestTenantIsolation: workspace B's admin, by session and by key, aims every workspace route at
// workspace A's members, invites, groups and resources; each is refused (404/403/422) and A
// reads the same afterwards.
func TestTenantIsolation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("alice@a.example")
		e.setTier(a, "scale_2024_08_10")
		ed := e.join(a, e.signUp("eddie@a.example"), workspace.SeatMember)
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "pending@a.example"}), 200, "")
		g := decode[map[string]any](t, e.do(a, "POST", "/api/workspace/groups", map[string]any{"name": "Narrators", "permissions": []string{"text_to_speech"}}))
		gid := g["id"].(string)
		want(t, e.do(a, "POST", "/v1/workspace/groups/"+gid+"/members", map[string]any{"email": ed.user.Email}), 200, "")
		hid := e.addHistory(a.workspaceID, a.user.ID, "Alice's words")
		vid := e.addVoice(a.workspaceID, "Alice's voice")
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/share", map[string]any{"role": "viewer", "resource_type": "history", "user_email": ed.user.Email}), 200, "")
		resources := []string{"/v1/workspace/resources/" + hid + "?resource_type=history", "/v1/workspace/resources/" + vid + "?resource_type=voice"}
		before := e.snapshot(a, resources...)

		b := e.signUp("bob@b.example")
		e.setTier(b, "scale_2024_08_10")
		bKey := e.keyFor(b, "all")
		attempts := []struct {
			method, path string
			body         any
			codes        []int
		}{
			{"POST", "/v1/workspace/members", map[string]any{"email": ed.user.Email, "workspace_seat_type": "workspace_admin"}, []int{404}},
			{"POST", "/v1/workspace/members", map[string]any{"email": ed.user.Email, "is_locked": true}, []int{404}},
			{"DELETE", "/api/workspace/members/" + ed.user.ID, nil, []int{404}},
			{"DELETE", "/v1/workspace/invites", map[string]any{"email": "pending@a.example"}, []int{404}},
			{"POST", "/v1/workspace/invites/add", map[string]any{"email": "x@b.example", "group_ids": []string{gid}}, []int{422}},
			{"PATCH", "/api/workspace/groups/" + gid, map[string]any{"name": "Taken over"}, []int{404}},
			{"DELETE", "/api/workspace/groups/" + gid, nil, []int{404}},
			{"POST", "/v1/workspace/groups/" + gid + "/members", map[string]any{"email": "bob@b.example"}, []int{404}},
			{"POST", "/v1/workspace/groups/" + gid + "/members/remove", map[string]any{"email": ed.user.Email}, []int{404}},
			{"GET", resources[0], nil, []int{404}},
			{"GET", resources[1], nil, []int{404}},
			{"POST", "/v1/workspace/resources/" + hid + "/share", map[string]any{"role": "admin", "resource_type": "history", "user_email": "bob@b.example"}, []int{404}},
			{"POST", "/v1/workspace/resources/" + vid + "/share", map[string]any{"role": "admin", "resource_type": "voice", "group_id": "default"}, []int{404}},
			{"POST", "/v1/workspace/resources/" + hid + "/unshare", map[string]any{"resource_type": "history", "user_email": ed.user.Email}, []int{404}},
			{"POST", "/api/workspaces/switch", map[string]any{"workspace_id": a.workspaceID}, []int{404, 400}},
		}
		refused := 0
		for _, who := range []actor{b, bKey} {
			for _, at := range attempts {
				w := e.do(who, at.method, at.path, at.body)
				ok := false
				for _, c := range at.codes {
					ok = ok || w.Code == c
				}
				if !ok {
					t.Fatalf("%s %s by B: %d %s, want one of %v", at.method, at.path, w.Code, w.Body.String(), at.codes)
				}
				refused++
			}
		}
		// B's reads show only B.
		for _, p := range []string{"/v1/workspace/members", "/api/workspace/invites", "/v1/workspace/groups", "/v1/workspace/groups/search?name=Narr"} {
			body := e.do(b, "GET", p, nil).Body.String()
			for _, leak := range []string{"alice@", "eddie@", "pending@", "Narrators", gid} {
				if strings.Contains(body, leak) {
					t.Fatalf("GET %s by B leaks %q: %s", p, leak, body)
				}
			}
		}
		if after := e.snapshot(a, resources...); after != before {
			t.Fatalf("workspace A changed:\nbefore %s\nafter  %s", before, after)
		}
		t.Logf("tenant isolation (%s): %d cross-workspace calls refused, A unchanged", db.Dialect, refused)
	})
}

// TestRoles: an editor reads members but is refused every admin-only route of this package; a
// key without the route's permission is refused.
func TestRoles(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		e.setTier(a, "growing_business")
		ed := e.join(a, e.signUp("editor@a.example"), workspace.SeatMember)
		before := e.snapshot(a)

		want(t, e.do(ed, "GET", "/v1/workspace/members", nil), 200, "")
		if m := decode[map[string]bool](t, e.do(ed, "GET", "/v1/workspace/is-admin", nil)); m["is_admin"] {
			t.Fatal("editor is admin")
		}
		if m := decode[map[string]bool](t, e.do(ed, "GET", "/v1/workspace/can-access-workspace-settings", nil)); m["can_access_workspace_settings"] {
			t.Fatal("editor can access settings")
		}
		if m := decode[map[string]bool](t, e.do(a, "GET", "/v1/workspace/is-admin", nil)); !m["is_admin"] {
			t.Fatal("admin is not admin")
		}
		n := 0
		for _, r := range e.rt.Routes() {
			if !r.AdminOnly {
				continue
			}
			method, path, _ := strings.Cut(r.Pattern, " ")
			path = regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(path, "x")
			want(t, e.do(ed, method, path, map[string]any{"email": a.user.Email}), 403, "forbidden")
			n++
		}
		if n < 12 {
			t.Fatalf("only %d admin routes", n)
		}
		w := e.do(ed, "PUT", "/v1/workspace/update-workspace?training_opt_out=true", nil)
		want(t, w, 403, "forbidden")
		if !strings.Contains(w.Body.String(), "Only workspace admins can change this setting.") {
			t.Fatalf("opt-out refusal %s", w.Body.String())
		}
		if after := e.snapshot(a); after != before {
			t.Fatalf("editor changed the workspace:\n%s\n%s", before, after)
		}
		// Keys: a key without workspace_members_read cannot list members; with it, it can.
		want(t, e.do(e.keyFor(a, "text_to_speech"), "GET", "/v1/workspace/members", nil), 401, "missing_permissions")
		want(t, e.do(e.keyFor(a, "workspace_members_read"), "GET", "/v1/workspace/members", nil), 200, "")
		want(t, e.do(e.keyFor(a, "workspace_members_read"), "POST", "/v1/workspace/invites/add", map[string]any{"email": "z@a.example"}), 401, "missing_permissions")
		t.Logf("roles (%s): editor refused %d admin-only routes", db.Dialect, n)
	})
}

// TestSeats: members plus pending invites never exceed the plan's seats (spec §6).
func TestSeats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		mails := e.mailCount()
		// Free: one seat, the admin's.
		w := e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "one@a.example"})
		want(t, w, 403, "seat_limit_reached")
		if !strings.Contains(w.Body.String(), "Free plan has 1 seat") {
			t.Fatalf("message %s", w.Body.String())
		}
		// Scale (growing_business): three seats. A bulk invite of three does not fit, and
		// creates nothing; two do.
		e.setTier(a, "growing_business")
		want(t, e.do(a, "POST", "/v1/workspace/invites/add-bulk", map[string]any{"emails": []string{"one@a.example", "two@a.example", "three@a.example"}}), 403, "seat_limit_reached")
		if invites := decode[map[string][]any](t, e.do(a, "GET", "/api/workspace/invites", nil)); len(invites["invites"]) != 0 || e.mailCount() != mails {
			t.Fatalf("refused bulk invite left %v", invites)
		}
		want(t, e.do(a, "POST", "/v1/workspace/invites/add-bulk", map[string]any{"emails": []string{"one@a.example", "Two@a.example", "two@a.example"}}), 200, "")
		if invites := decode[map[string][]any](t, e.do(a, "GET", "/api/workspace/invites", nil)); len(invites["invites"]) != 2 || e.mailCount() != mails+2 {
			t.Fatalf("invites %v, mails %d", invites, e.mailCount()-mails)
		}
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "three@a.example"}), 403, "seat_limit_reached")
		// Re-inviting a pending email takes no new seat; withdrawing frees one.
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "two@a.example"}), 200, "")
		want(t, e.do(a, "DELETE", "/v1/workspace/invites", map[string]any{"email": "two@a.example"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "three@a.example"}), 200, "")
		// Accepting re-checks seats: after a downgrade to one seat, an accept is refused.
		three := e.signUp("three@a.example")
		e.setTier(a, "free")
		want(t, e.do(three, "POST", "/v1/workspace/invites/"+e.inviteCode("three@a.example")+"/accept", nil), 403, "seat_limit_reached")
		if _, err := db.Role(context.Background(), a.workspaceID, three.user.ID); err == nil {
			t.Fatal("accepted over the seat limit")
		}
		// Enterprise honours the operator's max_seats.
		e.setTier(a, "enterprise")
		seats := int64(2)
		if err := db.SetMaxSeats(context.Background(), a.workspaceID, &seats); err != nil {
			t.Fatal(err)
		}
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "four@a.example"}), 403, "seat_limit_reached")
		if workspace.Seats("enterprise", nil) != 25 || workspace.Seats("scale_2024_08_10", nil) != 5 || workspace.Seats("pro", &seats) != 1 {
			t.Fatal("seat numbers")
		}
	})
}

// TestInviteAcceptDecline: the invite's email must be the signed-in user's; accepting adds the
// membership with the invite's role and moves the session there; declining withdraws it.
func TestInviteAcceptDecline(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		e.setTier(a, "scale_2024_08_10")
		// Bad input: 422 naming the field, nothing invited.
		mails := e.mailCount()
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "not-an-email"}), "email")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{}), "email")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "x@a.example", "seat_type": "workspace_lite_member"}), "seat_type")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "x@a.example", "usage_limit": -1}), "usage_limit")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add-bulk", map[string]any{"emails": []string{}}), "emails")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/invites/add", `{"email": 5}`), "email")
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "admin@a.example"}), 400, "already_member")
		if invites := decode[map[string][]any](t, e.do(a, "GET", "/api/workspace/invites", nil)); len(invites["invites"]) != 0 || e.mailCount() != mails {
			t.Fatalf("bad input left invites %v", invites)
		}

		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "Xena@a.example", "seat_type": "workspace_admin"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "yuri@a.example"}), 200, "")
		xCode, yCode := e.inviteCode("xena@a.example"), e.inviteCode("yuri@a.example")
		if peek := decode[map[string]any](t, e.do(actor{}, "GET", "/api/workspace/invites/"+xCode, nil)); peek["email"] != "xena@a.example" || peek["seat_type"] != "workspace_admin" {
			t.Fatalf("peek %v", peek)
		}
		x, y := e.signUp("xena@a.example"), e.signUp("yuri@a.example")

		// Yuri cannot use Xena's code, either way.
		want(t, e.do(y, "POST", "/v1/workspace/invites/"+xCode+"/accept", nil), 403, "invite_email_mismatch")
		want(t, e.do(y, "POST", "/v1/workspace/invites/"+xCode+"/decline", nil), 403, "invite_email_mismatch")
		if _, err := db.Role(context.Background(), a.workspaceID, y.user.ID); err == nil {
			t.Fatal("mismatched accept made a member")
		}
		// Xena accepts: admin of A, and her session now works in A.
		w := e.do(x, "POST", "/v1/workspace/invites/"+xCode+"/accept", nil)
		want(t, w, 200, "")
		if m := decode[map[string]any](t, w); m["workspace_id"] != a.workspaceID || m["session_switched"] != true {
			t.Fatalf("accept %v", m)
		}
		if u := decode[map[string]any](t, e.do(x, "GET", "/v1/user", nil)); u["workspace_id"] != a.workspaceID || u["seat_type"] != "workspace_admin" {
			t.Fatalf("after accept /v1/user %v", u)
		}
		want(t, e.do(x, "POST", "/v1/workspace/invites/"+xCode+"/accept", nil), 404, "invite_not_found")
		// Yuri declines: the invite is gone and cannot be accepted.
		want(t, e.do(y, "POST", "/v1/workspace/invites/"+yCode+"/decline", nil), 200, "")
		want(t, e.do(y, "POST", "/v1/workspace/invites/"+yCode+"/accept", nil), 404, "invite_not_found")
		want(t, e.do(actor{}, "GET", "/api/workspace/invites/"+yCode, nil), 404, "invite_not_found")
		members := decode[[]map[string]any](t, e.do(a, "GET", "/v1/workspace/members", nil))
		if len(members) != 2 || members[1]["email"] != "xena@a.example" || members[1]["seat_type"] != "workspace_admin" || members[1]["is_owner"] != false {
			t.Fatalf("members %v", members)
		}
		for _, k := range []string{"user_id", "email", "first_name", "seat_type", "is_owner", "is_locked"} {
			if _, ok := members[0][k]; !ok {
				t.Fatalf("member lacks required key %s: %v", k, members[0])
			}
		}

		// Sign-up with an invite code.
		want(t, e.do(a, "POST", "/v1/workspace/invites/add", map[string]any{"email": "newbie@a.example"}), 200, "")
		code := e.inviteCode("newbie@a.example")
		if err := e.svc.CheckInviteCode(context.Background(), code, "someone@else.example"); err == nil {
			t.Fatal("invite code accepted for another email")
		}
		if err := e.svc.CheckInviteCode(context.Background(), code, "Newbie@a.example"); err != nil {
			t.Fatal(err)
		}
		nu, err := e.auth.CreateVerifiedUser(context.Background(), "newbie@a.example", "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AcceptInviteForNewUser(context.Background(), code, nu); err != nil {
			t.Fatal(err)
		}
		if role, _ := db.Role(context.Background(), a.workspaceID, nu.ID); role != "editor" {
			t.Fatalf("new user's role %q", role)
		}
		if _, err := e.svc.AcceptInviteForNewUser(context.Background(), code, nu); err == nil {
			t.Fatal("invite code used twice")
		}
		// No invite code is stored in plain text.
		rows, _ := db.ListMail(context.Background(), 100)
		for _, m := range rows {
			if c := codeRE.FindStringSubmatch(m.Text); c != nil {
				if _, err := db.InviteByCode(context.Background(), store.HashToken(c[1]), time.Now()); err == nil {
					t.Fatal("invite looked up by its stored hash")
				}
			}
		}
	})
}

// TestMembersUpdateAndRemove: role changes, locking and removal, with the owner protected.
func TestMembersUpdateAndRemove(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		e.setTier(a, "growing_business")
		ed := e.join(a, e.signUp("ed@a.example"), workspace.SeatMember)
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"email": "ed@a.example", "workspace_seat_type": "owner"}), "workspace_seat_type")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"is_locked": true}), "email")
		want(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"email": "admin@a.example", "workspace_seat_type": "workspace_member"}), 400, "workspace_owner")
		want(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"email": "nobody@a.example", "is_locked": true}), 404, "member_not_found")
		want(t, e.do(ed, "GET", "/v1/workspace/is-admin", nil), 200, "")
		// Promote (deprecated field name too), then the editor is an admin.
		want(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"email": "ED@a.example", "workspace_role": "workspace_admin"}), 200, "")
		if m := decode[map[string]bool](t, e.do(ed, "GET", "/v1/workspace/is-admin", nil)); !m["is_admin"] {
			t.Fatal("promotion did not take")
		}
		want(t, e.do(a, "POST", "/v1/workspace/members", map[string]any{"email": "ed@a.example", "workspace_seat_type": "workspace_member", "is_locked": true}), 200, "")
		members := decode[[]map[string]any](t, e.do(a, "GET", "/v1/workspace/members", nil))
		if members[1]["is_locked"] != true || members[1]["seat_type"] != "workspace_member" {
			t.Fatalf("members %v", members)
		}
		// Removal: the owner cannot go; the editor can, and their session leaves the workspace.
		want(t, e.do(a, "DELETE", "/api/workspace/members/"+a.user.ID, nil), 400, "workspace_owner")
		want(t, e.do(a, "DELETE", "/api/workspace/members/"+ed.user.ID, nil), 200, "")
		want(t, e.do(a, "DELETE", "/api/workspace/members/"+ed.user.ID, nil), 404, "member_not_found")
		if u := decode[map[string]any](t, e.do(ed, "GET", "/v1/user", nil)); u["workspace_id"] != ed.user.WorkspaceID {
			t.Fatalf("removed member's session works in %v", u["workspace_id"])
		}
		entries, _, err := db.ListAudit(context.Background(), a.workspaceID, store.AuditFilter{Limit: 100, ClassName: "member"})
		if err != nil {
			t.Fatal(err)
		}
		acts := map[string]int{}
		for _, en := range entries {
			acts[en.Activity]++
		}
		if acts["role_change"] != 2 || acts["lock"] != 1 || acts["remove"] != 1 {
			t.Fatalf("audit %v", acts)
		}
	})
}

// TestSwitchWorkspace: switching changes what /v1/history and /v1/user return.
func TestSwitchWorkspace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		e.setTier(a, "growing_business")
		u := e.join(a, e.signUp("u@u.example"), workspace.SeatMember)
		inA := e.addHistory(a.workspaceID, u.user.ID, "said in A") // history is personal: u's own item in A
		inU := e.addHistory(u.user.WorkspaceID, u.user.ID, "said in U")
		historyIDs := func(who actor) string {
			var page struct {
				History []struct {
					ID string `json:"history_item_id"`
				}
			}
			page = decode[struct {
				History []struct {
					ID string `json:"history_item_id"`
				}
			}](t, e.do(who, "GET", "/v1/history", nil))
			ids := []string{}
			for _, h := range page.History {
				ids = append(ids, h.ID)
			}
			return strings.Join(ids, ",")
		}
		// After accepting, the session is in A.
		if got := historyIDs(u); got != inA {
			t.Fatalf("history in A: %q, want %q", got, inA)
		}
		list := decode[map[string]any](t, e.do(u, "GET", "/api/workspaces", nil))
		if ws := list["workspaces"].([]any); len(ws) != 2 || list["current_workspace_id"] != a.workspaceID {
			t.Fatalf("workspaces %v", list)
		}
		want(t, e.do(u, "POST", "/api/workspaces/switch", map[string]any{"workspace_id": u.user.WorkspaceID}), 200, "")
		if got := historyIDs(u); got != inU {
			t.Fatalf("history after switch: %q, want %q", got, inU)
		}
		if me := decode[map[string]any](t, e.do(u, "GET", "/v1/user", nil)); me["workspace_id"] != u.user.WorkspaceID || me["seat_type"] != "workspace_admin" {
			t.Fatalf("/v1/user after switch %v", me)
		}
		// Refusals change nothing.
		wantInvalid(t, e.do(u, "POST", "/api/workspaces/switch", map[string]any{}), "workspace_id")
		other := e.signUp("other@o.example")
		want(t, e.do(u, "POST", "/api/workspaces/switch", map[string]any{"workspace_id": other.workspaceID}), 404, "workspace_not_found")
		want(t, e.do(e.keyFor(u, "all"), "POST", "/api/workspaces/switch", map[string]any{"workspace_id": a.workspaceID}), 400, "session_required")
		// Without the CSRF token, a cookie-authenticated switch is refused.
		noCSRF := u
		noCSRF.csrf = "wrong"
		want(t, e.do(noCSRF, "POST", "/api/workspaces/switch", map[string]any{"workspace_id": a.workspaceID}), 403, "csrf_failed")
		if got := historyIDs(u); got != inU {
			t.Fatalf("history after refused switches: %q", got)
		}
	})
}

// TestGroupsAndSharing covers the group routes and per-resource sharing in one workspace.
func TestGroupsAndSharing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		e.setTier(a, "growing_business")
		ed := e.join(a, e.signUp("ed@a.example"), workspace.SeatMember)

		wantInvalid(t, e.do(a, "POST", "/api/workspace/groups", map[string]any{"name": "  "}), "name")
		wantInvalid(t, e.do(a, "POST", "/api/workspace/groups", map[string]any{"name": "G", "permissions": []string{"rule_the_world"}}), "permissions")
		wantInvalid(t, e.do(a, "GET", "/v1/workspace/groups/search", nil), "name")
		w := e.do(a, "POST", "/api/workspace/groups", map[string]any{"name": "Narrators", "permissions": []string{"text_to_speech", "dubbing"}})
		want(t, w, 201, "")
		gid := decode[map[string]any](t, w)["id"].(string)
		want(t, e.do(a, "POST", "/api/workspace/groups", map[string]any{"name": "Narrators"}), 409, "group_name_taken")
		want(t, e.do(a, "POST", "/v1/workspace/groups/"+gid+"/members", map[string]any{"email": "ed@a.example"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/groups/"+gid+"/members", map[string]any{"email": "stranger@x.example"}), 404, "member_not_found")
		groups := decode[map[string]map[string]any](t, e.do(ed, "GET", "/v1/workspace/groups", nil))
		if g := groups[gid]; g == nil || fmt.Sprint(g["members"]) != "[ed@a.example]" || fmt.Sprint(g["permissions"]) != "[dubbing text_to_speech]" {
			t.Fatalf("groups %v", groups)
		}
		found := decode[[]map[string]any](t, e.do(a, "GET", "/v1/workspace/groups/search?name=narr", nil))
		if len(found) != 1 || found[0]["id"] != gid || fmt.Sprint(found[0]["members_emails"]) != "[ed@a.example]" {
			t.Fatalf("search %v", found)
		}
		w = e.do(a, "PATCH", "/api/workspace/groups/"+gid, map[string]any{"name": "Voices", "permissions": []string{}})
		want(t, w, 200, "")
		if g := decode[map[string]any](t, w); g["name"] != "Voices" || fmt.Sprint(g["permissions"]) != "[]" {
			t.Fatalf("patched %v", g)
		}

		hid := e.addHistory(a.workspaceID, a.user.ID, "A sentence to share")
		vid := e.addVoice(a.workspaceID, "House voice")
		wantInvalid(t, e.do(a, "GET", "/v1/workspace/resources/"+hid+"?resource_type=dubbing", nil), "resource_type")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/share", map[string]any{"resource_type": "history", "role": "owner", "user_email": "ed@a.example"}), "role")
		wantInvalid(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/share", map[string]any{"resource_type": "history", "role": "viewer"}), "user_email")
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/share", map[string]any{"resource_type": "history", "role": "editor", "user_email": "ed@a.example"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/share", map[string]any{"resource_type": "history", "role": "viewer", "group_id": gid}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+vid+"/share", map[string]any{"resource_type": "voice", "role": "viewer", "group_id": "default"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/unshare", map[string]any{"resource_type": "history", "user_email": "admin@a.example"}), 400, "creator_access")

		meta := decode[map[string]any](t, e.do(ed, "GET", "/v1/workspace/resources/"+hid+"?resource_type=history", nil))
		for _, k := range []string{"resource_id", "resource_name", "resource_type", "creator_user_id", "anonymous_access_level_override", "role_to_group_ids", "share_options"} {
			if _, ok := meta[k]; !ok {
				t.Fatalf("resource lacks %s: %v", k, meta)
			}
		}
		roles := meta["role_to_group_ids"].(map[string]any)
		if fmt.Sprint(roles["admin"]) != "["+a.user.ID+"]" || fmt.Sprint(roles["editor"]) != "["+ed.user.ID+"]" || fmt.Sprint(roles["viewer"]) != "["+gid+"]" ||
			meta["creator_user_id"] != a.user.ID || len(meta["share_options"].([]any)) != 0 {
			t.Fatalf("resource %v", meta)
		}
		vmeta := decode[map[string]any](t, e.do(a, "GET", "/v1/workspace/resources/"+vid+"?resource_type=voice", nil))
		if vmeta["resource_name"] != "House voice" || fmt.Sprint(vmeta["role_to_group_ids"].(map[string]any)["viewer"]) != "[default]" || len(vmeta["share_options"].([]any)) != 3 {
			t.Fatalf("voice %v", vmeta)
		}
		want(t, e.do(a, "POST", "/v1/workspace/resources/"+hid+"/unshare", map[string]any{"resource_type": "history", "user_email": "ed@a.example"}), 200, "")
		// Deleting the group takes its grant; removing from a group.
		want(t, e.do(a, "POST", "/v1/workspace/groups/"+gid+"/members/remove", map[string]any{"email": "ed@a.example"}), 200, "")
		want(t, e.do(a, "POST", "/v1/workspace/groups/"+gid+"/members/remove", map[string]any{"email": "ed@a.example"}), 404, "member_not_found")
		want(t, e.do(a, "DELETE", "/api/workspace/groups/"+gid, nil), 200, "")
		meta = decode[map[string]any](t, e.do(a, "GET", "/v1/workspace/resources/"+hid+"?resource_type=history", nil))
		roles = meta["role_to_group_ids"].(map[string]any)
		if len(roles["viewer"].([]any)) != 0 || len(roles["editor"].([]any)) != 0 {
			t.Fatalf("grants left after unshare and group deletion: %v", roles)
		}
		acts := map[string]int{}
		for _, class := range []string{"group", "sharing"} {
			entries, _, err := db.ListAudit(context.Background(), a.workspaceID, store.AuditFilter{Limit: 100, ClassName: class})
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range entries {
				if en.ActorUserID != a.user.ID {
					t.Fatalf("audit actor %+v", en)
				}
				acts[class+"/"+en.Activity]++
			}
		}
		if acts["group/create"] != 1 || acts["group/update"] != 1 || acts["group/delete"] != 1 || acts["group/add_member"] != 1 ||
			acts["group/remove_member"] != 1 || acts["sharing/share"] != 3 || acts["sharing/unshare"] != 1 {
			t.Fatalf("audit %v", acts)
		}
	})
}

// TestTrainingOptOut: admins change it with the spec's message; bad values are 422.
func TestTrainingOptOut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.signUp("admin@a.example")
		wantInvalid(t, e.do(a, "PUT", "/v1/workspace/update-workspace", nil), "training_opt_out")
		wantInvalid(t, e.do(a, "PUT", "/v1/workspace/update-workspace?training_opt_out=maybe", nil), "training_opt_out")
		if s, _ := db.WorkspaceSettings(context.Background(), a.workspaceID); s.TrainingOptOut || s.TrainingOptOutAtUnix != nil {
			t.Fatal("invalid request changed the setting")
		}
		w := e.do(a, "PUT", "/v1/workspace/update-workspace?training_opt_out=true", nil)
		want(t, w, 200, "")
		if m := decode[map[string]any](t, w); m["message"] != workspace.OptOutUpdated {
			t.Fatalf("response %v", m)
		}
		if s, _ := db.WorkspaceSettings(context.Background(), a.workspaceID); !s.TrainingOptOut || s.TrainingOptOutAtUnix == nil {
			t.Fatalf("setting %+v", s)
		}
		entries, _, _ := db.ListAudit(context.Background(), a.workspaceID, store.AuditFilter{Limit: 10, ClassName: "workspace"})
		if len(entries) != 1 || entries[0].Activity != "update" || !strings.Contains(entries[0].Details, `"training_opt_out":true`) || entries[0].ActorUserID != a.user.ID {
			t.Fatalf("audit %+v", entries)
		}
	})
}
