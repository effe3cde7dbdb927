package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
)

// TestBrowserAIClassifier: the classifier page recognises speech from this server's
// text-to-speech route and not the engine's own output of the same text (classifier.mjs).
func TestBrowserAIClassifier(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "cleo@example.com", "")
	ctx := context.Background()
	_, key, err := srv.App.Auth.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "classifier test")
	if err != nil {
		t.Fatal(err)
	}
	const text = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."
	req, _ := http.NewRequest("POST", srv.URL+"/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128",
		bytes.NewReader([]byte(`{"text":"`+text+`"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("xi-api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	made, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("text to speech: %d %s", res.StatusCode, made)
	}

	v, err := srv.App.DB.Voice(ctx, "", "21m00Tcm4TlvDq8ikWAM")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := srv.App.Engines[v.Engine].Synthesize(ctx, engine.Request{Text: text, Voice: v.EngineVoice, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := audio.ParseFormat("wav_16000")
	other, err := audio.Encode(ctx, raw.Audio.Samples, raw.Audio.SampleRate, wav)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	madeFile, otherFile := filepath.Join(dir, "timbre-speech.mp3"), filepath.Join(dir, "engine-speech.wav")
	if err := os.WriteFile(madeFile, made, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(otherFile, other, 0o600); err != nil {
		t.Fatal(err)
	}
	b.run(t, srv, "classifier.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword,
		"MADE_FILE="+madeFile, "OTHER_FILE="+otherFile)
}
