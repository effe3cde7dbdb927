package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/api"
	"timbre/internal/docs"
	"timbre/internal/store"
	"timbre/internal/voice"
)

func TestVoices(t *testing.T) {
	e := newEnv(t, store.SQLite)
	all := e.do("GET", "/v1/voices", e.key, nil)
	expect(t, all, 200)
	voices := all.json(t)["voices"].([]any)
	if len(voices) < 20 {
		t.Fatalf("%d premade voices", len(voices))
	}
	for _, v := range voices {
		m := v.(map[string]any)
		for _, k := range []string{"voice_id", "name", "category", "labels", "available_for_tiers", "high_quality_base_model_ids", "preview_url", "verified_languages", "description"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("voice %v lacks %s", m["name"], k)
			}
		}
		if m["category"] != "premade" {
			t.Errorf("category %v", m["category"])
		}
	}
	// The ids of the ElevenLabs documentation resolve.
	for _, id := range []string{"21m00Tcm4TlvDq8ikWAM", "JBFqnCBsd6RMkjVDRZzb", "pNInz6obpgDQGcFmaJgB", "EXAVITQu4vr4xnSDxMaL"} {
		expect(t, e.do("GET", "/v1/voices/"+id, e.key, nil), 200)
	}
	r := e.do("GET", "/v1/voices/nope", e.key, nil)
	expect(t, r, 404)
	if detailStatus(t, r) != "voice_not_found" {
		t.Error("unknown voice status")
	}
	// v2: paging with tokens and a total count, search and sort.
	seen := map[string]bool{}
	token := ""
	for i := 0; i < 20; i++ {
		r := e.do("GET", "/v2/voices?page_size=7&next_page_token="+token, e.key, nil)
		expect(t, r, 200)
		m := r.json(t)
		if int(m["total_count"].(float64)) != len(voices) {
			t.Fatalf("total_count %v, want %d", m["total_count"], len(voices))
		}
		for _, v := range m["voices"].([]any) {
			id := v.(map[string]any)["voice_id"].(string)
			if seen[id] {
				t.Fatalf("voice %s on two pages", id)
			}
			seen[id] = true
		}
		if m["has_more"] != true {
			break
		}
		token = m["next_page_token"].(string)
	}
	if len(seen) != len(voices) {
		t.Errorf("paged through %d voices of %d", len(seen), len(voices))
	}
	r = e.do("GET", "/v2/voices?search=british&sort=name&sort_direction=desc", e.key, nil)
	expect(t, r, 200)
	found := r.json(t)["voices"].([]any)
	if len(found) == 0 || len(found) >= len(voices) {
		t.Errorf("search british: %d voices", len(found))
	}
	for i := 1; i < len(found); i++ {
		if strings.ToLower(found[i-1].(map[string]any)["name"].(string)) < strings.ToLower(found[i].(map[string]any)["name"].(string)) {
			t.Error("not sorted by name descending")
		}
	}
	fieldError(t, e.do("GET", "/v2/voices?page_size=101", e.key, nil))
	fieldError(t, e.do("GET", "/v2/voices?category=robots", e.key, nil))
}

func TestVoiceSettings(t *testing.T) {
	e := newEnv(t, store.SQLite)
	def := e.do("GET", "/v1/voices/settings/default", "", nil)
	expect(t, def, 200)
	var got voice.Resolved
	json.Unmarshal(def.body, &got)
	if got != voice.Defaults || got.Stability != 0.5 || got.SimilarityBoost != 0.75 || got.Style != 0 || !got.UseSpeakerBoost || got.Speed != 1 {
		t.Errorf("defaults %+v", got)
	}
	expect(t, e.do("POST", "/v1/voices/"+sarah+"/settings/edit", e.key, map[string]any{"stability": 0.9, "speed": 1.15}), 200)
	r := e.do("GET", "/v1/voices/"+sarah+"/settings", e.key, nil)
	json.Unmarshal(r.body, &got)
	if got.Stability != 0.9 || got.Speed != 1.15 || got.SimilarityBoost != 0.75 {
		t.Errorf("stored settings %+v", got)
	}
	// Stored settings apply to generations: speed 1.15 makes the same text shorter.
	_, other := e.newUser("other@example.com")
	text := "The quick brown fox jumps over the lazy dog, and then it runs away."
	fast := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=pcm_22050", e.key, map[string]any{"text": text})
	normal := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=pcm_22050", other, map[string]any{"text": text})
	if len(fast.body) >= len(normal.body)*95/100 {
		t.Errorf("speed 1.15 gave %d bytes, normal %d", len(fast.body), len(normal.body))
	}
	// Another workspace's settings are untouched.
	r = e.do("GET", "/v1/voices/"+sarah+"/settings", other, nil)
	json.Unmarshal(r.body, &got)
	if got != voice.Defaults {
		t.Errorf("other workspace sees %+v", got)
	}
	fieldError(t, e.do("POST", "/v1/voices/"+sarah+"/settings/edit", e.key, map[string]any{"similarity_boost": -1}))
	expect(t, e.do("POST", "/v1/voices/nope/settings/edit", e.key, map[string]any{"stability": 0.3}), 404)
}

func TestModels(t *testing.T) {
	e := newEnv(t, store.SQLite)
	r := e.do("GET", "/v1/models", e.key, nil)
	expect(t, r, 200)
	var models []map[string]any
	if err := json.Unmarshal(r.body, &models); err != nil {
		t.Fatal(err)
	}
	required := []string{"model_id", "name", "can_be_finetuned", "can_do_text_to_speech", "can_do_voice_conversion", "can_use_style", "can_use_speaker_boost",
		"serves_pro_voices", "token_cost_factor", "description", "requires_alpha_access", "max_characters_request_free_user",
		"max_characters_request_subscribed_user", "maximum_text_length_per_request", "languages", "model_rates", "concurrency_group"}
	ids := map[string]bool{}
	for _, m := range models {
		for _, k := range required {
			if _, ok := m[k]; !ok {
				t.Errorf("model %v lacks %s", m["model_id"], k)
			}
		}
		ids[m["model_id"].(string)] = true
	}
	for _, id := range []string{"eleven_multilingual_v2", "eleven_flash_v2_5", "eleven_turbo_v2_5", "eleven_v3", "eleven_flash_v2", "eleven_turbo_v2", "timbre_classic_v1"} {
		if !ids[id] {
			t.Errorf("model %s not listed", id)
		}
	}
	// Flash costs half.
	res := e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": "Ten chars!", "model_id": "eleven_flash_v2_5"})
	expect(t, res, 200)
	if res.Header.Get("character-cost") != "5" {
		t.Errorf("flash cost %s, want 5", res.Header.Get("character-cost"))
	}
}

func TestUserAndSubscription(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.generate(e.key, sarah, "Twelve chars")
	u := e.do("GET", "/v1/user", e.key, nil)
	expect(t, u, 200)
	m := u.json(t)
	for _, k := range []string{"user_id", "workspace_id", "subscription", "is_new_user", "can_use_delayed_payment_methods", "is_onboarding_completed", "is_onboarding_checklist_completed", "created_at", "seat_type"} {
		if _, ok := m[k]; !ok {
			t.Errorf("/v1/user lacks %s", k)
		}
	}
	if m["workspace_id"] != e.user.WorkspaceID || m["seat_type"] != "workspace_admin" {
		t.Errorf("user %v", m)
	}
	s := e.do("GET", "/v1/user/subscription", e.key, nil).json(t)
	if s["tier"] != "free" || s["character_limit"].(float64) != 10000 || s["character_count"].(float64) != 12 || s["voice_limit"].(float64) != 3 || s["status"] != "free" {
		t.Errorf("subscription %v", s)
	}
	for _, k := range []string{"max_character_limit_extension", "max_credit_limit_extension", "current_overage", "open_invoices", "has_open_invoices", "next_character_count_reset_unix"} {
		if s[k] == nil {
			t.Errorf("subscription.%s is null", k)
		}
	}
}

func TestOpenAISpeech(t *testing.T) {
	e := newEnv(t, store.SQLite)
	r := e.do("POST", "/v1/audio/speech", "", map[string]any{"model": "tts-1", "input": "Hello from the OpenAI protocol.", "voice": "alloy"}, "Authorization", "Bearer "+e.key)
	expect(t, r, 200)
	if r.Header.Get("Content-Type") != "audio/mpeg" {
		t.Errorf("content type %s", r.Header.Get("Content-Type"))
	}
	checkSpeech(t, r.body, 1, 6)
	r = e.do("POST", "/v1/audio/speech", e.key, map[string]any{"model": "tts-1-hd", "input": "Wave file, slower.", "voice": rachel, "response_format": "wav", "speed": 0.5})
	expect(t, r, 200)
	if !strings.HasPrefix(string(r.body), "RIFF") {
		t.Error("not a wav file")
	}
	// All six of the protocol's formats, each in the content type OpenAI answers with.
	for format, ct := range map[string]string{"aac": "audio/aac", "flac": "audio/flac", "opus": "audio/ogg", "pcm": "audio/pcm"} {
		r = e.do("POST", "/v1/audio/speech", e.key, map[string]any{"model": "gpt-4o-mini-tts", "input": "Six formats.", "voice": "nova",
			"response_format": format, "instructions": "Speak cheerfully."})
		expect(t, r, 200)
		if r.Header.Get("Content-Type") != ct {
			t.Errorf("%s: content type %s, want %s", format, r.Header.Get("Content-Type"), ct)
		}
		if format != "pcm" {
			checkSpeech(t, r.body, 0.4, 4)
		}
	}
	if loc := fieldError(t, e.do("POST", "/v1/audio/speech", e.key, map[string]any{"input": "x", "voice": "alloy", "response_format": "ogg"})); loc[1] != "response_format" {
		t.Errorf("loc %v", loc)
	}
	fieldError(t, e.do("POST", "/v1/audio/speech", e.key, map[string]any{"input": "x", "voice": "alloy", "speed": 9}))
	// Errors name the protocol's fields, not the ElevenLabs body's.
	if loc := fieldError(t, e.do("POST", "/v1/audio/speech", e.key, map[string]any{"input": " ", "voice": "alloy"})); loc[1] != "input" {
		t.Errorf("empty input: loc %v, want input", loc)
	}
	if loc := fieldError(t, e.do("POST", "/v1/audio/speech", e.key, map[string]any{"input": "x", "voice": "alloy", "model": "tts-9"})); loc[1] != "model" {
		t.Errorf("unknown model: loc %v, want model", loc)
	}
	// The Bearer scheme is case-insensitive.
	expect(t, e.do("POST", "/v1/audio/speech", "", map[string]any{"input": "Lower case.", "voice": "alloy", "response_format": "wav"}, "Authorization", "bearer "+e.key), 200)
	expect(t, e.do("POST", "/v1/audio/speech", "", map[string]any{"input": "x", "voice": "alloy"}), 401)
}

func TestOperationalRoutes(t *testing.T) {
	e := newEnv(t, store.SQLite)
	expect(t, e.do("GET", "/healthz", "", nil), 200)
	expect(t, e.do("GET", "/readyz", "", nil), 200)
	e.generate(e.key, sarah, "Counted.")
	// Metrics are not on the public listener (they go to TIMBRE_METRICS_ADDR's own).
	expect(t, e.do("GET", "/metrics", "", nil, "Origin", "https://example.org"), 404)
	ms := httptest.NewServer(e.app.MetricsHandler())
	defer ms.Close()
	res, err := http.Get(ms.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("metrics listener: %d, CORS %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	for _, want := range []string{`timbre_http_requests_total{code="200",route="POST /v1/text-to-speech/{voice_id}"}`, "timbre_http_request_duration_seconds_bucket", `timbre_synthesis_audio_seconds_total{engine="espeak"}`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	r := e.do("GET", "/v1/nothing-here", e.key, nil)
	expect(t, r, 404)
	if detailStatus(t, r) != "not_found" {
		t.Error("unknown API route not in the API's error shape")
	}
	// CORS: browsers on other origins may read the audio headers.
	r = e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": "Cors."}, "Origin", "https://example.org")
	if exp := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(exp, "history-item-id") || !strings.Contains(exp, "character-cost") || !strings.Contains(exp, "request-id") {
		t.Errorf("exposed headers %q", exp)
	}
	pre := e.do("OPTIONS", "/v1/text-to-speech/"+sarah, "", nil, "Origin", "https://example.org", "Access-Control-Request-Method", "POST")
	if pre.StatusCode != http.StatusNoContent || !strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "xi-api-key") {
		t.Errorf("preflight %d %v", pre.StatusCode, pre.Header)
	}
	if r.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Error("credentials must never be allowed across origins")
	}
}

// Every registered route is in the OpenAPI document (and so on /docs), with the right access.
func TestEveryRouteIsDocumented(t *testing.T) {
	e := newEnv(t, store.SQLite)
	var patterns []string
	for _, r := range e.app.Routes() {
		patterns = append(patterns, r.Pattern)
	}
	if missing := docs.CheckComplete(patterns, api.OpenAPI); len(missing) > 0 {
		t.Errorf("routes missing from api/openapi.json (add them to api/routes.txt or api/timbre-own.json and run go run ./cmd/gen-openapi): %v", missing)
	}
	if wrong := docs.CheckAuth(e.app.Routes(), api.OpenAPI); len(wrong) > 0 {
		t.Errorf("documented access differs: %v", wrong)
	}
	page := e.do("GET", "/docs", "", nil)
	expect(t, page, 200)
	if !strings.Contains(string(page.body), "/v1/text-to-speech/{voice_id}/stream/with-timestamps") {
		t.Error("/docs lacks the TTS routes")
	}
	spec := e.do("GET", "/openapi.json", "", nil)
	expect(t, spec, 200)
	if !strings.HasPrefix(spec.json(t)["openapi"].(string), "3.1") {
		t.Error("not OpenAPI 3.1")
	}
}
