package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/store"
)

// TestBrowserSpeechToSpeech: a person uploads a recording on the Speech to Speech page, converts
// it to another voice, plays and downloads the result, and finds it in the page's history
// (sts.mjs). The recording is Rachel (flite slt) reading two Harvard sentences.
func TestBrowserSpeechToSpeech(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "stella@example.com", "")
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
	wav, _ := audio.ParseFormat("wav_16000")
	data, err := audio.Encode(ctx, raw.Audio.Samples, raw.Audio.SampleRate, wav)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "my-take.wav")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}

	b.run(t, srv, "sts.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword, "SPEECH_FILE="+file)

	// The database holds the one conversion the browser made, as an STS history item.
	items, _, err := srv.App.DB.ListHistory(ctx, u.WorkspaceID, store.HistoryFilter{PageSize: 10, Source: "STS"})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].VoiceID != "pNInz6obpgDQGcFmaJgB" || items[0].Text != "my-take" {
		t.Fatalf("STS history after the flow: %+v", items)
	}
}
