package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/testdb"
	"timbre/internal/voiceprint"
)

type previewsResp struct {
	Previews []struct {
		AudioBase64      string  `json:"audio_base_64"`
		GeneratedVoiceID string  `json:"generated_voice_id"`
		MediaType        string  `json:"media_type"`
		DurationSecs     float64 `json:"duration_secs"`
		Language         *string `json:"language"`
	} `json:"previews"`
	Text string `json:"text"`
}

func (e *env) design(path string, body map[string]any) previewsResp {
	e.t.Helper()
	r := e.do("POST", path, e.key, body)
	expect(e.t, r, 200)
	var p previewsResp
	if err := json.Unmarshal(r.body, &p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// TestVoiceDesign: a description becomes three previews (mp3, watermarked speech of the text,
// charged as its characters), repeatable by seed; a preview streams and saves as a "generated"
// voice that text to speech speaks with; the onboarding item completes; a remix moves the voice.
// Bad input is a 422 naming the field with nothing charged; another workspace sees none of it;
// the plan's voice limit holds.
func TestVoiceDesign(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			mustOK(t, e.do("POST", "/v1/user/onboarding-checklist/initiate", e.key, nil))
			before := e.workspace().CharacterCount

			desc := "A deep elderly male voice, slow and calm, with an American accent"
			p := e.design("/v1/text-to-voice/design", map[string]any{"voice_description": desc, "auto_generate_text": true, "seed": 7})
			if len(p.Previews) != 3 || len([]rune(p.Text)) < 100 {
				t.Fatalf("%d previews, text %q", len(p.Previews), p.Text)
			}
			if got := e.workspace().CharacterCount - before; got != int64(len([]rune(p.Text))) {
				t.Errorf("charged %d credits for a %d-character preview text", got, len([]rune(p.Text)))
			}
			for _, pv := range p.Previews {
				data, err := base64.StdEncoding.DecodeString(pv.AudioBase64)
				if err != nil || pv.MediaType != "audio/mpeg" || pv.Language == nil || *pv.Language != "en" {
					t.Fatalf("preview %s: media %q, language %v, %v", pv.GeneratedVoiceID, pv.MediaType, pv.Language, err)
				}
				pcm, rate, err := audio.Decode(ctx, data)
				if err != nil {
					t.Fatal(err)
				}
				if secs := float64(len(pcm)) / float64(rate); math.Abs(secs-pv.DurationSecs) > 0.15 || secs < 4 {
					t.Errorf("preview lasts %.2f s, duration_secs %.2f", secs, pv.DurationSecs)
				}
				if c := e.app.Classifier.Watermark.Detect(pcm, rate); !c.Detected {
					t.Errorf("preview not watermarked (score %.2f)", c.Score)
				}
			}
			// The same seed gives the same voices (timing included).
			again := e.design("/v1/text-to-voice/create-previews", map[string]any{"voice_description": desc, "auto_generate_text": true, "seed": 7})
			for i := range again.Previews {
				if again.Previews[i].DurationSecs != p.Previews[i].DurationSecs {
					t.Errorf("seed 7 preview %d: %.3f s then %.3f s", i, p.Previews[i].DurationSecs, again.Previews[i].DurationSecs)
				}
			}

			// The stream is the preview's audio again.
			id := p.Previews[1].GeneratedVoiceID
			r := e.do("GET", "/v1/text-to-voice/"+id+"/stream", e.key, nil)
			expect(t, r, 200)
			pcm, rate, err := audio.Decode(ctx, r.body)
			if err != nil || r.Header.Get("Content-Type") != "audio/mpeg" {
				t.Fatalf("stream: %v, %q", err, r.Header.Get("Content-Type"))
			}
			if secs := float64(len(pcm)) / float64(rate); math.Abs(secs-p.Previews[1].DurationSecs) > 0.15 {
				t.Errorf("stream lasts %.2f s, the preview %.2f s", secs, p.Previews[1].DurationSecs)
			}

			// Save it: a generated voice with the description's labels, spoken by text to speech.
			r = e.do("POST", "/v1/text-to-voice", e.key, map[string]any{"voice_name": "Old Tom", "voice_description": desc, "generated_voice_id": id,
				"labels": map[string]string{"use_case": "narration"}, "played_not_selected_voice_ids": []string{p.Previews[0].GeneratedVoiceID}})
			v := mustOK(t, r)
			voiceID, _ := v["voice_id"].(string)
			labels, _ := v["labels"].(map[string]any)
			if v["category"] != "generated" || v["name"] != "Old Tom" || labels["gender"] != "male" || labels["age"] != "old" || labels["use_case"] != "narration" {
				t.Fatalf("saved voice %v", v)
			}
			got := mustOK(t, e.do("GET", "/v1/voices/"+voiceID, e.key, nil))
			if got["description"] != desc {
				t.Errorf("GET voice: %v", got)
			}
			// It carries the voiceprint of its speech: a low, old man's pitch.
			stored, err := e.app.DB.Voice(ctx, e.user.WorkspaceID, voiceID)
			if err != nil {
				t.Fatal(err)
			}
			var vp voiceprint.Print
			if err := json.Unmarshal([]byte(stored.Voiceprint), &vp); err != nil || vp.F0Median < 60 || vp.F0Median > 110 || stored.CreatedBy != e.user.ID {
				t.Errorf("saved voiceprint %q (%v), created_by %q", stored.Voiceprint, err, stored.CreatedBy)
			}
			r = e.do("POST", "/v1/text-to-speech/"+voiceID, e.key, map[string]any{"text": "The designed voice reads this."})
			expect(t, r, 200)
			user := mustOK(t, e.do("GET", "/v1/user", e.key, nil))
			if !checklistDone(user, "design_voice") {
				t.Errorf("onboarding item design_voice not completed: %v", user["onboarding_checklist"])
			}

			// Remix the saved voice: higher and faster moves the voice; the previews differ.
			rm := e.design("/v1/text-to-voice/"+voiceID+"/remix", map[string]any{"voice_description": "higher and faster", "seed": 3,
				"text": strings.Repeat("The remixed voice reads a sentence. ", 4)})
			if len(rm.Previews) != 3 || !strings.HasPrefix(rm.Text, "The remixed voice") {
				t.Fatalf("remix: %d previews, text %q", len(rm.Previews), rm.Text)
			}

			// A reference recording (Adam, a low male voice) outweighs a description of a
			// high young girl at prompt_strength 0.1, and loses to it at 0.9.
			girl := "A high-pitched young girl with a bright, cheerful voice and an American accent"
			ref := base64.StdEncoding.EncodeToString(e.speakAs(adam, "The quick brown fox jumps over the lazy dog near the bank of the river."))
			medianF0 := func(p previewsResp) float64 {
				data, _ := base64.StdEncoding.DecodeString(p.Previews[0].AudioBase64)
				pcm, rate, err := audio.Decode(ctx, data)
				if err != nil {
					t.Fatal(err)
				}
				pr, err := e.app.Voices.Cloner.Analyse(engine.PCM{Samples: pcm, SampleRate: rate})
				if err != nil {
					t.Fatal(err)
				}
				return pr.F0Median
			}
			refBody := func(strength float64) map[string]any {
				return map[string]any{"voice_description": girl, "model_id": "eleven_ttv_v3", "reference_audio_base64": ref,
					"prompt_strength": strength, "guidance_scale": 100, "seed": 1, "auto_generate_text": true}
			}
			low, high := medianF0(e.design("/v1/text-to-voice/design", refBody(0.1))), medianF0(e.design("/v1/text-to-voice/design", refBody(0.9)))
			t.Logf("reference audio: median F0 %.0f Hz at prompt_strength 0.1, %.0f Hz at 0.9", low, high)
			if low > 160 || high < 1.4*low {
				t.Errorf("reference audio: median F0 %.0f Hz at prompt_strength 0.1 (want a male pitch), %.0f Hz at 0.9", low, high)
			}

			// Bad input: 422 naming the field, nothing charged or stored.
			spent, kept := e.workspace().CharacterCount, countPreviews(t, e, e.user.WorkspaceID)
			for _, c := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"voice_description": "too short"}, "voice_description"},
				{map[string]any{"voice_description": strings.Repeat("a deep voice ", 80)}, "voice_description"},
				{map[string]any{"voice_description": desc, "text": "short text"}, "text"},
				{map[string]any{"voice_description": desc, "loudness": 2}, "loudness"},
				{map[string]any{"voice_description": desc, "guidance_scale": 101}, "guidance_scale"},
				{map[string]any{"voice_description": desc, "seed": -1}, "seed"},
				{map[string]any{"voice_description": desc, "model_id": "eleven_turbo_v2"}, "model_id"},
				{map[string]any{"voice_description": desc, "model_id": "eleven_ttv_v3", "reference_audio_base64": "not base64!"}, "reference_audio_base64"},
				{map[string]any{"voice_description": desc, "reference_audio_base64": ref}, "reference_audio_base64"},
				{map[string]any{"voice_description": desc, "model_id": "eleven_ttv_v3", "reference_audio_base64": base64.StdEncoding.EncodeToString([]byte("not audio"))}, "reference_audio_base64"},
				{map[string]any{"voice_description": desc, "quality": 1.5}, "quality"},
			} {
				loc := fieldError(t, e.do("POST", "/v1/text-to-voice/design", e.key, c.body))
				if loc[len(loc)-1] != c.field {
					t.Errorf("%v: 422 names %v, want %s", c.body, loc, c.field)
				}
			}
			loc := fieldError(t, e.do("POST", "/v1/text-to-voice", e.key, map[string]any{"voice_description": desc, "generated_voice_id": id}))
			if loc[len(loc)-1] != "voice_name" {
				t.Errorf("save without a name: 422 names %v", loc)
			}
			if e.workspace().CharacterCount != spent || countPreviews(t, e, e.user.WorkspaceID) != kept {
				t.Error("bad input was charged or stored")
			}

			// Another workspace reaches none of it.
			_, keyB := e.newUser("designer-b@example.com")
			if r := e.do("GET", "/v1/text-to-voice/"+id+"/stream", keyB, nil); r.StatusCode != 404 {
				t.Errorf("B streamed A's preview: %d", r.StatusCode)
			}
			if r := e.do("POST", "/v1/text-to-voice", keyB, map[string]any{"voice_name": "Stolen", "voice_description": desc, "generated_voice_id": id}); r.StatusCode != 404 {
				t.Errorf("B saved A's preview: %d", r.StatusCode)
			}
			if r := e.do("POST", "/v1/text-to-voice/"+voiceID+"/remix", keyB, map[string]any{"voice_description": "higher"}); r.StatusCode != 404 {
				t.Errorf("B remixed A's voice: %d", r.StatusCode)
			}

			// The free plan's three voices: two more fit, the fourth is refused and not stored.
			for i := range 2 {
				mustOK(t, e.do("POST", "/v1/text-to-voice", e.key, map[string]any{"voice_name": "Tom " + string(rune('B'+i)), "voice_description": desc, "generated_voice_id": id}))
			}
			r = e.do("POST", "/v1/text-to-voice", e.key, map[string]any{"voice_name": "One too many", "voice_description": desc, "generated_voice_id": id})
			expect(t, r, 400)
			if s := detailStatus(t, r); s != "voice_limit_reached" {
				t.Errorf("over the limit: %s", s)
			}
			list := mustOK(t, e.do("GET", "/v2/voices?category=generated", e.key, nil))
			if n := len(list["voices"].([]any)); n != 3 {
				t.Errorf("%d generated voices, want 3", n)
			}

			// Over the credit quota: refused with quota_exceeded, nothing charged or stored.
			rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9990 WHERE id = ?`, e.user.WorkspaceID)
			r = e.do("POST", "/v1/text-to-voice/design", e.key, map[string]any{"voice_description": desc, "auto_generate_text": true})
			expect(t, r, 401)
			previews := countPreviews(t, e, e.user.WorkspaceID)
			if detailStatus(t, r) != "quota_exceeded" || e.workspace().CharacterCount != 9990 || previews != 15 { // 5 designs of 3
				t.Errorf("over quota: %s; %d previews stored", r.body, previews)
			}
		})
	}
}

func checklistDone(user map[string]any, item string) bool {
	cl, _ := user["onboarding_checklist"].(map[string]any)
	items, _ := cl["items"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m["onboarding_checklist_item_id"] == item {
			return m["is_completed"] == true
		}
	}
	return false
}

// countPreviews counts a workspace's stored voice design previews.
func countPreviews(t *testing.T, e *env, workspaceID string) int {
	t.Helper()
	const q = `SELECT COUNT(*) FROM voice_previews WHERE workspace_id = ?`
	var n int
	var err error
	if db := e.app.DB; db.PG != nil {
		err = db.PG.QueryRow(context.Background(), pgRebind(q), workspaceID).Scan(&n)
	} else {
		err = db.SQLiteDB.QueryRowContext(context.Background(), q, workspaceID).Scan(&n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}
