package e2e

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/store"
)

// TestBrowserVoiceIsolator: a person uploads noisy speech on the Voice Isolator page, hears the
// original and the isolated voice (each with its waveform), downloads the result, records from
// the (fake) microphone, and deletes the upload from the history (isolator.mjs). The speech is
// the engine's own reading of two Harvard sentences with white noise mixed in at 10 dB SNR.
func TestBrowserVoiceIsolator(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "iris@example.com", "")
	ctx := context.Background()

	v, err := srv.App.DB.Voice(ctx, "", "21m00Tcm4TlvDq8ikWAM")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := srv.App.Engines[v.Engine].Synthesize(ctx, engine.Request{
		Text: "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.", Voice: v.EngineVoice, Language: "en",
	})
	if err != nil {
		t.Fatal(err)
	}
	noisy := withNoise(raw.Audio.Samples, 10)
	wav, _ := audio.ParseFormat("wav_16000")
	data, err := audio.Encode(ctx, noisy, raw.Audio.SampleRate, wav)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "noisy-speech.wav")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}

	b.run(t, srv, "isolator.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword, "SPEECH_FILE="+file)

	// What the browser left is what the database holds: the recording, not the deleted upload.
	rows, _, err := srv.App.DB.ListIsolations(ctx, u.WorkspaceID, store.IsolationFilter{UserID: u.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !strings.HasPrefix(rows[0].Title, "Recording ") {
		t.Fatalf("isolations after the flow: %+v", rows)
	}
}

// withNoise mixes white noise into speech at snr dB (speech power over its non-silent samples),
// with a fixed seed so every run uploads the same file.
func withNoise(speech []int16, snr float64) []int16 {
	var power float64
	var n int
	for _, s := range speech {
		if s != 0 {
			power += float64(s) * float64(s)
			n++
		}
	}
	sigma := math.Sqrt(power / float64(max(n, 1)) / math.Pow(10, snr/10))
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]int16, len(speech))
	for i, s := range speech {
		out[i] = int16(max(-32768, min(32767, float64(s)+sigma*rng.NormFloat64())))
	}
	return out
}
