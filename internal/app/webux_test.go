package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/access"
	"timbre/internal/app"
	"timbre/internal/config"
	"timbre/internal/store"
)

// GET /api/capabilities: the features for everyone; the caller's per-request limits and cost
// multipliers (what the text-to-speech page shows and checks) once signed in.
func TestCapabilities(t *testing.T) {
	e := newEnv(t, store.SQLite)
	anon := e.do("GET", "/api/capabilities", "", nil)
	expect(t, anon, 200)
	m := anon.json(t)
	ids := map[string]bool{}
	for _, f := range m["features"].([]any) {
		ids[f.(map[string]any)["id"].(string)] = true
	}
	for _, want := range []string{"text_to_speech", "speech_history", "premade_voices", "api_keys", "workspaces", "webhooks", "sso"} {
		if !ids[want] {
			t.Errorf("feature %s missing from %v", want, ids)
		}
	}
	for _, never := range []string{"dubbing", "sound_effects", "voice_cloning"} {
		if ids[never] {
			t.Errorf("capabilities promise %s, which is not built", never)
		}
	}
	if _, ok := m["text_to_speech"]; ok {
		t.Error("an anonymous caller got plan limits")
	}
	// No TIMBRE_TERMS_URL or TIMBRE_PRIVACY_URL: the sign-up form links the built-in pages.
	if legal, _ := m["legal"].(map[string]any); legal["terms_url"] != "/terms" || legal["privacy_url"] != "/privacy" {
		t.Errorf("legal links %v, want the built-in /terms and /privacy", m["legal"])
	}

	limits := func(key string) map[string]map[string]any {
		r := e.do("GET", "/api/capabilities", key, nil)
		expect(t, r, 200)
		out := map[string]map[string]any{}
		for _, x := range r.json(t)["text_to_speech"].(map[string]any)["models"].([]any) {
			lm := x.(map[string]any)
			out[lm["model_id"].(string)] = lm
		}
		return out
	}
	free := limits(e.key)
	for model, want := range map[string]float64{"eleven_multilingual_v2": 2500, "eleven_flash_v2_5": 2500, "eleven_v3": 2500} {
		if got := free[model]["max_characters_per_request"]; got != want {
			t.Errorf("free %s: limit %v, want %v", model, got, want)
		}
	}
	if free["eleven_flash_v2_5"]["character_cost_multiplier"] != 0.5 || free["eleven_multilingual_v2"]["character_cost_multiplier"] != 1.0 {
		t.Errorf("cost multipliers: %v", free)
	}
	// The limit shown is the one the server enforces: 2,500 passes, 2,501 is refused in words.
	ok := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=pcm_16000", e.key, map[string]any{"text": strings.Repeat("a", 2500), "model_id": "eleven_flash_v2_5"})
	expect(t, ok, 200)
	if ok.Header.Get("character-cost") != "1250" {
		t.Errorf("flash cost %q, want 1250 (the page's cost × multiplier)", ok.Header.Get("character-cost"))
	}
	over := e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": strings.Repeat("a", 2501), "model_id": "eleven_flash_v2_5"})
	expect(t, over, 400)
	msg := over.json(t)["detail"].(map[string]any)["message"].(string)
	if strings.Contains(msg, "eleven_flash_v2_5") || !strings.Contains(msg, "Eleven Flash v2.5") || !strings.Contains(msg, "Free plan") {
		t.Errorf("limit message for people: %q", msg)
	}

	if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "creator"); err != nil {
		t.Fatal(err)
	}
	paid := limits(e.key)
	for model, want := range map[string]float64{"eleven_multilingual_v2": 10000, "eleven_flash_v2_5": 10000, "eleven_v3": 5000} {
		if got := paid[model]["max_characters_per_request"]; got != want {
			t.Errorf("creator %s: limit %v, want %v", model, got, want)
		}
	}
}

// Whitespace-only text is no text: 422 naming text, nothing charged.
func TestWhitespaceTextRefused(t *testing.T) {
	e := newEnv(t, store.SQLite)
	before := e.workspace().CharacterCount
	r := e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": " \n\t  "})
	if loc := fieldError(t, r); len(loc) != 2 || loc[1] != "text" {
		t.Fatalf("loc %v", loc)
	}
	if e.workspace().CharacterCount != before {
		t.Error("whitespace text was charged")
	}
}

func TestChangePasswordAndNames(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			tok, csrf := e.openSession(e.user, e.user.WorkspaceID)
			other, _ := e.openSession(e.user, e.user.WorkspaceID)
			sess := []string{"Cookie", "xi_website_session=" + tok, "X-CSRF-Token", csrf}

			// Bad input changes nothing.
			r := e.do("POST", "/api/auth/change-password", "", map[string]any{"current_password": "correct horse battery", "new_password": "short"}, sess...)
			if loc := fieldError(t, r); loc[1] != "new_password" {
				t.Errorf("short password loc %v", loc)
			}
			r = e.do("POST", "/api/auth/change-password", "", map[string]any{"new_password": "a long new passphrase"}, sess...)
			if loc := fieldError(t, r); loc[1] != "current_password" {
				t.Errorf("missing current loc %v", loc)
			}
			r = e.do("POST", "/api/auth/change-password", "", map[string]any{"current_password": "wrong guess here", "new_password": "a long new passphrase"}, sess...)
			expect(t, r, 401)
			if detailStatus(t, r) != "wrong_current_password" {
				t.Errorf("wrong current: %s", r.body)
			}
			r = e.do("POST", "/api/auth/change-password", e.key, map[string]any{"current_password": "correct horse battery", "new_password": "a long new passphrase"})
			expect(t, r, 403)
			signIn := func(pw string) int {
				return e.do("POST", "/api/auth/sign-in", "", map[string]any{"email": e.user.Email, "password": pw}).StatusCode
			}
			if signIn("correct horse battery") != 200 {
				t.Fatal("the old password stopped working after refused changes")
			}

			// Names (while the session lives).
			r = e.do("PATCH", "/api/account", "", map[string]any{"first_name": "   "}, sess...)
			if loc := fieldError(t, r); loc[1] != "first_name" {
				t.Errorf("blank name loc %v", loc)
			}
			expect(t, e.do("PATCH", "/api/account", "", map[string]any{"first_name": " Ada "}, sess...), 200)
			if u, _ := e.app.DB.UserByID(context.Background(), e.user.ID); u.FirstName != "Ada" {
				t.Errorf("first name %q", u.FirstName)
			}
			r = e.do("PATCH", "/api/workspace", "", map[string]any{"name": strings.Repeat("x", 101)}, sess...)
			if loc := fieldError(t, r); loc[1] != "name" {
				t.Errorf("long name loc %v", loc)
			}
			expect(t, e.do("PATCH", "/api/workspace", "", map[string]any{"name": "Ada's studio"}, sess...), 200)
			if e.workspace().Name != "Ada's studio" {
				t.Errorf("workspace name %q", e.workspace().Name)
			}
			// An editor may not rename.
			if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "enterprise"); err != nil {
				t.Fatal(err)
			}
			ed := e.addMember("editor@example.com", access.RoleEditor)
			et, ec := e.openSession(ed.user, e.user.WorkspaceID)
			expect(t, e.do("PATCH", "/api/workspace", "", map[string]any{"name": "mine now"}, "Cookie", "xi_website_session="+et, "X-CSRF-Token", ec), 403)
			if e.workspace().Name != "Ada's studio" {
				t.Error("an editor renamed the workspace")
			}

			// Create a workspace: the session moves there; a key may not.
			expect(t, e.do("POST", "/api/workspaces", e.key, map[string]any{"name": "Keyed"}), 400)
			expect(t, e.do("POST", "/api/workspaces", "", map[string]any{"name": ""}, sess...), 422)
			r = e.do("POST", "/api/workspaces", "", map[string]any{"name": "Second studio"}, sess...)
			expect(t, r, 201)
			newID := r.json(t)["workspace_id"].(string)
			list := e.do("GET", "/api/workspaces", "", nil, sess...)
			expect(t, list, 200)
			lm := list.json(t)
			if lm["current_workspace_id"] != newID || len(lm["workspaces"].([]any)) != 2 {
				t.Errorf("after create: %s", list.body)
			}
			for range 3 {
				expect(t, e.do("POST", "/api/workspaces", "", map[string]any{"name": "More"}, sess...), 201)
			}
			r = e.do("POST", "/api/workspaces", "", map[string]any{"name": "One too many"}, sess...)
			expect(t, r, 409)
			if detailStatus(t, r) != "workspace_limit_reached" {
				t.Errorf("limit: %s", r.body)
			}

			// The change itself: every session ends, the new password works, the old does not.
			r = e.do("POST", "/api/auth/change-password", "", map[string]any{"current_password": "correct horse battery", "new_password": "a long new passphrase"}, sess...)
			expect(t, r, 200)
			expect(t, e.do("GET", "/api/workspaces", "", nil, sess...), 401)
			expect(t, e.do("GET", "/api/workspaces", "", nil, "Cookie", "xi_website_session="+other), 401)
			if signIn("correct horse battery") != 401 || signIn("a long new passphrase") != 200 {
				t.Error("sign-in after the change: old must fail, new must work")
			}
		})
	}
}

// With no TIMBRE_PUBLIC_URL, links in mail point at the address the browser used.
func TestMailLinksFollowTheRequestAddress(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cfg := config.Bind(fs, config.Serve)
	cfg.DataDir = t.TempDir()
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	if !cfg.PublicURLFromRequest {
		t.Fatal("no public URL configured, yet links would not follow the request")
	}
	a, err := app.New(context.Background(), cfg, app.Options{InProcessEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() { srv.Close(); a.Close() })
	body, _ := json.Marshal(map[string]any{"email": "far@example.com", "password": "a long enough passphrase", "terms_accepted": true})
	req, _ := http.NewRequest("POST", srv.URL+"/api/auth/sign-up", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Host = "timbre.lan:8080"
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("sign-up: %d", res.StatusCode)
	}
	mb, err := srv.Client().Get(srv.URL + "/api/dev/mailbox")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(mb.Body)
	mb.Body.Close()
	if !strings.Contains(string(data), "http://timbre.lan:8080/app/action?mode=verifyEmail") || strings.Contains(string(data), "localhost") {
		t.Errorf("verification mail links: %.600s", data)
	}
}
