package apikey_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/apitest"
	"timbre/internal/audio"
	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/tts"
	"timbre/internal/voice"
)

const maxBody = 1 << 20

// rachel is a premade voice id the tests seed straight into the database.
const rachel = "21m00Tcm4TlvDq8ikWAM"

type harness struct {
	t    *testing.T
	db   *store.DB
	svc  *auth.Service
	mux  *http.ServeMux
	sp   *tts.Service
	user *store.User // admin of workspace A
	key  string      // user's key with every permission
}

// newHarness wires the real auth, API-key, voice and speech handlers on a router whose Auth is
// the auth service, as the server does, and makes a verified user with an "all" key.
func newHarness(t *testing.T, db *store.DB) *harness {
	t.Helper()
	svc := &auth.Service{DB: db, PublicURL: "http://timbre.test"}
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: svc.Authenticate}
	(&auth.Handlers{Svc: svc, MaxBody: maxBody}).Routes(rt)
	(&apikey.Handlers{DB: db, MaxBody: maxBody}).Routes(rt)
	voices := &voice.Service{DB: db, PublicURL: "http://timbre.test"}
	(&voice.Handlers{Svc: voices, MaxBody: maxBody, ModelsFor: func(string) []string { return nil }}).Routes(rt)
	sp := &tts.Service{DB: db, Voices: voices}
	(&tts.Handlers{Svc: sp, MaxBody: maxBody}).Routes(rt)
	err := db.UpsertPremadeVoice(context.Background(), store.Voice{ID: rachel, Name: "Rachel", Category: "premade", Labels: "{}",
		Engine: "flite", EngineVoice: "slt", Language: "en", Prosody: "{}", CreatedAt: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, db: db, svc: svc, mux: mux, sp: sp}
	h.user, h.key = h.newUser("owner@example.com")
	return h
}

func (h *harness) newUser(email string) (*store.User, string) {
	h.t.Helper()
	u, err := h.svc.CreateVerifiedUser(context.Background(), email, "correct horse battery")
	if err != nil {
		h.t.Fatal(err)
	}
	_, secret, err := h.svc.CreateAPIKey(context.Background(), u.ID, u.WorkspaceID, "all")
	if err != nil {
		h.t.Fatal(err)
	}
	return u, secret
}

type result struct {
	code int
	body []byte
}

func (h *harness) do(method, path, key string, body any) result {
	h.t.Helper()
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
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		r.Header.Set("xi-api-key", key)
	}
	w := httptest.NewRecorder()
	h.mux.ServeHTTP(w, r)
	apitest.Recorded(h.t, r, w)
	return result{w.Code, w.Body.Bytes()}
}

func (h *harness) want(res result, code int, status string) map[string]any {
	h.t.Helper()
	if res.code != code {
		h.t.Fatalf("status %d, want %d: %.500s", res.code, code, res.body)
	}
	if bytes.HasPrefix(res.body, []byte("[")) && code == http.StatusOK { // a list (GET /v1/models)
		var list []any
		if err := json.Unmarshal(res.body, &list); err != nil || len(list) == 0 {
			h.t.Fatalf("list body %.300s: %v", res.body, err)
		}
		return map[string]any{"list": list}
	}
	var m map[string]any
	if err := json.Unmarshal(res.body, &m); err != nil {
		h.t.Fatalf("body %.500q: %v", res.body, err)
	}
	if status != "" {
		d, _ := m["detail"].(map[string]any)
		if d == nil || d["status"] != status || d["message"] == "" {
			h.t.Fatalf("body %s, want detail.status %s", res.body, status)
		}
	}
	return m
}

// wantInvalid asserts a 422 naming field.
func (h *harness) wantInvalid(res result, field string) {
	h.t.Helper()
	if res.code != http.StatusUnprocessableEntity {
		h.t.Fatalf("status %d, want 422 for %s: %s", res.code, field, res.body)
	}
	var body struct{ Detail []errs.FieldError }
	if err := json.Unmarshal(res.body, &body); err != nil {
		h.t.Fatalf("422 body %s: %v", res.body, err)
	}
	for _, f := range body.Detail {
		if len(f.Loc) == 2 && f.Loc[1] == field && f.Msg != "" {
			return
		}
	}
	h.t.Fatalf("422 %s does not name %s", res.body, field)
}

// serviceAccount creates a service account through the API and a key for it.
func (h *harness) serviceAccount(adminKey, name, role string, keyBody map[string]any) (saID, keyID, secret string) {
	h.t.Helper()
	body := map[string]any{"name": name}
	if role != "" {
		body["role"] = role
	}
	m := h.want(h.do("POST", "/v1/service-accounts", adminKey, body), http.StatusOK, "")
	saID, _ = m["service-account-user-id"].(string)
	if saID == "" {
		h.t.Fatalf("create service account: %v", m)
	}
	if keyBody == nil {
		return saID, "", ""
	}
	m = h.want(h.do("POST", "/v1/service-accounts/"+saID+"/api-keys", adminKey, keyBody), http.StatusOK, "")
	keyID, _ = m["key_id"].(string)
	secret, _ = m["xi-api-key"].(string)
	if keyID == "" || !strings.HasPrefix(secret, "sk_") || len(m) != 2 {
		h.t.Fatalf("create key answer %v", m)
	}
	return saID, keyID, secret
}

func TestPermissionsEnforced(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		_, _, reader := h.serviceAccount(h.key, "reader", "", map[string]any{"name": "voices only", "permissions": []string{"voices_read"}})

		// voices_read: the voice list works; speech and models are refused before anything runs.
		if m := h.want(h.do("GET", "/v1/voices", reader, nil), http.StatusOK, ""); len(m["voices"].([]any)) == 0 {
			t.Fatalf("no voices: %v", m)
		}
		tts := h.want(h.do("POST", "/v1/text-to-speech/"+rachel, reader, map[string]any{"text": "hello"}), http.StatusUnauthorized, "missing_permissions")
		if msg := tts["detail"].(map[string]any)["message"].(string); !strings.Contains(msg, "text_to_speech") {
			t.Errorf("message %q does not name the permission", msg)
		}
		h.want(h.do("GET", "/v1/models", reader, nil), http.StatusUnauthorized, "missing_permissions")
		ws, _ := db.Workspace(context.Background(), h.user.WorkspaceID, time.Now())
		if ws.CharacterCount != 0 {
			t.Fatalf("a refused request charged %d characters", ws.CharacterCount)
		}

		// A user key narrowed with POST /v1/user/edit-api-key.
		m := h.want(h.do("POST", "/v1/user/create-api-key", h.key, map[string]any{"name": "narrow me"}), http.StatusOK, "")
		id, secret := m["key_id"].(string), m["xi_api_key"].(string)
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")
		m = h.want(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"key_id": id, "permissions": []string{"models_read", "models_read"}, "name": "models"}),
			http.StatusOK, "")
		if !slices.Equal(toStrings(m["permissions"]), []string{"models_read"}) || m["name"] != "models" || m["key_id"] != id {
			t.Fatalf("edited key %v", m)
		}
		h.want(h.do("GET", "/v1/models", secret, nil), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "missing_permissions")
		// "no_update" and an absent field leave permissions alone.
		h.want(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"key_id": id, "permissions": "no_update"}), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "missing_permissions")

		// No escalation: a key may only give permissions it holds, and managing keys needs
		// create_user_api_key.
		h.want(h.do("POST", "/v1/user/edit-api-key", secret, map[string]any{"key_id": id, "permissions": "all"}), http.StatusUnauthorized, "missing_permissions")
		m = h.want(h.do("POST", "/v1/user/create-api-key", h.key, map[string]any{"name": "manager"}), http.StatusOK, "")
		mgrID, mgr := m["key_id"].(string), m["xi_api_key"].(string)
		h.want(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"key_id": mgrID, "permissions": []string{"create_user_api_key", "models_read"}}), http.StatusOK, "")
		h.want(h.do("POST", "/v1/user/edit-api-key", mgr, map[string]any{"key_id": id, "permissions": "all"}), http.StatusUnauthorized, "missing_permissions")
		h.want(h.do("POST", "/v1/user/edit-api-key", mgr, map[string]any{"key_id": id, "permissions": []string{"voices_read"}}), http.StatusUnauthorized, "missing_permissions")
		h.want(h.do("POST", "/v1/user/edit-api-key", mgr, map[string]any{"key_id": id, "permissions": []string{"models_read"}, "name": "by manager"}), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "missing_permissions")
		k, _ := db.APIKeyByID(context.Background(), h.user.WorkspaceID, id)
		if !slices.Equal(k.Permissions, []string{"models_read"}) || k.Name != "by manager" {
			t.Fatalf("key after refused escalations %+v", k)
		}
		// The same holds for service-account keys made by a limited admin key.
		h.want(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"key_id": mgrID, "permissions": []string{"service_account_write", "workspace_read", "voices_read"}}), http.StatusOK, "")
		saID, _, _ := h.serviceAccount(mgr, "made by manager", "", nil)
		h.want(h.do("POST", "/v1/service-accounts/"+saID+"/api-keys", mgr, map[string]any{"name": "x", "permissions": "all"}), http.StatusUnauthorized, "missing_permissions")
		h.want(h.do("POST", "/v1/service-accounts/"+saID+"/api-keys", mgr, map[string]any{"name": "x", "permissions": []string{"voices_read"}}), http.StatusOK, "")
	})
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func TestDisableAndSelfDisable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		saID, keyID, secret := h.serviceAccount(h.key, "bot", "", map[string]any{"name": "bot key", "permissions": []string{"voices_read"}})
		path := "/v1/service-accounts/" + saID + "/api-keys/" + keyID
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")

		h.want(h.do("PATCH", path, h.key, map[string]any{"is_enabled": false}), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "api_key_disabled")
		m := h.want(h.do("GET", "/v1/service-accounts/"+saID+"/api-keys", h.key, nil), http.StatusOK, "")
		if k := m["api-keys"].([]any)[0].(map[string]any); k["is_disabled"] != true || k["disable_reason"] != nil {
			t.Fatalf("disabled key listed as %v", k)
		}
		// A PATCH of only other fields keeps it disabled; is_enabled true enables it.
		h.want(h.do("PATCH", path, h.key, map[string]any{"name": "renamed", "is_enabled": "no_update"}), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "api_key_disabled")
		h.want(h.do("PATCH", path, h.key, map[string]any{"is_enabled": true}), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")

		// The holder disables the key itself; only with api_key_name=self, and a web session or
		// nothing at all cannot.
		h.wantInvalid(h.do("POST", "/v1/workspaces/api-keys/disable", secret, nil), "api_key_name")
		h.wantInvalid(h.do("POST", "/v1/workspaces/api-keys/disable?api_key_name=bot+key", secret, nil), "api_key_name")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")
		h.want(h.do("POST", "/v1/workspaces/api-keys/disable?api_key_name=self", "", nil), http.StatusUnauthorized, "invalid_api_key")
		h.want(h.do("POST", "/v1/workspaces/api-keys/disable?api_key_name=self", secret, nil), http.StatusOK, "")
		d := h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "api_key_disabled")
		if msg := d["detail"].(map[string]any)["message"].(string); !strings.Contains(msg, "holder") {
			t.Errorf("self-disabled message %q", msg)
		}
		m = h.want(h.do("GET", "/v1/service-accounts/"+saID+"/api-keys", h.key, nil), http.StatusOK, "")
		if k := m["api-keys"].([]any)[0].(map[string]any); k["is_disabled"] != true || k["disable_reason"] != "self_disabled" || k["name"] != "renamed" {
			t.Fatalf("self-disabled key listed as %v", k)
		}
		// The owner can forbid self-disabling.
		h.want(h.do("PATCH", path, h.key, map[string]any{"is_enabled": true, "third_party_disable_allowed": false}), http.StatusOK, "")
		h.want(h.do("POST", "/v1/workspaces/api-keys/disable?api_key_name=self", secret, nil), http.StatusForbidden, "self_disable_not_allowed")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")

		// Every change is in the audit log, without the secret.
		entries, _, err := db.ListAudit(context.Background(), h.user.WorkspaceID, store.AuditFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var acts []string
		for _, e := range entries {
			acts = append(acts, e.ClassName+"."+e.Activity)
			if strings.Contains(e.Details, secret) {
				t.Fatalf("audit details hold the secret: %s", e.Details)
			}
		}
		for _, want := range []string{"service_account.create", "api_key.create", "api_key.update", "api_key.disable"} {
			if !slices.Contains(acts, want) {
				t.Errorf("audit log %v lacks %s", acts, want)
			}
		}
	})
}

func TestServiceAccountsIsolatedAndAdminOnly(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		ctx := context.Background()
		saID, keyID, secret := h.serviceAccount(h.key, "A's bot", "", map[string]any{"name": "A bot key", "permissions": "all", "character_limit": 1000})
		path := "/v1/service-accounts/" + saID + "/api-keys"

		// The list has the reference's hyphenated keys and every required field.
		m := h.want(h.do("GET", "/v1/service-accounts", h.key, nil), http.StatusOK, "")
		sas := m["service-accounts"].([]any)
		if len(sas) != 1 {
			t.Fatalf("service accounts %v", m)
		}
		sa := sas[0].(map[string]any)
		if sa["service_account_user_id"] != saID || sa["name"] != "A's bot" || sa["created_at_unix"] == nil {
			t.Fatalf("service account %v", sa)
		}
		keys := sa["api-keys"].([]any)
		if len(keys) != 1 {
			t.Fatalf("keys %v", sa)
		}
		k := keys[0].(map[string]any)
		for _, f := range []string{"name", "hint", "key_id", "service_account_user_id", "hashed_xi_api_key"} {
			if s, _ := k[f].(string); s == "" {
				t.Errorf("key lacks required %s: %v", f, k)
			}
		}
		if k["key_id"] != keyID || k["service_account_user_id"] != saID || k["permissions"] != nil || k["character_limit"] != float64(1000) ||
			k["character_count"] != float64(0) || k["is_disabled"] != false || strings.Contains(fmt.Sprint(k), secret) {
			t.Fatalf("key %v", k)
		}

		// The service account's key acts in A as that account, an editor.
		c, err := h.svc.Authenticate(keyRequest(secret))
		if err != nil || c.WorkspaceID != h.user.WorkspaceID || c.UserID != saID || c.Role != access.RoleEditor || c.Permissions != nil {
			t.Fatalf("caller %+v %v", c, err)
		}
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")

		// Editors are refused every service-account route.
		for _, r := range []struct{ method, path string }{
			{"GET", "/v1/service-accounts"}, {"POST", "/v1/service-accounts"}, {"DELETE", "/v1/service-accounts/" + saID},
			{"GET", path}, {"POST", path}, {"PATCH", path + "/" + keyID}, {"DELETE", path + "/" + keyID},
		} {
			h.want(h.do(r.method, r.path, secret, map[string]any{"name": "x", "permissions": "all"}), http.StatusForbidden, "forbidden")
		}

		// Workspace B's admin sees none of it and can change none of it.
		_, bKey := h.newUser("b-admin@example.com")
		m = h.want(h.do("GET", "/v1/service-accounts", bKey, nil), http.StatusOK, "")
		if len(m["service-accounts"].([]any)) != 0 {
			t.Fatalf("B sees %v", m)
		}
		h.want(h.do("GET", path, bKey, nil), http.StatusNotFound, "service_account_not_found")
		h.want(h.do("POST", path, bKey, map[string]any{"name": "intruder", "permissions": "all"}), http.StatusNotFound, "service_account_not_found")
		h.want(h.do("PATCH", path+"/"+keyID, bKey, map[string]any{"is_enabled": false, "name": "owned"}), http.StatusNotFound, "service_account_not_found")
		h.want(h.do("DELETE", path+"/"+keyID, bKey, nil), http.StatusNotFound, "service_account_not_found")
		h.want(h.do("DELETE", "/v1/service-accounts/"+saID, bKey, nil), http.StatusNotFound, "service_account_not_found")
		h.want(h.do("POST", "/v1/user/edit-api-key", bKey, map[string]any{"key_id": keyID, "is_enabled": false}), http.StatusNotFound, "api_key_not_found")
		// B's own service account cannot reach A's key by path either.
		bSA, _, _ := h.serviceAccount(bKey, "B's bot", "", nil)
		h.want(h.do("PATCH", "/v1/service-accounts/"+bSA+"/api-keys/"+keyID, bKey, map[string]any{"is_enabled": false}), http.StatusNotFound, "api_key_not_found")
		h.want(h.do("DELETE", "/v1/service-accounts/"+bSA+"/api-keys/"+keyID, bKey, nil), http.StatusNotFound, "api_key_not_found")
		// A's user keys are not service-account keys, and the reverse.
		h.want(h.do("DELETE", "/v1/user/delete-api-key?key_id="+keyID, h.key, nil), http.StatusNotFound, "api_key_not_found")
		h.want(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"key_id": keyID, "name": "x"}), http.StatusNotFound, "api_key_not_found")

		after, err := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID)
		if err != nil || after.Name != "A bot key" || after.IsDisabled || !after.AllPermissions() {
			t.Fatalf("A's key after B's attempts: %+v %v", after, err)
		}
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusOK, "")

		// An admin service account can manage service accounts; deleting one ends its keys.
		_, _, adminBot := h.serviceAccount(h.key, "admin bot", "admin", map[string]any{"name": "admin bot key", "permissions": []string{"workspace_read", "service_account_write"}})
		h.want(h.do("GET", "/v1/service-accounts", adminBot, nil), http.StatusOK, "")
		h.want(h.do("DELETE", path+"/"+keyID, adminBot, nil), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", secret, nil), http.StatusUnauthorized, "invalid_api_key")
		_, _, second := h.serviceAccount(h.key, "short-lived", "", map[string]any{"name": "k", "permissions": []string{"voices_read"}})
		m = h.want(h.do("GET", "/v1/service-accounts", h.key, nil), http.StatusOK, "")
		var shortID string
		for _, x := range m["service-accounts"].([]any) {
			if x.(map[string]any)["name"] == "short-lived" {
				shortID = x.(map[string]any)["service_account_user_id"].(string)
			}
		}
		h.want(h.do("DELETE", "/v1/service-accounts/"+shortID, h.key, nil), http.StatusOK, "")
		h.want(h.do("GET", "/v1/voices", second, nil), http.StatusUnauthorized, "invalid_api_key")
		h.want(h.do("DELETE", "/v1/service-accounts/"+shortID, h.key, nil), http.StatusNotFound, "service_account_not_found")
	})
}

func keyRequest(secret string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("xi-api-key", secret)
	return r
}

func TestValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		ctx := context.Background()
		saID, keyID, _ := h.serviceAccount(h.key, "bot", "", map[string]any{"name": "k", "permissions": []string{"voices_read"}, "character_limit": 10})
		path := "/v1/service-accounts/" + saID + "/api-keys"

		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"permissions": "all"}, "name"},
			{map[string]any{"name": "  ", "permissions": "all"}, "name"},
			{map[string]any{"name": strings.Repeat("n", 101), "permissions": "all"}, "name"},
			{map[string]any{"name": "k"}, "permissions"},
			{map[string]any{"name": "k", "permissions": []string{"voices_read", "fly"}}, "permissions"},
			{map[string]any{"name": "k", "permissions": []string{}}, "permissions"},
			{map[string]any{"name": "k", "permissions": "no_update"}, "permissions"},
			{map[string]any{"name": "k", "permissions": 7}, "permissions"},
			{map[string]any{"name": "k", "permissions": "all", "character_limit": -1}, "character_limit"},
			{map[string]any{"name": "k", "permissions": "all", "character_limit": "clear"}, "character_limit"},
			{map[string]any{"name": "k", "permissions": "all", "character_limit": 1.5}, "character_limit"},
			{map[string]any{"name": "k", "permissions": "all", "allowed_ips": []string{"10.0.0.0/8"}}, "allowed_ips"},
			{map[string]any{"name": "k", "permissions": "all", "third_party_disable_allowed": "yes"}, "third_party_disable_allowed"},
		} {
			h.wantInvalid(h.do("POST", path, h.key, c.body), c.field)
		}
		h.wantInvalid(h.do("POST", path, h.key, `[1, 2]`), "body")
		if keys, _ := db.ListServiceAccountAPIKeys(ctx, h.user.WorkspaceID, saID); len(keys) != 1 {
			t.Fatalf("refused creations left %d keys", len(keys))
		}

		before, _ := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"permissions": "sometimes", "name": "changed"}, "permissions"},
			{map[string]any{"character_limit": "unlimited", "name": "changed"}, "character_limit"},
			{map[string]any{"is_enabled": "clear", "name": "changed"}, "is_enabled"},
			{map[string]any{"is_enabled": nil, "name": "changed"}, "is_enabled"},
			{map[string]any{"allowed_ips": []string{"1.2.3.4"}, "name": "changed"}, "allowed_ips"},
			{map[string]any{"name": "", "is_enabled": false}, "name"},
		} {
			h.wantInvalid(h.do("PATCH", path+"/"+keyID, h.key, c.body), c.field)
		}
		after, _ := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID)
		if after.Name != before.Name || after.IsDisabled || !slices.Equal(after.Permissions, before.Permissions) || *after.CharacterLimit != 10 {
			t.Fatalf("refused edits changed the key: %+v", after)
		}
		// Sentinels: "clear" removes the limit, an empty PATCH changes nothing.
		h.want(h.do("PATCH", path+"/"+keyID, h.key, nil), http.StatusOK, "")
		h.want(h.do("PATCH", path+"/"+keyID, h.key, map[string]any{"character_limit": "clear", "allowed_ips": "no_update"}), http.StatusOK, "")
		if k, _ := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID); k.CharacterLimit != nil || k.Name != before.Name {
			t.Fatalf("after clear %+v", k)
		}
		h.wantInvalid(h.do("POST", "/v1/user/edit-api-key", h.key, map[string]any{"name": "x"}), "key_id")

		// Service accounts: name and role checked, at most 20.
		h.wantInvalid(h.do("POST", "/v1/service-accounts", h.key, map[string]any{}), "name")
		h.wantInvalid(h.do("POST", "/v1/service-accounts", h.key, map[string]any{"name": "x", "role": "owner"}), "role")
		h.wantInvalid(h.do("POST", "/v1/service-accounts", h.key, map[string]any{"name": "x", "default_sharing_groups": []any{map[string]any{"group_id": "g", "permission_level": "admin"}}}), "default_sharing_groups")
		if sas, _ := db.ListServiceAccounts(ctx, h.user.WorkspaceID); len(sas) != 1 {
			t.Fatalf("refused creations left %d service accounts", len(sas))
		}
		for i := 1; i < apikey.MaxServiceAccounts; i++ {
			h.want(h.do("POST", "/v1/service-accounts", h.key, map[string]any{"name": fmt.Sprintf("bot %d", i)}), http.StatusOK, "")
		}
		h.want(h.do("POST", "/v1/service-accounts", h.key, map[string]any{"name": "one too many"}), http.StatusBadRequest, "service_account_limit_reached")
		if sas, _ := db.ListServiceAccounts(ctx, h.user.WorkspaceID); len(sas) != apikey.MaxServiceAccounts {
			t.Fatalf("%d service accounts, want %d", len(sas), apikey.MaxServiceAccounts)
		}
	})
}

// TestKeyQuotaThroughSpeech charges 20 concurrent requests through tts.Begin with a key whose
// quota fits exactly some of them: the key's count and the workspace's move together.
func TestKeyQuotaThroughSpeech(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		ctx := context.Background()
		const workers, fit = 20, 7
		text := "Exactly twenty chars" // 20 characters at cost factor 1 (the default model)
		_, keyID, secret := h.serviceAccount(h.key, "tts bot", "", map[string]any{"name": "capped", "permissions": []string{"text_to_speech"}, "character_limit": fit*20 + 10})
		c, err := h.svc.Authenticate(keyRequest(secret))
		if err != nil || c.APIKeyID != keyID {
			t.Fatalf("caller %+v %v", c, err)
		}
		f, _ := audio.ParseFormat("mp3_44100_128")
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		var other []error
		var cost int64
		start := make(chan struct{})
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, err := h.sp.Prepare(ctx, c, rachel, &tts.Body{Text: text}, f, true)
				if err != nil {
					mu.Lock()
					other = append(other, err)
					mu.Unlock()
					return
				}
				<-start
				err = h.sp.Begin(ctx, j)
				mu.Lock()
				defer mu.Unlock()
				cost = j.Cost
				var he *errs.Error
				switch {
				case err == nil:
					ok++
				case errors.As(err, &he) && he.Code == "quota_exceeded" && httpx.Status(he.Kind) == http.StatusUnauthorized:
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(other) > 0 {
			t.Fatalf("unexpected errors: %v", other)
		}
		t.Logf("key quota %d, %d concurrent requests of %d credits: %d charged, %d refused with quota_exceeded", fit*20+10, workers, cost, ok, refused)
		if cost != 20 || ok != fit || refused != workers-fit {
			t.Fatalf("cost %d, charged %d, refused %d; want 20, %d, %d", cost, ok, refused, fit, workers-fit)
		}
		k, _ := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID)
		ws, _ := db.Workspace(ctx, h.user.WorkspaceID, time.Now())
		items, _, _ := db.ListHistory(ctx, h.user.WorkspaceID, store.HistoryFilter{PageSize: 100})
		if k.CharacterCount != fit*20 || ws.CharacterCount != fit*20 || len(items) != fit {
			t.Fatalf("key count %d, workspace count %d, history rows %d; want %d, %d, %d", k.CharacterCount, ws.CharacterCount, len(items), fit*20, fit*20, fit)
		}
		// Fail gives the characters back to the key too.
		j, err := h.sp.Prepare(ctx, c, rachel, &tts.Body{Text: "ten chars!"}, f, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.sp.Begin(ctx, j); err != nil {
			t.Fatal(err)
		}
		h.sp.Fail(j)
		if k, _ := db.APIKeyByID(ctx, h.user.WorkspaceID, keyID); k.CharacterCount != fit*20 {
			t.Fatalf("key count after a failed job %d, want %d", k.CharacterCount, fit*20)
		}
		// A web session (no key) is held only to the workspace's quota.
		j, err = h.sp.Prepare(ctx, &access.Caller{UserID: h.user.ID, WorkspaceID: h.user.WorkspaceID, Role: access.RoleAdmin, ViaSession: true}, rachel, &tts.Body{Text: text}, f, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.sp.Begin(ctx, j); err != nil {
			t.Fatalf("session charge: %v", err)
		}
	})
}
