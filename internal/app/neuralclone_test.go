package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
	"timbre/internal/testdb"
	"timbre/internal/voiceprint"
)

// TestNeuralClone: with a cloning server configured (OpenAI's custom-voices protocol), instant
// cloning sends the sample there and the clone speaks through it with the returned voice id;
// the voiceprint is still measured and stored. A failing server is a 502 and stores nothing.
func TestNeuralClone(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			fake := &enginetest.CustomVoiceServer{Key: "clone-secret"}
			gpu := httptest.NewServer(fake)
			defer gpu.Close()
			e := newEnvWith(t, d, func(c *config.Config) {
				c.CloneOpenAIURL, c.CloneOpenAIKey, c.CloneOpenAIConsent = gpu.URL, "clone-secret", "cons_test"
			})
			ctx := context.Background()
			if err := e.app.DB.SetTier(ctx, e.user.WorkspaceID, "starter"); err != nil {
				t.Fatal(err)
			}
			short := e.speak("She sells sea shells by the shore.")
			long := e.speak("The quick brown fox jumps over the lazy dog near the river bank.")
			r := e.postFiles("/v1/voices/add", e.key, []upload{{"files", "short.mp3", "audio/mpeg", short}, {"files", "long.mp3", "audio/mpeg", long}},
				map[string]string{"name": "Neural me"})
			expect(t, r, 200)
			id, _ := r.json(t)["voice_id"].(string)
			created, _ := fake.Snapshot()
			if len(created) != 1 {
				t.Fatalf("server made %d voices", len(created))
			}
			// The longest sample goes, as uploaded, with the voice's name and the consent id.
			if c := created[0]; c.Name != "Neural me" || c.Consent != "cons_test" || c.FileName != "long.mp3" || c.ContentType != "audio/mpeg" || !bytes.Equal(c.Audio, long) {
				t.Fatalf("server received %s %s %s %s (%d bytes)", c.Name, c.Consent, c.FileName, c.ContentType, len(c.Audio))
			}
			row, err := e.app.DB.Voice(ctx, e.user.WorkspaceID, id)
			if err != nil {
				t.Fatal(err)
			}
			if row.Engine != "openai-clone" || row.EngineVoice != created[0].ID || row.Category != "cloned" {
				t.Fatalf("stored voice: engine %q voice %q category %q", row.Engine, row.EngineVoice, row.Category)
			}
			if v := e.voice(id); len(v.Samples) != 2 {
				t.Fatalf("samples %d", len(v.Samples))
			}
			var vp voiceprint.Print
			if err := json.Unmarshal([]byte(row.Voiceprint), &vp); err != nil || vp.F0Median <= 0 {
				t.Fatalf("voiceprint %q (%v)", row.Voiceprint, err)
			}

			// The clone speaks through the server: the request names the voice id, the audio is
			// the server's (voice_1's tone).
			r = e.do("POST", "/v1/text-to-speech/"+id+"?output_format=pcm_16000", e.key, map[string]any{"text": "Hello from the cloning server."})
			expect(t, r, 200)
			if _, speeches := fake.Snapshot(); len(speeches) != 1 || speeches[0] != created[0].ID {
				t.Fatalf("speech requests %v", speeches)
			}
			said, err := voiceprint.Analyse(engine.PCM{Samples: audio.PCMSamples(r.body), SampleRate: 16000})
			if err != nil {
				t.Fatalf("clone speech: %v", err)
			}
			if want := enginetest.CustomVoicePitch(1); math.Abs(said.F0Median/want-1) > 0.1 {
				t.Fatalf("clone speech at %.0f Hz, want the server's %.0f Hz", said.F0Median, want)
			}

			// Noise removal asked: the cleaned recording goes, as WAV.
			r = e.postFiles("/v1/voices/add", e.key, []upload{{"files", "long.mp3", "audio/mpeg", long}},
				map[string]string{"name": "Clean me", "remove_background_noise": "true"})
			expect(t, r, 200)
			created, _ = fake.Snapshot()
			if c := created[len(created)-1]; len(created) != 2 || c.ContentType != "audio/wav" || c.FileName != "long.wav" || !bytes.HasPrefix(c.Audio, []byte("RIFF")) {
				t.Fatalf("denoised upload: %d voices, last %s %s", len(created), c.FileName, c.ContentType)
			}

			// A recording over 30 s goes as its first 30 s (the server's limit), as WAV.
			pcm, rate, err := audio.Decode(ctx, long)
			if err != nil {
				t.Fatal(err)
			}
			var forty []int16
			for len(forty) < 40*rate {
				forty = append(forty, pcm...)
			}
			r = e.postFiles("/v1/voices/add", e.key, []upload{{"files", "forty.wav", "audio/wav", audio.WAV(forty, rate)}}, map[string]string{"name": "Long me"})
			expect(t, r, 200)
			created, _ = fake.Snapshot()
			c := created[len(created)-1]
			got, gotRate, err := audio.Decode(ctx, c.Audio)
			if err != nil || c.ContentType != "audio/wav" || math.Abs(float64(len(got))/float64(gotRate)-30) > 0.05 {
				t.Fatalf("a 40 s sample reached the server as %s, %v (%d samples at %d Hz)", c.ContentType, err, len(got), gotRate)
			}
			expect(t, e.do("DELETE", "/v1/voices/"+r.json(t)["voice_id"].(string), e.key, nil), 200)

			// Adding a recording makes a new server voice from it; deleting one keeps the server's.
			r = e.postFiles("/v1/voices/"+id+"/edit", e.key, []upload{{"files[]", "more.mp3", "audio/mpeg", long}}, map[string]string{"name": "Neural me"})
			expect(t, r, 200)
			created, _ = fake.Snapshot()
			if row, err = e.app.DB.Voice(ctx, e.user.WorkspaceID, id); err != nil || len(created) != 4 || row.EngineVoice != created[3].ID || row.Engine != "openai-clone" {
				t.Fatalf("after edit: %d server voices, engine %q voice %q (%v)", len(created), row.Engine, row.EngineVoice, err)
			}
			v := e.voice(id)
			expect(t, e.do("DELETE", "/v1/voices/"+id+"/samples/"+v.Samples[0].SampleID, e.key, nil), 200)
			if row, err = e.app.DB.Voice(ctx, e.user.WorkspaceID, id); err != nil || row.EngineVoice != created[3].ID || row.Engine != "openai-clone" {
				t.Fatalf("after a sample went: engine %q voice %q (%v)", row.Engine, row.EngineVoice, err)
			}

			// The server fails: 502, no voice, no sample audio kept, no slot used.
			blobs, before := len(e.sampleBlobs()), e.subscription()["voice_slots_used"]
			fake.SetFail(true)
			r = e.postFiles("/v1/voices/add", e.key, []upload{{"files", "long.mp3", "audio/mpeg", long}}, map[string]string{"name": "Doomed"})
			expect(t, r, 502)
			if detailStatus(t, r) != "voice_cloning_failed" {
				t.Fatalf("failure answered %s", r.body)
			}
			if len(e.sampleBlobs()) != blobs || e.subscription()["voice_slots_used"] != before {
				t.Fatalf("a failed clone left blobs or used a slot")
			}
		})
	}
}
