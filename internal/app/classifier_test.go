package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/store"
)

type classifierResponse struct {
	Probability *float64 `json:"ai_generated_probability"`
	Detected    *bool    `json:"watermark_detected"`
	Score       float64  `json:"watermark_score"`
	Duration    float64  `json:"duration_secs"`
	Detector    string   `json:"detector"`
}

func (e *env) classify(file []byte) classifierResponse {
	e.t.Helper()
	r := e.postForm("/v1/speech-classifier", "file", file, nil, "xi-api-key", e.key)
	expect(e.t, r, 200)
	var c classifierResponse
	if err := json.Unmarshal(r.body, &c); err != nil || c.Probability == nil || c.Detected == nil {
		e.t.Fatalf("classifier answered %s (%v)", r.body, err)
	}
	e.t.Logf("score %.2f, probability %.4f", c.Score, *c.Probability)
	return c
}

// encode makes an mp3 of samples, as Timbre's own encoder does.
func encodeMP3(t *testing.T, samples []int16, rate int) []byte {
	t.Helper()
	f, err := audio.ParseFormat("mp3_44100_128")
	if err != nil {
		t.Fatal(err)
	}
	out, err := audio.Encode(context.Background(), samples, rate, f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reencode64k is what a listener passing the file on might do: mp3 at 64 kbps, 16 kHz.
func reencode64k(t *testing.T, mp3 []byte) []byte {
	t.Helper()
	cmd := exec.Command(audio.FFmpeg, "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-ac", "1", "-ar", "16000", "-b:a", "64k", "-f", "mp3", "pipe:1")
	cmd.Stdin = bytes.NewReader(mp3)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Speech made through the TTS route carries this server's watermark, also after an mp3 64 kbps
// re-encode, in the leanest mp3 and at 8 kHz; the engine's own output of the same text and noise do not. Nothing is charged.
func TestSpeechClassifier(t *testing.T) {
	t.Setenv("TIMBRE_MAX_UPLOAD_MB", "1")
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	const text = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."
	made := e.speak(text)
	before := e.workspace().CharacterCount

	got := e.classify(made)
	if !*got.Detected || *got.Probability < 0.9 || got.Detector != "timbre_watermark_v1" || got.Duration < 3 {
		t.Fatalf("Timbre's speech: %+v", got)
	}
	if got := e.classify(reencode64k(t, made)); !*got.Detected {
		t.Fatalf("after mp3 64 kbps: %+v", got)
	}

	v, err := e.app.DB.Voice(ctx, "", rachel)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.app.Engines[v.Engine].Synthesize(ctx, engine.Request{Text: text, Voice: v.EngineVoice, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.classify(encodeMP3(t, res.Audio.Samples, res.Audio.SampleRate)); *got.Detected || *got.Probability > 0.1 {
		t.Fatalf("the raw engine's speech: %+v", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]int16, 3*16000)
	for i := range noise {
		noise[i] = int16(rng.NormFloat64() * 3000)
	}
	if got := e.classify(encodeMP3(t, noise, 16000)); *got.Detected || *got.Probability > 0.1 {
		t.Fatalf("noise: %+v", got)
	}
	if after := e.workspace().CharacterCount; after != before {
		t.Fatalf("the classifier charged: %d characters before, %d after", before, after)
	}
	// The leanest mp3 keeps the high band's mark; 8 kHz audio carries the speech band's.
	for _, format := range []string{"mp3_22050_32", "wav_8000"} {
		r := e.do("POST", "/v1/text-to-speech/"+rachel+"?output_format="+format, e.key, map[string]any{"text": text})
		expect(t, r, 200)
		if got := e.classify(r.body); !*got.Detected {
			t.Fatalf("%s: %+v", format, got)
		}
	}

	// Bad input: 422 naming file, 413 over the upload limit, 415 without a form.
	for name, file := range map[string][]byte{
		"empty":     {},
		"not audio": []byte("this is a text file, not audio at all"),
		"50 ms":     encodeMP3(t, noise[:800], 16000),
		"300 ms":    encodeMP3(t, noise[:4800], 16000),
	} {
		r := e.postForm("/v1/speech-classifier", "file", file, nil, "xi-api-key", e.key)
		if loc := fieldError(t, r); len(loc) != 2 || loc[1] != "file" {
			t.Errorf("%s: 422 names %v: %s", name, loc, r.body)
		}
	}
	r := e.postForm("/v1/speech-classifier", "other", nil, map[string]any{"text": "no file"}, "xi-api-key", e.key)
	if loc := fieldError(t, r); loc[1] != "file" {
		t.Errorf("no file: 422 names %v", loc)
	}
	expect(t, e.postForm("/v1/speech-classifier", "file", make([]byte, 1<<20+1), nil, "xi-api-key", e.key), 413)
	expect(t, e.do("POST", "/v1/speech-classifier", e.key, map[string]any{"file": "x"}), 415)
	expect(t, e.postForm("/v1/speech-classifier", "file", made, nil), 401)
}
