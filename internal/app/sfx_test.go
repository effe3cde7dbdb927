package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/config"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

type sfxHistory struct {
	Items []struct {
		ID       string `json:"sound_generation_history_item_id"`
		Text     string `json:"text"`
		Settings struct {
			Loop            bool     `json:"loop"`
			DurationSeconds *float64 `json:"duration_seconds"`
			PromptInfluence float64  `json:"prompt_influence"`
			Seed            uint64   `json:"seed"`
			Engine          string   `json:"engine"`
			Recipes         []string `json:"recipes"`
		} `json:"settings"`
		DurationSeconds float64 `json:"duration_seconds"`
		Format          string  `json:"format"`
		DownloadURL     string  `json:"download_url"`
	} `json:"items"`
	HasMore bool `json:"has_more"`
}

func (e *env) sfxHistory(key, query string) sfxHistory {
	e.t.Helper()
	r := e.do("GET", "/v1/sound-generation/history"+query, key, nil)
	expect(e.t, r, 200)
	var h sfxHistory
	if err := json.Unmarshal(r.body, &h); err != nil {
		e.t.Fatal(err)
	}
	return h
}

// TestSoundEffects: a prompt becomes audio of the requested duration, charged 40 credits per
// delivered second in the same ledger, named recipes in a header and the history, repeatable by
// seed, listed, downloadable and deletable, invisible to another workspace.
func TestSoundEffects(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			before := e.workspace().CharacterCount

			body := map[string]any{"text": "a door creaks then slams in an old castle", "duration_seconds": 2.5, "prompt_influence": 0.6, "seed": 1234}
			r := e.do("POST", "/v1/sound-generation?output_format=pcm_16000", e.key, body)
			expect(t, r, 200)
			if got := float64(len(r.body)) / 2 / 16000; math.Abs(got-2.5) > 0.01 {
				t.Fatalf("pcm lasts %.3f s, want 2.5", got)
			}
			if rc := r.Header.Get("x-timbre-sfx-recipes"); rc != "door_creak,door_slam" || r.Header.Get("x-timbre-sfx-seed") != "1234" {
				t.Fatalf("recipes %q seed %q", rc, r.Header.Get("x-timbre-sfx-seed"))
			}
			if cost := r.Header.Get("character-cost"); cost != "120" || e.workspace().CharacterCount-before != 120 {
				t.Fatalf("cost header %q, charged %d: want 120 (3 s × 40)", cost, e.workspace().CharacterCount-before)
			}
			id := r.Header.Get("history-item-id")
			// The same seed and prompt: the same bytes.
			again := e.do("POST", "/v1/sound-generation?output_format=pcm_16000", e.key, body)
			expect(t, again, 200)
			if string(again.body) != string(r.body) {
				t.Fatal("same seed and prompt gave different audio")
			}

			// mp3 by default, the server picking the duration; looped.
			m := e.do("POST", "/v1/sound-generation", e.key, map[string]any{"text": "heavy rain", "loop": true, "duration_seconds": nil})
			expect(t, m, 200)
			if ct := m.Header.Get("Content-Type"); ct != "audio/mpeg" {
				t.Fatalf("content type %q", ct)
			}
			pcm, rate, err := audio.Decode(ctx, m.body)
			if err != nil || float64(len(pcm))/float64(rate) < 3.9 {
				t.Fatalf("decoded mp3: %v, %d samples", err, len(pcm))
			}

			h := e.sfxHistory(e.key, "")
			if len(h.Items) != 3 || h.HasMore {
				t.Fatalf("history: %+v", h)
			}
			var first = h.Items[2] // oldest last (or tied within a second: find by id)
			for _, it := range h.Items {
				if it.ID == id {
					first = it
				}
			}
			if first.ID != id || first.Text != body["text"] || first.Settings.Seed != 1234 || first.Settings.DurationSeconds == nil ||
				*first.Settings.DurationSeconds != 2.5 || first.Settings.Engine != "procedural" || first.Format != "pcm_16000" ||
				strings.Join(first.Settings.Recipes, ",") != "door_creak,door_slam" || math.Abs(first.DurationSeconds-2.5) > 0.01 {
				t.Fatalf("history item: %+v", first)
			}
			dl := e.do("GET", first.DownloadURL, e.key, nil)
			expect(t, dl, 200)
			if string(dl.body) != string(r.body) {
				t.Fatal("the download differs from the response")
			}
			if s := e.sfxHistory(e.key, "?search=RAIN"); len(s.Items) != 1 || !s.Items[0].Settings.Loop || s.Items[0].Settings.DurationSeconds != nil {
				t.Fatalf("search: %+v", s)
			}
			if p := e.sfxHistory(e.key, "?page_size=2&page=2"); len(p.Items) != 1 || p.HasMore {
				t.Fatalf("page 2: %+v", p)
			}

			// Another workspace sees nothing of it.
			_, otherKey := e.newUser("other@example.com")
			if h := e.sfxHistory(otherKey, ""); len(h.Items) != 0 {
				t.Fatalf("another workspace lists %+v", h)
			}
			expect(t, e.do("GET", first.DownloadURL, otherKey, nil), 404)
			expect(t, e.do("DELETE", "/v1/sound-generation/history/"+id, otherKey, nil), 404)

			row, err := e.app.DB.SoundGeneration(ctx, e.user.WorkspaceID, id)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, e.do("DELETE", "/v1/sound-generation/history/"+id, e.key, nil), http.StatusNoContent)
			expect(t, e.do("GET", first.DownloadURL, e.key, nil), 404)
			if ok, _ := e.app.Blob.Exists(ctx, row.BlobKey); ok {
				t.Fatal("the audio is still stored")
			}
		})
	}
}

// TestSoundEffectsBadInput: every bad field is a 422 naming it; none charges or stores anything;
// over the quota is quota_exceeded.
func TestSoundEffectsBadInput(t *testing.T) {
	e := newEnv(t, store.SQLite)
	before := e.workspace().CharacterCount
	cases := []struct {
		name  string
		body  any
		query string
		field string
	}{
		{"no text", map[string]any{}, "", "text"},
		{"empty text", map[string]any{"text": "   "}, "", "text"},
		{"long text", map[string]any{"text": strings.Repeat("rain ", 201)}, "", "text"},
		{"short duration", map[string]any{"text": "rain", "duration_seconds": 0.4}, "", "duration_seconds"},
		{"long duration", map[string]any{"text": "rain", "duration_seconds": 30.5}, "", "duration_seconds"},
		{"influence", map[string]any{"text": "rain", "prompt_influence": 1.5}, "", "prompt_influence"},
		{"negative influence", map[string]any{"text": "rain", "prompt_influence": -0.1}, "", "prompt_influence"},
		{"model", map[string]any{"text": "rain", "model_id": "eleven_multilingual_v2"}, "", "model_id"},
		{"seed", map[string]any{"text": "rain", "seed": -1}, "", "seed"},
		{"loop type", map[string]any{"text": "rain", "loop": "yes"}, "", "loop"},
		{"format", map[string]any{"text": "rain"}, "?output_format=wav_44100", "output_format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", "/v1/sound-generation"+c.query, e.key, c.body)
			loc := fieldError(t, r)
			if fmt.Sprint(loc[len(loc)-1]) != c.field {
				t.Fatalf("422 names %v, want %s: %s", loc, c.field, r.body)
			}
		})
	}
	// A plan-gated format: 403, nothing charged.
	expect(t, e.do("POST", "/v1/sound-generation?output_format=mp3_44100_192", e.key, map[string]any{"text": "rain"}), 403)
	if e.workspace().CharacterCount != before || countRows(t, e, "sound_generations") != 0 {
		t.Fatal("bad input charged or stored something")
	}
	rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9990 WHERE id = ?`, e.user.WorkspaceID)
	r := e.do("POST", "/v1/sound-generation", e.key, map[string]any{"text": "rain", "duration_seconds": 5})
	expect(t, r, 401)
	if detailStatus(t, r) != "quota_exceeded" || countRows(t, e, "sound_generations") != 0 {
		t.Fatalf("over quota: %s", r.body)
	}
}

// TestSoundEffectsExplore: the catalogue has 40+ prompts over every category; search and
// category filter it; a preview is this engine's render of the prompt, the same on the second
// request (kept in the blob store), and free.
func TestSoundEffectsExplore(t *testing.T) {
	e := newEnv(t, store.SQLite)
	var ex struct {
		Categories []struct {
			ID    string `json:"category_id"`
			Count int    `json:"count"`
		} `json:"categories"`
		Prompts []struct {
			ID         string   `json:"prompt_id"`
			Text       string   `json:"text"`
			Category   string   `json:"category"`
			Recipes    []string `json:"recipes"`
			PreviewURL string   `json:"preview_url"`
		} `json:"prompts"`
	}
	get := func(q string) {
		t.Helper()
		r := e.do("GET", "/v1/sound-generation/explore"+q, e.key, nil)
		expect(t, r, 200)
		if err := json.Unmarshal(r.body, &ex); err != nil {
			t.Fatal(err)
		}
	}
	get("")
	if len(ex.Prompts) < 40 || len(ex.Categories) < 8 {
		t.Fatalf("%d prompts in %d categories", len(ex.Prompts), len(ex.Categories))
	}
	for _, p := range ex.Prompts {
		if len(p.Recipes) == 0 {
			t.Errorf("%s: no recipes for %q", p.ID, p.Text)
		}
	}
	get("?category=animals")
	for _, p := range ex.Prompts {
		if p.Category != "animals" {
			t.Fatalf("category filter let through %+v", p)
		}
	}
	get("?search=THUNDER")
	if len(ex.Prompts) == 0 || !strings.Contains(ex.Prompts[0].Text, "thunder") {
		t.Fatalf("search: %+v", ex.Prompts)
	}
	expect(t, e.do("GET", "/v1/sound-generation/explore?category=nope", e.key, nil), 422)
	before := e.workspace().CharacterCount
	a := e.do("GET", ex.Prompts[0].PreviewURL, e.key, nil)
	expect(t, a, 200)
	b := e.do("GET", ex.Prompts[0].PreviewURL, e.key, nil)
	expect(t, b, 200)
	if string(a.body) != string(b.body) || a.Header.Get("Content-Type") != "audio/mpeg" || e.workspace().CharacterCount != before {
		t.Fatal("preview not cached, not mp3, or charged")
	}
	if _, _, err := audio.Decode(context.Background(), a.body); err != nil {
		t.Fatal(err)
	}
	expect(t, e.do("GET", "/v1/sound-generation/explore/nope/audio", e.key, nil), 404)
}

// TestSoundEffectsHTTPEngine: with TIMBRE_SFX_URL the request goes to an ElevenLabs-compatible
// server (POST /v1/sound-generation?output_format=pcm_44100, xi-api-key, the JSON body); its
// PCM is encoded, charged and kept like the procedural engine's.
func TestSoundEffectsHTTPEngine(t *testing.T) {
	var got map[string]any
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/v1/sound-generation" || r.URL.Query().Get("output_format") != "pcm_44100" || r.Header.Get("xi-api-key") != "remote-key" {
			http.Error(w, "bad request "+r.URL.String(), 400)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		got = nil
		_ = json.Unmarshal(raw, &got)
		if strings.Contains(fmt.Sprint(got["text"]), "fail") {
			http.Error(w, `{"detail":"down"}`, 503)
			return
		}
		secs := 3.0
		if d, ok := got["duration_seconds"].(float64); ok {
			secs = d
		}
		pcm := make([]int16, int(secs*44100))
		for i := range pcm {
			pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/44100))
		}
		w.Header().Set("Content-Type", "audio/pcm")
		_, _ = w.Write(audio.PCMBytes(pcm))
	}))
	defer remote.Close()
	e := newEnvWith(t, store.SQLite, func(c *config.Config) { c.SFXURL, c.SFXKey = remote.URL, "remote-key" })
	before := e.workspace().CharacterCount
	r := e.do("POST", "/v1/sound-generation?output_format=pcm_16000", e.key, map[string]any{"text": "a spaceship hum", "duration_seconds": 2, "loop": true, "prompt_influence": 0.5})
	expect(t, r, 200)
	if got["text"] != "a spaceship hum" || got["duration_seconds"] != 2.0 || got["loop"] != true || got["prompt_influence"] != 0.5 || got["model_id"] != "eleven_text_to_sound_v2" {
		t.Fatalf("forwarded body %v", got)
	}
	if secs := float64(len(r.body)) / 2 / 16000; math.Abs(secs-2) > 0.01 || r.Header.Get("x-timbre-sfx-recipes") != "remote" {
		t.Fatalf("%.3f s, recipes %q", secs, r.Header.Get("x-timbre-sfx-recipes"))
	}
	if e.workspace().CharacterCount-before != 80 {
		t.Fatalf("charged %d, want 80", e.workspace().CharacterCount-before)
	}
	// Auto duration: reserved for 30 s, charged for the 3 s delivered.
	expect(t, e.do("POST", "/v1/sound-generation", e.key, map[string]any{"text": "wind"}), 200)
	if e.workspace().CharacterCount-before != 80+120 {
		t.Fatalf("charged %d, want 200", e.workspace().CharacterCount-before)
	}
	// The server failing: 502-class error, refunded, nothing kept.
	r = e.do("POST", "/v1/sound-generation", e.key, map[string]any{"text": "fail please"})
	if r.StatusCode < 500 || e.workspace().CharacterCount-before != 200 || countRows(t, e, "sound_generations") != 2 {
		t.Fatalf("failure: %d %s, charged %d", r.StatusCode, r.body, e.workspace().CharacterCount-before)
	}
}
