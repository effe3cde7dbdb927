package account_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/apikey"
	"timbre/internal/apitest"
	"timbre/internal/auth"
	"timbre/internal/httpx"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

type env struct {
	t        *testing.T
	db       *store.DB
	svc      *account.Service
	mux      *http.ServeMux
	keyA     string // all permissions, user A
	keyB     string // all permissions, user B
	readOnly string // user A, user_read only
	userA    string
	userB    string
	wsA      string
}

// newEnv builds the account routes as the server does, plus GET /test/user, which renders the
// fields GET /v1/user adds from this package.
func newEnv(t *testing.T, db *store.DB, trustGeo bool) *env {
	t.Helper()
	ctx := context.Background()
	now := t0
	svc := &account.Service{DB: db, Now: func() time.Time { return now }, TrustGeoHeaders: trustGeo}
	authSvc := &auth.Service{DB: db, PublicURL: "http://localhost:8080"}
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: authSvc.Authenticate}
	(&account.Handlers{Svc: svc, MaxBody: 1 << 16}).Routes(rt)
	rt.Authed("GET /test/user", func(w http.ResponseWriter, r *http.Request) error {
		f, err := svc.UserFields(r.Context(), r, access.CallerFrom(r.Context()).UserID)
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, http.StatusOK, f)
		return nil
	})
	e := &env{t: t, db: db, svc: svc, mux: mux}
	ua, wa, err := db.CreateUserWithWorkspace(ctx, "a@example.com", "x", true, "free", t0)
	if err != nil {
		t.Fatal(err)
	}
	ub, wb, err := db.CreateUserWithWorkspace(ctx, "b@example.com", "x", true, "free", t0)
	if err != nil {
		t.Fatal(err)
	}
	key := func(userID, wsID string) string {
		_, secret, err := authSvc.CreateAPIKey(ctx, userID, wsID, "test")
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	e.keyA, e.keyB, e.userA, e.userB, e.wsA = key(ua.ID, wa.ID), key(ub.ID, wb.ID), ua.ID, ub.ID, wa.ID
	_, ro, err := apikey.Create(ctx, db, nil, apikey.NewKey{WorkspaceID: wa.ID, UserID: ua.ID, Name: "ro", Permissions: []string{"user_read"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.readOnly = ro
	return e
}

func (e *env) do(key, method, path string, body any, headers ...string) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader = http.NoBody
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	r := httptest.NewRequest(method, path, rd)
	r.RemoteAddr = "203.0.113.7:5555"
	r.Header.Set("xi-api-key", key)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	apitest.Recorded(e.t, r, w)
	var m map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

func (e *env) user(key string, headers ...string) map[string]any {
	e.t.Helper()
	code, m := e.do(key, "GET", "/test/user", nil, headers...)
	if code != 200 {
		e.t.Fatalf("user fields: %d %v", code, m)
	}
	return m
}

func wantCode(t *testing.T, code int, body map[string]any, want int) {
	t.Helper()
	if code != want {
		t.Fatalf("status %d, want %d: %v", code, want, body)
	}
}

func wantInvalid(t *testing.T, code int, body map[string]any, field string) {
	t.Helper()
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %v", code, body)
	}
	list, _ := body["detail"].([]any)
	for _, f := range list {
		loc, _ := f.(map[string]any)["loc"].([]any)
		if len(loc) == 2 && loc[1] == field {
			return
		}
	}
	t.Fatalf("422 %v does not name %s", body, field)
}

func TestOnboardingSurvey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		u := e.user(e.keyA)
		if u["is_onboarding_completed"] != true || u["onboarding_survey"] != nil {
			t.Fatalf("defaults: %v", u)
		}
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"role": "developer"}, "first_name"},
			{map[string]any{"first_name": "  ", "role": "developer"}, "first_name"},
			{map[string]any{"first_name": "Ada"}, "role"},
			{map[string]any{"first_name": "Ada", "role": "dev", "timezone": "Mars/Olympus"}, "timezone"},
			{map[string]any{"first_name": strings.Repeat("a", 101), "role": "dev"}, "first_name"},
			{map[string]any{"first_name": "Ada", "role": "dev\x00"}, "role"},
			{map[string]any{"first_name": 5, "role": "dev"}, "first_name"},
		} {
			code, m := e.do(e.keyA, "POST", "/v1/user/onboarding-survey-complete", c.body)
			wantInvalid(t, code, m, c.field)
		}
		if u := e.user(e.keyA); u["onboarding_survey"] != nil {
			t.Fatalf("a refused survey was stored: %v", u["onboarding_survey"])
		}
		code, m := e.do(e.readOnly, "POST", "/v1/user/onboarding-survey-complete", map[string]any{"first_name": "Ada", "role": "dev"})
		wantCode(t, code, m, http.StatusUnauthorized)

		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-survey-complete", map[string]any{
			"first_name": " Ada ", "role": "developer", "subrole": "backend", "timezone": "Europe/Berlin", "source": "friend"})
		wantCode(t, code, m, 200)
		if m["is_onboarding_completed"] != true {
			t.Fatalf("answer %v", m)
		}
		survey, _ := e.user(e.keyA)["onboarding_survey"].(map[string]any)
		if survey["first_name"] != "Ada" || survey["role"] != "developer" || survey["subrole"] != "backend" ||
			survey["timezone"] != "Europe/Berlin" || survey["source"] != "friend" {
			t.Fatalf("stored survey %v", survey)
		}
		if got, _ := db.UserByID(context.Background(), e.userA); got.FirstName != "Ada" {
			t.Errorf("first name = %q", got.FirstName)
		}
		if e.user(e.keyB)["onboarding_survey"] != nil {
			t.Error("user B got A's survey")
		}
	})
}

func items(t *testing.T, u map[string]any) (map[string]bool, map[string]any) {
	t.Helper()
	cl, _ := u["onboarding_checklist"].(map[string]any)
	if cl == nil {
		t.Fatalf("no checklist in %v", u)
	}
	out := map[string]bool{}
	list, _ := cl["items"].([]any)
	for _, it := range list {
		m := it.(map[string]any)
		out[m["onboarding_checklist_item_id"].(string)] = m["is_completed"].(bool)
	}
	return out, cl
}

func TestOnboardingChecklist(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		ctx := context.Background()
		u := e.user(e.keyA)
		if u["onboarding_checklist"] != nil || u["is_onboarding_checklist_completed"] != true {
			t.Fatalf("defaults: %v", u)
		}
		// Hide and mark-complete need a started checklist.
		code, m := e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/hide", nil)
		wantCode(t, code, m, http.StatusConflict)
		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/mark-complete", nil)
		wantCode(t, code, m, http.StatusConflict)

		// Generating speech before the checklist starts still counts once it does.
		account.CompleteItem(ctx, db, e.userA, account.ItemGenerateSpeech)
		account.CompleteItem(ctx, db, e.userA, account.ItemGenerateSpeech) // idempotent

		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/initiate", nil)
		wantCode(t, code, m, 200)
		got, cl := items(t, m)
		id := cl["checklist_id"]
		if len(got) != len(account.Items) || !got[account.ItemGenerateSpeech] || got[account.ItemAPIKeyUnhidden] || cl["hidden"] != false ||
			m["is_onboarding_checklist_completed"] != false {
			t.Fatalf("after initiate: %v", m)
		}
		// A second initiate keeps the checklist.
		_, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/initiate", nil)
		if _, cl := items(t, m); cl["checklist_id"] != id {
			t.Errorf("re-initiate changed the id: %v → %v", id, cl["checklist_id"])
		}

		// Unknown or missing item → 422 and nothing recorded.
		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/update", map[string]any{"item_id": "win_the_lottery"})
		wantInvalid(t, code, m, "item_id")
		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/update", map[string]any{})
		wantInvalid(t, code, m, "item_id")

		// The web reports the API key being unhidden.
		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/update", map[string]any{"item_id": account.ItemAPIKeyUnhidden})
		wantCode(t, code, m, 200)
		if got, _ := items(t, m); !got[account.ItemAPIKeyUnhidden] || m["newly_completed"] != true {
			t.Fatalf("update: %v", m)
		}
		_, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/update", map[string]any{"item_id": account.ItemAPIKeyUnhidden})
		if m["newly_completed"] != false {
			t.Errorf("second update reported newly completed: %v", m)
		}

		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/hide", nil)
		wantCode(t, code, m, 200)
		if _, cl := items(t, m); cl["hidden"] != true {
			t.Errorf("hide: %v", m)
		}
		code, m = e.do(e.keyA, "POST", "/v1/user/onboarding-checklist/mark-complete", nil)
		wantCode(t, code, m, 200)
		u = e.user(e.keyA)
		if u["is_onboarding_checklist_completed"] != true {
			t.Errorf("mark-complete: %v", u)
		}
		if got, cl := items(t, u); cl["hidden"] != true || !got[account.ItemAPIKeyUnhidden] || !got[account.ItemGenerateSpeech] || got[account.ItemCreateDub] {
			t.Errorf("GET /v1/user fields: %v", u["onboarding_checklist"])
		}
		// User B saw none of it.
		if ub := e.user(e.keyB); ub["onboarding_checklist"] != nil || ub["is_onboarding_checklist_completed"] != true {
			t.Errorf("user B: %v", ub)
		}
		code, m = e.do(e.keyB, "POST", "/v1/user/onboarding-checklist/hide", nil)
		wantCode(t, code, m, http.StatusConflict)
	})
}

func TestNotifications(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		ctx := context.Background()
		if _, err := e.svc.Notify(ctx, e.userA, "critical", "x", "", false); err == nil {
			t.Error("unknown severity accepted")
		}
		if _, err := e.svc.Notify(ctx, e.userA, "info", " ", "", false); err == nil {
			t.Error("empty title accepted")
		}
		idInfo, err := e.svc.Notify(ctx, e.userA, "info", "Welcome", "Glad you are here.", false)
		if err != nil {
			t.Fatal(err)
		}
		idWarn, err := e.svc.Notify(ctx, e.userA, "warning", "Quota almost used", "90% of your characters are used.", true)
		if err != nil {
			t.Fatal(err)
		}
		idB, _ := e.svc.Notify(ctx, e.userB, "error", "B's problem", "", true)

		code, m := e.do(e.readOnly, "GET", "/api/notifications", nil)
		wantCode(t, code, m, 200)
		msgs, _ := m["messages"].([]any)
		if len(msgs) != 2 || m["unread_count"] != float64(2) {
			t.Fatalf("list: %v", m)
		}
		// Both were created at the same millisecond; check shape, not order.
		seen := map[string]map[string]any{}
		for _, x := range msgs {
			mm := x.(map[string]any)
			seen[mm["message_id"].(string)] = mm
		}
		w := seen[idWarn]
		if w == nil || w["severity"] != "warning" || w["title"] != "Quota almost used" || w["needs_attention"] != true ||
			w["has_been_read"] != false || w["create_date_unix_ms"] != float64(t0.UnixMilli()) || seen[idInfo]["needs_attention"] != false {
			t.Fatalf("messages %v", msgs)
		}
		for _, bad := range []string{"?limit=0", "?limit=101", "?limit=x"} {
			code, m := e.do(e.keyA, "GET", "/api/notifications"+bad, nil)
			wantInvalid(t, code, m, "limit")
		}
		code, m = e.do(e.keyA, "GET", "/api/notifications?unread_only=maybe", nil)
		wantInvalid(t, code, m, "unread_only")

		// A's key cannot read B's message, nor can a read-only key mark anything.
		code, m = e.do(e.keyA, "POST", "/api/notifications/"+idB+"/read", nil)
		wantCode(t, code, m, http.StatusNotFound)
		if _, m := e.do(e.keyB, "GET", "/api/notifications", nil); m["unread_count"] != float64(1) {
			t.Errorf("B's unread after A's attempt: %v", m)
		}
		code, m = e.do(e.readOnly, "POST", "/api/notifications/"+idWarn+"/read", nil)
		wantCode(t, code, m, http.StatusUnauthorized)

		code, m = e.do(e.keyA, "POST", "/api/notifications/"+idWarn+"/read", nil)
		wantCode(t, code, m, 200)
		if m["message_id"] != idWarn || m["event"] != "read" {
			t.Errorf("read event %v", m)
		}
		_, m = e.do(e.keyA, "GET", "/api/notifications?unread_only=true", nil)
		if msgs, _ := m["messages"].([]any); len(msgs) != 1 || m["unread_count"] != float64(1) {
			t.Fatalf("unread only: %v", m)
		}
		code, m = e.do(e.keyA, "POST", "/api/notifications/read-all", nil)
		wantCode(t, code, m, 200)
		if m["marked_read"] != float64(1) {
			t.Errorf("read-all %v", m)
		}
		if _, m := e.do(e.keyA, "GET", "/api/notifications", nil); m["unread_count"] != float64(0) {
			t.Errorf("after read-all %v", m)
		}
		if _, m := e.do(e.keyB, "GET", "/api/notifications", nil); m["unread_count"] != float64(1) {
			t.Errorf("A's read-all touched B: %v", m)
		}
	})
}

func TestPrivacyAndTerms(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		if u := e.user(e.keyA); u["ccpa_opt_out"] != false || u["accepted_bipa_terms"] != false {
			t.Fatalf("defaults %v", u)
		}
		code, m := e.do(e.keyA, "POST", "/api/account/ccpa-opt-out", map[string]any{})
		wantInvalid(t, code, m, "ccpa_opt_out")
		code, m = e.do(e.keyA, "POST", "/api/account/ccpa-opt-out", map[string]any{"ccpa_opt_out": "yes"})
		wantInvalid(t, code, m, "ccpa_opt_out")
		if e.user(e.keyA)["ccpa_opt_out"] != false {
			t.Fatal("refused opt-out stored")
		}
		code, m = e.do(e.keyA, "POST", "/api/account/ccpa-opt-out", map[string]any{"ccpa_opt_out": true})
		wantCode(t, code, m, 200)
		if e.user(e.keyA)["ccpa_opt_out"] != true || e.user(e.keyB)["ccpa_opt_out"] != false {
			t.Fatal("opt-out not stored on A only")
		}
		code, m = e.do(e.keyA, "POST", "/v1/user/accept-bipa-terms", nil)
		wantCode(t, code, m, 200)
		if e.user(e.keyA)["accepted_bipa_terms"] != true || e.user(e.keyB)["accepted_bipa_terms"] != false {
			t.Fatal("BIPA acceptance not stored on A only")
		}
		code, m = e.do(e.readOnly, "POST", "/v1/user/accept-bipa-terms", nil)
		wantCode(t, code, m, http.StatusUnauthorized)
		// Both are in A's workspace audit log.
		ents, _, err := db.ListAudit(context.Background(), e.wsA, store.AuditFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		acts := map[string]bool{}
		for _, en := range ents {
			if en.ClassName == "account" && en.ActorUserID == e.userA {
				acts[en.Activity] = true
			}
		}
		if !acts["ccpa_opt_out"] || !acts["accept_bipa_terms"] {
			t.Errorf("audit entries %+v", ents)
		}
	})
}

func TestGeoLocation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		// Not trusted: the headers are ignored.
		e := newEnv(t, db, false)
		if g := e.user(e.keyA, "CF-IPCountry", "US", "X-Geo-Region", "IL")["geo_location"]; g != nil {
			t.Fatalf("untrusted headers used: %v", g)
		}
	})
	e := newEnv(t, testdb.SQLite(t), true)
	for _, c := range []struct {
		headers []string
		want    any
	}{
		{nil, nil},
		{[]string{"CF-IPCountry", "XX"}, nil},
		{[]string{"CF-IPCountry", "us", "X-Geo-Region", "US-IL", "X-Geo-City", "Chicago"},
			map[string]any{"country": "US", "region": "IL", "city": "Chicago"}},
		{[]string{"CF-IPCountry", "US", "CF-Region-Code", "CA", "CF-IPCity", "San Jose"},
			map[string]any{"country": "US", "region": "CA", "city": "San Jose"}},
		{[]string{"X-Geo-Country", "DE"}, map[string]any{"country": "DE", "region": "", "city": ""}},
	} {
		got := e.user(e.keyA, c.headers...)["geo_location"]
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.want)
		if string(gj) != string(wj) {
			t.Errorf("headers %v: geo %s, want %s", c.headers, gj, wj)
		}
	}
}

func TestAlphaAccess(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		code, m := e.do(e.readOnly, "GET", "/v1/user/has-alpha-access", nil)
		wantCode(t, code, m, 200)
		if m["has_alpha_access"] != false || m["alpha_access_requested"] != false {
			t.Fatalf("default %v", m)
		}
		code, m = e.do(e.readOnly, "POST", "/v1/user/request-alpha-access", nil)
		wantCode(t, code, m, http.StatusUnauthorized)
		code, m = e.do(e.keyA, "POST", "/v1/user/request-alpha-access", nil)
		wantCode(t, code, m, 200)
		if m["alpha_access_requested"] != true || m["has_alpha_access"] != false {
			t.Fatalf("after request %v", m)
		}
		e.do(e.keyA, "POST", "/v1/user/request-alpha-access", nil)
		// The first request (only) left a notification.
		if _, m := e.do(e.keyA, "GET", "/api/notifications", nil); m["unread_count"] != float64(1) {
			t.Errorf("notifications after requests: %v", m)
		}
		if _, m := e.do(e.keyB, "GET", "/v1/user/has-alpha-access", nil); m["alpha_access_requested"] != false {
			t.Errorf("B: %v", m)
		}
		if err := db.SetAlphaAccess(context.Background(), e.userA, true); err != nil {
			t.Fatal(err)
		}
		if _, m := e.do(e.keyA, "GET", "/v1/user/has-alpha-access", nil); m["has_alpha_access"] != true {
			t.Errorf("granted: %v", m)
		}
	})
}

func TestPublicUserName(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		ctx := context.Background()
		ua, _ := db.UserByID(ctx, e.userA)
		if n := account.PublicName(ctx, db, ua); n != "a" {
			t.Errorf("default public name %q, want the email's local part", n)
		}
		for _, bad := range []any{map[string]any{}, map[string]any{"public_user_name": "   "},
			map[string]any{"public_user_name": strings.Repeat("x", 51)}, map[string]any{"public_user_name": "a\x07b"}} {
			code, m := e.do(e.keyA, "POST", "/v1/user/update-public-user-name", bad)
			wantInvalid(t, code, m, "public_user_name")
		}
		if n := account.PublicName(ctx, db, ua); n != "a" {
			t.Fatalf("refused name stored: %q", n)
		}
		code, m := e.do(e.keyA, "POST", "/v1/user/update-public-user-name", map[string]any{"public_user_name": "  Ada   Lovelace "})
		wantCode(t, code, m, 200)
		if m["public_user_name"] != "Ada Lovelace" {
			t.Errorf("answer %v", m)
		}
		if n := account.PublicName(ctx, db, ua); n != "Ada Lovelace" {
			t.Errorf("PublicName = %q", n)
		}
		if e.user(e.keyA)["public_user_name"] != "Ada Lovelace" || e.user(e.keyB)["public_user_name"] != nil {
			t.Error("user fields")
		}
		ub, _ := db.UserByID(ctx, e.userB)
		if n := account.PublicName(ctx, db, ub); n != "b" {
			t.Errorf("B's public name %q", n)
		}
	})
}
