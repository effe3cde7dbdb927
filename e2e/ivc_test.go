package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine"
)

// speechFile writes the engine's reading of text (Rachel, flite slt) as an mp3 file.
func speechFile(t *testing.T, srv *Timbre, name, text string) string {
	t.Helper()
	ctx := context.Background()
	v, err := srv.App.DB.Voice(ctx, "", "21m00Tcm4TlvDq8ikWAM")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := srv.App.Engines[v.Engine].Synthesize(ctx, engine.Request{Text: text, Voice: v.EngineVoice, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	mp3, _ := audio.ParseFormat("mp3_44100_128")
	data, err := audio.Encode(ctx, raw.Audio.Samples, raw.Audio.SampleRate, mp3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSDKVoiceCloning drives instant cloning with the official ElevenLabs JS SDK (ivc.mjs):
// voices.ivc.create, voices.get with samples, the sample audio, speech with the clone,
// voices.update, voices.samples.delete, a refused bad file, voices.delete.
func TestSDKVoiceCloning(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	u, err := srv.App.DB.UserByEmail(context.Background(), srv.Email)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.App.DB.SetTier(context.Background(), u.WorkspaceID, "creator"); err != nil {
		t.Fatal(err)
	}
	one := speechFile(t, srv, "one.mp3", "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.")
	two := speechFile(t, srv, "two.mp3", "It is easy to tell the depth of a well. These days a chicken leg is a rare dish.")
	runNode(t, node, 180*time.Second, "ivc.mjs",
		"TIMBRE_BASE_URL="+srv.URL, "TIMBRE_API_KEY="+srv.APIKey, "SPEECH_FILE="+one, "SPEECH_FILE_2="+two, "ELEVENLABS_API_KEY=")
}

// TestBrowserVoiceLab: a person clones a voice from an uploaded recording in the Voice Lab and
// speaks with it in Text to Speech (voicelab.mjs).
func TestBrowserVoiceLab(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "vera@example.com", "starter")
	file := speechFile(t, srv, "my-voice.mp3", "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.")
	b.run(t, srv, "voicelab.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword, "SPEECH_FILE="+file)
}
