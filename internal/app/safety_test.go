package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/netguard"
	"timbre/internal/testdb"
)

// readAloud is a clear reading of text (flite's rms voice, as WAV): what a person reading the
// captcha's sentence sends.
func (e *env) readAloud(text string) []byte { return e.readAloudAgain(text, 0) }

// readAloudAgain is readAloud with another draw of flite's excitation noise (seed), as a person
// reads a sentence again a little differently.
func (e *env) readAloudAgain(text string, seed uint32) []byte {
	e.t.Helper()
	res, err := e.app.Engines["flite"].Synthesize(context.Background(), engine.Request{Text: text, Voice: "rms", Seed: seed})
	if err != nil {
		e.t.Fatal(err)
	}
	return audio.WAV(res.Audio.Samples, res.Audio.SampleRate)
}

// TestVoiceSafety: an operator's BAN makes a voice unusable (text to speech, speech to speech,
// its captcha) while GET still shows it with safety_control BAN, and the workspaces that copied
// it are sent a signed voice_removed notice; CAPTCHA makes a voice unusable until the workspace
// reads the captcha's sentence: a wrong reading fails and is counted (five, then a new sentence
// is needed), bad uploads are 422 naming recording, the right reading passes, for that
// workspace only, until the control is set again.
func TestVoiceSafety(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			userB, keyB := e.newUser("copier@example.com")

			// Workspace B listens for library removal notices; the voice library (not built
			// yet) would say B copied Adam.
			got := make(chan []byte, 4)
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if r.Header.Get("ElevenLabs-Signature") != "" {
					got <- b
				}
			}))
			defer hook.Close()
			g := &netguard.Guard{AllowPrivate: true}
			e.app.Webhooks.Guard, e.app.Webhooks.AllowHTTP = g, true
			e.app.Webhooks.HTTP = g.Client(netguard.ClientOptions{Timeout: 5 * time.Second})
			wh := e.do("POST", "/v1/workspace/webhooks", keyB, map[string]any{"settings": map[string]any{
				"auth_type": "hmac", "name": "notices", "webhook_url": hook.URL + "/notices"}})
			expect(t, wh, 200)
			whID := wh.json(t)["webhook_id"].(string)
			expect(t, e.do("PATCH", "/v1/workspace/webhooks/"+whID, keyB, map[string]any{"is_disabled": false, "name": "notices",
				"events": []string{"voice_library_removal_notice"}}), 200)
			e.app.Voices.CopiedBy = func(_ context.Context, voiceID string) ([]string, error) {
				if voiceID == adam {
					return []string{userB.WorkspaceID}, nil
				}
				return nil, nil
			}
			if err := e.app.StartJobs(ctx); err != nil {
				t.Fatal(err)
			}
			defer e.app.StopJobs()

			recording := e.speakAs(rachel, "Speech to speech needs a recording.")
			historyBefore := e.historyCount(e.key)

			// BAN.
			if err := e.app.Voices.SetSafety(ctx, adam, "ban"); err != nil {
				t.Fatal(err)
			}
			r := e.do("GET", "/v1/voices/"+adam, e.key, nil)
			expect(t, r, 200)
			if r.json(t)["safety_control"] != "BAN" {
				t.Fatalf("GET shows safety_control %v", r.json(t)["safety_control"])
			}
			r = e.do("GET", "/v1/voices", e.key, nil)
			expect(t, r, 200)
			for _, v := range r.json(t)["voices"].([]any) {
				v := v.(map[string]any)
				if want := map[bool]any{true: "BAN", false: nil}[v["voice_id"] == adam]; v["safety_control"] != want {
					t.Errorf("list: voice %v safety_control %v, want %v", v["voice_id"], v["safety_control"], want)
				}
			}
			r = e.do("POST", "/v1/text-to-speech/"+adam, e.key, map[string]any{"text": "Hello there."})
			expect(t, r, http.StatusForbidden)
			if s := detailStatus(t, r); s != "voice_banned" {
				t.Fatalf("banned TTS: %s", r.body)
			}
			r = e.postForm("/v1/speech-to-speech/"+adam, "audio", recording, nil, "xi-api-key", e.key)
			expect(t, r, http.StatusForbidden)
			if s := detailStatus(t, r); s != "voice_banned" {
				t.Fatalf("banned STS: %s", r.body)
			}
			expect(t, e.do("GET", "/v1/voices/"+adam+"/captcha", e.key, nil), http.StatusForbidden)
			if n := e.historyCount(e.key); n != historyBefore {
				t.Fatalf("refused requests made %d history items", n-historyBefore)
			}
			select {
			case body := <-got:
				var ev struct {
					Type string         `json:"type"`
					Data map[string]any `json:"data"`
				}
				if err := json.Unmarshal(body, &ev); err != nil || ev.Type != "voice_removed" || ev.Data["voice_id"] != adam ||
					ev.Data["voice_name"] != "Adam" || ev.Data["reason"] != "banned" {
					t.Fatalf("removal notice %s (%v)", body, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("no removal notice within 30 s")
			}

			// CAPTCHA.
			if err := e.app.Voices.SetSafety(ctx, josh, "captcha"); err != nil {
				t.Fatal(err)
			}
			tts := func(key string) *resp {
				return e.do("POST", "/v1/text-to-speech/"+josh, key, map[string]any{"text": "Hello there."})
			}
			r = tts(e.key)
			expect(t, r, http.StatusForbidden)
			if s := detailStatus(t, r); s != "voice_captcha_required" {
				t.Fatalf("captcha TTS: %s", r.body)
			}
			r = e.postForm("/v1/voices/"+josh+"/captcha", "recording", recording, nil, "xi-api-key", e.key)
			expect(t, r, http.StatusConflict)
			if s := detailStatus(t, r); s != "voice_captcha_not_issued" {
				t.Fatalf("captcha before GET: %s", r.body)
			}
			expect(t, e.do("GET", "/v1/voices/"+rachel+"/captcha", e.key, nil), http.StatusConflict)

			r = e.do("GET", "/v1/voices/"+josh+"/captcha", e.key, nil)
			expect(t, r, 200)
			var cp struct {
				Text        string  `json:"text"`
				AudioBase64 *string `json:"audio_base64"`
				Attempts    int     `json:"attempts_remaining"`
			}
			if err := json.Unmarshal(r.body, &cp); err != nil || cp.Text == "" || cp.AudioBase64 == nil || cp.Attempts != 5 {
				t.Fatalf("captcha %s", r.body)
			}
			mp3, err := base64.StdEncoding.DecodeString(*cp.AudioBase64)
			if err != nil {
				t.Fatal(err)
			}
			if secs, _, _, _, err := audio.Probe(ctx, mp3); err != nil || secs < 1 {
				t.Fatalf("captcha audio: %.2f s, %v", secs, err)
			}

			wrong := e.readAloud("Open the window and let the cold air in.")
			r = e.postForm("/v1/voices/"+josh+"/captcha", "recording", wrong, nil, "xi-api-key", e.key)
			expect(t, r, http.StatusBadRequest)
			if s := detailStatus(t, r); s != "voice_captcha_failed" {
				t.Fatalf("wrong reading: %s", r.body)
			}
			t.Logf("wrong reading: %s", r.body)
			for _, bad := range [][]byte{nil, []byte("not audio at all")} {
				r = e.postForm("/v1/voices/"+josh+"/captcha", "recording", bad, nil, "xi-api-key", e.key)
				if loc := fieldError(t, r); loc[len(loc)-1] != "recording" {
					t.Fatalf("bad recording: %s", r.body)
				}
			}
			expect(t, tts(e.key), http.StatusForbidden)

			// The recognizer mishears a reading now and then (pocketsphinx heard "right shoes off
			// and served in round bowls" for one): read again, as a person would, within the
			// four attempts left.
			for seed := range uint32(4) {
				r = e.postForm("/v1/voices/"+josh+"/captcha", "recording", e.readAloudAgain(cp.Text, seed), nil, "xi-api-key", e.key)
				if r.StatusCode == http.StatusOK {
					break
				}
				t.Logf("reading %d misheard: %s", seed, r.body)
			}
			expect(t, r, 200)
			t.Logf("right reading of %q: %s", cp.Text, r.body)
			if r.json(t)["status"] != "ok" {
				t.Fatalf("pass: %s", r.body)
			}
			expect(t, tts(e.key), 200)
			r = e.do("GET", "/v1/voices/"+josh, e.key, nil)
			expect(t, r, 200)
			if r.json(t)["safety_control"] != "CAPTCHA" {
				t.Fatalf("GET after the pass: %s", r.body)
			}

			// Workspace B has not passed: still refused; five wrong readings use the sentence up.
			expect(t, tts(keyB), http.StatusForbidden)
			expect(t, e.do("GET", "/v1/voices/"+josh+"/captcha", keyB, nil), 200)
			for i := 0; i < 5; i++ {
				expect(t, e.postForm("/v1/voices/"+josh+"/captcha", "recording", wrong, nil, "xi-api-key", keyB), http.StatusBadRequest)
			}
			r = e.postForm("/v1/voices/"+josh+"/captcha", "recording", wrong, nil, "xi-api-key", keyB)
			expect(t, r, http.StatusTooManyRequests)
			if s := detailStatus(t, r); s != "voice_captcha_attempts_exceeded" {
				t.Fatalf("sixth attempt: %s", r.body)
			}
			expect(t, tts(keyB), http.StatusForbidden)

			// The control set again (later): the earlier pass no longer counts.
			e.app.Voices.Now = func() time.Time { return time.Now().Add(time.Hour) }
			if err := e.app.Voices.SetSafety(ctx, josh, "captcha"); err != nil {
				t.Fatal(err)
			}
			expect(t, tts(e.key), http.StatusForbidden)
			if err := e.app.Voices.SetSafety(ctx, josh, "none"); err != nil {
				t.Fatal(err)
			}
			expect(t, tts(keyB), 200)
		})
	}
}
